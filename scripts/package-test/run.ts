/**
 * `npm run test:package`: the package as a user installs it. Packs it with `npm pack` (which
 * builds first: dist/ is deleted before, so the tarball's code is the pack's own build), checks
 * what the tarball holds, installs it with `@pulumi/pulumi` into a fresh project outside the
 * repository, type-checks `program/index.ts` there (once as CommonJS, once as an ES module),
 * and runs each through Pulumi's own dynamic-provider plugin, started in that project, against
 * the emulator the tarball ships: preview, up, a change, refresh after an outside change,
 * destroy. Then `computeplatform-account program`, run from the installed bin against an account
 * made by hand, writes a program that type-checks there and whose up adopts everything without a
 * write. Then every program of the client and emulator pages, taken from the pages as a reader
 * copies them, runs in each project from the installed package. Nothing here resolves the package
 * from the repository: the plugin's cwd is the fresh project, so `__provider`'s
 * `require("pulumi-computeplatform/providers")` can only find the installed copy. Not part of
 * `npm test` (an install is tens of seconds); `.ci/run` runs it.
 *
 * The user's `@pulumi/pulumi` is theirs: the package names it as a peer (package.json's range),
 * so the projects are installed twice, on the range's floor and on the newest 3.x, and each tree
 * must hold one copy of it (a second, nested under the package, would split the SDK's state from
 * the one Pulumi's plugin runs). The full lifecycle runs on the floor as CommonJS and on the
 * newest as an ES module; the other two projects preview, through the plugin, with the key in
 * stack config only. `--sdk <version>` runs both flavors' full lifecycles on that one release
 * instead (how the floor was found: see docs/installation-configuration.md).
 */
import { strict as assert } from "node:assert";
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as semver from "semver";
import { captureProgramFile, EngineStack, type Registration, reveal } from "../../tools/engine";
import { programExportsFile } from "../../tools/engine/capture";
import { resolvingIds } from "../../tools/engine/examples";
import { checkTarball, type PackedFile } from "./tarball";
import { startPlugin } from "../../tools/engine/rig";
import { type Block, blocksOf, END, fileStem, outputProblems, runnableCopy } from "../../tools/docs/blocks";

const ROOT = path.resolve(__dirname, "../..");
const PROGRAM_DIR = path.join(__dirname, "program");
/**
 * The client's and the emulator's programs (they import no Pulumi), read from their pages, not
 * from copies kept here: a copy drifts (one kept a lookup its page had mended, and found the
 * deleted pod one run in 36). Each is an ES module (`.mts`, as the pages say: they await at the
 * top), in both projects.
 */
const DOC_PROGRAMS = ["docs/client.md", "docs/emulator.md"].flatMap((page) => blocksOf(page).filter((b) => b.kind === "program" && b.runs));
const docFile = (b: Block) => `${fileStem(b)}.mts`;
/** The Pulumi program, and the pages' programs. */
const SOURCES = ["index.ts", ...DOC_PROGRAMS.map(docFile)];
const KEY = "cp_package_test_5e1f0a93b2";
const REGISTRY_TOKEN = "ghp_package_test_token_7c2d";
const SECRET_KEYS = ["computeplatform:apiKey", "app:registryToken"];

const started = Date.now();
const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}`);

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} ${args.join(" ")} (in ${cwd}) failed: ${err.message}\n${stdout}${stderr}`)) : resolve(stdout),
    );
  });
}

/** The package's manifest, as packed. */
const MANIFEST = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { peerDependencies: Record<string, string> };
/** The `@pulumi/pulumi` releases the projects are installed on: the peer range's floor and the newest 3.x, or `--sdk`'s. */
function sdks(): { label: string; spec: string; full: Flavor[]; libCheck: boolean }[] {
  const at = process.argv.indexOf("--sdk");
  if (at > 0) return [{ label: `sdk-${process.argv[at + 1]}`, spec: process.argv[at + 1], full: ["commonjs", "module"], libCheck: true }];
  const floor = semver.minVersion(MANIFEST.peerDependencies["@pulumi/pulumi"])!.version;
  return [
    { label: "floor", spec: floor, full: ["commonjs"], libCheck: true },
    { label: "newest", spec: "^3", full: ["module"], libCheck: false },
  ];
}

/**
 * Every copy of `@pulumi/pulumi` in an installed tree, by path: one is what the user runs; a
 * second (under the package) would be a program whose resources register with an SDK the
 * plugin does not run.
 */
function sdkCopies(root: string): { where: string; version: string }[] {
  const found: { where: string; version: string }[] = [];
  const walk = (modules: string, depth: number) => {
    if (depth > 6 || !fs.existsSync(modules)) return;
    for (const entry of fs.readdirSync(modules)) {
      const scoped = entry.startsWith("@") ? fs.readdirSync(path.join(modules, entry)).map((e) => `${entry}/${e}`) : [entry];
      for (const name of scoped) {
        const dir = path.join(modules, name);
        if (name === "@pulumi/pulumi") found.push({ where: path.relative(root, dir), version: JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version });
        walk(path.join(dir, "node_modules"), depth + 1);
      }
    }
  };
  walk(path.join(root, "node_modules"), 0);
  for (const ws of ["cjs", "esm"]) walk(path.join(root, ws, "node_modules"), 1);
  return found;
}

/**
 * The TypeScript a project on `sdk` uses: the repository's own, unless that release of the SDK
 * asks for an older one (its optional peer range: 3.x releases of 2024 take TypeScript below 6),
 * as a user on that release would have.
 */
async function typescriptFor(sdk: string): Promise<string> {
  const own = installedVersion("typescript");
  if (!semver.valid(sdk)) return own;
  const peers = JSON.parse((await run("npm", ["view", `@pulumi/pulumi@${sdk}`, "peerDependencies", "--json", "--prefer-offline"], ROOT)) || "{}") as Record<string, string>;
  return !peers.typescript || semver.satisfies(own, peers.typescript) ? own : peers.typescript;
}

/** The version the repository itself installed: the fresh project asks for the same, so npm's cache serves it. */
const installedVersion = (name: string) => JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")).version as string;

const write = (file: string, content: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`);
};

type Flavor = "commonjs" | "module";

/**
 * A user's infra repository with two Pulumi projects, `cjs/` and `esm/`, as npm workspaces: each
 * declares its own dependencies (the tarball, `@pulumi/pulumi`, TypeScript and Node's types),
 * one `npm install` hoists them into the root's node_modules.
 */
function writeProjects(dir: string, tarball: string, sdk: string, typescript: string, libCheck: boolean): Record<Flavor, string> {
  write(path.join(dir, "package.json"), { name: "infra", private: true, workspaces: ["cjs", "esm"] });
  const dirs = { commonjs: path.join(dir, "cjs"), module: path.join(dir, "esm") };
  for (const [type, project] of Object.entries(dirs) as [Flavor, string][]) {
    const name = `pkgtest-${path.basename(project)}`;
    write(path.join(project, "package.json"), {
      name,
      private: true,
      type,
      main: "bin/index.js",
      dependencies: { "@pulumi/pulumi": sdk, "pulumi-computeplatform": `file:${tarball}` },
      devDependencies: { typescript, "@types/node": installedVersion("@types/node") },
    });
    write(path.join(project, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\nmain: bin/index.js\n`);
    write(path.join(project, "tsconfig.json"), {
      compilerOptions: {
        strict: true,
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        types: ["node"],
        outDir: "bin",
        // The CommonJS project on the floor also checks every installed declaration file (a
        // .d.ts naming a type the oldest SDK lacks fails here, as 3.138's lack of
        // pulumi.dynamic.Config did); that takes 15 s or more, so the other projects skip it.
        skipLibCheck: !(libCheck && type === "commonjs"),
      },
      files: SOURCES,
    });
    fs.copyFileSync(path.join(PROGRAM_DIR, "index.ts"), path.join(project, "index.ts"));
    for (const b of DOC_PROGRAMS) write(path.join(project, docFile(b)), runnableCopy(b));
  }
  return dirs;
}

async function pack(dir: string): Promise<{ tarball: string; files: PackedFile[]; size: number; unpackedSize: number }> {
  const out = await run("npm", ["pack", "--json", "--pack-destination", dir], ROOT);
  const [info] = JSON.parse(out) as { filename: string; files: PackedFile[]; size: number; unpackedSize: number }[];
  return { tarball: path.join(dir, info.filename), files: info.files, size: info.size, unpackedSize: info.unpackedSize };
}

interface Emulator {
  url: string;
  close(): Promise<void>;
  state(): Record<string, { id: string; status?: string }[]>;
  requestLog(): { method: string; op: string; path: string; status: number }[];
}

/**
 * One project's stack through the plugin: preview, up, a change, refresh after an outside change,
 * destroy; or (`full` false) the preview alone, whose cost line the provider prices from the
 * catalog with the key stack config gave it (the plugin's environment has none).
 */
async function lifecycle(flavor: string, project: string, emu: Emulator, full = true): Promise<void> {
  const name = `pkgtest-${path.basename(project)}`;
  // A pod made outside the stack, which the program adopts.
  const { ComputePlatform } = require(require.resolve("pulumi-computeplatform/client", { paths: [project] }));
  const client = new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, pacing: false });
  const legacy = await client.pods.create({ name: "legacy-notebook", image: "jupyter/base-notebook:2024-10", gpu: { id: "NVIDIA RTX A6000" } });
  const base = {
    "app:notebookPodId": legacy.id,
    "computeplatform:apiKey": KEY,
    "computeplatform:apiUrl": emu.url,
    "computeplatform:serverlessUrl": emu.url,
    "app:registryUser": "ci-bot",
    "app:registryToken": REGISTRY_TOKEN,
  };
  const program = (config: Record<string, string>, preview = false): Promise<Registration[]> =>
    captureProgramFile(path.join(project, "bin/index.js"), {
      cwd: project,
      project: name,
      stack: "dev",
      preview,
      config,
      secretKeys: SECRET_KEYS,
      env: { COMPUTEPLATFORM_API_KEY: undefined },
    });
  const plugin = await startPlugin(base, { cwd: project, project: name, secretKeys: SECRET_KEYS });
  try {
    const stack = new EngineStack(plugin, { project: name, stack: "dev" });
    const ops = (r: { steps: { urn: string; op: string }[] }) => Object.fromEntries(r.steps.map((s) => [s.urn.split("::").at(-1), s.op]));
    const writes = () => emu.requestLog().filter((e) => e.method !== "GET" && e.op !== "myself" && !e.op.startsWith("catalog")).length;
    const ok = (what: string, r: { error?: Error; failures?: unknown }) =>
      assert.ok(!r.error && !r.failures, `${flavor} ${what}: ${r.error?.message ?? JSON.stringify(r.failures)}`);
    const all = { ghcr: "create", data: "create", "stack-cost": "create", trainer: "create", app: "create", notebook: "create", fallback: "create", worker: "create", api: "create", "smoke-test": "create" };

    const writesBefore = writes();
    // Pods made: a create the platform refused for lack of capacity made none.
    const creates = () => emu.requestLog().filter((e) => e.op === "createPod" && e.status < 300).length;
    const podsBefore = creates();
    const regs = await program(base, true);
    const preview = await stack.preview(resolvingIds(stack, regs, { preview: true }));
    ok("preview", preview);
    assert.deepEqual(ops(preview), all);
    assert.equal(writes(), writesBefore, `${flavor} preview sent a write request`);
    for (const r of regs) assert.match(String(r.inputs.__provider), /require\("pulumi-computeplatform\/providers"\)/);
    log(`${flavor}: preview: ${regs.length} resources to create, no write request`);
    if (!full) {
      assert.match(plugin.transcript(), /cost: \$[\d.]+(-\$[\d.]+)?\/h/, `${flavor}: the preview's cost line, priced with the key from stack config`);
      await client.pods.delete(legacy.id);
      log(`${flavor}: the preview priced the stack with the key from stack config`);
      return;
    }

    // What the program registers comes from a preview's run (the mocks' ids are placeholders, so
    // no function of the program may send anything); the up's smoke-test step sends its job to
    // the endpoint just made, and the program's exports read its answer from the state.
    const up = await stack.up(resolvingIds(stack, await program(base, true), { preview: false }));
    ok("up", up);
    assert.deepEqual(ops(up), all);
    const out = (n: string) => [...stack.resources.values()].find((r) => r.urn.endsWith(`::${n}`))!;
    const live = [...stack.resources.values()].map((r) => ({ type: r.type, name: r.urn.split("::").at(-1)!, id: r.id, outputs: r.outputs }));
    const exported = await programExportsFile(path.join(project, "bin/index.js"), live, { cwd: project, project: name, stack: "dev", config: base, secretKeys: SECRET_KEYS, env: { COMPUTEPLATFORM_API_KEY: undefined } });
    assert.equal(exported.smokeStatus?.value, "COMPLETED");
    assert.deepEqual(exported.smokeOutput?.value, { prompt: "Say hello" }, "the endpoint's test worker echoes the smoke job's input");
    assert.deepEqual(exported.endpointUrls?.value, { run: `${emu.url}/v2/${out("api").id}/run`, runSync: `${emu.url}/v2/${out("api").id}/runsync` });
    assert.deepEqual(out("trainer").outputs.gpu, { id: "NVIDIA GeForce RTX 4090", count: 1 });
    assert.equal(out("trainer").outputs.status, "RUNNING");
    assert.deepEqual(out("trainer").outputs.mounts, { network: [{ volumeId: out("data").id, path: "/workspace" }] });
    assert.equal(out("data").outputs.dataCenter, "EU-RO-1");
    assert.deepEqual(out("app").outputs.cpu, { id: "cpu3c", vcpuCount: 2, memory: 4 });
    assert.equal(out("app").outputs.registry, out("ghcr").id);
    assert.equal(out("api").outputs.templateId, out("worker").id);
    // Adopted, not made: the same pod, PATCHed to the declared image, one pod created in all.
    assert.equal(out("notebook").id, legacy.id);
    assert.equal(out("notebook").outputs.image, "jupyter/base-notebook:2024-12");
    // The fallback pod: the H100 is dearer than its maxHourlyCost, so it is not even tried; the
    // A100 has no capacity (the emulator's noCapacity), so the pod lands on the L40S.
    assert.deepEqual(out("fallback").outputs.gpu, { id: "NVIDIA L40S", count: 1 });
    assert.equal(out("fallback").outputs.hourlyCost, 0.86);
    assert.equal(creates() - podsBefore, 3, "pods made: trainer, app, fallback (the notebook is adopted)");
    assert.match(plugin.transcript(), /cost: \$[\d.]+(-\$[\d.]+)?\/h/, "up prints the stack's cost line");
    log(`${flavor}: up: ${Object.keys(all).join(", ")} created; the smoke job answered by endpoint api`);

    const changed = { ...base, "app:image": "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime", "app:workersMax": "3" };
    const change = await stack.up(resolvingIds(stack, await program(changed, true), { preview: false }));
    ok("change", change);
    // workersMax is not what the smoke job tests (the endpoint's id, what its workers run, the input): it sends nothing.
    assert.deepEqual(ops(change), { ghcr: "same", data: "same", "stack-cost": "update", trainer: "update", app: "same", notebook: "same", fallback: "same", worker: "same", api: "update", "smoke-test": "same" });
    assert.equal(out("trainer").outputs.image, changed["app:image"]);
    assert.equal(out("api").outputs.workersMax, 3);
    log(`${flavor}: change: trainer image and api workersMax updated in place`);

    // Someone edits the template outside the stack, with the client the tarball ships.
    await client.templates.update(out("worker").id, { env: { MAX_MODEL_LEN: "8192" } });
    const refresh = await stack.refresh();
    ok("refresh", refresh);
    assert.deepEqual(reveal(out("worker").outputs.env), { MAX_MODEL_LEN: "8192" });
    log(`${flavor}: refresh: the template's outside edit read back`);

    const destroy = await stack.destroy();
    ok("destroy", destroy);
    const left = Object.fromEntries(
      ["pods", "networkVolumes", "templates", "registries", "endpoints"].map((k) => [k, (emu.state()[k] ?? []).filter((x) => x.status !== "TERMINATED").length]),
    );
    assert.deepEqual(left, { pods: 0, networkVolumes: 0, templates: 0, registries: 0, endpoints: 0 });
    for (const secret of [KEY, REGISTRY_TOKEN]) {
      assert.ok(!stack.stateText().includes(secret), `${flavor}: a secret in plain state`);
      assert.ok(!plugin.transcript().includes(secret), `${flavor}: a secret in the plugin's output`);
    }
    log(`${flavor}: destroy: nothing left; no key or token in state or plugin output`);

  } finally {
    await client.close();
    await plugin.stop();
  }
}

/**
 * `computeplatform-account program`, run from the installed package against an account made by
 * hand (a credential, a volume, templates, a pod on the volume, endpoints over GraphQL and REST):
 * the program it writes type-checks in `project` against the installed package, and its up
 * through the plugin adopts every object with no write, then previews `same` (issue 47).
 */
async function accountProgram(project: string, emu: Emulator): Promise<void> {
  const name = `pkgtest-${path.basename(project)}`;
  const { ComputePlatform } = require(require.resolve("pulumi-computeplatform/client", { paths: [project] }));
  const client = new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, pacing: false });
  const cred = await client.registries.create({ name: "ghcr", username: "ci-bot", password: REGISTRY_TOKEN });
  const volume = await client.networkVolumes.create({ name: "datasets", size: 50, dataCenter: "EU-RO-1" });
  const tpl = await client.templates.create({ name: "sdxl-worker", image: "sdxl:1", serverless: true, env: { HF_TOKEN: REGISTRY_TOKEN } });
  await client.pods.create({ name: "trainer", image: "ghcr.io/acme/train:1", gpu: { id: "NVIDIA L40S" }, registry: cred.id, mounts: { network: [{ volumeId: volume.id, path: "/data" }] } });
  await client.endpoints.save({ name: "image-api", gpuIds: "ADA_24", templateId: tpl.id, workersMin: 0, workersMax: 2 });
  await client.serverless.create({ name: "rest-api", image: "echo:1", gpu: { pools: ["AMPERE_24"] }, workers: { min: 0, max: 1 } });
  const dir = path.join(project, "adopted");
  const env = { ...process.env, COMPUTEPLATFORM_API_KEY: KEY, COMPUTEPLATFORM_API_URL: emu.url };
  const report = await run(path.join(project, "../node_modules/.bin/computeplatform-account"), ["program", "--out", path.join(dir, "index.ts")], project, env);
  const text = fs.readFileSync(path.join(dir, "index.ts"), "utf8");
  for (const secret of [KEY, REGISTRY_TOKEN]) assert.ok(!report.includes(secret) && !text.includes(secret), "a secret in the written program or its report");
  // The installed declaration files were checked with the project's own program: skipped here.
  write(path.join(dir, "tsconfig.json"), { extends: "../tsconfig.json", compilerOptions: { outDir: "bin", skipLibCheck: true }, files: ["index.ts"] });
  await run(process.execPath, [path.join(project, "../node_modules/typescript/bin/tsc"), "-p", dir], dir);
  const config = {
    "computeplatform:apiKey": KEY,
    "computeplatform:apiUrl": emu.url,
    [`${name}:ghcrCredentialUsername`]: "ci-bot",
    [`${name}:ghcrCredentialPassword`]: REGISTRY_TOKEN,
    [`${name}:sdxlWorkerTemplateEnv`]: JSON.stringify({ HF_TOKEN: REGISTRY_TOKEN }),
  };
  const secrets = Object.keys(config).filter((k) => k !== "computeplatform:apiUrl");
  const program = (preview: boolean) =>
    captureProgramFile(path.join(dir, "bin/index.js"), { cwd: project, project: name, stack: "adopted", preview, config, secretKeys: secrets, env: { COMPUTEPLATFORM_API_KEY: undefined } });
  const plugin = await startPlugin(config, { cwd: project, project: name, secretKeys: secrets });
  try {
    const stack = new EngineStack(plugin, { project: name, stack: "adopted" });
    const writes = () => emu.requestLog().filter((e) => e.method !== "GET" && e.op !== "myself").length;
    const before = writes();
    const up = await stack.up(resolvingIds(stack, await program(true), { preview: false }));
    assert.ok(!up.error && !up.failures, `adopted up: ${up.error?.message ?? JSON.stringify(up.failures)}`);
    assert.equal(writes(), before, "the written program's up sent a write");
    const again = await stack.preview(resolvingIds(stack, await program(true), { preview: true }));
    assert.deepEqual([...new Set(again.steps.map((s) => s.op))], ["same"], "after the up the written program previews same");
    log(`account program: ${up.steps.length - 1} objects adopted by the written program, no write request, then same`);
    assert.ok((await stack.destroy()).error === undefined, "the adopted stack's destroy");
  } finally {
    await client.close();
    await plugin.stop();
  }
}

/** The pages' programs, as compiled in `project`, run from the installed package against the emulator. */
async function docPrograms(flavor: Flavor, project: string, emu: Emulator): Promise<void> {
  const env = { ...process.env, COMPUTEPLATFORM_API_KEY: KEY, COMPUTEPLATFORM_API_URL: emu.url, COMPUTEPLATFORM_SERVERLESS_URL: emu.url, GHCR_TOKEN: REGISTRY_TOKEN };
  const printed: string[] = [];
  for (const b of DOC_PROGRAMS) {
    const out = await run(process.execPath, [`bin/${fileStem(b)}.mjs`], project, env);
    assert.deepEqual(outputProblems(b, out), [], `${flavor}: ${b.page}:${b.line}, run from the installed package`);
    if (b.transcript) printed.push(out.replace(`${END}\n`, ""));
  }
  const where = DOC_PROGRAMS.map((b) => `${b.page}:${b.line}`).join(", ");
  log(`${flavor}: the pages' programs ran to their ends (${where}); those with a transcript printed it:\n${printed.join("")}`.trimEnd());
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "computeplatform-package-"));
  assert.ok(path.relative(ROOT, dir).startsWith(".."), "the fresh project must be outside the repository");
  const keep = process.argv.includes("--keep");
  let emu: Emulator | undefined;
  try {
    // From a clone nothing is built: `npm pack` must build (prepack). dist/ removed first, so a
    // tarball with code in it proves the pack built it.
    fs.rmSync(path.join(ROOT, "dist"), { recursive: true, force: true });
    const packed = await pack(dir);
    assert.ok(packed.files.some((f) => f.path === "dist/index.js"), "npm pack built dist/ (prepack)");
    checkTarball(packed.files, ROOT);
    log(`packed ${path.basename(packed.tarball)}: ${packed.files.length} files, ${packed.size} bytes (${packed.unpackedSize} unpacked)`);

    // One user repository per SDK release, installed side by side.
    const trees = sdks().map((sdk) => ({ ...sdk, root: path.join(dir, sdk.label) }));
    const typescripts = await Promise.all(trees.map((t) => typescriptFor(t.spec)));
    const projectsOf = new Map(trees.map((t, i) => [t.label, writeProjects(t.root, packed.tarball, t.spec, typescripts[i], t.libCheck)]));
    await Promise.all(trees.map((t) => run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], t.root)));
    for (const t of trees) {
      const installed = path.join(t.root, "node_modules/pulumi-computeplatform");
      assert.ok(!fs.lstatSync(installed).isSymbolicLink(), "the package must be installed from the tarball, not linked");
      const copies = sdkCopies(t.root);
      assert.deepEqual(copies.map((c) => c.where), ["node_modules/@pulumi/pulumi"], `${t.label}: one copy of @pulumi/pulumi in the tree (${JSON.stringify(copies)})`);
      if (semver.valid(t.spec)) assert.equal(copies[0].version, t.spec, `${t.label}: the project's own @pulumi/pulumi`);
      t.spec = copies[0].version;
    }
    log(`installed into ${dir}: ${trees.map((t) => `${t.label} @pulumi/pulumi ${t.spec}`).join(", ")}, one copy each`);

    await Promise.all(
      trees.flatMap((t) => {
        const tsc = path.join(t.root, "node_modules/typescript/bin/tsc");
        return Object.values(projectsOf.get(t.label)!).map((p) => run(process.execPath, [tsc, "-p", p], p));
      }),
    );
    for (const projects of projectsOf.values()) {
      const esm = fs.readFileSync(path.join(projects.module, "bin/index.js"), "utf8");
      const cjs = fs.readFileSync(path.join(projects.commonjs, "bin/index.js"), "utf8");
      assert.match(esm, /^import .* from "pulumi-computeplatform";$/m, "the ESM build imports the package");
      assert.match(cjs, /require\("pulumi-computeplatform"\)/, "the CommonJS build requires the package");
    }
    log("type-checked and compiled on each release: cjs/ (CommonJS), esm/ (ES module)");
    const newest = trees.at(-1)!;
    const projects = projectsOf.get(newest.label)!;

    const bin = await run(path.join(newest.root, "node_modules/.bin/computeplatform-emulator"), ["--help"], newest.root);
    assert.match(bin, /--port/);
    const { startEmulator } = require(require.resolve("pulumi-computeplatform/emulator", { paths: [projects.commonjs] }));
    emu = (await startEmulator({
      port: 0,
      keys: [{ key: KEY, scopes: ["read", "write"] }],
      quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 },
      timings: { provisioningMs: 10, startingMs: 10, drainMs: 10, restartDelayMs: 20 },
      faults: { noCapacity: [{ gpuId: "NVIDIA A100-SXM4-80GB" }] },
    })) as Emulator;
    log(`emulator from the tarball at ${emu.url}`);
    // The console's browser files ship beside the emulator's code and are served from there.
    for (const asset of ["console.js", "console.css"]) {
      const res = await fetch(`${emu.url}/console/assets/${asset}`);
      assert.equal(res.status, 200, `the tarball's emulator serves /console/assets/${asset}`);
      assert.ok((await res.text()).length > 0, `/console/assets/${asset} is not empty`);
    }
    log("the console's script and stylesheet are served from the tarball");

    for (const t of trees) {
      for (const [flavor, project] of Object.entries(projectsOf.get(t.label)!) as [Flavor, string][]) {
        await lifecycle(`${flavor} on @pulumi/pulumi ${t.spec}`, project, emu, t.full.includes(flavor));
      }
    }
    await accountProgram(projects.commonjs, emu);
    // After both stacks: the pages' programs leave what they make (a registry, a template), which
    // a stack's "nothing left" after its destroy would count.
    await docPrograms("commonjs", projects.commonjs, emu);
    await docPrograms("module", projects.module, emu);
    log("OK");
  } finally {
    await emu?.close();
    if (keep) console.log(`kept ${dir}`);
    // 16 000 files take half a minute to delete on a busy disk: a detached rm does it after we exit.
    else spawn("rm", ["-rf", dir], { detached: true, stdio: "ignore" }).unref();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exitCode = 1;
});

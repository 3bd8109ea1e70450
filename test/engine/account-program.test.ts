// `computeplatform-account program` against an emulator holding what a team made by hand: pods
// (one on a network volume with a private image, one stopped), a volume, templates, a registry
// credential, endpoints made over GraphQL and over REST, plus what no stack may adopt (a pod
// another stack made, an unfinished create). The program it writes type-checks against the
// built package imported by name, runs as `pulumi up` runs it, and goes through Pulumi's plugin:
// its up adopts every object with no create, update or delete request, then it previews `same`.
// No secret is written into the program or printed. The plugin loads dist/: `npm run build` first.
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { main } from "../../src/account/cli";
import { EngineStack, PROJECT, SECRET_KEYS } from "../../tools/engine";
import { typescriptProgramEnv, userProject } from "../../tools/engine/project";
import { captureProgramFile } from "../../tools/engine/capture";
import { resolvingIds, ROOT } from "../../tools/engine/examples";
import { engineRigForFile } from "../../tools/engine/rig";
import { resourceSteps } from "../helpers/ledger";

const KEY = "cp_sentinel_account_program_3b8e61";
const rig = engineRigForFile(KEY);
const TSC = path.join(ROOT, "node_modules/typescript-native/bin/tsc");
const PASSWORD = "registry-secret-5d1c";
const ENV_SECRET = "hf_token_value_77a2";

let dir: string;
// A Pulumi project of the user's: the package and the SDK resolved by name, as after `npm install`.
beforeAll(() => (dir = userProject("account-program-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the written program adopts every object: no create, update or delete, then same", async () => {
  const c = rig.client;
  const credential = await c.registries.create({ name: "ghcr", username: "robot", password: PASSWORD });
  const volume = await c.networkVolumes.create({ name: "datasets", size: 50, dataCenter: "EU-RO-1" });
  const podTemplate = await c.templates.create({ name: "private-app", image: "ghcr.io/acme/app:1", registry: credential.id, ports: ["8080/http"] });
  const workerTemplate = await c.templates.create({ name: "sdxl-worker", image: "sdxl:1", serverless: true, env: { HF_TOKEN: ENV_SECRET } });
  const trainer = await c.pods.create({ name: "trainer", image: "ghcr.io/acme/train:1", gpu: { id: "NVIDIA L40S" }, registry: credential.id, env: { HF_TOKEN: ENV_SECRET }, mounts: { network: [{ volumeId: volume.id, path: "/data" }] } });
  const stopped = await c.pods.create({ name: "scratch", image: "dev:1", cpu: { id: "cpu3c", vcpuCount: 4 } });
  const graphqlEp = await c.endpoints.save({ name: "image-api", gpuIds: "ADA_24,AMPERE_24", templateId: workerTemplate.id, workersMin: 0, workersMax: 2, networkVolumeId: volume.id });
  const restEp = await c.serverless.create({ name: "rest-api", image: "echo:1", gpu: { pools: ["AMPERE_24"] }, workers: { min: 0, max: 1 } });
  // Not adoptable: a pod another stack's resource made, and an unfinished create.
  const marked = await c.pods.create({ name: "theirs", image: "t:1", gpu: { id: "NVIDIA L40S" }, env: { COMPUTEPLATFORM_OWNER: "0123456789abcdef.00c0ffee" } });
  const pending = await c.templates.create({ name: "worker-1a2b3c4~creating", image: "w:1" });
  for (let i = 0; i < 300 && (await c.pods.get(stopped.id)).status !== "RUNNING"; i++) await new Promise((r) => setTimeout(r, 10));
  await c.pods.action(stopped.id, "stop");

  const file = path.join(dir, "index.ts");
  const env = { COMPUTEPLATFORM_API_KEY: KEY, COMPUTEPLATFORM_API_URL: rig.emu.url };
  const printed = await main(["program", "--out", file], env);
  const text = readFileSync(file, "utf8");
  for (const out of [printed, text]) {
    for (const secret of [KEY, PASSWORD, ENV_SECRET]) expect(out).not.toContain(secret);
  }
  expect(printed).toContain(`Pod ${marked.id} ("theirs"): made by a Pulumi stack's Pod`);
  expect(printed).toContain(`Template ${pending.id} ("worker-1a2b3c4~creating"): an unfinished create of a stack`);
  expect(printed).toContain("pulumi config set --secret ghcrCredentialPassword <the password or token of registry credential");
  // References as references: the pod's volume and credential, the endpoint's template.
  expect(text).toContain("volumeId: datasetsVolume.id");
  expect(text).toContain("registry: ghcrCredential.id");
  expect(text).toContain("templateId: sdxlWorkerTemplate.id");

  // It type-checks against the package as a project imports it.
  const tsc = await promisify(execFile)(process.execPath, [TSC, "-p", path.join(dir, "tsconfig.json"), "--noEmit"], { cwd: dir, timeout: 60_000 }).then(
    () => "",
    (e: { stdout?: string }) => e.stdout ?? String(e),
  );
  expect(tsc).toBe("");

  // The config the report names, set as a user would (secrets).
  const secrets = {
    [`${PROJECT}:ghcrCredentialUsername`]: "robot",
    [`${PROJECT}:ghcrCredentialPassword`]: PASSWORD,
    [`${PROJECT}:trainerPodEnv`]: JSON.stringify({ HF_TOKEN: ENV_SECRET }),
    [`${PROJECT}:sdxlWorkerTemplateEnv`]: JSON.stringify({ HF_TOKEN: ENV_SECRET }),
  };
  const config = { ...rig.config, ...secrets };
  const run = (preview: boolean) =>
    captureProgramFile(file, { cwd: dir, project: PROJECT, stack: "adopted", preview, config, secretKeys: [...SECRET_KEYS, ...Object.keys(secrets)], env: typescriptProgramEnv() });
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "adopted" });

  const preview = await stack.preview(resolvingIds(stack, await run(true), { preview: true }));
  expect(preview.failures).toBeUndefined();
  expect(preview.error).toBeUndefined();
  // The endpoint's template and volume are adopted in the same up: their ids are known then.
  await rig.plugin.waitForTranscript(`adopts endpoint ${graphqlEp.id}: nothing is created; the first up changes nothing on it (templateId, networkVolumeId: known at up, from resources not made yet)`);
  const from = rig.emu.requestLog().length;
  const up = await stack.up(resolvingIds(stack, await run(false), { preview: false }));
  expect(up.error).toBeUndefined();
  const steps = resourceSteps(up);
  expect(steps.map((s) => s.op).every((op) => op === "create")).toBe(true);
  const adopted = [...stack.resources.values()].filter((r) => !r.type.endsWith(":StackCost")).map((r) => r.id).sort();
  // The REST endpoint's own template (its create made it) too: over GraphQL the endpoint names it.
  const restTemplate = (await c.endpoints.get(restEp.id)).templateId;
  expect(adopted).toEqual([credential.id, volume.id, podTemplate.id, workerTemplate.id, restTemplate, trainer.id, stopped.id, graphqlEp.id, restEp.id].sort());
  // Nothing written: no create, update, delete or save reached the platform.
  const writes = rig.emu.requestLog().slice(from).filter((e) => (e.method !== "GET" && e.op !== "myself") || /^(save|delete|create|update)/.test(e.op));
  expect(writes.map((e) => `${e.method} ${e.path} ${e.op}`)).toEqual([]);

  const again = await stack.preview(resolvingIds(stack, await run(true), { preview: true }));
  expect(resourceSteps(again).map((s) => `${s.op} ${s.urn.split("::").at(-1)}`).filter((s) => !s.startsWith("same"))).toEqual([]);
  expect(stack.stateText()).not.toContain(KEY);
});

// Accounts as values, through Pulumi's own dynamic-provider plugin: one program holds resources
// on two accounts of one emulator (the stack's, from stack config, and another named by the
// resources' `account`). Each account's requests carry its own key and its objects stay in it;
// the key is secret in state and in no log line; the cost line names both; a rotated key is recorded in place without a
// write; a change of account previews as a replacement and moves the object; destroy empties both.
// The smoke test of an endpoint on the other account sends its job there, with that account's key.
// The stack's budget under `pulumi up --target`, one new plugin process per command as under the
// CLI, counts the stack's pod on the account the command does not touch. The README's program of
// two accounts runs as copied.
// The plugin loads dist/: run `npm run build` before this file alone.
import { rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { fingerprint } from "../../src/emulator/core/request-log";
import { NetworkVolume } from "../../src/resources/network-volume";
import { Pod } from "../../src/resources/pod";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { runSyncSmokeTest } from "../../src/resources/serverless-endpoint/smoke";
import { captureProgram, EngineStack, isSecret, PROJECT, reveal, SECRET_KEYS, urnOf } from "../../tools/engine";
import { captureProgramFile } from "../../tools/engine/capture";
import { resolvingIds } from "../../tools/engine/examples";
import { typescriptProgramEnv, userProject } from "../../tools/engine/project";
import { blocksOf } from "../../tools/docs/blocks";
import { engineRigForFile, startPlugin } from "../../tools/engine/rig";
import { resourcesOf, resourceSteps } from "../helpers/ledger";

const TEAM = "cp_acct_engine_team_51c0";
const SHARED = "cp_acct_engine_shared_9e7d";
const SHARED_ROTATED = "cp_acct_engine_shared2_2f4a";
const GPU = "NVIDIA L40S";
const SMOKE_PROMPT = "sntl-smoke-prompt-4f81";
const rig = engineRigForFile(TEAM, {
  keys: [
    { key: TEAM, scopes: ["read", "write"], account: "team" },
    { key: SHARED, scopes: ["read", "write"], account: "shared" },
    { key: SHARED_ROTATED, scopes: ["read", "write"], account: "shared" },
  ],
});

const program = (o: { remoteKey?: string; remoteOnShared?: boolean }, preview = false) =>
  captureProgram(
    () => {
      const shared = { name: "shared", apiKey: pulumi.secret(o.remoteKey ?? SHARED), apiUrl: rig.emu.url };
      new Pod("local", { image: "img/app:1", gpu: { id: GPU } });
      new Pod("remote", { image: "img/app:1", gpu: { id: GPU }, ...(o.remoteOnShared === false ? {} : { account: shared }) });
      new NetworkVolume("data", { size: 10, dataCenter: "EU-RO-1", account: shared });
    },
    { project: PROJECT, stack: "dev", preview, config: rig.config, secretKeys: SECRET_KEYS },
  );

const live = (account: string) => rig.emu.state(account).pods.filter((p) => p.status !== "TERMINATED");
const ops = (r: Parameters<typeof resourceSteps>[0]) => Object.fromEntries(resourceSteps(r).map((s) => [s.urn.split("::").at(-1), [s.op, s.diff?.replaces ?? []]]));

test("one program on two accounts: each account's own key and objects, the key secret, a rotation in place, a move replaces", async () => {
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "dev" });
  const up = await stack.up(await program({}));
  expect(up.error).toBeUndefined();
  const byName = (n: string) => resourcesOf(stack).find((r) => r.urn.endsWith(`::${n}`))!;
  expect(live("team").map((p) => p.id)).toEqual([byName("local").id]);
  expect(live("shared").map((p) => p.id)).toEqual([byName("remote").id]);
  expect(rig.emu.state("shared").networkVolumes.map((v) => v.id)).toEqual([byName("data").id]);
  expect(rig.emu.state("team").networkVolumes).toEqual([]);
  // The cost line names each account and what it runs (the volume is not a costed kind).
  expect(rig.plugin.transcript()).toContain("pod remote (account shared) added");
  expect(rig.plugin.transcript()).toContain("; by account: the stack's $0.86/h, shared $0.86/h");
  // Each account's writes carried its own key.
  const writes = (op: string) => rig.emu.requestLog().filter((e) => e.op === op && e.status < 300).map((e) => [e.account, e.key]);
  expect(writes("createPod").sort()).toEqual([["shared", fingerprint(SHARED)], ["team", fingerprint(TEAM)]]);
  expect(writes("createNetworkVolume")).toEqual([["shared", fingerprint(SHARED)]]);
  // The account is secret in state (its key inside), and no key shows in plain text anywhere.
  expect(isSecret(byName("remote").outputs.account)).toBe(true);
  const masked = JSON.stringify([...stack.resources.values()], (_k, v) => (isSecret(v) ? "[secret]" : v));
  for (const key of [SHARED, TEAM]) {
    expect(masked).not.toContain(key);
    expect(rig.plugin.transcript()).not.toContain(key);
  }

  // Read with .get from the account its state names; a resource option passed third is refused by name.
  const reads = new EngineStack(rig.plugin, { project: PROJECT, stack: "reads" });
  const got = await reads.up(
    await captureProgram(() => void Pod.get("seen", byName("remote").id, { account: { name: "shared", apiKey: pulumi.secret(SHARED), apiUrl: rig.emu.url } }), {
      project: PROJECT,
      stack: "reads",
      config: rig.config,
      secretKeys: SECRET_KEYS,
    }),
  );
  expect(got.error).toBeUndefined();
  expect(resourcesOf(reads).map((r) => r.id)).toEqual([byName("remote").id]);
  expect(() => Pod.get("x", "p1", { protect: true } as never)).toThrow('Pod.get(name, id, state?, opts?): "protect" is not a field of its state (account)');

  // A rotated key for the same account: an update that writes nothing; later reads use the new key.
  const before = rig.emu.requestLog().length;
  const preview = await stack.preview(await program({ remoteKey: SHARED_ROTATED }, true));
  expect(ops(preview)).toMatchObject({ remote: ["update", []], data: ["update", []], local: ["same", []] });
  const rotated = await stack.up(await program({ remoteKey: SHARED_ROTATED }));
  expect(rotated.error).toBeUndefined();
  expect(rig.emu.requestLog().slice(before).filter((e) => e.method !== "GET" && e.op !== "myself")).toEqual([]);
  const refreshFrom = rig.emu.requestLog().length;
  expect((await stack.refresh()).error).toBeUndefined();
  const sharedReads = rig.emu.requestLog().slice(refreshFrom).filter((e) => e.account === "shared");
  expect(sharedReads.length).toBeGreaterThan(0);
  expect(new Set(sharedReads.map((e) => e.key))).toEqual(new Set([fingerprint(SHARED_ROTATED)]));

  // The pod moves to the stack's account: a replacement, shown as one at preview.
  const move = await stack.preview(await program({ remoteKey: SHARED_ROTATED, remoteOnShared: false }, true));
  expect(ops(move).remote).toEqual(["replace", ["account"]]);
  const moved = await stack.up(await program({ remoteKey: SHARED_ROTATED, remoteOnShared: false }));
  expect(moved.error).toBeUndefined();
  expect(live("shared")).toEqual([]);
  expect(live("team").map((p) => p.id).sort()).toEqual([byName("local").id, byName("remote").id].sort());

  expect((await stack.destroy()).error).toBeUndefined();
  expect([live("team"), live("shared"), rig.emu.state("shared").networkVolumes]).toEqual([[], [], []]);
}, 120_000);

test("the smoke test of an endpoint on another account sends its job on that account, with its key; its answer to a secret input is secret in state", async () => {
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "smoke" });
  const regs = await captureProgram(
    () => {
      const shared = { name: "shared", apiKey: pulumi.secret(SHARED), apiUrl: rig.emu.url, serverlessUrl: rig.emu.url };
      const endpoint = new ServerlessEndpoint("api", { api: "rest", container: { image: "echo:1" }, gpuIds: "AMPERE_24", workersMin: 0, workersMax: 1, account: shared });
      // A secret input: the echo worker returns it, so its answer must be secret in state too.
      runSyncSmokeTest({ endpoint, input: pulumi.secret({ prompt: SMOKE_PROMPT }) });
    },
    { project: PROJECT, stack: "smoke", config: rig.config, secretKeys: SECRET_KEYS },
  );
  const from = rig.emu.requestLog().length;
  const up = await stack.up(resolvingIds(stack, regs, { preview: false }));
  expect(up.error).toBeUndefined();
  const endpointId = resourcesOf(stack).find((r) => r.urn.endsWith("::api"))!.id;
  expect(rig.emu.state("shared").endpoints).toEqual([expect.objectContaining({ id: endpointId })]);
  const jobs = rig.emu.requestLog().slice(from).filter((e) => e.op === "runSync");
  expect(jobs.map((e) => [e.account, e.key, e.status])).toEqual([["shared", fingerprint(SHARED), 200]]);
  const smoke = resourcesOf(stack).find((r) => r.urn.endsWith("::smoke-test"))!;
  expect(smoke.outputs).toMatchObject({ endpointId, status: "COMPLETED" });
  expect([isSecret(smoke.outputs.account), isSecret(smoke.outputs.output), isSecret(smoke.inputs.input)]).toEqual([true, true, true]);
  expect(JSON.stringify(reveal(smoke.outputs.output))).toContain(SMOKE_PROMPT);
  const masked = JSON.stringify([...stack.resources.values()], (_k, v) => (isSecret(v) ? "[secret]" : v));
  for (const secret of [SHARED, SMOKE_PROMPT]) {
    expect(masked).not.toContain(secret);
    expect(rig.plugin.transcript()).not.toContain(secret);
  }
  expect((await stack.destroy()).error).toBeUndefined();
}, 120_000);

test("the account budget holds each account to its own: the stack's account is not charged for a pod on another", async () => {
  // $1/h an account; a pod of one L40S ($0.86/h) on each of the two: each account stays under it.
  const config = { ...rig.config, "computeplatform:accountMaxHourlyCost": "1" };
  const plugin = await startPlugin(config);
  try {
    const stack = new EngineStack(plugin, { project: PROJECT, stack: "budgets" });
    const regs = await captureProgram(
      () => {
        new Pod("here", { image: "img/app:1", gpu: { id: GPU } });
        new Pod("there", { image: "img/app:1", gpu: { id: GPU }, account: { name: "shared", apiKey: pulumi.secret(SHARED), apiUrl: rig.emu.url } });
      },
      { project: PROJECT, stack: "budgets", config, secretKeys: SECRET_KEYS },
    );
    const up = await stack.up(regs);
    expect(up.error).toBeUndefined();
    expect(plugin.transcript()).toContain("; by account: the stack's $0.86/h, shared $0.86/h; account: $0.00/h -> $0.86/h (budget $1.00/h)");
    expect([live("team").length, live("shared").length]).toEqual([1, 1]);
    expect((await stack.destroy()).error).toBeUndefined();
  } finally {
    await plugin.stop();
  }
}, 120_000);

test("the stack's budget under --target counts the stack's pods on the account the command does not touch", async () => {
  // $1.50/h for the stack; a pod of one L40S ($0.86/h) on each account is $1.72/h.
  const config = { ...rig.config, "computeplatform:maxHourlyCost": "1.5" };
  const regs = (withHere: boolean) =>
    captureProgram(
      () => {
        if (withHere) new Pod("here", { image: "img/app:1", gpu: { id: GPU } });
        new Pod("there", { image: "img/app:1", gpu: { id: GPU }, account: { name: "shared", apiKey: pulumi.secret(SHARED), apiUrl: rig.emu.url } });
      },
      { project: PROJECT, stack: "targets", config, secretKeys: SECRET_KEYS },
    );
  const urn = (name: string) => urnOf("targets", PROJECT, "pulumi-nodejs:dynamic/computeplatform:Pod", name);
  // Each command is its own process: the stack's pod on the shared account (the file's plugin, no
  // budget needed), then `pulumi up --target` of one more on the stack's own, whose process knows
  // the shared account only from the inputs of the pod it targets, which list every account the
  // program names.
  const plugin = await startPlugin(config);
  try {
    const first = new EngineStack(rig.plugin, { project: PROJECT, stack: "targets" });
    expect((await first.up(await regs(false))).error).toBeUndefined();
    expect([live("team").length, live("shared").length]).toEqual([0, 1]);
    // Under a budget each costed resource keeps the program's accounts, secret as a whole.
    expect(isSecret(resourcesOf(first).find((r) => r.urn.endsWith("::there"))!.inputs.__stackAccounts)).toBe(true);
    const second = first.carriedTo(plugin);
    const from = rig.emu.requestLog().length;
    const up = await second.up(await regs(true), { targets: [urn("here")] });
    expect(up.error?.message).toMatch(
      /create \(NVIDIA L40S x1, SECURE\) \(\$0\.86\/h\) would take the stack [^ ]*\/targets to \$1\.72\/h, over its budget \$1\.50\/h \(computeplatform:maxHourlyCost\); it costs \$0\.86\/h now\. Nothing was sent for it\./,
    );
    expect(up.error?.message).toMatch(/pod there-[0-9a-f]+ on account "shared" \$0\.86\/h/);
    expect(rig.emu.requestLog().slice(from).filter((e) => e.method === "POST" && e.op === "createPod")).toEqual([]);
    // The list of accounts is secret in state: no key in plain text there or in the plugin's lines.
    const masked = JSON.stringify([...second.resources.values()], (_k, v) => (isSecret(v) ? "[secret]" : v));
    for (const key of [SHARED, TEAM]) {
      expect(masked).not.toContain(key);
      expect(plugin.transcript()).not.toContain(key);
    }
    expect((await second.destroy()).error).toBeUndefined();
    expect([live("team"), live("shared")]).toEqual([[], []]);
  } finally {
    await plugin.stop();
  }
}, 120_000);

test("the README's program of two accounts, as copied, puts the volume on the shared account and the pod on the stack's", async () => {
  // Type-checked as copied by test/integration/docs/doc-blocks.test.ts; run here through the plugin.
  const block = blocksOf("README.md").find((b) => b.kind === "program" && b.code.includes('name: "shared-models"'));
  expect(block).toBeDefined();
  const dir = userProject("readme-accounts-");
  try {
    writeFileSync(path.join(dir, "index.ts"), block!.code);
    // `pulumi config set --secret modelsApiKey <the shared-models account's key>`, as its comment says.
    const config = { ...rig.config, [`${PROJECT}:modelsApiKey`]: SHARED };
    const regs = await captureProgramFile(path.join(dir, "index.ts"), { cwd: dir, project: PROJECT, stack: "readme", config, secretKeys: [...SECRET_KEYS, `${PROJECT}:modelsApiKey`], env: typescriptProgramEnv() });
    const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "readme" });
    const up = await stack.up(regs);
    expect(up.error).toBeUndefined();
    const idOf = (n: string) => resourcesOf(stack).find((r) => r.urn.endsWith(`::${n}`))!.id;
    expect(rig.emu.state("shared").networkVolumes.map((v) => [v.id, v.size])).toEqual([[idOf("weights"), 200]]);
    expect(live("team").map((p) => p.id)).toEqual([idOf("trainer")]);
    expect([rig.emu.state("team").networkVolumes, live("shared")]).toEqual([[], []]);
    expect(rig.plugin.transcript()).toContain("pod trainer added");
    // The key is secret in state wherever it is (the `account` input and output).
    expect(JSON.stringify([...stack.resources.values()], (_k, v) => (isSecret(v) ? "[secret]" : v))).not.toContain(SHARED);
    expect((await stack.destroy()).error).toBeUndefined();
    expect([live("team"), rig.emu.state("shared").networkVolumes]).toEqual([[], []]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

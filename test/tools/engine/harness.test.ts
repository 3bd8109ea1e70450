// The harness proved on a fixture provider: each engine call sequence reaches Pulumi's own
// dynamic-provider plugin in the engine's order, and what the plugin did is read back from
// the fixture's store on disk, outside the plugin.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Counter, type CounterArgs } from "./fixtures/counter";
import {
  captureProgram,
  EngineStack,
  isSecret,
  ProviderCallError,
  ProviderPlugin,
  type Registration,
  UNKNOWN,
} from "../../../tools/engine";
import { startPlugin } from "../../../tools/engine/rig";

const ROOT = path.resolve(__dirname, "../../..");
const TOKEN = "fixture-token-0d9f3c";
const CONFIG = { "fixture:greeting": "hello", "fixture:token": TOKEN };
const PROJECT = "fixture";

let store: string;
let plugin: ProviderPlugin;
let stackNo = 0;

beforeAll(async () => {
  store = fs.mkdtempSync(path.join(os.tmpdir(), "engine-fixture-"));
  // One plugin for the file, as one `pulumi up` uses one plugin for every resource.
  plugin = await startPlugin(CONFIG, { cwd: ROOT, project: PROJECT, secretKeys: ["fixture:token"], env: { FIXTURE_STORE: store } });
});

afterAll(async () => {
  await plugin?.stop();
  fs.rmSync(store, { recursive: true, force: true });
});

const program = (counters: Record<string, CounterArgs & { opts?: pulumi.CustomResourceOptions }>) => () => {
  for (const [name, { opts, ...args }] of Object.entries(counters)) new Counter(name, args, opts);
};
const capture = (counters: Parameters<typeof program>[0]): Promise<Registration[]> =>
  captureProgram(program(counters), { project: PROJECT, stack: "test" });
const newStack = () => new EngineStack(plugin, { project: PROJECT, stack: `s${++stackNo}` });
const journal = () => fs.readFileSync(path.join(store, "journal.log"), "utf8").trim().split("\n");
const stored = (id: string) => JSON.parse(fs.readFileSync(path.join(store, `${id}.json`), "utf8"));
const only = (stack: EngineStack) => [...stack.resources.values()][0];

test("a plugin that fails the engine's start is stopped, not left running", async () => {
  const pidFile = path.join(store, "plugin.pid");
  const failing = startPlugin(CONFIG, {
    cwd: ROOT,
    project: PROJECT,
    secretKeys: ["fixture:token"],
    env: { FIXTURE_STORE: store, FIXTURE_PID_FILE: pidFile, NODE_OPTIONS: `--require ${path.join(__dirname, "fixtures/no-plugin-info.js")}` },
  });
  await expect(failing).rejects.toThrow(/getPluginInfo/);
  const pid = Number(fs.readFileSync(pidFile, "utf8"));
  expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
});

test("up of a new stack: Configure reached the provider with the secret unwrapped; Check then Create", async () => {
  const stack = newStack();
  const res = await stack.up(await capture({ a: { zone: "z1", size: 2 } }));
  expect(res.error).toBeUndefined();
  expect(stack.calls).toEqual(["Check a", "Create a"]);
  const a = only(stack);
  expect(stored(a.id)).toMatchObject({ zone: "z1", size: 2 });
  expect(a.outputs).toMatchObject({ zone: "z1", size: 2, tokenSeen: true });
  expect(typeof a.outputs.__provider).toBe("string");
  expect(journal()[0]).toBe("configure greeting=hello token=set");
  await plugin.waitForTranscript(`counter ${a.id} is up`);
  expect(plugin.stdout).toContain(`created ${a.id}`);
});

test("with logToEngine, pulumi.log inside the provider reaches the fake engine's Log", async () => {
  const logged = await startPlugin(CONFIG, { cwd: ROOT, project: PROJECT, secretKeys: ["fixture:token"], env: { FIXTURE_STORE: store }, logToEngine: true });
  try {
    const stack = new EngineStack(logged, { project: PROJECT, stack: "logged" });
    await stack.up(await capture({ l: { zone: "z1", size: 1 } }));
    const id = only(stack).id;
    await logged.waitForTranscript(`counter ${id} is up`);
    expect(logged.engine.logs).toContainEqual({ severity: "info", message: `counter ${id} is up`, urn: "" });
    expect(logged.stdout).not.toContain(`counter ${id} is up`);
    await stack.destroy();
  } finally {
    await logged.stop();
  }
});

test("ignoreChanges keeps the old input, so no diff reaches the provider", async () => {
  const stack = newStack();
  const opts = { ignoreChanges: ["size"] };
  await stack.up(await capture({ i: { zone: "z1", size: 2, opts } }));
  const res = await stack.up(await capture({ i: { zone: "z1", size: 9, opts } }));
  expect(res.steps.map((s) => s.op)).toEqual(["same"]);
  expect(stored(only(stack).id).size).toBe(2);
});

test("a check failure stops the operation before any create", async () => {
  const stack = newStack();
  const before = fs.readdirSync(store).length;
  const res = await stack.up(await capture({ bad: { zone: "z1", size: 0 } }));
  expect(res.failures?.failures).toEqual([{ property: "size", reason: "size must be a whole number of at least 1" }]);
  expect(stack.calls).toEqual(["Check bad"]);
  expect(fs.readdirSync(store).length).toBe(before);
});

test("a change that updates: Check, Diff, Update, same id", async () => {
  const stack = newStack();
  await stack.up(await capture({ u: { zone: "z1", size: 2 } }));
  const id = only(stack).id;
  const res = await stack.up(await capture({ u: { zone: "z1", size: 3 } }));
  expect(res.steps.map((s) => s.op)).toEqual(["update"]);
  expect(res.steps[0].diff).toEqual({ changes: "some", replaces: [], deleteBeforeReplace: false, diffs: [] });
  expect(stack.calls.slice(2)).toEqual(["Check u", "Diff u", "Update u"]);
  expect(only(stack).id).toBe(id);
  expect(stored(id).size).toBe(3);
  const again = await stack.up(await capture({ u: { zone: "z1", size: 3 } }));
  expect(again.steps.map((s) => s.op)).toEqual(["same"]);
});

test("a diff that leaves changes out: the engine compares the inputs itself", async () => {
  const stack = newStack();
  await stack.up(await capture({ v: { zone: "z1", size: 2, vague: true } }));
  const same = await stack.up(await capture({ v: { zone: "z1", size: 2, vague: true } }));
  expect(same.steps.map((s) => [s.op, s.diff?.changes, s.diff?.diffs])).toEqual([["same", "none", []]]);
  const changed = await stack.up(await capture({ v: { zone: "z1", size: 4, vague: true } }));
  expect(changed.steps.map((s) => [s.op, s.diff?.changes, s.diff?.diffs])).toEqual([["update", "some", ["size"]]]);
  expect(stored(only(stack).id).size).toBe(4);
});

test("a replace creates the new one before deleting the old one", async () => {
  const stack = newStack();
  await stack.up(await capture({ r: { zone: "z1", size: 2 } }));
  const oldId = only(stack).id;
  const res = await stack.up(await capture({ r: { zone: "z2", size: 2 } }));
  expect(res.steps[0]).toMatchObject({ op: "replace", diff: { replaces: ["zone"], deleteBeforeReplace: false } });
  expect(stack.calls.slice(2)).toEqual(["Check r", "Diff r", "Check r", "Create r", "Delete r"]);
  const newId = only(stack).id;
  expect(newId).not.toBe(oldId);
  expect(journal().slice(-2)).toEqual([`create ${newId}`, `delete ${oldId}`]);
  expect(fs.existsSync(path.join(store, `${oldId}.json`))).toBe(false);
});

test("the old side of a replace goes at the end, after the resources registered after it were updated", async () => {
  const stack = newStack();
  await stack.up(await capture({ r: { zone: "z1", size: 2 }, s: { zone: "z1", size: 1 } }));
  const oldId = stack.resources.get([...stack.resources.keys()][0])!.id;
  stack.calls.length = 0;
  const res = await stack.up(await capture({ r: { zone: "z2", size: 2 }, s: { zone: "z1", size: 3 } }));
  expect(res.error).toBeUndefined();
  expect(res.steps.map((s) => s.op)).toEqual(["replace", "update"]);
  expect(stack.calls).toEqual(["Check r", "Diff r", "Check r", "Create r", "Check s", "Diff s", "Update s", "Delete r"]);
  expect(journal().at(-1)).toBe(`delete ${oldId}`);
  expect(stack.resources.size).toBe(2);
});

test("refresh keeps the secret mark of each output the provider returns in plain text", async () => {
  const stack = newStack();
  await stack.up(await capture({ k: { zone: "z1", size: 2, label: pulumi.secret("kept-secret") } }));
  expect(isSecret(only(stack).outputs.label)).toBe(true);
  const res = await stack.refresh();
  expect(res.error).toBeUndefined();
  expect(isSecret(only(stack).outputs.label)).toBe(true);
  expect(isSecret(only(stack).outputs.zone)).toBe(false);
});

test("deleteBeforeReplace, from the diff or from the resource option, deletes first", async () => {
  for (const variant of [{ exclusive: true }, { opts: { deleteBeforeReplace: true } }]) {
    const stack = newStack();
    await stack.up(await capture({ d: { zone: "z1", size: 2, ...variant } }));
    const oldId = only(stack).id;
    const res = await stack.up(await capture({ d: { zone: "z2", size: 2, ...variant } }));
    expect(res.error).toBeUndefined();
    expect(stack.calls.slice(-2)).toEqual(["Delete d", "Create d"]);
    expect(journal().slice(-2)).toEqual([`delete ${oldId}`, `create ${only(stack).id}`]);
  }
});

test("preview sends unknowns to Check and Diff and changes nothing", async () => {
  const stack = newStack();
  await stack.up(await capture({ p: { zone: "z1", size: 2 } }));
  const files = fs.readdirSync(store).sort();
  const regs = await capture({ p: { zone: "z2", size: 2 }, q: { zone: "z1", size: 1 } });
  regs[0].inputs.size = UNKNOWN;
  const res = await stack.preview(regs);
  expect(res.error).toBeUndefined();
  expect(res.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([
    ["replace", ["zone"]],
    ["create", undefined],
  ]);
  expect(stack.calls.slice(2)).toEqual(["Check p", "Diff p", "Check q"]);
  expect(fs.readdirSync(store).sort()).toEqual(files);
});

test("refresh reads with old outputs and inputs; a resource gone outside is dropped", async () => {
  const stack = newStack();
  await stack.up(await capture({ f: { zone: "z1", size: 2 }, g: { zone: "z1", size: 1 } }));
  const [f, g] = [...stack.resources.values()];
  fs.writeFileSync(path.join(store, `${f.id}.json`), JSON.stringify({ ...stored(f.id), label: "changed outside" }));
  fs.rmSync(path.join(store, `${g.id}.json`));
  const res = await stack.refresh();
  expect(res.steps.map((s) => s.op)).toEqual(["refresh", "read-gone"]);
  expect(stack.resources.get(f.urn)?.outputs).toMatchObject({ label: "changed outside", __provider: expect.any(String) });
  expect(stack.resources.has(g.urn)).toBe(false);
});

test("a provider error reaches the engine with its message and leaves state as it was", async () => {
  const stack = newStack();
  await stack.up(await capture({ e: { zone: "z1", size: 2 } }));
  const before = only(stack);
  const res = await stack.up(await capture({ e: { zone: "z1", size: 101 } }));
  expect(res.error).toBeInstanceOf(ProviderCallError);
  expect(res.error?.message).toContain("size 101 is above the limit of 100 for a counter");
  expect((res.error as ProviderCallError).initFailure).toBeUndefined();
  expect(only(stack)).toEqual(before);
});

test("a create that fails after the resource exists keeps its id, and destroy deletes it", async () => {
  const stack = newStack();
  const res = await stack.up(await capture({ x: { zone: "z1", size: 2, failAfterCreate: true } }));
  const err = res.error as ProviderCallError;
  expect(err.message).toContain("did not become ready");
  expect(err.initFailure).toMatchObject({ reasons: ["never became ready"], outputs: { state: "broken" } });
  const kept = only(stack);
  expect(kept.id).toBe(err.initFailure?.id);
  expect(kept.initErrors).toEqual(["never became ready"]);
  expect(fs.existsSync(path.join(store, `${kept.id}.json`))).toBe(true);
  const gone = await stack.destroy();
  expect(gone.error).toBeUndefined();
  expect(fs.existsSync(path.join(store, `${kept.id}.json`))).toBe(false);
  expect(stack.resources.size).toBe(0);
});

test("partial-failure outputs without __provider leave a resource the plugin cannot delete", async () => {
  // Pulumi's plugin stores the error's `properties` as the outputs and loads the provider from
  // them on Delete: a provider that reports a partial failure must put `__provider` back.
  const stack = newStack();
  const res = await stack.up(await capture({ y: { zone: "z1", size: 2, failAfterCreate: "without-provider" } }));
  const kept = only(stack);
  expect(kept.id).toBe((res.error as ProviderCallError).initFailure?.id);
  expect(kept.outputs.__provider).toBeUndefined();
  const gone = await stack.destroy();
  expect(gone.error?.message).toContain("code must be a string, not undefined");
  fs.rmSync(path.join(store, `${kept.id}.json`));
});

test("a secret input stays marked in state and the secret config value appears nowhere", async () => {
  const stack = newStack();
  const regs = await capture({ s: { zone: "z1", size: 2, label: pulumi.secret("private-label") } });
  expect(isSecret(regs[0].inputs.label)).toBe(true);
  await stack.up(regs);
  const s = only(stack);
  expect(isSecret(s.inputs.label)).toBe(true);
  expect(isSecret(s.outputs.label)).toBe(true);
  await stack.destroy();
  expect(stack.stateText()).not.toContain(TOKEN);
  expect(plugin.transcript()).not.toContain(TOKEN);
  expect(fs.readFileSync(path.join(store, "journal.log"), "utf8")).not.toContain(TOKEN);
});

/**
 * The provider process killed mid-operation, through Pulumi's own dynamic-provider plugin
 * (tools/engine). The kill lands at the most ambiguous moment: the platform has
 * processed the request (the emulator answers slowly, so its log shows the request before the
 * plugin sees the answer) and the plugin dies before it can report. The engine sees the call
 * fail with no id, as it does when a plugin crashes; the next run starts a new plugin on the
 * same state.
 *
 * Mid-update and mid-delete converge with `refresh` then `up` / `destroy`. Mid-create is the
 * hard one: the engine never learned the id (a plugin that dies leaves no pending operation,
 * only a failed step) and the next `up` checks the resource as new. The providers find the
 * earlier try again by its owner token (src/resources/naming.ts): a replacement takes it over,
 * a new resource makes its pod and terminates the earlier one; either way one pod, known to
 * the stack, and nothing left after destroy. The same token keeps a forced replace from taking
 * the current pod, and two stacks from touching each other's pods.
 *
 * Each plugin start costs a second or more, so the tests form a chain: the plugin that recovers
 * one test is the one the next test kills.
 * The plugin loads the package from dist/: run `npm run build` first (`npm test` does).
 */
import type { ChildProcess } from "node:child_process";
import { ComputePlatform } from "../../src/client";
import type { Emulator } from "../../src/emulator";
import { Pod, type PodArgs } from "../../src/resources/pod";
import { ServerlessEndpoint, type ServerlessEndpointArgs } from "../../src/resources/serverless-endpoint";
import { ServerlessEndpointProvider } from "../../src/resources/serverless-endpoint/provider";
import { captureProgram, EngineStack, type ProviderPlugin, reveal, urnOf } from "../../tools/engine";
import { CONFIG_SECRETS, livePods, PROJECT, SENTINEL_KEY, stackConfig, startPlugin as startPluginFor, startSentinelEmulator } from "../../tools/faults";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";
import { resourceRegs, resourcesOf, resourceSteps } from "../helpers/ledger";

/** Long enough that the kill always lands before the answer; short enough to keep the suite quick. */
const SLOW_MS = 150;

let emu: Emulator;
let config: Record<string, string>;
let gpuId: string;
/** The serverless template the endpoints name (the platform checks that it exists). */
let tpl: string;

beforeAll(async () => {
  emu = await startSentinelEmulator();
  config = stackConfig(emu);
  tpl = await createServerlessTemplate(emu.url, SENTINEL_KEY);
  const res = await fetch(`${emu.url}/v2/catalog/gpus`, { headers: { authorization: `Bearer ${SENTINEL_KEY}` } });
  gpuId = ((await res.json()) as { gpus: { id: string; manufacturer: string }[] }).gpus.find((g) => g.manufacturer === "NVIDIA")!.id;
});
afterAll(() => emu?.close());

/** A fresh plugin process, as each `pulumi` command starts one. */
const startPlugin = () => startPluginFor(emu);

/** The same stack state, driven by another plugin. */
function carry(from: EngineStack, plugin: ProviderPlugin): EngineStack {
  const next = new EngineStack(plugin, { project: PROJECT, stack: from.stack });
  for (const [urn, res] of from.resources) next.resources.set(urn, structuredClone(res));
  return next;
}

/**
 * Run `op` and SIGKILL the plugin as soon as the emulator has processed `count` more `opName`
 * requests. Resolves with the operation's result, which must be a failure.
 */
async function killDuring<T>(plugin: ProviderPlugin, opName: string, op: () => Promise<T>): Promise<T> {
  const before = emu.counts()[opName] ?? 0;
  emu.setFaults({ slowMs: SLOW_MS });
  const running = op();
  const deadline = Date.now() + 10_000;
  while ((emu.counts()[opName] ?? 0) === before) {
    if (Date.now() > deadline) throw new Error(`no ${opName} within 10 s`);
    await new Promise((r) => setTimeout(r, 2));
  }
  // The harness keeps its child process private: reach it the way a crash would, from outside.
  (plugin as unknown as { child: ChildProcess }).child.kill("SIGKILL");
  const result = await running;
  emu.setFaults({});
  await plugin.stop();
  return result;
}

const podProgram = (args: PodArgs, stack = "dev") =>
  captureProgram(
    () => {
      new Pod("worker", args);
    },
    { project: PROJECT, stack, config, secretKeys: CONFIG_SECRETS },
  );

const endpointProgram = (args: ServerlessEndpointArgs) =>
  captureProgram(
    () => {
      new ServerlessEndpoint("api", args);
    },
    { project: PROJECT, stack: "dev", config, secretKeys: CONFIG_SECRETS },
  );

const live = () => ({
  pods: livePods(emu.state()),
  endpoints: emu.state().endpoints as { id: string; name: string; workersMin: number }[],
});

const client = () => new ComputePlatform({ apiKey: SENTINEL_KEY, apiUrl: emu.url, pacing: false, env: {} });

/** Remove what no stack knows about, so one test's leak does not fail the next. */
async function sweep(): Promise<void> {
  const c = client();
  const endpoints = new ServerlessEndpointProvider({ client: () => c, pollIntervalMs: 5 });
  for (const p of live().pods) await c.pods.delete(p.id);
  for (const e of live().endpoints) await endpoints.delete(e.id, { drainTimeoutSeconds: 5 });
  await c.close();
}

/** The plugin the next test starts with (and kills). */
let current: ProviderPlugin;
beforeAll(async () => {
  current = await startPlugin();
});
afterAll(() => current?.stop());

/** Kill the current plugin during `op` on `stack`; the stack carried over to a fresh plugin. */
async function interrupt<T>(stack: EngineStack, opName: string, op: (s: EngineStack) => Promise<T>): Promise<{ result: T; next: EngineStack }> {
  const result = await killDuring(current, opName, () => op(stack));
  current = await startPlugin();
  return { result, next: carry(stack, current) };
}

test("mid-update and mid-delete of a pod: refresh, then up or destroy, converge on the platform's truth", async () => {
  const base: PodArgs = { name: "upd-worker", image: "img/app:1", gpu: { id: gpuId }, env: { MODEL: "small" } };
  const stack = new EngineStack(current, { project: PROJECT, stack: "dev" });
  expect((await stack.up(await podProgram(base))).error).toBeUndefined();
  const [created] = resourcesOf(stack);

  // Mid-update: the PATCH was applied, the answer never reached the engine.
  const changed = await podProgram({ ...base, env: { MODEL: "large" } });
  const upd = await interrupt(stack, "updatePod", (s) => s.up(changed));
  expect(upd.result.error?.message).toMatch(/update/i);
  expect((reveal(upd.next.resources.get(created.urn)!.outputs.env) as Record<string, string>).MODEL).toBe("small");
  expect((await upd.next.refresh()).error).toBeUndefined();
  expect((await upd.next.up(changed)).error).toBeUndefined();
  expect(live().pods.map((p) => [p.id, p.name, p.env.MODEL, p.status])).toEqual([[created.id, "upd-worker", "large", "RUNNING"]]);

  // Mid-delete: the DELETE was processed; refresh sees it gone, destroy has nothing left to do.
  const del = await interrupt(upd.next, "deletePod", (s) => s.destroy());
  expect(del.result.error).toBeDefined();
  expect(resourcesOf(del.next)).toHaveLength(1);
  const refresh = await del.next.refresh();
  expect(refresh.error).toBeUndefined();
  expect(resourceSteps(refresh).map((s) => s.op)).toEqual(["read-gone"]);
  expect((await del.next.destroy()).error).toBeUndefined();
  expect(del.next.resources.size).toBe(0);
  expect(live().pods).toEqual([]);
});

/**
 * Kill the plugin once the platform made the endpoint of `args`, then `up` again: one endpoint,
 * the stack's, with its own name. The stack (carried to the next plugin) and the endpoint's id.
 */
async function endpointCreateKilled(args: ServerlessEndpointArgs, opName: string): Promise<{ next: EngineStack; known: string }> {
  const regs = await endpointProgram(args);
  const create = await interrupt(new EngineStack(current, { project: PROJECT, stack: "dev" }), opName, (s) => s.up(regs));
  expect(create.result.error).toBeDefined();
  expect(resourcesOf(create.next)).toHaveLength(0);
  const [first] = live().endpoints;
  expect(live().endpoints).toHaveLength(1);
  // A create that never finished: its endpoint has the pending name (lifecycle/owner.ts), over either API.
  expect(first.name).toMatch(/^api-[0-9a-f]{7}~creating$/);
  expect((await create.next.refresh()).error).toBeUndefined();
  expect((await create.next.up(regs)).error).toBeUndefined();
  // One endpoint, the stack's, with its own name: the earlier try was taken over or deleted once this one existed.
  const [known] = resourcesOf(create.next).map((r) => r.id);
  expect(live().endpoints.map((e) => [e.id, e.name])).toEqual([[known, first.name.replace(/~creating$/, "")]]);
  return { next: create.next, known };
}

test("endpoint: mid-create of an auto-named endpoint leaves one, known to the stack; mid-delete converges", async () => {
  const create = await endpointCreateKilled({ gpuIds: "AMPERE_24", templateId: tpl, workersMin: 0, workersMax: 1 }, "saveEndpoint");
  const known = create.known;

  // Mid-delete: scaled to zero, killed before deleteEndpoint; destroy finishes it.
  const del = await interrupt(create.next, "saveEndpoint", (s) => s.destroy());
  expect(del.result.error).toBeDefined();
  expect(live().endpoints).toEqual([expect.objectContaining({ id: known, workersMin: 0 })]);
  expect((await del.next.refresh()).error).toBeUndefined();
  expect((await del.next.destroy()).error).toBeUndefined();
  expect(live().endpoints).toEqual([]);
});

test("endpoint over REST: mid-create of an auto-named endpoint leaves one, known to the stack, never a second paid one", async () => {
  const create = await endpointCreateKilled({ api: "rest", container: { image: "worker:1" }, gpuIds: "AMPERE_24", workersMin: 1, workersMax: 1 }, "createEndpoint");
  expect((await create.next.destroy()).error).toBeUndefined();
  expect(live().endpoints).toEqual([]);
});

test("KNOWN LIMIT mid-create of a user-named endpoint: the next up makes a second one (see README)", async () => {
  // Endpoints carry no env: only a name made from the owner token says whose an endpoint is.
  // A name the user gave may be another stack's too, so no earlier try is looked for.
  const regs = await endpointProgram({ name: "crash-api", gpuIds: "AMPERE_24", templateId: tpl, workersMin: 0, workersMax: 1 });
  const stack = new EngineStack(current, { project: PROJECT, stack: "dev" });
  const create = await interrupt(stack, "saveEndpoint", (s) => s.up(regs));
  expect(create.result.error).toBeDefined();
  const first = live().endpoints[0].id;
  expect((await create.next.up(regs)).error).toBeUndefined();
  expect(live().endpoints.map((e) => e.name)).toEqual(["crash-api", "crash-api"]);
  expect(resourcesOf(create.next).map((r) => r.id)).not.toContain(first);
  expect((await create.next.destroy()).error).toBeUndefined();
  expect(live().endpoints.map((e) => e.id)).toEqual([first]);
  await sweep();
});

/** Kill during the pod's create, then refresh and up again on a fresh plugin. */
async function midCreate(args: PodArgs) {
  const regs = await podProgram(args);
  const stack = new EngineStack(current, { project: PROJECT, stack: "dev" });
  const { result, next } = await interrupt(stack, "createPod", (s) => s.up(regs));
  expect(result.error).toBeDefined();
  expect(resourcesOf(next)).toHaveLength(0);
  const [first] = live().pods;
  expect(live().pods).toHaveLength(1);
  expect((await next.refresh()).error).toBeUndefined();
  expect((await next.up(regs)).error).toBeUndefined();
  const pods = live().pods;
  const known = resourcesOf(next).map((r) => r.id);
  expect((await next.destroy()).error).toBeUndefined();
  // What destroy left behind is what no stack knew about.
  const leftover = live().pods.map((p) => p.id);
  await sweep();
  return { first, pods, known, leftover };
}

test("mid-create of a named pod: the next up leaves one pod with that name, known to the stack", async () => {
  const r = await midCreate({ name: "crash-worker", image: "img/app:1", gpu: { id: gpuId } });
  expect(r.pods.map((p) => p.name)).toEqual(["crash-worker"]);
  expect(r.known).toEqual([r.pods[0].id]);
  expect(r.leftover).toEqual([]);
});

test("mid-create of an auto-named pod: the next up leaves one pod with the same name, known to the stack", async () => {
  const r = await midCreate({ image: "img/app:1", gpu: { id: gpuId } });
  expect(r.first.name).toMatch(/^worker-[0-9a-f]{7}~creating$/);
  expect(r.pods.map((p) => p.name)).toEqual([r.first.name.replace(/~creating$/, "")]);
  expect(r.known).toEqual([r.pods[0].id]);
  expect(r.leftover).toEqual([]);
});

test("a replace with a changed gpu, killed mid-create: the next up takes over the pod it made, and deletes the old one", async () => {
  const base: PodArgs = { image: "img/app:1", gpu: { id: gpuId, count: 1 } };
  const stack = new EngineStack(current, { project: PROJECT, stack: "dev" });
  expect((await stack.up(await podProgram(base))).error).toBeUndefined();
  const [old] = resourcesOf(stack);
  const bigger = await podProgram({ ...base, gpu: { id: gpuId, count: 2 } });
  const { result, next } = await interrupt(stack, "createPod", (s) => s.up(bigger));
  expect(result.error).toBeDefined();
  const orphan = live().pods.find((p) => p.id !== old.id)!;
  expect(orphan.gpu).toEqual(expect.objectContaining({ count: 2 }));
  expect(resourcesOf(next).map((r) => r.id)).toEqual([old.id]);

  const posts = emu.counts().createPod ?? 0;
  const up = await next.up(bigger);
  expect(up.error).toBeUndefined();
  expect(resourceSteps(up).map((s) => s.op)).toEqual(["replace"]);
  // The pod the killed create made is the replacement: no second POST.
  expect(emu.counts().createPod ?? 0).toBe(posts);
  expect(live().pods.map((p) => p.id)).toEqual([orphan.id]);
  expect(resourcesOf(next).map((r) => r.id)).toEqual([orphan.id]);
  // Its name came from the same token both times.
  expect(orphan.name).not.toBe(old.outputs.name);
  expect((await next.destroy()).error).toBeUndefined();
  expect(live().pods).toEqual([]);
});

/**
 * `pulumi up --replace <urn>` with the same inputs, as the rig plays it (Check without old
 * inputs, no Diff, Create, Delete the old). `replaceOnChanges` forces nothing here: the engine
 * acts on it only for changed keys a Diff names, and Pulumi's dynamic-provider plugin names none
 * (test/engine/options.test.ts shows the update it makes instead).
 */
async function forcedReplace(stack: EngineStack, regs: Awaited<ReturnType<typeof podProgram>>) {
  const [reg] = resourceRegs(regs);
  const urn = urnOf(stack.stack, stack.project, reg.type, reg.name);
  const old = stack.resources.get(urn)!.id;
  const up = await stack.up(regs, { replace: [urn] });
  expect(up.error).toBeUndefined();
  expect(resourceSteps(up).map((s) => [s.op, s.diff?.replaces])).toEqual([["replace", ["id"]]]);
  return { old, made: stack.resources.get(urn)!.id };
}

test("a forced replace (--replace), twice, makes a new pod and deletes the old one", async () => {
  const args: PodArgs = { image: "img/app:1", gpu: { id: gpuId }, env: { MODEL: "small" } };
  const stack = new EngineStack(current, { project: PROJECT, stack: "dev" });
  expect((await stack.up(await podProgram(args))).error).toBeUndefined();
  // The first replaces a pod made by a create, the second one made by a replacement.
  const same = await podProgram(args);
  const b = await forcedReplace(stack, same);
  expect(b.made).not.toBe(b.old);
  expect(live().pods.map((p) => p.id)).toEqual([b.made]);
  const c = await forcedReplace(stack, same);
  expect(c.made).not.toBe(c.old);
  expect(live().pods.map((p) => p.id)).toEqual([c.made]);
  expect((await stack.destroy()).error).toBeUndefined();
  expect(live().pods).toEqual([]);
});

test("two stacks of one program, same logical and user-given names: neither touches the other's pods", async () => {
  const args: PodArgs = { name: "same-name", image: "img/app:1", gpu: { id: gpuId } };
  const regsDev = await podProgram(args, "dev");
  const dev = new EngineStack(current, { project: PROJECT, stack: "dev" });
  const crashed = await interrupt(dev, "createPod", (s) => s.up(regsDev));
  expect(crashed.result.error).toBeDefined();
  const [devOrphan] = live().pods;

  // prod's create finds no earlier try of its own: it makes its pod and leaves dev's alone.
  const prod = new EngineStack(current, { project: PROJECT, stack: "prod" });
  expect((await prod.up(await podProgram(args, "prod"))).error).toBeUndefined();
  const [prodPod] = resourcesOf(prod).map((r) => r.id);
  expect(prodPod).not.toBe(devOrphan.id);
  expect(live().pods.map((p) => p.id).sort()).toEqual([devOrphan.id, prodPod].sort());

  // dev's next up settles dev's earlier try and leaves prod's pod alone.
  const devNext = crashed.next;
  expect((await devNext.up(regsDev)).error).toBeUndefined();
  const [devPod] = resourcesOf(devNext).map((r) => r.id);
  expect(live().pods.map((p) => p.id).sort()).toEqual([devPod, prodPod].sort());
  expect((await devNext.destroy()).error).toBeUndefined();
  expect(live().pods.map((p) => p.id)).toEqual([prodPod]);
  expect((await prod.destroy()).error).toBeUndefined();
  expect(live().pods).toEqual([]);
});

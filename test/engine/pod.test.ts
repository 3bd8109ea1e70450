// The Pod through Pulumi's own dynamic-provider plugin, driven in the engine's order against
// the emulator over real HTTP: preview sends nothing and says "replace" exactly when up
// replaces; create waits for RUNNING; update in place; replace gets a fresh auto-name; stop and
// start through desiredStatus; refresh shows drift and the next up undoes it; a pod in ERROR is
// kept with its id (ErrorResourceInitFailed) and the next up repairs the same pod; destroy.
import { ComputePlatform } from "../../src/client";
import { type Emulator, startEmulator } from "../../src/emulator";
import { capturePods, EngineStack, PROJECT, ProviderCallError, ProviderPlugin, type Registration, UNKNOWN } from "../../tools/engine";
import { resourcesOf, resourceSteps } from "../helpers/ledger";
import { startPlugin } from "../../tools/engine/rig";

const KEY = "cp_sentinel_pod_engine_5e1d77a0";

let emu: Emulator;
let plugin: ProviderPlugin;
let client: ComputePlatform;
let config: Record<string, string>;
let gpuId: string;
const programs: string[] = [];

// Each program is run once (a child node each time); the same program gives the same registrations.
const captured = new Map<string, Registration[]>();
const capture = async (pods: Record<string, Record<string, unknown>>): Promise<Registration[]> => {
  const text = JSON.stringify(pods);
  const seen = captured.get(text);
  if (seen) return structuredClone(seen);
  const regs = await capturePods(pods, config);
  programs.push(JSON.stringify(regs));
  captured.set(text, regs);
  return structuredClone(regs);
};

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    keys: [{ key: KEY, scopes: ["read", "write"] }],
    quotas: { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 },
    timings: { provisioningMs: 20, startingMs: 20, restartDelayMs: 20 },
    faults: { errorImages: [/^broken\//] },
  });
  config = { "computeplatform:apiKey": KEY, "computeplatform:apiUrl": emu.url };
  plugin = await startPlugin(config);
  client = new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, pacing: false });
  gpuId = (await client.catalog.gpus()).find((g) => g.manufacturer === "NVIDIA")!.id;
});

afterAll(async () => {
  await client?.close();
  await plugin?.stop();
  await emu?.close();
});

const live = (id: string): any => emu.state().pods.find((p: any) => p.id === id);
const only = (stack: EngineStack) => resourcesOf(stack)[0]!;

// A whole lifecycle: a child program per step and the plugin, seconds each on a loaded machine.
const LIFECYCLE_TIMEOUT_MS = 90_000;

test("Pod lifecycle through the plugin: preview, create, update, replace, stop/start, refresh drift, destroy", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const base = { image: "img/app:1", gpu: { id: gpuId }, env: { MODEL: "llama" }, ports: ["8888/http"] };

  // preview of a new stack: Check only, nothing sent to the platform.
  const before = emu.counts().createPod ?? 0;
  const preview = await stack.preview(await capture({ trainer: base }));
  expect(preview.error).toBeUndefined();
  expect(resourceSteps(preview).map((s) => s.op)).toEqual(["create"]);
  expect(emu.counts().createPod ?? 0).toBe(before);

  const up = await stack.up(await capture({ trainer: base }));
  expect(up.error).toBeUndefined();
  const first = only(stack);
  expect(first.outputs).toMatchObject({ status: "RUNNING", image: "img/app:1", desiredStatus: "RUNNING" });
  expect(first.outputs.name).toMatch(/^trainer-[0-9a-f]{7}$/);
  expect(live(first.id).status).toBe("RUNNING");
  expect(emu.counts().createPod).toBe(before + 1);

  // The same program again: no change, no request but the engine's own.
  const c0 = { ...emu.counts() };
  const same = await stack.up(await capture({ trainer: base }));
  expect(resourceSteps(same).map((s) => s.op)).toEqual(["same"]);
  expect(emu.counts()).toEqual(c0);

  // Image: update in place, the same pod.
  const upd = await stack.up(await capture({ trainer: { ...base, image: "img/app:2" } }));
  expect(upd.error).toBeUndefined();
  expect(resourceSteps(upd).map((s) => s.op)).toEqual(["update"]);
  expect(only(stack).id).toBe(first.id);
  expect(live(first.id)).toMatchObject({ image: "img/app:2", status: "RUNNING" });

  // An unknown image at preview: an update, not a replace; an unknown gpu: a replace.
  const regs = await capture({ trainer: { ...base, image: "img/app:2" } });
  const withUnknown = (patch: Record<string, unknown>) => regs.map((r) => ({ ...r, inputs: { ...r.inputs, ...patch } }));
  expect(resourceSteps(await stack.preview(withUnknown({ image: UNKNOWN }))).map((s) => s.op)).toEqual(["update"]);
  expect(resourceSteps(await stack.preview(withUnknown({ gpu: UNKNOWN }))).map((s) => s.op)).toEqual(["replace"]);

  // gpu count: preview says replace, and up replaces (create first, then delete the old pod).
  const two = { ...base, image: "img/app:2", gpu: { id: gpuId, count: 2 } };
  const pv = await stack.preview(await capture({ trainer: two }));
  expect(resourceSteps(pv).map((s) => [s.op, s.diff?.replaces])).toEqual([["replace", ["gpu"]]]);
  const rep = await stack.up(await capture({ trainer: two }));
  expect(rep.error).toBeUndefined();
  expect(resourceSteps(rep).map((s) => s.op)).toEqual(["replace"]);
  const second = only(stack);
  expect(second.id).not.toBe(first.id);
  expect(second.outputs.name).not.toBe(first.outputs.name);
  expect(live(first.id).status).toBe("TERMINATED");
  expect(live(second.id)).toMatchObject({ status: "RUNNING", gpu: { count: 2 } });

  // Stop and start through desiredStatus.
  const stop = await stack.up(await capture({ trainer: { ...two, desiredStatus: "EXITED" } }));
  expect(stop.error).toBeUndefined();
  expect(live(second.id).status).toBe("EXITED");
  expect(only(stack).outputs).toMatchObject({ status: "EXITED", cost: 0 });
  const start = await stack.up(await capture({ trainer: two }));
  expect(start.error).toBeUndefined();
  expect(live(second.id).status).toBe("RUNNING");

  // Drift: refresh reads it; the next up puts the declaration back.
  await client.pods.update(second.id, { image: "img/app:hotfix" });
  const refresh = await stack.refresh();
  expect(refresh.error).toBeUndefined();
  expect(only(stack).outputs).toMatchObject({ image: "img/app:hotfix" });
  const fix = await stack.up(await capture({ trainer: two }));
  expect(resourceSteps(fix).map((s) => s.op)).toEqual(["update"]);
  expect(live(second.id).image).toBe("img/app:2");

  const destroy = await stack.destroy();
  expect(destroy.error).toBeUndefined();
  expect(live(second.id).status).toBe("TERMINATED");
  expect(stack.resources.size).toBe(0);

  for (const place of [stack.stateText(), plugin.transcript(), ...programs]) expect(place).not.toContain(KEY);
}, LIFECYCLE_TIMEOUT_MS);

test("a pod in ERROR stays in state with its id; the next up repairs that same pod", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "err" });
  const broken = { name: "engine-broken", image: "broken/app:1", gpu: { id: gpuId } };
  const up = await stack.up(await capture({ job: broken }));
  expect(up.error).toBeInstanceOf(ProviderCallError);
  const failure = (up.error as ProviderCallError).initFailure!;
  expect(failure.id).toEqual(expect.any(String));
  expect(failure.reasons[0]).toMatch(/ERROR instead of RUNNING/);
  const kept = only(stack);
  expect(kept).toMatchObject({ id: failure.id, initErrors: failure.reasons });
  expect(kept.outputs).toMatchObject({ status: "ERROR" });
  expect(typeof kept.outputs.__provider).toBe("string");

  const repaired = await stack.up(await capture({ job: { ...broken, image: "img/app:1" } }));
  expect(repaired.error).toBeUndefined();
  expect(resourceSteps(repaired).map((s) => s.op)).toEqual(["update"]);
  expect(only(stack).id).toBe(failure.id);
  expect(live(failure.id)).toMatchObject({ status: "RUNNING", image: "img/app:1" });
  expect(emu.state().pods.filter((p: any) => p.name === "engine-broken")).toHaveLength(1);

  expect((await stack.destroy()).error).toBeUndefined();
  expect(live(failure.id).status).toBe("TERMINATED");
});

test("a check failure names the property and stops before any request", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "bad" });
  const c0: Record<string, number> = { ...emu.counts() };
  const res = await stack.up(
    await capture({ bad: { image: "img/app:1", cpu: { id: "cpu3c", vcpuCount: 6 }, mounts: { persistent: { size: 20, path: "/d" } } } }),
  );
  expect(res.failures?.failures).toEqual(
    expect.arrayContaining([
      { property: "cpu.vcpuCount", reason: expect.stringMatching(/power of two/) },
      { property: "mounts.persistent", reason: expect.stringMatching(/invalid on a CPU pod/) },
    ]),
  );
  // The stack's cost is priced first (cost/ledger.ts): at most a read of the catalog's prices.
  const sent = Object.entries(emu.counts()).filter(([op, n]) => n !== (c0[op] ?? 0));
  expect(sent.map(([op]) => op).filter((op) => op !== "listCpus" && op !== "listGpus")).toEqual([]);
});

// Capacity and cost through Pulumi's own dynamic-provider plugin, against the emulator over real
// HTTP: a Pod with a GPU preference list lands on the first type with capacity (one pod made,
// requests counted); the GPU it got is an output; a new list that still holds it sends no
// request, one without it replaces; every type out of capacity fails naming each try.
// The plugin loads dist/: run `npm run build` before this file alone.
import { type Emulator, startEmulator } from "../../src/emulator";
import { Pod, type PodArgs } from "../../src/resources/pod";
import { captureProgram, EngineStack, PROJECT, PROJECT_DIR, ProviderPlugin, type Registration, SECRET_KEYS } from "../../tools/engine";

const KEY = "cp_sentinel_cost_7b2e4c91d0";
const QUOTAS = { minute: 100_000, hour: 1_000_000, day: 10_000_000 };
const H100 = "NVIDIA H100 80GB HBM3";
const A100 = "NVIDIA A100-SXM4-80GB";
const L40S = "NVIDIA L40S";
const RTX4090 = "NVIDIA GeForce RTX 4090";

let emu: Emulator;
let plugin: ProviderPlugin;
let config: Record<string, string>;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    keys: [{ key: KEY, scopes: ["read", "write"] }],
    quotas: QUOTAS,
    timings: { provisioningMs: 10, startingMs: 10, drainMs: 10, restartDelayMs: 20 },
    faults: { noCapacity: [{ gpuId: H100 }, { gpuId: A100 }] },
  });
  config = { "computeplatform:apiKey": KEY, "computeplatform:apiUrl": emu.url };
  plugin = await ProviderPlugin.start({ cwd: PROJECT_DIR, project: PROJECT, config, env: { COMPUTEPLATFORM_API_KEY: undefined, COMPUTEPLATFORM_POLL_INTERVAL_MS: "10" } });
  await plugin.configure(config, SECRET_KEYS);
}, 60_000);

afterAll(async () => {
  await plugin?.stop();
  await emu?.close();
});

const program = (args: Partial<PodArgs>, preview = false): Promise<Registration[]> =>
  captureProgram(
    () => {
      new Pod("trainer", { image: "trainer:1", gpu: { id: L40S }, ...args });
    },
    { project: PROJECT, stack: "dev", preview, config, secretKeys: SECRET_KEYS },
  );

const livePods = () => (emu.state().pods as { id: string; status: string; gpu?: { id: string } }[]).filter((p) => p.status !== "TERMINATED");

/** Requests since `from` in the emulator's log, as `METHOD path status`. */
const since = (from: number) => emu.requestLog().slice(from).map((e) => `${e.method} ${decodeURIComponent(e.path)} ${e.status}`);

test("GPU fallback: the first two types have no capacity, the third is placed; one pod made; a list change that keeps it sends nothing", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const choices = { gpu: { id: [H100, A100, L40S], count: 1 }, dataCenterIds: ["EU-RO-1", "US-TX-3"] };

  const start = emu.requestLog().length;
  const up = await stack.up(await program(choices));
  expect(up.error).toBeUndefined();
  const requests = since(start);
  const creates = requests.filter((r) => r.startsWith("POST /v2/pods "));
  // Two answers of "no capacity", then the pod: three POSTs, one pod.
  expect(creates).toEqual(["POST /v2/pods 400", "POST /v2/pods 400", "POST /v2/pods 201"]);
  expect(livePods()).toEqual([expect.objectContaining({ gpu: expect.objectContaining({ id: L40S }) })]);
  console.log(`fallback create: ${requests.length} requests: ${JSON.stringify(requests)}`);

  const [res] = [...stack.resources.values()];
  expect(res.outputs.gpu).toEqual({ id: L40S, count: 1 });
  // The catalog price of an L40S on SECURE, one GPU.
  expect(res.outputs.hourlyCost).toBe(0.86);

  // A new list that still holds the L40S: an update recorded without a request.
  const kept = { ...choices, gpu: { id: [A100, L40S], count: 1 } };
  const before = emu.requestLog().length;
  const preview = await stack.preview(await program(kept, true));
  expect(preview.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([["update", []]]);
  const applied = await stack.up(await program(kept));
  expect(applied.error).toBeUndefined();
  expect(since(before)).toEqual([]);
  expect(stack.resources.get(res.urn)!.id).toBe(res.id);

  // A list without it: the preview says replace.
  const dropped = await stack.preview(await program({ ...choices, gpu: { id: [H100, RTX4090], count: 1 } }, true));
  expect(dropped.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([["replace", ["gpu"]]]);
  expect(since(before)).toEqual([]);

  expect((await stack.destroy()).error).toBeUndefined();
});

test("every GPU type out of capacity: nothing made, the error names each type, the data centers and the platform's answer", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const before = livePods().length;
  const up = await stack.up(await program({ gpu: { id: [H100, A100], count: 2 }, dataCenterIds: ["EU-RO-1"] }));
  expect(up.error?.message).toContain(`"${H100}" x2 in data centers EU-RO-1: 400 no capacity for GPU type '${H100}'`);
  expect(up.error?.message).toContain(`"${A100}" x2 in data centers EU-RO-1: 400 no capacity for GPU type '${A100}'`);
  expect(up.error?.message).toMatch(/no pod was made/);
  expect(livePods().length).toBe(before);
  expect(stack.resources.size).toBe(0);
});

test("maxHourlyCost on a pod refuses a fallback choice that costs more", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  // The H100 (no capacity anyway) and the L40S cost more than $0.80/h; the RTX 4090 ($0.69/h) fits.
  const up = await stack.up(await program({ gpu: { id: [L40S, RTX4090], count: 1 }, maxHourlyCost: 0.8 }));
  expect(up.error).toBeUndefined();
  const [res] = [...stack.resources.values()];
  expect(res.outputs).toMatchObject({ gpu: { id: RTX4090, count: 1 }, hourlyCost: 0.69 });
  expect((await stack.destroy()).error).toBeUndefined();

  const refused = await stack.up(await program({ gpu: { id: [L40S], count: 1 }, maxHourlyCost: 0.8 }));
  expect(refused.error?.message).toContain(`"${L40S}" x1: not tried, its SECURE price $0.86/h is over maxHourlyCost $0.80/h`);
});

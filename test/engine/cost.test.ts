// Capacity and cost through Pulumi's own dynamic-provider plugin, against the emulator over real
// HTTP: a Pod with a GPU preference list lands on the first type with capacity (one pod made,
// requests counted); the GPU it got is an output; a new list that still holds it sends no
// request, one without it replaces; every type out of capacity fails naming each try.
// Then the stack's cost: the lines a preview prints for a change of gpu.count, workersMax and
// cloud (and none for an unchanged stack, which sends no request at all); a budget that stops
// a preview and an up before any write request, lets a stack over it get cheaper, and passes
// once raised (each budget a new plugin process, as each `pulumi preview` is). Last, the
// program side under mocks: the ledger registers first and every costed resource depends on it.
// The plugin loads dist/: run `npm run build` before this file alone.
import { type Emulator, startEmulator } from "../../src/emulator";
import { Pod, type PodArgs } from "../../src/resources/pod";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";
import { captureProgram, EngineStack, PROJECT, ProviderPlugin, type Registration, SECRET_KEYS } from "../../tools/engine";
import { startPlugin } from "../../tools/engine/rig";

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
  plugin = await startPlugin(config);
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

/** The stack's Pod (the ledger's StackCost is in the state beside it). */
const podOf = (stack: EngineStack) => [...stack.resources.values()].find((r) => r.type.endsWith(":Pod"))!;

const livePods = () => (emu.state().pods as { id: string; status: string; gpu?: { id: string } }[]).filter((p) => p.status !== "TERMINATED");

/**
 * Requests since `from` other than the stack cost's reads of the live pods and endpoints (it
 * prices a changed entry of an existing resource from what runs: stack-cost/what-runs.ts).
 */
const sinceBeyondLedger = (from: number) =>
  emu
    .requestLog()
    .slice(from)
    .filter((e) => !(e.method === "GET" && e.path === "/v2/pods") && e.op !== "myself")
    .map((e) => `${e.method} ${decodeURIComponent(e.path)} ${e.status}`);

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

  const res = podOf(stack);
  expect(res.outputs.gpu).toEqual({ id: L40S, count: 1 });
  // The catalog price of an L40S on SECURE, one GPU.
  expect(res.outputs.hourlyCost).toBe(0.86);

  // A new list that still holds the L40S: an update recorded without a request.
  const kept = { ...choices, gpu: { id: [A100, L40S], count: 1 } };
  const before = emu.requestLog().length;
  const preview = await stack.preview(await program(kept, true));
  // The ledger's record of the declaration changes too (its price does not: the pod keeps its L40S).
  expect(preview.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([["update", []], ["update", []]]);
  const applied = await stack.up(await program(kept));
  expect(applied.error).toBeUndefined();
  expect(sinceBeyondLedger(before)).toEqual([]);
  expect(stack.resources.get(res.urn)!.id).toBe(res.id);

  // A list without it: the preview says replace.
  const dropped = await stack.preview(await program({ ...choices, gpu: { id: [H100, RTX4090], count: 1 } }, true));
  expect(dropped.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([["update", []], ["replace", ["gpu"]]]);
  expect(sinceBeyondLedger(before)).toEqual([]);

  expect((await stack.destroy()).error).toBeUndefined();
});

test("every GPU type out of capacity: nothing made, the error names each type, the data centers and the platform's answer", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const before = livePods().length;
  const up = await stack.up(await program({ gpu: { id: [H100, A100], count: 2 }, dataCenterIds: ["EU-RO-1"] }));
  expect(up.error?.message).toContain(`"${H100}" x2 in data centers EU-RO-1: 400 no capacity for GPU type '${H100}'`);
  expect(up.error?.message).toContain(`"${A100}" x2 in data centers EU-RO-1: 400 no capacity for GPU type '${A100}'`);
  expect(up.error?.message).toMatch(/no pod was made/);
  console.log(`every GPU type out of capacity: ${up.error?.message}`);
  expect(livePods().length).toBe(before);
  expect([...stack.resources.values()].map((r) => r.type.split(":").at(-1))).toEqual(["StackCost"]);
});

test("maxHourlyCost on a pod refuses a fallback choice that costs more", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  // The H100 (no capacity anyway) and the L40S cost more than $0.80/h; the RTX 4090 ($0.69/h) fits.
  const up = await stack.up(await program({ gpu: { id: [L40S, RTX4090], count: 1 }, maxHourlyCost: 0.8 }));
  expect(up.error).toBeUndefined();
  expect(podOf(stack).outputs).toMatchObject({ gpu: { id: RTX4090, count: 1 }, hourlyCost: 0.69 });
  expect((await stack.destroy()).error).toBeUndefined();

  const refused = await stack.up(await program({ gpu: { id: [L40S], count: 1 }, maxHourlyCost: 0.8 }));
  expect(refused.error?.message).toContain(`"${L40S}" x1: not tried, its SECURE price $0.86/h is over maxHourlyCost $0.80/h`);
});

test("a preview of a fleet of 30 pods reads the catalog once per kind, however many resources it prices", async () => {
  // A fresh plugin process, as each `pulumi preview` is: it has read nothing yet.
  const fresh = await startPlugin(config);
  const stack = new EngineStack(fresh, { project: PROJECT, stack: "fleet" });
  const gpus = [L40S, RTX4090, "NVIDIA RTX A6000"];
  const regs = await captureProgram(
    () => {
      for (let i = 0; i < 30; i++) {
        const compute = i % 3 === 2 ? { cpu: { id: "cpu3c", vcpuCount: 2 ** (1 + (i % 4)) } } : { gpu: { id: gpus[i % 3]!, count: 1 + (i % 2) } };
        new Pod(`fleet-${i}`, { image: "worker:1", ...compute });
      }
    },
    { project: PROJECT, stack: "fleet", preview: true, config, secretKeys: SECRET_KEYS },
  );
  try {
    const from = emu.requestLog().length;
    const preview = await stack.preview(regs);
    expect(preview.error).toBeUndefined();
    expect(preview.steps).toHaveLength(31);
    expect(since(from).sort()).toEqual(["GET /v2/catalog/cpus 200", "GET /v2/catalog/gpus 200"]);
  } finally {
    await fresh.stop();
  }
});

describe("the stack's cost in preview and up, and its budget", () => {
  let tpl: string;
  let stack: EngineStack;
  type Shape = { pod: { gpu: { id: string; count: number }; cloud: "SECURE" | "COMMUNITY" }; workersMax: number; gpuCount?: number };
  const ALL: Shape = { pod: { gpu: { id: L40S, count: 1 }, cloud: "SECURE" }, workersMax: 2 };

  beforeAll(async () => {
    tpl = await createServerlessTemplate(emu.url, KEY);
  });

  /** A pod and an endpoint whose pricing fields the test varies. */
  const stackProgram = (shape: Shape, preview = false, cfg = config) =>
    captureProgram(
      () => {
        new Pod("trainer", { image: "trainer:1", ...shape.pod });
        new ServerlessEndpoint("api", { gpuIds: "ADA_48_PRO", templateId: tpl, workersMin: 0, workersMax: shape.workersMax, ...(shape.gpuCount ? { gpuCount: shape.gpuCount } : {}) });
      },
      { project: PROJECT, stack: "budget", preview, config: cfg, secretKeys: SECRET_KEYS },
    );

  /** The cost lines the plugin printed since `from` characters of its transcript. */
  const linesSince = (p: ProviderPlugin, from: number) =>
    p
      .transcript()
      .slice(from)
      .split("\n")
      .filter((l) => l.includes("cost: "))
      .map((l) => l.replace(/^.*?cost: /, "cost: "));
  /** Requests since `from` that change something: anything but a GET and the GraphQL list `myself`. */
  const writes = (from: number) =>
    emu
      .requestLog()
      .slice(from)
      .filter((e) => e.method !== "GET" && e.op !== "myself")
      .map((e) => `${e.method} ${e.path} ${e.op}`);

  test("preview prints the stack's cost before and after and the resources that change it; an unchanged stack prints nothing and sends nothing", async () => {
    stack = new EngineStack(plugin, { project: PROJECT, stack: "budget" });
    const up = await stack.up(await stackProgram(ALL));
    expect(up.error).toBeUndefined();
    // The ledger's resource first: the pod and the endpoint depend on it.
    expect(up.steps.map((s) => [s.urn.split("::").at(-1), s.op])).toEqual([
      ["stack-cost", "create"],
      ["trainer", "create"],
      ["api", "create"],
    ]);
    const api = [...stack.resources.values()].find((r) => r.type.endsWith("ServerlessEndpoint"))!;
    expect(api.outputs.hourlyCost).toEqual({ min: 0, max: 1.72 });

    const cases: [string, Shape, string][] = [
      ["gpu.count", { ...ALL, pod: { ...ALL.pod, gpu: { id: L40S, count: 2 } } }, "cost: $0.86-$2.58/h -> $1.72-$3.44/h (+$0.86/h): pod trainer gpu.count 1 -> 2"],
      ["workersMax", { ...ALL, workersMax: 4 }, "cost: $0.86-$2.58/h -> $0.86-$4.30/h (+$0.00-$1.72/h): endpoint api workersMax 2 -> 4"],
      ["cloud", { ...ALL, pod: { ...ALL.pod, cloud: "COMMUNITY" } }, "cost: $0.86-$2.58/h -> $0.69-$2.41/h (-$0.17/h): pod trainer cloud SECURE -> COMMUNITY"],
      // A worker of two GPUs costs two.
      ["gpuCount", { ...ALL, gpuCount: 2 }, "cost: $0.86-$2.58/h -> $0.86-$4.30/h (+$0.00-$1.72/h): endpoint api gpuCount 1 -> 2"],
    ];
    for (const [, shape, line] of cases) {
      const mark = plugin.transcript().length;
      const reqs = emu.requestLog().length;
      const preview = await stack.preview(await stackProgram(shape, true));
      expect(preview.error).toBeUndefined();
      await plugin.waitForTranscript(line);
      expect(linesSince(plugin, mark)).toEqual([line]);
      if (line === cases[0]![2]) console.log(`cost line as the plugin printed it: ${plugin.transcript().slice(mark).trim()}`);
      // Prices of the catalog this plugin process already read: no request but the ledger's look at what runs.
      expect(sinceBeyondLedger(reqs)).toEqual([]);
    }

    const mark = plugin.transcript().length;
    const reqs = emu.requestLog().length;
    const same = await stack.preview(await stackProgram(ALL, true));
    expect(same.steps.map((s) => s.op)).toEqual(["same", "same", "same"]);
    expect(since(reqs)).toEqual([]);
    expect(linesSince(plugin, mark)).toEqual([]);

    // gpuCount changes in place, and the endpoint's own cost output counts it; then back.
    const two = await stack.up(await stackProgram({ ...ALL, gpuCount: 2 }));
    expect(two.error).toBeUndefined();
    expect(two.steps.map((s) => s.op)).toEqual(["update", "same", "update"]);
    const api2 = [...stack.resources.values()].find((r) => r.type.endsWith("ServerlessEndpoint"))!;
    expect(api2.outputs).toMatchObject({ gpuCount: 2, hourlyCost: { min: 0, max: 3.44 } });
    expect((emu.state().endpoints as any[]).find((e) => e.id === api2.id)).toMatchObject({ gpuCount: 2 });
    const back = await stack.up(await stackProgram(ALL));
    expect(back.error).toBeUndefined();
    expect((emu.state().endpoints as any[]).find((e) => e.id === api2.id)).toMatchObject({ gpuCount: 1 });
  });

  test("a budget stops preview and up before any write request, lets an over-budget stack get cheaper, and passes once raised", async () => {
    // The stack the previous test made: $0.86-$2.58/h.

    const withBudget = async (usd: string) => {
      const cfg = { ...config, "computeplatform:maxHourlyCost": usd };
      const p = await startPlugin(cfg);
      const s = stack.carriedTo(p);
      return { p, s, cfg };
    };
    const bigger: Shape = { ...ALL, pod: { ...ALL.pod, gpu: { id: L40S, count: 3 } } };

    const tight = await withBudget("2");
    try {
      const reqs = emu.requestLog().length;
      const preview = await tight.s.preview(await stackProgram(bigger, true, tight.cfg));
      expect(preview.error?.message).toContain("the stack would cost $2.58-$4.30/h, over its budget $2.00/h (computeplatform:maxHourlyCost); it costs $0.86-$2.58/h now");
      expect(preview.error?.message).toContain("The most: pod trainer $2.58/h, endpoint api $0.00-$1.72/h");
      console.log(`a budget stops the preview: ${preview.error?.message}\nplugin output: ${linesSince(tight.p, 0).join("\n")}`);
      const up = await tight.s.up(await stackProgram(bigger, false, tight.cfg));
      expect(up.error?.message).toContain("over its budget $2.00/h");
      // Stopped at the ledger's check: neither the pod nor the endpoint reached the plugin.
      expect(tight.s.calls.filter((c) => !c.endsWith("stack-cost"))).toEqual([]);
      expect(writes(reqs)).toEqual([]);
      expect(livePods().find((p) => p.gpu?.id === L40S)).toMatchObject({ gpu: { count: 1 } });

      // Over its budget already ($2.58/h at most), a cheaper change still passes.
      const cheaper = await tight.s.up(await stackProgram({ ...ALL, workersMax: 1 }, false, tight.cfg));
      expect(cheaper.error).toBeUndefined();
      expect(cheaper.steps.map((s) => s.op)).toEqual(["update", "same", "update"]);
      for (const [urn, r] of tight.s.resources) stack.resources.set(urn, r);
    } finally {
      await tight.p.stop();
    }

    const raised = await withBudget("5");
    try {
      const up = await raised.s.up(await stackProgram(bigger, false, raised.cfg));
      expect(up.error).toBeUndefined();
      expect(up.steps.map((s) => s.op)).toEqual(["update", "replace", "update"]);
      expect(livePods().find((p) => p.gpu?.id === L40S)).toMatchObject({ gpu: { count: 3 } });
      expect((await raised.s.destroy()).error).toBeUndefined();
    } finally {
      await raised.p.stop();
    }
  });
});

// The program side of the ledger, under Pulumi's mocks: what the SDK registers.
describe("the ledger in the program", () => {
  const ledgerPod = (name: string) => new Pod(name, { image: "img:1", gpu: { id: ["NVIDIA L40S", "NVIDIA RTX A6000"], count: 2 }, cloud: "COMMUNITY" });

  test("the StackCost registers first with every costed resource's pricing fields; each costed resource depends on it", async () => {
    const regs = await captureProgram(() => {
      ledgerPod("a");
      new ServerlessEndpoint("api", { gpuIds: "ADA_24", templateId: "tpl-1", workersMax: 3 });
      ledgerPod("b");
      // Read-only: no part of the stack's cost.
      Pod.get("elsewhere", "pod-9");
    });
    // The `.get` is a read (ReadResource), sent at once, outside the ledger; then the ledger,
    // then its members. Among the members the SDK registers each once its inputs resolve (the
    // first of a kind waits for its provider's serialized text), so their order is not the program's.
    expect(regs.slice(0, 2).map((r) => [r.name, r.read])).toEqual([
      ["elsewhere", "pod-9"],
      ["stack-cost", undefined],
    ]);
    expect(regs.slice(2).map((r) => [r.name, r.read]).sort()).toEqual([
      ["a", undefined],
      ["api", undefined],
      ["b", undefined],
    ]);
    const [ledger, ...members] = regs.filter((r) => r.read === undefined);
    expect(ledger!.type).toMatch(/StackCost$/);
    expect(ledger!.inputs.entries).toEqual({
      // `owner`: how the ledger finds each one's live object (stack-cost/what-runs.ts).
      "pod a": { kind: "pod", name: "a", gpu: { id: ["NVIDIA L40S", "NVIDIA RTX A6000"], count: 2 }, cloud: "COMMUNITY", owner: expect.stringMatching(/^[0-9a-f]{16}$/) },
      "endpoint api": { kind: "endpoint", name: "api", gpuIds: "ADA_24", workersMax: 3, owner: expect.stringMatching(/^[0-9a-f]{16}$/) },
      "pod b": { kind: "pod", name: "b", gpu: { id: ["NVIDIA L40S", "NVIDIA RTX A6000"], count: 2 }, cloud: "COMMUNITY", owner: expect.stringMatching(/^[0-9a-f]{16}$/) },
    });
    for (const m of members) expect(m.options.dependencies).toEqual([expect.stringMatching(/StackCost::stack-cost$/)]);
  });

  test("a costed resource declared after the ledger closed: left out with a warning, or refused when a budget is set", async () => {
    const late = async () => {
      ledgerPod("early");
      await new Promise((resolve) => setTimeout(resolve, 20));
      ledgerPod("late");
    };
    const regs = await captureProgram(late);
    expect(regs.map((r) => r.name)).toEqual(["stack-cost", "early", "late"]);
    expect(Object.keys(regs[0]!.inputs.entries as object)).toEqual(["pod early"]);
    await expect(captureProgram(late, { config: { "computeplatform:maxHourlyCost": "5" } })).rejects.toThrow(
      /Pod "late" was declared after the stack's cost was settled, so the budget cannot hold it; declare every Pod and ServerlessEndpoint in the same turn/,
    );
  });
});

// The StackCost's outputs are what its diff and delete need (issue 37): the total, each entry's
// price and a digest of the checked entries, not a second copy of the entries, which stay in the
// checked inputs. State written before (outputs holding the entries) still diffs and deletes.
import * as pulumi from "@pulumi/pulumi";
import { ConfigurationError } from "../../../../src/client";
import { setPlatformSettings } from "../../../../src/resources/engine/settings";
import { StackCostProvider, type StackCostOutputs, type StackCostState } from "../../../../src/resources/stack-cost/provider";
import type { PricedEntry } from "../../../../src/resources/stack-cost/report";

const priced = (n: number): Record<string, PricedEntry> =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `pod trainer-${i}`,
      { kind: "pod", name: `trainer-${i}`, gpu: { id: "L40S", count: 1 }, cloud: "SECURE", desiredStatus: "RUNNING", owner: `Pod-${i}-3f9a1c2e`, hourly: { min: 0.86, max: 0.86 }, liveId: `pod-${i}` },
    ]),
  );
const state = (entries: Record<string, PricedEntry>): StackCostState => ({ entries, total: { min: 0.86 * Object.keys(entries).length, max: 0.86 * Object.keys(entries).length } });

function provider() {
  const lines: string[] = [];
  return { p: new StackCostProvider({ client: () => ({}) as never, print: (l) => lines.push(l) }), lines };
}

test("the outputs hold the total, the prices and a digest: a fraction of the entries' size", async () => {
  const { p } = provider();
  const inputs = state(priced(300));
  const { outs } = await p.create(inputs);
  expect(Object.keys(outs).sort()).toEqual(["digest", "prices", "total"]);
  expect(outs.digest).toMatch(/^[0-9a-f]{16}$/);
  expect(outs.total).toEqual(inputs.total);
  expect(JSON.stringify(outs).length).toBeLessThan(JSON.stringify(inputs).length / 3);
});

test("diff against the outputs: no change for the same entries, a change for another price or entry", async () => {
  const { p } = provider();
  const entries = priced(3);
  const { outs } = await p.create(state(entries));
  expect((await p.diff("stack-cost", outs, state(priced(3)))).changes).toBe(false);
  const dearer = priced(3);
  dearer["pod trainer-1"]!.hourly = { min: 2.99, max: 2.99 };
  expect((await p.diff("stack-cost", outs, state(dearer))).changes).toBe(true);
  expect((await p.diff("stack-cost", outs, state(priced(4)))).changes).toBe(true);
});

test("state written before (outputs holding the entries) diffs and deletes as it did", async () => {
  const { p, lines } = provider();
  const old: StackCostOutputs = state(priced(2)) as StackCostOutputs;
  expect((await p.diff("stack-cost", old, state(priced(2)))).changes).toBe(false);
  expect((await p.diff("stack-cost", old, state(priced(3)))).changes).toBe(true);
  await p.delete("stack-cost", old);
  const { outs } = await p.create(old as StackCostState);
  await p.delete("stack-cost", outs);
  // The same line from either shape: every resource's cost going to nothing.
  expect(lines).toHaveLength(2);
  expect(lines[1]).toBe(lines[0]);
  expect(lines[0]).toMatch(/pod trainer-0 removed.*pod trainer-1 removed/);
});

// What check returns travels over gRPC at every check and diff: one string per entry, not an
// object of a dozen protobuf values (a stack of 360 costed resources: 4,086 values before).
test("check keeps each priced entry as one JSON text; the next check reads it back and prices nothing again", async () => {
  const { p, lines } = provider();
  const declared = Object.fromEntries(Object.entries(priced(3)).map(([k, { hourly: _h, liveId: _l, ...e }]) => [k, e]));
  const before = priced(3);
  const texts = Object.fromEntries(Object.entries(before).map(([k, e]) => [k, JSON.stringify(e)]));
  const { inputs, failures } = await p.check({ entries: texts, total: { min: 2.58, max: 2.58 } }, { entries: declared });
  expect(failures).toBeUndefined();
  for (const [key, text] of Object.entries(inputs.entries as Record<string, unknown>)) {
    expect(typeof text).toBe("string");
    expect(JSON.parse(text as string)).toEqual(before[key]);
  }
  expect(inputs.total).toEqual({ min: 2.58, max: 2.58 });
  // The same prices, so no cost line; the client answers nothing, so no request was needed.
  expect(lines).toStrictEqual([]);
  // Equal entries, equal texts: the keys are sorted, whatever order the entry was built in.
  const again = await p.check({ entries: inputs.entries }, { entries: declared });
  expect(again.inputs.entries).toEqual(inputs.entries);
});

test("state written by 0.2.0 (checked entries as objects) checks and diffs as the same stack", async () => {
  const { p, lines } = provider();
  const declared = Object.fromEntries(Object.entries(priced(2)).map(([k, { hourly: _h, liveId: _l, ...e }]) => [k, e]));
  const older = state(priced(2));
  const { outs } = await p.create(older);
  const { inputs } = await p.check(older, { entries: declared });
  expect(Object.values(inputs.entries as object).every((t) => typeof t === "string")).toBe(true);
  expect(lines).toStrictEqual([]);
  expect((await p.diff("stack-cost", outs, inputs as StackCostState)).changes).toBe(false);
  expect((await p.create(inputs as StackCostState)).outs).toEqual(outs);
});

// A pod with a GPU preference list is priced from its live object once it exists (which type it
// got); the up that made it checked the stack's cost before it existed. The look after that up
// finds the price it had: the record stays as it was, so that preview is clean (preview check,
// seed 20261124, Pod: the StackCost updated with no diff after every such up).
test("a look at the live object that changes no price changes no record: the preview after the up is clean", async () => {
  const gpu = { id: "NVIDIA GeForce RTX 4090", name: "RTX 4090", pool: "ADA_24", manufacturer: "NVIDIA", memory: 24, secure: true, community: true, price: { secure: 0.69, community: 0.34 }, maxCount: 8 };
  const pod = { id: "p1", name: "trainer-1a2b3c4", status: "RUNNING", createdAt: "2026-11-29T00:00:00Z", cloud: "SECURE", gpu: { id: gpu.id, count: 1 }, env: { COMPUTEPLATFORM_OWNER: "Pod-0-3f9a1c2e" } };
  let listed = 0;
  const client = () => ({ catalog: { gpus: async () => [gpu], cpus: async () => [] }, pods: { list: async () => (listed++, [pod]) } }) as never;
  const p = new StackCostProvider({ client, print: () => {} });
  const declared = { "pod trainer": { kind: "pod", name: "trainer", gpu: { id: [gpu.id], count: 1 }, cloud: "SECURE", desiredStatus: "RUNNING", owner: "Pod-0-3f9a1c2e" } };
  // The up's check, before the pod exists: priced from the declaration.
  const atUp = await p.check(undefined, { entries: declared });
  const { outs } = await p.create(atUp.inputs as StackCostState);
  // The preview after it: the pod is found with the type and price the declaration gave.
  const after = await p.check(atUp.inputs, { entries: declared });
  expect(listed).toBe(1);
  expect(after.inputs.entries).toEqual(atUp.inputs.entries);
  expect((await p.diff("stack-cost", outs, after.inputs as StackCostState)).changes).toBe(false);
  // A live pod on a dearer type than the declaration's first choice is a new price, and recorded with its id.
  pod.gpu.id = "NVIDIA L40S";
  const dearer = { ...gpu, id: "NVIDIA L40S", price: { secure: 0.99, community: 0.5 } };
  const p2 = new StackCostProvider({ client: () => ({ catalog: { gpus: async () => [gpu, dearer], cpus: async () => [] }, pods: { list: async () => [pod] } }) as never, print: () => {} });
  const listDecl = { "pod trainer": { ...declared["pod trainer"], gpu: { id: [gpu.id, dearer.id], count: 1 } } };
  const first = await p2.check(undefined, { entries: listDecl });
  const moved = await p2.check(first.inputs, { entries: listDecl });
  expect(JSON.parse((moved.inputs.entries as Record<string, string>)["pod trainer"]!)).toMatchObject({ liveId: "p1", hourly: { min: 0.99, max: 0.99 } });
});

// ---------------------------------------------------------------------------------------------
// check() as a table: what each entry is priced from, the cost line it prints, the reads it
// sends, and the budgets it holds (README, "Cost lines" and "Budgets"). The fake client counts
// each read; the catalog: an L40S (tier ADA_48_PRO) at $0.86 secure, $0.50 community per GPU-hour,
// an H100 at $2.99, a CPU flavor at $0.03 per vCPU-hour.

const L40S = { id: "NVIDIA L40S", name: "L40S", pool: "ADA_48_PRO", manufacturer: "NVIDIA", memory: 48, secure: true, community: true, price: { secure: 0.86, community: 0.5 }, maxCount: { secure: 8, community: 8 } };
const B200 = "NVIDIA B200";
const H100 = { ...L40S, id: "NVIDIA H100 80GB HBM3", name: "H100", pool: "HOPPER_141", memory: 80, price: { secure: 2.99, community: 1.99 } };
const CPU3C = { id: "cpu3c", name: "Compute 3", group: "cpu3", vcpu: { min: 2, max: 32 }, ramGbPerVcpu: 2, price: { securePerVcpu: 0.03, serverlessPerVcpu: 0.04 } };

interface Fake {
  gpus?: () => Promise<unknown[]>;
  pods?: unknown[];
  endpoints?: unknown[] | false;
  serverless?: unknown[];
}

/** A client whose every read is counted in `calls`; one object, so its price book and account view are shared by its checks. */
function fake(f: Fake = {}) {
  const calls: string[] = [];
  const client = {
    catalog: {
      gpus: async () => (calls.push("gpus"), f.gpus ? f.gpus() : [L40S, H100]),
      cpus: async () => (calls.push("cpus"), [CPU3C]),
    },
    pods: { list: async () => (calls.push("pods"), f.pods ?? []) },
    ...(f.endpoints === false ? {} : { endpoints: { list: async (o: { fields: string[] }) => (calls.push(`endpoints ${o.fields.join(",")}`), f.endpoints ?? []) } }),
    serverless: { list: async () => (calls.push("serverless"), f.serverless ?? []) },
  };
  const lines: string[] = [];
  return { p: new StackCostProvider({ client: () => client as never, print: (l) => lines.push(l) }), calls, lines };
}

const pod = (over: Record<string, unknown> = {}) => ({ kind: "pod", name: "trainer", gpu: { id: L40S.id, count: 1 }, cloud: "SECURE", desiredStatus: "RUNNING", ...over });
const endpoint = (over: Record<string, unknown> = {}) => ({ kind: "endpoint", name: "api", gpuIds: "ADA_48_PRO", workersMax: 2, ...over });
const livePod = (over: Record<string, unknown> = {}) => ({ id: "p1", name: "trainer-1a2b3c4", status: "RUNNING", createdAt: "2026-11-29T00:00:00Z", cloud: "SECURE", gpu: { id: L40S.id, count: 1 }, env: { COMPUTEPLATFORM_OWNER: "Pod-0-3f9a1c2e" }, ...over });
/** The checked entry of `key`, parsed. */
const entryOf = (inputs: Record<string, any>, key: string) => JSON.parse(inputs.entries[key]) as PricedEntry;
/** Checked inputs of the last up, from entries with their prices. */
const last = (entries: Record<string, object>) => ({ entries: Object.fromEntries(Object.entries(entries).map(([k, e]) => [k, JSON.stringify(e)])) });

const BUDGET = "COMPUTEPLATFORM_MAX_HOURLY_COST";
const ACCOUNT_BUDGET = "COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST";
afterEach(() => {
  delete process.env[BUDGET];
  delete process.env[ACCOUNT_BUDGET];
});

describe("check: a ledger entry that is not one fails, naming the entry, before any request", () => {
  test.each([
    ["a number", { a: 5 }, [{ property: 'entries["a"]', reason: "a ledger entry must be an object" }]],
    ["an array", { a: [] }, [{ property: 'entries["a"]', reason: "a ledger entry must be an object" }]],
    ["another kind", { a: { kind: "vm", name: "x" } }, [{ property: 'entries["a"]', reason: 'a ledger entry\'s kind must be pod or endpoint (got "vm")' }]],
    [
      "two bad among good ones: each named",
      { good: pod(), a: null, b: { name: "no kind" } },
      [
        { property: 'entries["a"]', reason: "a ledger entry must be an object" },
        { property: 'entries["b"]', reason: "a ledger entry's kind must be pod or endpoint (got undefined)" },
      ],
    ],
  ])("%s", async (_what, entries, failures) => {
    const { p, calls, lines } = fake();
    const news = { entries };
    const result = await p.check(undefined, news);
    expect(result.failures).toEqual(failures);
    // The inputs as they came: nothing priced, nothing read, nothing printed.
    expect(result.inputs).toBe(news);
    expect(calls).toEqual([]);
    expect(lines).toStrictEqual([]);
  });
});

describe("check: a new entry is priced from its declaration, the platform's defaults and the catalog", () => {
  test.each([
    ["an L40S pod of 2 GPUs, secure", pod({ gpu: { id: L40S.id, count: 2 } }), { min: 1.72, max: 1.72 }, ["gpus"], "cost: $0.00/h -> $1.72/h (+$1.72/h): pod trainer added"],
    ["the GPU count left out is 1", pod({ gpu: { id: L40S.id } }), { min: 0.86, max: 0.86 }, ["gpus"], "cost: $0.00/h -> $0.86/h (+$0.86/h): pod trainer added"],
    ["on the community cloud", pod({ cloud: "COMMUNITY" }), { min: 0.5, max: 0.5 }, ["gpus"], "cost: $0.00/h -> $0.50/h (+$0.50/h): pod trainer added"],
    ["an EXITED pod costs nothing, with no read", pod({ desiredStatus: "EXITED" }), { min: 0, max: 0 }, [], "cost: $0.00/h -> $0.00/h (+$0.00/h): pod trainer added"],
    ["a preference list: its first choice within maxHourlyCost", pod({ gpu: { id: [H100.id, L40S.id], count: 1 }, maxHourlyCost: 1 }), { min: 0.86, max: 0.86 }, ["gpus"], "cost: $0.00/h -> $0.86/h (+$0.86/h): pod trainer added"],
    ["a preference list without a cap: its first choice", pod({ gpu: { id: [H100.id, L40S.id], count: 2 } }), { min: 5.98, max: 5.98 }, ["gpus"], "cost: $0.00/h -> $5.98/h (+$5.98/h): pod trainer added"],
    ["a CPU pod: the flavor's price per vCPU", pod({ gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 4 } }), { min: 0.12, max: 0.12 }, ["cpus"], "cost: $0.00/h -> $0.12/h (+$0.12/h): pod trainer added"],
    ["a GPU the catalog does not list", pod({ gpu: { id: "NVIDIA B200", count: 1 } }), null, ["gpus"], "cost: $0.00/h -> $0.00/h (+$0.00/h); not counted: pod trainer (not priced by the catalog)"],
    ["an endpoint of 0 to 2 workers", endpoint(), { min: 0, max: 1.72 }, ["gpus"], "cost: $0.00/h -> $0.00-$1.72/h (+$0.00-$1.72/h): endpoint api added"],
    ["an endpoint without workersMax: the platform's 3", endpoint({ workersMax: undefined, workersMin: 1 }), { min: 0.86, max: 2.58 }, ["gpus"], "cost: $0.00/h -> $0.86-$2.58/h (+$0.86-$2.58/h): endpoint api added"],
    ["an endpoint of 2 GPUs a worker", endpoint({ gpuCount: 2 }), { min: 0, max: 3.44 }, ["gpus"], "cost: $0.00/h -> $0.00-$3.44/h (+$0.00-$3.44/h): endpoint api added"],
  ])("%s", async (_what, entry, hourly, calls, line) => {
    const f = fake();
    const news = { entries: { "x 1": entry } };
    const { inputs, failures } = await f.p.check(undefined, news);
    expect(failures).toBeUndefined();
    expect(entryOf(inputs, "x 1").hourly).toEqual(hourly);
    expect(entryOf(inputs, "x 1").liveId).toBeUndefined();
    expect(inputs.total).toEqual(hourly ?? { min: 0, max: 0 });
    // A new entry has no live object to look at: only the catalog is read.
    expect(f.calls).toEqual(calls);
    expect(f.lines).toEqual([line]);
  });

  test("what the program sends besides the entries is kept; the entries become texts and the total is the stack's after the change", async () => {
    const { p } = fake();
    const { inputs } = await p.check(undefined, { entries: { "pod a": pod(), "endpoint b": endpoint() }, __provider: "shim", total: { min: 9, max: 9 } });
    expect(Object.keys(inputs).sort()).toEqual(["__provider", "entries", "total"]);
    expect(inputs.__provider).toBe("shim");
    expect(inputs.total).toEqual({ min: 0.86, max: 2.58 });
    expect(typeof inputs.entries["pod a"]).toBe("string");
  });

  test("no entries (or none an object holds): an empty stack, nothing read or printed", async () => {
    for (const news of [undefined, {}, { entries: null }, { entries: "x" }, { entries: [pod()] }]) {
      const { p, calls, lines } = fake();
      const { inputs, failures } = await p.check(undefined, news);
      expect(failures).toBeUndefined();
      expect(inputs.entries).toEqual({});
      expect(inputs.total).toEqual({ min: 0, max: 0 });
      expect(calls).toEqual([]);
      expect(lines).toStrictEqual([]);
    }
  });

  test("a removed entry is priced at nothing and printed as removed", async () => {
    const { p, calls, lines } = fake();
    const { inputs } = await p.check(last({ "pod trainer": { ...pod(), hourly: { min: 0.86, max: 0.86 } } }), { entries: {} });
    expect(inputs.total).toEqual({ min: 0, max: 0 });
    expect(calls).toEqual([]);
    expect(lines).toEqual(["cost: $0.86/h -> $0.00/h (-$0.86/h): pod trainer removed"]);
  });
});

describe("check: an entry that exists is priced as up will leave it, from its live object", () => {
  const before = (entry: object, hourly: object | null, liveId?: string) => last({ x: { ...entry, hourly, ...(liveId ? { liveId } : {}) } });

  test("a pod's count hidden by ignoreChanges: the live count, and the pod's id recorded", async () => {
    const { p, calls, lines } = fake({ pods: [livePod({ gpu: { id: L40S.id, count: 2 } })] });
    const declared = pod({ owner: "Pod-0-3f9a1c2e", ignore: ["gpu.count"], gpu: { id: L40S.id, count: 3 } });
    const { inputs } = await p.check(before(pod({ owner: "Pod-0-3f9a1c2e", ignore: ["gpu.count"] }), { min: 0.86, max: 0.86 }, "p1"), { entries: { x: declared } });
    expect(entryOf(inputs, "x")).toMatchObject({ hourly: { min: 1.72, max: 1.72 }, liveId: "p1" });
    expect(calls).toEqual(["pods", "gpus"]);
    expect(lines).toEqual(["cost: $0.86/h -> $1.72/h (+$0.86/h): pod trainer gpu.count 1 -> 3"]);
  });

  test("a pod whose object is gone is priced from its declaration and records no id", async () => {
    const { p, calls } = fake({ pods: [] });
    const { inputs } = await p.check(before(pod({ owner: "Pod-0-3f9a1c2e" }), { min: 0.86, max: 0.86 }, "p1"), { entries: { x: pod({ owner: "Pod-0-3f9a1c2e", gpu: { id: L40S.id, count: 2 } }) } });
    expect(entryOf(inputs, "x").hourly).toEqual({ min: 1.72, max: 1.72 });
    expect(entryOf(inputs, "x").liveId).toBeUndefined();
    expect(calls).toEqual(["pods", "gpus"]);
  });

  test("an unchanged entry with a recorded id keeps its price and its id, with no read", async () => {
    const { p, calls, lines } = fake({ pods: [livePod({ gpu: { id: L40S.id, count: 4 } })] });
    const entry = pod({ owner: "Pod-0-3f9a1c2e", ignore: ["gpu.count"] });
    const { inputs } = await p.check(before(entry, { min: 0.86, max: 0.86 }, "p1"), { entries: { x: entry } });
    expect(entryOf(inputs, "x")).toMatchObject({ hourly: { min: 0.86, max: 0.86 }, liveId: "p1" });
    expect(calls).toEqual([]);
    expect(lines).toStrictEqual([]);
  });

  test("an unchanged pod with a single GPU type and nothing hidden is never looked at again", async () => {
    const { p, calls } = fake({ pods: [livePod()] });
    const entry = pod({ owner: "Pod-0-3f9a1c2e" });
    const { inputs } = await p.check(before(entry, { min: 0.86, max: 0.86 }), { entries: { x: entry } });
    expect(entryOf(inputs, "x").liveId).toBeUndefined();
    expect(calls).toEqual([]);
  });

  test("an unchanged endpoint with a hidden field and no recorded id is looked at: a new live price is recorded with its id", async () => {
    const live = { id: "ep1", name: "api-3f9a1c2", gpuIds: "ADA_48_PRO", workersMin: 0, workersMax: 5, gpuCount: 1 };
    const { p, calls, lines } = fake({ endpoints: [live] });
    const entry = endpoint({ owner: "3f9a1c2e", ignore: ["workersMax"] });
    const { inputs } = await p.check(before(entry, { min: 0, max: 1.72 }), { entries: { x: entry } });
    expect(entryOf(inputs, "x")).toMatchObject({ hourly: { min: 0, max: 4.3 }, liveId: "ep1" });
    // GraphQL's list, asked only for the fields that find and price an endpoint.
    expect(calls).toEqual(["endpoints name,gpuIds,workersMin,workersMax,gpuCount", "gpus"]);
    expect(lines).toEqual(["cost: $0.00-$1.72/h -> $0.00-$4.30/h (+$0.00-$2.58/h): endpoint api price"]);
  });

  test("... the same live price: the record stays as it was, with no id", async () => {
    const live = { id: "ep1", name: "api-3f9a1c2", gpuIds: "ADA_48_PRO", workersMin: 0, workersMax: 2, gpuCount: 1 };
    const { p, lines } = fake({ endpoints: [live] });
    const entry = endpoint({ owner: "3f9a1c2e", ignore: ["workersMax"] });
    const old = before(entry, { min: 0, max: 1.72 });
    const { inputs } = await p.check(old, { entries: { x: entry } });
    expect(entryOf(inputs, "x")).toEqual(JSON.parse(old.entries.x!));
    expect(lines).toStrictEqual([]);
  });

  test("a changed endpoint: a worker count the program leaves out is the live one; GraphQL's list is read once for every endpoint", async () => {
    const lives = [
      { id: "ep1", name: "api-3f9a1c2", gpuIds: "ADA_48_PRO", workersMin: 1, workersMax: 2, gpuCount: 1 },
      { id: "ep2", name: "web-4e8b2d3", gpuIds: "ADA_48_PRO", workersMin: 2, workersMax: 2, gpuCount: 1 },
    ];
    const { p, calls } = fake({ endpoints: lives });
    const a = endpoint({ owner: "3f9a1c2e" });
    const b = endpoint({ name: "web", owner: "4e8b2d3f" });
    const old = last({ a: { ...a, hourly: { min: 0, max: 1.72 }, liveId: "ep1" }, b: { ...b, hourly: { min: 0, max: 1.72 } } });
    const { inputs } = await p.check(old, { entries: { a: { ...a, workersMax: 4 }, b: { ...b, workersMax: 3 } } });
    expect(entryOf(inputs, "a")).toMatchObject({ hourly: { min: 0.86, max: 3.44 }, liveId: "ep1" });
    expect(entryOf(inputs, "b")).toMatchObject({ hourly: { min: 1.72, max: 2.58 }, liveId: "ep2" });
    expect(calls.filter((c) => c.startsWith("endpoints"))).toHaveLength(1);
    expect(calls).not.toContain("serverless");
  });

  test("an endpoint managed over REST v2 is read from REST's list, not GraphQL's", async () => {
    const rest = { id: "ep1", name: "api-3f9a1c2", gpu: { pools: ["ADA_48_PRO"], count: 1 }, workers: { min: 1, max: 2 } };
    const { p, calls } = fake({ serverless: [rest], endpoints: [] });
    const entry = endpoint({ owner: "3f9a1c2e", api: "rest" });
    const { inputs } = await p.check(last({ x: { ...entry, hourly: { min: 0, max: 1.72 } } }), { entries: { x: { ...entry, workersMax: 4 } } });
    expect(entryOf(inputs, "x")).toMatchObject({ hourly: { min: 0.86, max: 3.44 }, liveId: "ep1" });
    expect(calls).toEqual(["serverless", "gpus"]);
  });

  test("a worker count the program declared before and no longer does goes back to the provider's default, not the live one", async () => {
    const live = { id: "ep1", name: "api-3f9a1c2", gpuIds: "ADA_48_PRO", workersMin: 1, workersMax: 2, gpuCount: 1 };
    const { p } = fake({ endpoints: [live] });
    const entry = endpoint({ owner: "3f9a1c2e" });
    const { inputs } = await p.check(last({ x: { ...entry, workersMin: 1, hourly: { min: 0.86, max: 1.72 }, liveId: "ep1" } }), { entries: { x: entry } });
    expect(entryOf(inputs, "x")).toMatchObject({ hourly: { min: 0, max: 1.72 }, liveId: "ep1" });
  });

  test("a change up only records (a new maxHourlyCost) keeps the price, and the id of the object looked at", async () => {
    const { p, calls, lines } = fake({ pods: [livePod()] });
    const entry = pod({ owner: "Pod-0-3f9a1c2e" });
    const { inputs } = await p.check(last({ x: { ...entry, hourly: { min: 0.86, max: 0.86 }, liveId: "p1" } }), { entries: { x: { ...entry, maxHourlyCost: 5 } } });
    expect(entryOf(inputs, "x")).toMatchObject({ maxHourlyCost: 5, hourly: { min: 0.86, max: 0.86 }, liveId: "p1" });
    expect(calls).toEqual(["pods", "gpus"]);
    expect(lines).toStrictEqual([]);
  });

  test("an unchanged CPU pod is never looked at again", async () => {
    const { p, calls } = fake({ pods: [livePod({ gpu: null, cpu: { id: "cpu3c", vcpuCount: 4 } })] });
    const entry = pod({ owner: "Pod-0-3f9a1c2e", gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 4 } });
    const { inputs } = await p.check(before(entry, { min: 0.12, max: 0.12 }), { entries: { x: entry } });
    expect(entryOf(inputs, "x").hourly).toEqual({ min: 0.12, max: 0.12 });
    expect(calls).toEqual([]);
  });

  // A pod with a preference list and no recorded id is looked at by every check: its id is recorded
  // only when the look changes its price (both unpriced is no change).
  test.each([
    ["unpriced before and after: no record", [B200, "NVIDIA B100"], B200, null, null, undefined],
    ["unpriced before, priced now: recorded", [L40S.id, H100.id], L40S.id, null, { min: 0.86, max: 0.86 }, "p1"],
    ["priced before, unpriced now: recorded", [B200, L40S.id], B200, { min: 0.86, max: 0.86 }, null, "p1"],
    ["the same price: no record", [L40S.id, H100.id], L40S.id, { min: 0.86, max: 0.86 }, { min: 0.86, max: 0.86 }, undefined],
  ])("a preference list, %s", async (_what, choices, got, was, now, liveId) => {
    const { p } = fake({ pods: [livePod({ gpu: { id: got, count: 1 } })] });
    const entry = pod({ owner: "Pod-0-3f9a1c2e", gpu: { id: choices, count: 1 } });
    const { inputs } = await p.check(before(entry, was), { entries: { x: entry } });
    expect(entryOf(inputs, "x").hourly).toEqual(now);
    expect(entryOf(inputs, "x").liveId).toBe(liveId);
  });

  test("an endpoint's hidden workersMin: a new least price is a new price, recorded with the id", async () => {
    const live = { id: "ep1", name: "api-3f9a1c2", gpuIds: "ADA_48_PRO", workersMin: 1, workersMax: 2, gpuCount: 1 };
    const { p } = fake({ endpoints: [live] });
    const entry = endpoint({ owner: "3f9a1c2e", ignore: ["workersMin"] });
    const { inputs } = await p.check(before(entry, { min: 0, max: 1.72 }), { entries: { x: entry } });
    expect(entryOf(inputs, "x")).toMatchObject({ hourly: { min: 0.86, max: 1.72 }, liveId: "ep1" });
  });

  test("a client that cannot list endpoints prices a changed endpoint from its declaration", async () => {
    const { p, calls } = fake({ endpoints: false });
    const entry = endpoint({ owner: "3f9a1c2e", workersMin: 1 });
    const { inputs } = await p.check(last({ x: { ...entry, hourly: { min: 0.86, max: 1.72 }, liveId: "ep1" } }), { entries: { x: { ...entry, workersMax: 4 } } });
    expect(entryOf(inputs, "x").hourly).toEqual({ min: 0.86, max: 3.44 });
    expect(entryOf(inputs, "x").liveId).toBeUndefined();
    expect(calls).toEqual(["gpus"]);
  });
});

describe("check: the catalog unreadable", () => {
  test("an entry is left unpriced and named with the reason; the catalog is asked once, not once per entry", async () => {
    const { p, calls, lines } = fake({ gpus: async () => Promise.reject(new Error("connect ECONNREFUSED")) });
    const { inputs } = await p.check(undefined, { entries: { "pod a": pod({ name: "a" }), "pod b": pod({ name: "b" }) } });
    expect(calls).toEqual(["gpus"]);
    expect(entryOf(inputs, "pod a").hourly).toBeUndefined();
    expect(entryOf(inputs, "pod b").hourly).toBeUndefined();
    expect(inputs.total).toEqual({ min: 0, max: 0 });
    expect(lines).toEqual(["cost: $0.00/h -> $0.00/h (+$0.00/h); not counted: pod a (catalog unreadable: connect ECONNREFUSED), pod b (catalog unreadable: connect ECONNREFUSED)"]);
  });

  test("a thrown value that is not an Error is named as it is", async () => {
    const { p, lines } = fake({ gpus: async () => Promise.reject("socket hang up") });
    await p.check(undefined, { entries: { "pod a": pod({ name: "a" }) } });
    expect(lines).toEqual(["cost: $0.00/h -> $0.00/h (+$0.00/h); not counted: pod a (catalog unreadable: socket hang up)"]);
  });

  test.each([
    ["a key no retry fixes (401)", Object.assign(new Error("unauthorized"), { status: 401 })],
    ["no key set", new ConfigurationError("no API key")],
  ])("%s fails the check, as the resources' own calls would", async (_what, err) => {
    const { p, lines } = fake({ gpus: async () => Promise.reject(err) });
    await expect(p.check(undefined, { entries: { "pod a": pod() } })).rejects.toBe(err);
    expect(lines).toStrictEqual([]);
  });

  test("with a budget, the check fails: the budget cannot be held", async () => {
    process.env[BUDGET] = "2";
    const { p, lines } = fake({ gpus: async () => Promise.reject(new Error("503 Service Unavailable")) });
    await expect(p.check(undefined, { entries: { "pod a": pod() } })).rejects.toThrow(
      "the stack's budget $2.00/h (COMPUTEPLATFORM_MAX_HOURLY_COST) cannot be held: reading the catalog's prices failed (503 Service Unavailable)",
    );
    expect(lines).toHaveLength(1);
  });

  test("with the account's budget, the account is not read: the line says what is not counted", async () => {
    process.env[ACCOUNT_BUDGET] = "5";
    const { p, calls, lines } = fake({ gpus: async () => Promise.reject(new Error("503")) });
    await p.check(undefined, { entries: { "pod a": pod({ name: "a" }) } });
    expect(calls).toEqual(["gpus"]);
    expect(lines).toEqual(["cost: $0.00/h -> $0.00/h (+$0.00/h); not counted: pod a (catalog unreadable: 503)"]);
  });
});

describe("check: the stack's budget", () => {
  test.each([
    ["under it", "2", pod({ gpu: { id: L40S.id, count: 2 } }), undefined],
    ["at it", "1.72", pod({ gpu: { id: L40S.id, count: 2 } }), undefined],
    [
      "over it",
      "2",
      pod({ gpu: { id: L40S.id, count: 3 } }),
      "the stack would cost $2.58/h, over its budget $2.00/h (COMPUTEPLATFORM_MAX_HOURLY_COST); it costs $0.00/h now. Nothing was created or changed. The most: pod trainer $2.58/h. Lower the cost, or raise COMPUTEPLATFORM_MAX_HOURLY_COST.",
    ],
  ])("%s", async (_what, limit, entry, refusal) => {
    process.env[BUDGET] = limit;
    const { p, lines } = fake();
    const checked = p.check(undefined, { entries: { "pod trainer": entry } });
    if (refusal) await expect(checked).rejects.toThrow(refusal);
    else expect((await checked).failures).toBeUndefined();
    // The line is printed either way: it says what the refusal is about.
    expect(lines).toHaveLength(1);
  });
});

describe("check: the account's budget", () => {
  const theirs = livePod({ id: "q1", name: "other-1", env: { COMPUTEPLATFORM_STACK: "acme/infra/prod" } });

  test("the line adds the account before and after; the account's endpoints come from REST's list, GraphQL's is not read", async () => {
    process.env[ACCOUNT_BUDGET] = "5";
    const live = { id: "ep1", name: "api-3f9a1c2", gpu: { pools: ["ADA_48_PRO"], count: 1 }, workers: { min: 0, max: 2 } };
    const { p, calls, lines } = fake({ pods: [theirs], serverless: [live], endpoints: [] });
    const entry = endpoint({ owner: "3f9a1c2e" });
    await p.check(last({ x: { ...entry, hourly: { min: 0, max: 1.72 }, liveId: "ep1" } }), { entries: { x: { ...entry, workersMax: 4 } } });
    expect(calls.some((c) => c.startsWith("endpoints"))).toBe(false);
    expect(calls.filter((c) => c === "serverless")).toHaveLength(1);
    // The stack's endpoint counted once: its live object (ep1) is the stack's, replaced by what it will be.
    expect(lines).toEqual(["cost: $0.00-$1.72/h -> $0.00-$3.44/h (+$0.00-$1.72/h): endpoint api workersMax 2 -> 4; account: $0.86-$2.58/h -> $0.86-$4.30/h (budget $5.00/h)"]);
  });

  test("over it: the check fails with the account's refusal, after printing the line", async () => {
    process.env[ACCOUNT_BUDGET] = "2";
    const { p, lines } = fake({ pods: [theirs] });
    await expect(p.check(undefined, { entries: { "pod trainer": pod({ gpu: { id: L40S.id, count: 2 } }) } })).rejects.toThrow(
      /^the account would cost \$2\.58\/h, over its budget \$2\.00\/h \(COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST\); it costs \$0\.86\/h now\. Nothing was created or changed\./,
    );
    expect(lines).toEqual(["cost: $0.00/h -> $1.72/h (+$1.72/h): pod trainer added; account: $0.86/h -> $2.58/h (budget $2.00/h)"]);
  });

  test("a live object found but not recorded (its look changed no price) is still the stack's: counted once", async () => {
    process.env[ACCOUNT_BUDGET] = "5";
    const mine = livePod();
    const { p, lines } = fake({ pods: [theirs, mine] });
    const entry = pod({ owner: "Pod-0-3f9a1c2e", gpu: { id: [L40S.id, H100.id], count: 1 } });
    const old = last({ x: { ...entry, hourly: { min: 0.86, max: 0.86 } } });
    const { inputs } = await p.check(old, { entries: { x: entry, y: pod({ name: "more" }) } });
    expect(entryOf(inputs, "x")).toEqual(JSON.parse(old.entries.x!));
    expect(lines).toEqual(["cost: $0.86/h -> $1.72/h (+$0.86/h): pod more added; account: $1.72/h -> $2.58/h (budget $5.00/h)"]);
  });

  test("the stack's objects recorded before are the stack's: counted once, and gone when removed", async () => {
    process.env[ACCOUNT_BUDGET] = "5";
    const mine = livePod();
    const kept = { ...pod({ owner: "Pod-0-3f9a1c2e" }), hourly: { min: 0.86, max: 0.86 }, liveId: "p1" };
    const grown = fake({ pods: [theirs, mine] });
    await grown.p.check(last({ x: kept }), { entries: { x: pod({ owner: "Pod-0-3f9a1c2e" }), y: pod({ name: "more" }) } });
    expect(grown.lines).toEqual(["cost: $0.86/h -> $1.72/h (+$0.86/h): pod more added; account: $1.72/h -> $2.58/h (budget $5.00/h)"]);
    const emptied = fake({ pods: [theirs, mine] });
    await emptied.p.check(last({ x: kept }), { entries: {} });
    expect(emptied.lines).toEqual(["cost: $0.86/h -> $0.00/h (-$0.86/h): pod trainer removed; account: $1.72/h -> $0.86/h (budget $5.00/h)"]);
  });

  test("what the stack puts on another account is that account's: the stack's own account counts only the stack's part on it", async () => {
    process.env[ACCOUNT_BUDGET] = "1";
    const { p, lines } = fake({ pods: [theirs] });
    await p.check(undefined, { entries: { "pod far": pod({ name: "far", account: "shared", gpu: { id: L40S.id, count: 2 } }) } });
    expect(lines).toEqual(["cost: $0.00/h -> $1.72/h (+$1.72/h): pod far (account shared) added; by account: shared $1.72/h; account: $0.86/h -> $0.86/h (budget $1.00/h)"]);
  });

  test("the stack's part on its own account beside another account's", async () => {
    process.env[ACCOUNT_BUDGET] = "9";
    const { p, lines } = fake({ pods: [theirs] });
    await p.check(undefined, { entries: { "pod far": pod({ name: "far", account: "shared" }), "pod near": pod({ name: "near", gpu: { id: L40S.id, count: 2 } }) } });
    expect(lines[0]).toMatch(/; by account: the stack's \$1\.72\/h, shared \$0\.86\/h; account: \$0\.86\/h -> \$2\.58\/h \(budget \$9\.00\/h\)$/);
  });
});

describe("diff, create, update, read, delete: no request, from the outputs", () => {
  test("diff never replaces; outputs without a digest or entries are an empty stack", async () => {
    const { p } = fake();
    const empty = await p.create({ entries: {}, total: { min: 0, max: 0 } });
    expect(await p.diff("stack-cost", empty.outs, { entries: {}, total: { min: 0, max: 0 } })).toEqual({ changes: false, replaces: [] });
    expect(await p.diff("stack-cost", {} as StackCostOutputs, { entries: {}, total: { min: 0, max: 0 } })).toEqual({ changes: false, replaces: [] });
    expect(await p.diff("stack-cost", undefined as never, undefined as never)).toEqual({ changes: false, replaces: [] });
    expect(await p.diff("stack-cost", empty.outs, state(priced(1)))).toEqual({ changes: true, replaces: [] });
    // Checked entries that are not an object of entries are none.
    for (const entries of [null, ["pod a"], "pod a"]) expect((await p.diff("stack-cost", empty.outs, { entries } as never)).changes).toBe(false);
  });

  test("an entry whose text is not JSON (an unknown value in a preview) differs from any entry", async () => {
    const { p } = fake();
    const { outs } = await p.create(state(priced(1)));
    const unknown = { entries: { "pod trainer-0": "04da6b54-80e4-46f7-96ec-b56ff0331ba9" }, total: { min: 0, max: 0 } } as never;
    expect((await p.diff("stack-cost", outs, unknown)).changes).toBe(true);
    const empty = await p.create({ entries: {}, total: { min: 0, max: 0 } });
    expect((await p.diff("stack-cost", empty.outs, unknown)).changes).toBe(true);
    const texts = { entries: { "pod trainer-0": JSON.stringify(priced(1)["pod trainer-0"]) }, total: { min: 0.86, max: 0.86 } } as never;
    expect((await p.diff("stack-cost", outs, texts)).changes).toBe(false);
  });

  test("create's id is stack-cost; update's outputs are create's; an unpriced entry has no price in them", async () => {
    const { p } = fake();
    const entries = { ...priced(1), "pod b": { kind: "pod", name: "b", cloud: "SECURE", desiredStatus: "RUNNING", hourly: null } as PricedEntry };
    const created = await p.create(state(entries));
    expect(created.id).toBe("stack-cost");
    expect(created.outs.prices).toEqual({ "pod trainer-0": { min: 0.86, max: 0.86 } });
    expect((await p.update("stack-cost", created.outs, state(entries))).outs).toEqual(created.outs);
  });

  test("read gives back what state holds", async () => {
    const { p } = fake();
    const { outs } = await p.create(state(priced(2)));
    expect(await p.read("stack-cost", outs)).toEqual({ id: "stack-cost", props: outs });
    expect(await p.read("stack-cost")).toEqual({ id: "stack-cost", props: {} });
  });

  test("delete prints every costed resource going to nothing, named from its key; nothing when nothing cost anything", async () => {
    const { p, lines } = fake();
    await p.delete("stack-cost", { total: { min: 0.86, max: 3.44 }, prices: { "pod trainer #2": { min: 0.86, max: 0.86 }, "endpoint my api": { min: 0, max: 2.58 } } });
    expect(lines).toEqual(["cost: $0.86-$3.44/h -> $0.00/h (-$0.86-$3.44/h): pod trainer removed (-$0.86/h), endpoint my api removed (-$0.00-$2.58/h)"]);
    await p.delete("stack-cost", undefined as never);
    await p.delete("stack-cost", { total: { min: 0, max: 0 }, prices: {} });
    expect(lines).toHaveLength(1);
  });
});

describe("the defaults: the process-wide client, Pulumi's log", () => {
  afterEach(() => setPlatformSettings({}));

  test("with no options, a check reads the process-wide client and prints through pulumi.log.info", async () => {
    setPlatformSettings({ apiKey: "k", apiUrl: "http://127.0.0.1:9" });
    const info = jest.spyOn(pulumi.log, "info").mockResolvedValue();
    try {
      const p = new StackCostProvider();
      expect((await p.check(undefined, { entries: {} })).inputs.total).toEqual({ min: 0, max: 0 });
      await p.delete("stack-cost", { total: { min: 0.86, max: 0.86 }, prices: { "pod a": { min: 0.86, max: 0.86 } } });
      expect(info).toHaveBeenCalledWith("cost: $0.86/h -> $0.00/h (-$0.86/h): pod a removed");
    } finally {
      info.mockRestore();
    }
  });
});

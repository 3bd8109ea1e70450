// The StackCost's outputs are what its diff and delete need (issue 37): the total, each entry's
// price and a digest of the checked entries, not a second copy of the entries, which stay in the
// checked inputs. State written before (outputs holding the entries) still diffs and deletes.
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
  expect(lines).toEqual([]);
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
  expect(lines).toEqual([]);
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

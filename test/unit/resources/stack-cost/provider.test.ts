// The StackCost's outputs are what its diff and delete need (issue 37): the total, each entry's
// price and a digest of the checked entries, not a second copy of the entries, which stay in the
// checked inputs. State written before (outputs holding the entries) still diffs and deletes.
import { StackCostProvider, type StackCostState } from "../../../../src/resources/stack-cost/provider";
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
  const old = state(priced(2));
  expect((await p.diff("stack-cost", old, state(priced(2)))).changes).toBe(false);
  expect((await p.diff("stack-cost", old, state(priced(3)))).changes).toBe(true);
  await p.delete("stack-cost", old);
  const { outs } = await p.create(old);
  await p.delete("stack-cost", outs);
  // The same line from either shape: every resource's cost going to nothing.
  expect(lines).toHaveLength(2);
  expect(lines[1]).toBe(lines[0]);
  expect(lines[0]).toMatch(/pod trainer-0 removed.*pod trainer-1 removed/);
});

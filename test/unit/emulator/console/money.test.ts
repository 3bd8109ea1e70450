// The console's money figures from meter segments (pure): cost per hour of what still runs,
// billed so far, the cumulative series the chart draws, spend per resource.
import { accrued, money } from "../../../../src/emulator/console/money";
import type { Segment } from "../../../../src/emulator/core/meter";

const HOUR = 3_600_000;
const pod = (id: string, rate: number, from: number, to: number | null): Segment => ({ resource: "pod", id, component: "podGpu", rate, from, to });

test.each([
  ["running, half an hour in", pod("a", 2, 0, null), HOUR / 2, 1],
  ["stopped after 15 minutes, read later", pod("a", 2, 0, HOUR / 4), HOUR, 0.5],
  ["not started yet", pod("a", 2, HOUR, null), HOUR / 2, 0],
  ["a charge before now", { resource: "endpoint", id: "m", component: "endpoint", rate: 0.002, from: 10, to: 10, charge: true } as Segment, 20, 0.002],
  ["a charge after now", { resource: "endpoint", id: "m", component: "endpoint", rate: 0.002, from: 30, to: 30, charge: true } as Segment, 20, 0],
])("accrued: %s", (_name, s, t, usd) => {
  expect(accrued(s, t)).toBeCloseTo(usd, 9);
});

test("money: per hour counts open segments only; the series climbs from 0 to what was billed", () => {
  const segments = [pod("a", 2, 0, null), pod("b", 1, 0, HOUR / 2), pod("a-old", 4, 0, HOUR / 4)];
  const m = money(segments, HOUR, 4);
  expect(m.perHourNow).toBe(2);
  expect(m.billed).toBeCloseTo(2 + 0.5 + 1, 9);
  expect(m.series.map((p) => p.t)).toEqual([0, HOUR / 4, HOUR / 2, (3 * HOUR) / 4, HOUR]);
  expect(m.series.map((p) => Number(p.usd.toFixed(6)))).toEqual([0, 1.75, 2.5, 3, 3.5]);
  expect(m.byResource.map((r) => [r.id, r.perHour, Number(r.usd.toFixed(6))])).toEqual([
    ["a", 2, 2],
    ["a-old", 0, 1],
    ["b", 0, 0.5],
  ]);
});

test("money: nothing metered is all zeros, a flat series at now", () => {
  const m = money([], 1000, 2);
  expect(m).toEqual({ perHourNow: 0, billed: 0, series: [1000, 1000, 1000].map((t) => ({ t, usd: 0 })), byResource: [] });
});

// Billing's windows and buckets computed from the meter (docs/emulator.md, "Prices and billing"
// and "Limits"): buckets in UTC, weeks from Monday; startTime snaps down and endTime up; lastN
// ends with the current bucket, 1 .. 10,000 of them and never with a time range; each bucket's
// amount is what the segments accrued inside it, charges where they fall.
import { Meter } from "../../../../src/emulator/core/meter";
import type { HttpError } from "../../../../src/emulator/core/problem";
import { addBuckets, bucketize, bucketStart, query, resolveWindow, sum, totals } from "../../../../src/emulator/billing/queries";

const H = 3_600_000;
const T = (iso: string) => Date.parse(iso);
const NOW = T("2026-06-03T10:20:30Z"); // a Wednesday

test.each([
  ["hour", "2026-06-03T10:00:00Z"],
  ["day", "2026-06-03T00:00:00Z"],
  ["week", "2026-06-01T00:00:00Z"], // the Monday
  ["month", "2026-06-01T00:00:00Z"],
  ["year", "2026-01-01T00:00:00Z"],
] as const)("the %s bucket holding a Wednesday 10:20 starts %s", (size, start) => {
  expect(bucketStart(NOW, size)).toBe(T(start));
});

test("a Sunday's week started six days before; a Monday's the same day", () => {
  expect(bucketStart(T("2026-06-07T23:00:00Z"), "week")).toBe(T("2026-06-01T00:00:00Z"));
  expect(bucketStart(T("2026-06-01T00:00:00Z"), "week")).toBe(T("2026-06-01T00:00:00Z"));
});

test("buckets move by calendar months and years, back and forth", () => {
  expect(addBuckets(T("2026-01-01T00:00:00Z"), "month", 1)).toBe(T("2026-02-01T00:00:00Z"));
  expect(addBuckets(T("2026-01-01T00:00:00Z"), "month", -1)).toBe(T("2025-12-01T00:00:00Z"));
  expect(addBuckets(T("2024-01-01T00:00:00Z"), "year", 1) - T("2024-01-01T00:00:00Z")).toBe(366 * 24 * H);
  expect(addBuckets(T("2026-06-01T00:00:00Z"), "week", 2)).toBe(T("2026-06-15T00:00:00Z"));
});

function refusal(q: string): { status: number; detail: string; errors?: string[] } {
  try {
    resolveWindow(new URLSearchParams(q), NOW);
  } catch (e) {
    const err = e as HttpError;
    return { status: err.status, detail: err.detail, errors: err.errors };
  }
  throw new Error(`${q} was not refused`);
}

test("by default, days from 30 days ago to now, the last bucket running to its end", () => {
  const w = resolveWindow(new URLSearchParams(), NOW);
  expect(query(w)).toEqual({ startTime: "2026-05-04T00:00:00Z", endTime: "2026-06-04T00:00:00Z", bucketSize: "day" });
});

test("startTime snaps down and endTime up to the bucket (an offset read as UTC); an endTime on a boundary stays", () => {
  const snapped = resolveWindow(new URLSearchParams("startTime=2026-06-01T05:30:00Z&endTime=2026-06-01T08:10:00%2B02:00&bucketSize=hour"), NOW);
  expect(query(snapped)).toEqual({ startTime: "2026-06-01T05:00:00Z", endTime: "2026-06-01T07:00:00Z", bucketSize: "hour" });
  const exact = resolveWindow(new URLSearchParams("startTime=2026-06-01T05:00:00Z&endTime=2026-06-01T07:00:00Z&bucketSize=hour"), NOW);
  expect(exact.to).toBe(T("2026-06-01T07:00:00Z"));
});

test("lastN ends with the current bucket", () => {
  expect(query(resolveWindow(new URLSearchParams("lastN=3&bucketSize=week"), NOW))).toEqual({
    startTime: "2026-05-18T00:00:00Z",
    endTime: "2026-06-08T00:00:00Z",
    bucketSize: "week",
  });
  expect(query(resolveWindow(new URLSearchParams("lastN=1&bucketSize=month"), NOW), { podId: null })).toEqual({
    startTime: "2026-06-01T00:00:00Z",
    endTime: "2026-07-01T00:00:00Z",
    bucketSize: "month",
    podId: null,
  });
});

test("bad values are one 422 naming each", () => {
  expect(refusal("bucketSize=minute&startTime=yesterday&endTime=2026-06-01&lastN=1.5")).toEqual({
    status: 422,
    detail: expect.stringMatching(/^query does not match the contract: /),
    errors: [
      "query.bucketSize: value must be one of 'hour', 'day', 'week', 'month', 'year', but got 'minute'",
      "query.startTime: 'yesterday' is not an RFC 3339 date-time",
      "query.endTime: '2026-06-01' is not an RFC 3339 date-time",
      "query.lastN: must be an integer >= 1, but got '1.5'",
    ],
  });
  expect(refusal("lastN=0").errors).toEqual(["query.lastN: must be an integer >= 1, but got '0'"]);
});

test.each([
  ["lastN=2&startTime=2026-06-01T00:00:00Z", "lastN is mutually exclusive with startTime/endTime; give one or the other"],
  ["lastN=2&endTime=2026-06-01T00:00:00Z", "lastN is mutually exclusive with startTime/endTime; give one or the other"],
  ["startTime=2026-06-02T00:00:00Z&endTime=2026-06-01T00:00:00Z", "endTime must be after startTime"],
  ["lastN=10001&bucketSize=hour", "lastN: at most 10000 buckets, got 10001"],
  ["startTime=2020-01-01T00:00:00Z&bucketSize=hour", "the window holds more than 10000 hour buckets; use a larger bucketSize"],
])("%s -> 400: %s", (q, detail) => {
  expect(refusal(q)).toMatchObject({ status: 400, detail });
});

test("lastN of 10,000 buckets is taken", () => {
  const w = resolveWindow(new URLSearchParams("lastN=10000&bucketSize=hour"), NOW);
  expect((w.to - w.from) / H).toBe(10_000);
});

test("each bucket holds what a segment accrued inside it, as of now; a charge falls in one bucket", () => {
  const meter = new Meter();
  const t0 = T("2026-06-03T00:00:00Z");
  meter.open("pod", "p1", "podGpu", 2, t0 + 30 * 60_000); // from 00:30, still running
  meter.open("networkVolume", "v1", "storageStandard", 0.5, t0);
  meter.close("networkVolume", "v1", t0 + H);
  meter.charge("endpoint", "m", "endpoint", 0.002, t0 + 90 * 60_000);
  const now = t0 + 2 * H + 15 * 60_000; // 02:15
  const w = { from: t0, to: t0 + 4 * H, bucketSize: "hour" as const };
  const buckets = bucketize(meter, w, now, () => true);
  expect(buckets.map((b) => Object.fromEntries(b.byId))).toEqual([
    { p1: { podGpu: 1 }, v1: { storageStandard: 0.5 } },
    { p1: { podGpu: 2 }, m: { endpoint: 0.002 } },
    { p1: { podGpu: 0.5 } },
    {},
  ]);
  expect(bucketize(meter, w, now, (s) => s.resource === "pod").map((b) => [...b.byId.keys()])).toEqual([["p1"], ["p1"], ["p1"], []]);
});

test("a segment that ran in a bucket at no cost is listed with 0 there", () => {
  const meter = new Meter();
  const t0 = T("2026-06-03T00:00:00Z");
  meter.open("pod", "free", "podCpu", 0, t0);
  const [bucket] = bucketize(meter, { from: t0, to: t0 + H, bucketSize: "hour" }, t0 + H, () => true);
  expect(Object.fromEntries(bucket.byId)).toEqual({ free: { podCpu: 0 } });
});

test("sums and totals are rounded to micro-dollars", () => {
  expect(sum([{ podGpu: 0.1 }, { podGpu: 0.2 }, { podCpu: 5 }], "podGpu")).toBe(0.3);
  expect(sum([{ podGpu: 1e-7 }], "podGpu")).toBe(0);
  expect(totals([{ a: 0.1, b: 1 }, { a: 0.2, b: 0.0000014 }], ["a", "b"])).toEqual({ a: 0.3, b: 1.000001 });
});

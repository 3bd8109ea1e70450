// Billing (the contract's listBilling, listPodBilling, listNetworkVolumeBilling,
// listEndpointBilling) computed from the meter: each record is one time bucket, its amounts
// the metered rates times the hours they ran inside the bucket, plus the charges in it.

import type { Component, Meter, Segment } from "../core/meter";
import { HttpError, problem } from "../core/problem";

export const BUCKET_SIZES = ["hour", "day", "week", "month", "year"] as const;
export type BucketSize = (typeof BUCKET_SIZES)[number];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** More buckets than this in one answer is refused (an hourly bucket over 10 years is a mistake). */
const MAX_BUCKETS = 10_000;
const DEFAULT_WINDOW_MS = 30 * DAY;

export interface Window {
  from: number;
  to: number;
  bucketSize: BucketSize;
}

/** The start of the bucket that holds `t` (UTC; weeks start on Monday). */
export function bucketStart(t: number, size: BucketSize): number {
  const d = new Date(t);
  switch (size) {
    case "hour":
      return Math.floor(t / HOUR) * HOUR;
    case "day":
      return Math.floor(t / DAY) * DAY;
    case "week": {
      const day = Math.floor(t / DAY) * DAY;
      return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
    }
    case "month":
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case "year":
      return Date.UTC(d.getUTCFullYear(), 0, 1);
  }
}

/** `t` (a bucket start) moved by `n` buckets. */
export function addBuckets(t: number, size: BucketSize, n: number): number {
  const d = new Date(t);
  switch (size) {
    case "hour":
      return t + n * HOUR;
    case "day":
      return t + n * DAY;
    case "week":
      return t + n * 7 * DAY;
    case "month":
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
    case "year":
      return Date.UTC(d.getUTCFullYear() + n, 0, 1);
  }
}

function parseTime(name: string, value: string | null, errors: string[]): number | undefined {
  if (value === null) return undefined;
  // RFC 3339 date-time: a date, a time and an offset (Z or ±hh:mm).
  const ok = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value);
  const t = ok ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(t)) errors.push(`query.${name}: '${value}' is not an RFC 3339 date-time`);
  return Number.isNaN(t) ? undefined : t;
}

/** Resolves startTime/endTime/lastN/bucketSize to an aligned window, or throws 400/422. */
export function resolveWindow(query: URLSearchParams, now: number): Window {
  const errors: string[] = [];
  const sizeText = query.get("bucketSize") ?? "day";
  if (!(BUCKET_SIZES as readonly string[]).includes(sizeText)) {
    errors.push(`query.bucketSize: value must be one of ${BUCKET_SIZES.map((s) => `'${s}'`).join(", ")}, but got '${sizeText}'`);
  }
  const start = parseTime("startTime", query.get("startTime"), errors);
  const end = parseTime("endTime", query.get("endTime"), errors);
  const lastNText = query.get("lastN");
  const lastN = lastNText === null ? undefined : Number(lastNText);
  if (lastN !== undefined && !(/^\d+$/.test(lastNText!) && lastN >= 1)) {
    errors.push(`query.lastN: must be an integer >= 1, but got '${lastNText}'`);
  }
  if (errors.length > 0) throw new HttpError(422, "Unprocessable Entity", `query does not match the contract: ${errors.join("; ")}`, errors);
  const size = sizeText as BucketSize;
  if (lastN !== undefined && (query.has("startTime") || query.has("endTime"))) {
    throw problem(400, "lastN is mutually exclusive with startTime/endTime; give one or the other");
  }
  let from: number;
  let to: number;
  if (lastN !== undefined) {
    const current = bucketStart(now, size);
    if (lastN > MAX_BUCKETS) throw problem(400, `lastN: at most ${MAX_BUCKETS} buckets, got ${lastN}`);
    from = addBuckets(current, size, -(lastN - 1));
    to = addBuckets(current, size, 1);
  } else {
    from = bucketStart(start ?? now - DEFAULT_WINDOW_MS, size);
    const rawEnd = end ?? now;
    const endBucket = bucketStart(rawEnd, size);
    to = endBucket === rawEnd ? rawEnd : addBuckets(endBucket, size, 1);
  }
  if (to <= from) throw problem(400, "endTime must be after startTime");
  let n = 0;
  for (let t = from; t < to; t = addBuckets(t, size, 1)) {
    if (++n > MAX_BUCKETS) throw problem(400, `the window holds more than ${MAX_BUCKETS} ${size} buckets; use a larger bucketSize`);
  }
  return { from, to, bucketSize: size };
}

const iso = (t: number) => new Date(t).toISOString().replace(".000Z", "Z");
const round = (usd: number) => Math.round(usd * 1e6) / 1e6;

/** USD a segment accrues inside [from, to) as of `now`. */
function amountIn(s: Segment, from: number, to: number, now: number): number {
  if (s.charge) return s.from >= from && s.from < to ? s.rate : 0;
  const end = Math.min(s.to ?? now, to, now);
  const start = Math.max(s.from, from);
  return end > start ? (s.rate * (end - start)) / HOUR : 0;
}

type Amounts = Partial<Record<Component, number>>;

interface Bucket {
  from: number;
  to: number;
  /** Amounts per resource id (and per component). */
  byId: Map<string, Amounts>;
}

/** The buckets of the window with the metered amounts of the segments `keep` selects. */
export function bucketize(meter: Meter, w: Window, now: number, keep: (s: Segment) => boolean): Bucket[] {
  const segments = meter.overlapping(w.from, w.to).filter(keep);
  const buckets: Bucket[] = [];
  for (let t = w.from; t < w.to; t = addBuckets(t, w.bucketSize, 1)) {
    const to = addBuckets(t, w.bucketSize, 1);
    const byId = new Map<string, Amounts>();
    for (const s of segments) {
      const usd = amountIn(s, t, to, now);
      if (usd === 0 && !(s.from < to && (s.to ?? now) > t)) continue;
      const amounts = byId.get(s.id) ?? {};
      amounts[s.component] = (amounts[s.component] ?? 0) + usd;
      byId.set(s.id, amounts);
    }
    buckets.push({ from: t, to, byId });
  }
  return buckets;
}

export function range(b: { from: number; to: number }) {
  return { startTime: iso(b.from), endTime: iso(b.to) };
}

export function query(w: Window, extra: Record<string, string | null> = {}) {
  return { ...range(w), bucketSize: w.bucketSize, ...extra };
}

/** Sums the components over amounts, rounded to micro-dollars. */
export function sum(list: Amounts[], component: Component): number {
  return round(list.reduce((acc, a) => acc + (a[component] ?? 0), 0));
}

/** The column sums of `records` over `keys`, rounded to micro-dollars. */
export function totals<K extends string>(records: readonly Record<K, unknown>[], keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(
    keys.map((k) => [k, round(records.reduce((acc, r) => acc + (r[k] as number), 0))]),
  ) as Record<K, number>;
}

export { round };

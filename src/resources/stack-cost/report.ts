/*
 * The stack's hourly cost, pure: each costed resource's entry as the program declares it,
 * priced, the totals before and after, the cost lines a preview prints and the budget's
 * verdict. No I/O here: prices come in as a function (cost/prices.ts reads the catalog).
 */
import { canonical } from "../lifecycle/applied";
import { containsUnknown, gpuChoices } from "../inputs/check";
import { type HourlyRange, perHour, range, usd } from "../cost/prices";

/**
 * What the ledger records of one Pod: what prices it, as declared.
 *
 * @group Providers and checks
 */
export interface PodEntry {
  kind: "pod";
  name: string;
  gpu?: { id: string | string[]; count: number };
  cpu?: { id: string; vcpuCount: number };
  cloud: "SECURE" | "COMMUNITY";
  desiredStatus: "RUNNING" | "EXITED";
  maxHourlyCost?: number;
  /** The name of the account it lives on (its `account`); absent on the stack's own. Never the key. */
  account?: string;
  /** The owner token of the program's pod (what-runs.ts finds the live pod by it). */
  owner?: string;
  /** Pricing paths the program hides with ignoreChanges: up leaves them as they are. */
  ignore?: string[];
  /** Pricing fields taken from another costed resource's outputs (cost/ledger.ts): priced at the write. */
  atWrite?: string[];
}

/**
 * What the ledger records of one ServerlessEndpoint.
 *
 * @group Providers and checks
 */
export interface EndpointEntry {
  kind: "endpoint";
  name: string;
  gpuIds: string;
  /** GPUs per worker; absent means 1 (the platform's default), so state written before it prices the same. */
  gpuCount?: number;
  /** Undefined when the program leaves it to the platform (what-runs.ts: the live value, or the platform's default). */
  workersMin?: number;
  workersMax?: number;
  owner?: string;
  /** The name of the account it lives on (its `account`); absent on the stack's own. Never the key. */
  account?: string;
  /** The name the program gives, if it does (else the endpoint's name is made from `owner`). */
  declaredName?: string;
  /** Pricing fields the program hides with ignoreChanges: up leaves them as they are. */
  ignore?: string[];
  /** `rest` for an endpoint managed over REST v2: its live object is read there (GraphQL is retiring). */
  api?: "rest";
  /** Pricing fields taken from another costed resource's outputs (cost/ledger.ts): priced at the write. */
  atWrite?: string[];
}

/** @group Providers and checks */
export type CostEntry = PodEntry | EndpointEntry;

/**
 * An entry with its price: `hourly` absent while a value is unknown (preview), null when the catalog prices nothing.
 *
 * @group Providers and checks
 */
export type PricedEntry = CostEntry & {
  hourly?: HourlyRange | null;
  /** The live object's id when the last look found it: the next look starts there. */
  liveId?: string;
};

/** What a pricer answers when it could not ask (the catalog unreachable): the entry stays unknown, to be priced again. */
export const UNPRICED = Symbol("unpriced");

/** Prices one entry's compute (undefined: the catalog does not list it). */
export type Pricer = (entry: CostEntry) => Promise<HourlyRange | undefined | typeof UNPRICED>;

/** The fields of an entry that set its price (the price itself left out). */
function priceKey(entry: PricedEntry): string {
  const { hourly: _h, liveId: _id, ...rest } = entry;
  return canonical(rest);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const num = (v: unknown, fallback: number) => (v === undefined || v === null ? fallback : v);

/**
 * An entry as the program sent it, with the defaults the resource's own check fills in (a GPU
 * count of 1, SECURE, RUNNING, no workers, one GPU per worker), so writing a default and leaving
 * it out cost the same.
 */
export function normalizeEntry(raw: unknown): CostEntry | string {
  if (!isObject(raw)) return "a ledger entry must be an object";
  const name = typeof raw.name === "string" ? raw.name : "?";
  if (raw.kind === "pod") {
    const entry: Record<string, unknown> = { kind: "pod", name, cloud: raw.cloud ?? "SECURE", desiredStatus: raw.desiredStatus ?? "RUNNING" };
    if (typeof raw.owner === "string") entry.owner = raw.owner;
    if (typeof raw.account === "string") entry.account = raw.account;
    if (Array.isArray(raw.ignore) && raw.ignore.length > 0) entry.ignore = raw.ignore;
    if (isObject(raw.gpu)) entry.gpu = { id: raw.gpu.id, count: num(raw.gpu.count, 1) };
    else if (raw.gpu !== undefined && raw.gpu !== null) entry.gpu = raw.gpu;
    if (raw.cpu !== undefined && raw.cpu !== null) entry.cpu = isObject(raw.cpu) ? { id: raw.cpu.id, vcpuCount: raw.cpu.vcpuCount } : raw.cpu;
    if (raw.maxHourlyCost !== undefined && raw.maxHourlyCost !== null) entry.maxHourlyCost = raw.maxHourlyCost;
    if (Array.isArray(raw.atWrite) && raw.atWrite.length > 0) entry.atWrite = raw.atWrite;
    return entry as unknown as PodEntry;
  }
  if (raw.kind === "endpoint") {
    const gpuCount = num(raw.gpuCount, 1);
    return {
      kind: "endpoint",
      name,
      gpuIds: raw.gpuIds as string,
      // One GPU (the default) is left out, as an entry written before gpuCount existed has it.
      ...(gpuCount === 1 ? {} : { gpuCount: gpuCount as number }),
      // A worker count left out stays out: the platform's choice (what-runs.ts), not 0.
      ...(raw.workersMin !== undefined && raw.workersMin !== null ? { workersMin: raw.workersMin as number } : {}),
      ...(raw.workersMax !== undefined && raw.workersMax !== null ? { workersMax: raw.workersMax as number } : {}),
      ...(typeof raw.owner === "string" ? { owner: raw.owner } : {}),
      ...(typeof raw.declaredName === "string" ? { declaredName: raw.declaredName } : {}),
      ...(typeof raw.account === "string" ? { account: raw.account } : {}),
      ...(Array.isArray(raw.ignore) && raw.ignore.length > 0 ? { ignore: raw.ignore as string[] } : {}),
      ...(raw.api === "rest" ? { api: "rest" as const } : {}),
      ...(Array.isArray(raw.atWrite) && raw.atWrite.length > 0 ? { atWrite: raw.atWrite as string[] } : {}),
    };
  }
  return `a ledger entry's kind must be pod or endpoint (got ${JSON.stringify(raw.kind)})`;
}

/**
 * A new pod's hourly price from the price of one GPU choice: a preference list costs what its
 * first choice within `maxHourlyCost` costs (the one its create tries first, and gets while that
 * type has capacity), an EXITED pod nothing.
 */
export async function pricePod(entry: PodEntry, price: (compute: { gpu?: { id: string; count: number }; cpu?: { id: string; vcpuCount: number }; cloud: PodEntry["cloud"] }) => Promise<number | undefined>): Promise<HourlyRange | undefined> {
  if (entry.desiredStatus === "EXITED") return { min: 0, max: 0 };
  if (entry.cpu) {
    const p = await price({ cpu: entry.cpu, cloud: entry.cloud });
    return p === undefined ? undefined : { min: p, max: p };
  }
  if (!entry.gpu) return undefined;
  for (const id of gpuChoices(entry.gpu.id)) {
    const p = await price({ gpu: { id, count: entry.gpu.count }, cloud: entry.cloud });
    if (p !== undefined && (entry.maxHourlyCost === undefined || p <= entry.maxHourlyCost)) return { min: p, max: p };
  }
  return undefined;
}

/**
 * Prices the new entries: an entry priced before with the same declaration keeps its price (no
 * request) unless `again` says its live object must be looked at; the others through `pricer`,
 * which is handed the entry of the last preview or up.
 */
export async function priceEntries(
  olds: Record<string, PricedEntry>,
  news: Record<string, CostEntry>,
  pricer: (entry: CostEntry, old: PricedEntry | undefined) => ReturnType<Pricer>,
  // Stryker disable next-line ArrowFunction: the default's answer is only ever negated, and undefined negates as false does
  again: (entry: CostEntry, old: PricedEntry) => boolean = () => false,
): Promise<Record<string, PricedEntry>> {
  const out: Record<string, PricedEntry> = {};
  for (const [key, entry] of Object.entries(news)) {
    const old = olds[key];
    if (containsUnknown(entry) || entry.atWrite) out[key] = entry;
    else if (old && old.hourly !== undefined && priceKey(old) === priceKey(entry) && !again(entry, old)) {
      out[key] = { ...entry, hourly: old.hourly, ...(old.liveId ? { liveId: old.liveId } : {}) };
    } else {
      const hourly = await pricer(entry, old);
      out[key] = hourly === UNPRICED ? entry : { ...entry, hourly: hourly ?? null };
    }
  }
  return out;
}

/** The sum of the priced entries; what is unknown or unpriced counts nothing. */
export function total(entries: Record<string, PricedEntry>): HourlyRange {
  let min = 0;
  let max = 0;
  for (const e of Object.values(entries)) {
    min += e.hourly?.min ?? 0;
    max += e.hourly?.max ?? 0;
  }
  return { min: usd(min), max: usd(max) };
}

export { range } from "../cost/prices";

/** `+$3.58/h`, `-$0.86/h`, or for a range `+$0.00-$2.58/h`, `-$1.55-$2.93/h` (`+$0.86 to -$0.86/h` when the signs differ). */
export function delta(before: HourlyRange, after: HourlyRange): string {
  const sign = (n: number) => (n < 0 ? `-$${(-n).toFixed(2)}` : `+$${n.toFixed(2)}`);
  const dMin = usd(after.min - before.min);
  const dMax = usd(after.max - before.max);
  if (dMin === dMax) return `${sign(dMax)}/h`;
  // One sign for the range, from the end that moves: an endpoint at $0.00-$1.38/h removed is
  // -$0.00-$1.38/h, never a plus sign on a removal.
  const magnitudes = `$${Math.abs(dMin).toFixed(2)}-$${Math.abs(dMax).toFixed(2)}/h`;
  if (dMin >= 0 && dMax >= 0) return `+${magnitudes}`;
  if (dMin <= 0 && dMax <= 0) return `-${magnitudes}`;
  return `${sign(dMin)} to ${sign(dMax)}/h`;
}

const label = (e: CostEntry) => `${e.kind} ${e.name}${e.account ? ` (account ${e.account})` : ""}`;
const show = (v: unknown): string => (typeof v === "string" ? v : Array.isArray(v) ? `[${v.join(", ")}]` : JSON.stringify(v) ?? "none");

/** What changed in an entry's pricing fields, e.g. `gpu.count 1 -> 2`. */
export function changedFields(old: CostEntry, next: CostEntry): string[] {
  const fields = (e: CostEntry): Record<string, unknown> =>
    e.kind === "pod"
      ? { "gpu.id": e.gpu?.id, "gpu.count": e.gpu?.count, "cpu.id": e.cpu?.id, "cpu.vcpuCount": e.cpu?.vcpuCount, cloud: e.cloud, desiredStatus: e.desiredStatus, maxHourlyCost: e.maxHourlyCost, account: e.account }
      : { gpuIds: e.gpuIds, gpuCount: e.gpuCount ?? 1, workersMin: e.workersMin, workersMax: e.workersMax, account: e.account };
  const a = fields(old);
  const b = fields(next);
  return Object.keys(b)
    .filter((k) => canonical(a[k] ?? null) !== canonical(b[k] ?? null))
    .map((k) => `${k} ${show(a[k])} -> ${show(b[k])}`);
}

/** One resource whose cost changes. */
export interface CostChange {
  key: string;
  label: string;
  /** `gpu.count 1 -> 2`, `added`, `removed`, `cost unknown until up`. */
  what: string;
  before: HourlyRange;
  after: HourlyRange;
}

const ZERO: HourlyRange = { min: 0, max: 0 };

/** The stack before and after, and the resources whose cost changes (unknown ones included, with what is not known). */
export interface CostReport {
  before: HourlyRange;
  after: HourlyRange;
  changes: CostChange[];
  /** Resources whose cost is not known yet (preview) or not in the catalog. */
  unpriced: string[];
  /** The stack after the change per account (`""` the stack's own), when a resource names another account. */
  byAccount?: Record<string, HourlyRange>;
}

export function costReport(olds: Record<string, PricedEntry>, news: Record<string, PricedEntry>, catalogError?: string): CostReport {
  const changes: CostChange[] = [];
  const unpriced: string[] = [];
  for (const [key, next] of Object.entries(news)) {
    const old = olds[key];
    if (next.hourly === undefined || next.hourly === null) {
      const why =
        next.hourly === null
          ? "not priced by the catalog"
          : next.atWrite
            ? `priced at its create or update: ${next.atWrite.join(", ")} from another resource's outputs`
            : containsUnknown(next)
              ? "cost unknown until up"
              : `catalog unreadable: ${catalogError}`;
      unpriced.push(`${label(next)} (${why})`);
      continue;
    }
    const before = old?.hourly ?? ZERO;
    if (old && canonical(before) === canonical(next.hourly)) continue;
    const what = old ? changedFields(old, next).join(", ") || "price" : "added";
    changes.push({ key, label: label(next), what, before, after: next.hourly });
  }
  // A removed entry that cost nothing (an EXITED pod: its most is 0, so its least is) changes nothing.
  for (const [key, old] of Object.entries(olds)) {
    if (key in news || !old.hourly || old.hourly.max === 0) continue;
    changes.push({ key, label: label(old), what: "removed", before: old.hourly, after: ZERO });
  }
  const accounts = new Set(Object.values(news).map((e) => e.account ?? ""));
  const byAccount =
    accounts.size > 1 || (accounts.size === 1 && !accounts.has(""))
      ? Object.fromEntries([...accounts].sort().map((a) => [a, total(Object.fromEntries(Object.entries(news).filter(([, e]) => (e.account ?? "") === a)))]))
      : undefined;
  return { before: total(olds), after: total(news), changes, unpriced, ...(byAccount ? { byAccount } : {}) };
}

/**
 * The line a preview and an up print, once: `cost: $3.58/h -> $7.16/h (+$3.58/h): pod trainer gpu.count 1 -> 2`;
 * undefined when no resource's cost changes.
 */
export function costLine(r: CostReport): string | undefined {
  if (r.changes.length === 0 && r.unpriced.length === 0) return undefined;
  const each = r.changes.map((c) => `${c.label} ${c.what}${r.changes.length > 1 ? ` (${delta(c.before, c.after)})` : ""}`);
  const unknown = r.unpriced.length > 0 ? `; not counted: ${r.unpriced.join(", ")}` : "";
  // Resources on several accounts: what each account runs after the change, by the account's name.
  const accounts = r.byAccount ? `; by account: ${Object.entries(r.byAccount).map(([a, h]) => `${a === "" ? "the stack's" : a} ${range(h)}`).join(", ")}` : "";
  return `cost: ${range(r.before)} -> ${range(r.after)} (${delta(r.before, r.after)})${each.length > 0 ? `: ${each.join(", ")}` : ""}${unknown}${accounts}`;
}

/**
 * The budget's verdict: a message when the stack after the change would cost more per hour than
 * `budget` (its most, for endpoints' ranges) and more than before, else undefined. A stack
 * already over its budget may still get cheaper, or stay as it is.
 */
export function overBudget(r: CostReport, news: Record<string, PricedEntry>, budget: number | undefined, source: string): string | undefined {
  if (budget === undefined || r.after.max <= budget || r.after.max <= r.before.max) return undefined;
  const top = Object.values(news)
    .filter((e) => e.hourly && e.hourly.max > 0)
    .sort((a, b) => b.hourly!.max - a.hourly!.max)
    .slice(0, 3)
    .map((e) => `${label(e)} ${range(e.hourly!)}`);
  return (
    `the stack would cost ${range(r.after)}, over its budget ${perHour(budget)} (${source}); it costs ${range(r.before)} now. ` +
    `Nothing was created or changed. The most: ${top.join(", ")}. Lower the cost, or raise ${source}.`
  );
}

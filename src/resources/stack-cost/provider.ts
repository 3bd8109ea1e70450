/*
 * StackCost: lifecycle -> API calls
 *
 *   check   the stack's cost, once per preview and once per up: each entry of the ledger
 *           (cost/ledger.ts) priced. An entry priced before with the same declaration keeps
 *           its price from the old inputs (no request: an unchanged stack sends none); a new
 *           or changed one reads the catalog (GET /v2/catalog/gpus, /cpus: once per plugin
 *           process, shared with the pods' creates). Prints the cost line when a resource's
 *           cost changes, and fails when the stack after the change costs more than its
 *           budget and more than before, so no Pod or endpoint registers (they depend on it).
 *   diff    no request: a change when any entry or price changed (the checked entries against
 *           the digest of the last ones, which the outputs keep).
 *   create, update, read   no request: the outputs are the total, each entry's price and a
 *           digest of the checked entries: what diff and delete need, not a second copy of the
 *           entries (those stay in the checked inputs, where the next check reads them).
 * The checked inputs hold each priced entry as one JSON text, not as an object: the engine
 * moves them over gRPC at every check and diff, where a stack of 360 costed resources was
 * 4,086 protobuf values and is now 360 strings (issue 37). The digest is over the parsed
 * entries, so state whose checked inputs hold objects (0.2.0 and earlier) diffs as the same.
 *   delete  no request: prints the stack's cost going to nothing (every costed resource removed).
 * State written before the outputs were made small (outputs holding the entries) keeps loading:
 * diff and delete read the entries there.
 */
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import type { ComputePlatform } from "../../client";
import { canonical } from "../lifecycle/applied";
import { accountBudget, budget, platform } from "../engine/settings";
import { isFatal } from "../lifecycle/poller";
import { ENDPOINT_FIELD_DEFAULTS } from "../inputs/endpoint-defaults";
import { accountView, type AccountView } from "../cost/account";
import { accountCost } from "../cost/guard";
import { type HourlyRange, perHour, priceBook } from "../cost/prices";
import { endpointRuns, findLiveEndpoint, findLivePod, type LiveEndpointCompute, podRuns } from "./what-runs";
import { costLine, costReport, type CostEntry, normalizeEntry, overBudget, type PricedEntry, priceEntries, pricePod, UNPRICED } from "./report";

/**
 * The StackCost's inputs after check: each priced entry as its JSON text (canonical: keys
 * sorted), and the total. State written by 0.2.0 and earlier holds the entries as objects;
 * both are read.
 *
 * @group Providers and checks
 */
export interface StackCostState {
  entries: Record<string, string | PricedEntry>;
  total: { min: number; max: number };
}

/**
 * The StackCost's outputs: the total, each priced entry's price (for the cost line of a delete)
 * and a digest of the checked entries (for diff). State written by 0.2.0 and earlier holds the
 * entries themselves here instead of `prices` and `digest`.
 *
 * @group Providers and checks
 */
export interface StackCostOutputs {
  total: { min: number; max: number };
  prices?: Record<string, HourlyRange>;
  digest?: string;
  entries?: Record<string, PricedEntry>;
}

/** @group Providers and checks */
export interface StackCostProviderOptions {
  /** @default the process-wide client */
  client?: () => Pick<ComputePlatform, "catalog">;
  /** Where the cost line goes. @default Pulumi's log (the plugin's output, which the engine shows) */
  print?: (line: string) => void;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * What prices a live endpoint and finds it (by id, or by its name's owner token): only these are
 * asked for, so GraphQL's read of an account of up to about 900 endpoints is one document within
 * the platform's query-cost limit (every field: two documents past about 450).
 */
const LIVE_ENDPOINT_FIELDS = ["name", "gpuIds", "workersMin", "workersMax", "gpuCount"] as const satisfies readonly (keyof LiveEndpointCompute)[];

/**
 * The live pods and endpoints, each listed at most once per check and only when an entry needs
 * them; none when the client cannot list. Pods, and endpoints managed over REST v2, come from the
 * account's lists (cost/account.ts), which the budget kept at each write reads after this check
 * without listing again; GraphQL-managed endpoints from GraphQL's list, so a stack of them sends no
 * REST request, unless the account's budget reads the account's endpoints anyway.
 */
function liveLists(client: Partial<Pick<ComputePlatform, "endpoints">>, account: AccountView, accountRead: boolean) {
  let endpoints: Promise<LiveEndpointCompute[]> | undefined;
  return {
    pods: () => account.pods(),
    endpoints: () =>
      // Stryker disable next-line ArrayDeclaration: what is listed is only searched by id and name, which a string element has neither of
      accountRead ? account.endpoints() : (endpoints ??= client.endpoints ? client.endpoints.list({ fields: LIVE_ENDPOINT_FIELDS }) : Promise.resolve([])),
    restEndpoints: () => account.endpoints(),
  };
}

/** @group Providers and checks */
export class StackCostProvider implements pulumi.dynamic.ResourceProvider {
  private readonly client: () => Pick<ComputePlatform, "catalog"> & Partial<Pick<ComputePlatform, "pods" | "endpoints" | "serverless">>;
  private readonly print: (line: string) => void;

  constructor(options: StackCostProviderOptions = {}) {
    this.client = options.client ?? platform;
    this.print = options.print ?? ((line) => void pulumi.log.info(line));
  }

  async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult> {
    const raw = isObject(news?.entries) ? news.entries : {};
    const entries: Record<string, CostEntry> = {};
    const failures: pulumi.dynamic.CheckFailure[] = [];
    for (const [key, value] of Object.entries(raw)) {
      const entry = normalizeEntry(value);
      if (typeof entry === "string") failures.push({ property: `entries["${key}"]`, reason: entry });
      else entries[key] = entry;
    }
    if (failures.length > 0) return { inputs: news, failures };
    const before = parsedEntries(olds?.entries);
    const book = priceBook(this.client);
    // Each command checks the stack's cost once, before any costed write: the account is read anew.
    const account = accountView(this.client);
    account.renew();
    const accountLimit = accountBudget();
    const live = liveLists(this.client(), account, accountLimit !== undefined);
    const found = new Map<CostEntry, string>();
    let catalogError: string | undefined;
    // What runs (stack-cost/what-runs.ts): an entry of a resource that exists is priced from its live
    // object; a new one from its declaration and the platform's defaults.
    const price = async (e: CostEntry, old: PricedEntry | undefined): Promise<HourlyRange | undefined> => {
      if (e.kind === "pod") {
        const pod = old ? findLivePod(await live.pods(), e.owner, old.liveId) : undefined;
        if (pod) found.set(e, pod.id);
        const runs = podRuns(e, pod);
        if (!runs.running) return { min: 0, max: 0 };
        // Stryker disable next-line StringLiteral: pricePod reads desiredStatus only as EXITED or not
        if (runs.choices) return pricePod({ ...e, gpu: { id: runs.choices, count: runs.gpu!.count }, cloud: runs.cloud, desiredStatus: "RUNNING" }, (c) => book.pod(c));
        const p = await book.pod({ gpu: runs.gpu, cpu: runs.cpu, cloud: runs.cloud });
        return p === undefined ? undefined : { min: p, max: p };
      }
      const ep = old ? findLiveEndpoint(await (e.api === "rest" ? live.restEndpoints() : live.endpoints()), e, old.liveId) : undefined;
      if (ep) found.set(e, ep.id);
      // The entry of the same key is of the same kind: the key is the ledger's `<kind> <name>` slot.
      return book.endpoint(endpointRuns(e, old, ep, ENDPOINT_FIELD_DEFAULTS));
    };
    // An unchanged entry keeps its price, unless what runs could differ from what it says and its object was never looked at.
    const again = (e: CostEntry, old: PricedEntry) =>
      !old.liveId &&
      ((e.ignore?.length ?? 0) > 0 ||
        // Stryker disable next-line ConditionalExpression: an endpoint's entry has no gpu; the kind is tested for the compiler
        (e.kind === "pod" && Array.isArray(e.gpu?.id)));
    const priced = await priceEntries(before, entries, async (e, old) => {
      // One failed read is enough: the other entries are not asked for again.
      if (catalogError !== undefined) return UNPRICED;
      try {
        return await price(e, old);
      } catch (err) {
        // A key no retry fixes, or none set, fails the deployment here, as the resources' own calls would.
        if (isFatal(err)) throw err;
        // Otherwise unpriced, not failed: without a budget the deployment goes on, the line says why.
        catalogError = err instanceof Error ? err.message : String(err);
        return UNPRICED;
      }
    }, again);
    // The object an entry was priced from is recorded with it, except where a look changed no price:
    // then the record stays as it was, so the preview after the up that made the object is clean
    // (the look is made again by each check, on the list the check reads anyway).
    for (const [key, entry] of Object.entries(entries)) {
      const id = found.get(entry);
      if (!id) continue;
      // An entry is looked for only when it has an entry of the last preview or up, and every entry is priced.
      const old = before[key]!;
      if (again(entry, old) && sameHourly(old.hourly, priced[key]!.hourly)) continue;
      priced[key]!.liveId = id;
    }
    const report = costReport(before, priced, catalogError);
    // Every object found is the stack's, recorded or not: the account's cost counts it once.
    const liveIds = new Set(found.values());
    // Stryker disable next-line ConditionalExpression: an undefined id in the set matches no object of the account
    for (const e of [...Object.values(before), ...Object.values(priced)]) if (e.liveId) liveIds.add(e.liveId);
    // The account read here is the stack's: what the stack puts on another account is that account's
    // to budget, at its own writes (cost/guard.ts runs in the resource's account).
    const onStackAccount = report.byAccount ? (report.byAccount[""] ?? { min: 0, max: 0 }) : report.after;
    const onAccount = accountLimit && !catalogError ? await accountCost(account, { liveIds, after: onStackAccount }, accountLimit) : undefined;
    const line = costLine(report);
    if (line) this.print(onAccount ? `${line}; ${onAccount.line}` : line);
    if (onAccount?.refusal) throw new Error(onAccount.refusal);
    const limit = budget();
    if (limit && catalogError) {
      throw new Error(`the stack's budget ${perHour(limit.usd)} (${limit.source}) cannot be held: reading the catalog's prices failed (${catalogError})`);
    }
    const refusal = limit && overBudget(report, priced, limit.usd, limit.source);
    if (refusal) throw new Error(refusal);
    return { inputs: { ...news, entries: entryTexts(priced), total: report.after } };
  }

  /** `olds` are the outputs of the last up: their digest (or, in older state, their entries) against the checked entries. */
  async diff(_id: string, olds: StackCostOutputs, news: StackCostState): Promise<pulumi.dynamic.DiffResult> {
    const before = typeof olds?.digest === "string" ? olds.digest : digest(olds?.entries ?? {});
    return { changes: before !== digest(parsedEntries(news?.entries)), replaces: [] };
  }

  async create(inputs: StackCostState): Promise<pulumi.dynamic.CreateResult> {
    return { id: "stack-cost", outs: outputs(inputs) };
  }

  async update(_id: string, _olds: StackCostOutputs, news: StackCostState): Promise<pulumi.dynamic.UpdateResult> {
    return { outs: outputs(news) };
  }

  async read(id: string, props?: StackCostOutputs): Promise<pulumi.dynamic.ReadResult> {
    return { id, props: props ?? {} };
  }

  async delete(_id: string, props: StackCostOutputs): Promise<void> {
    const line = costLine(costReport(props?.entries ?? fromPrices(props?.prices ?? {}), {}));
    if (line) this.print(line);
  }
}

/** Two prices the same: both unpriced, or equal bounds. */
function sameHourly(a: HourlyRange | null | undefined, b: HourlyRange | null | undefined): boolean {
  return a === b || (a != null && b != null && a.min === b.min && a.max === b.max);
}

/** The checked entries, prices included, in 16 hex digits: equal digests, equal entries. */
function digest(entries: Record<string, PricedEntry>): string {
  return createHash("sha256").update(canonical(entries)).digest("hex").slice(0, 16);
}

/** The checked entries as the next check, diff and create read them: a JSON text parsed, an object (older state) as it is. */
function parsedEntries(entries: unknown): Record<string, PricedEntry> {
  const out: Record<string, PricedEntry> = {};
  if (!isObject(entries)) return out;
  for (const [key, value] of Object.entries(entries)) {
    // Stryker disable next-line ConditionalExpression: an object fails JSON.parse and the catch keeps it as it is; the test says what is meant
    if (typeof value !== "string") out[key] = value as PricedEntry;
    else {
      try {
        out[key] = JSON.parse(value) as PricedEntry;
      } catch {
        // Not an entry's text (an unknown value in a preview): kept as it is, so it differs from any entry.
        out[key] = value as unknown as PricedEntry;
      }
    }
  }
  return out;
}

/** Each priced entry as its canonical JSON text (equal entries, equal texts). */
function entryTexts(entries: Record<string, PricedEntry>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, e] of Object.entries(entries)) out[key] = canonical(e);
  return out;
}

function outputs(s: StackCostState): StackCostOutputs {
  const entries = parsedEntries(s.entries);
  const prices: Record<string, HourlyRange> = {};
  for (const [key, e] of Object.entries(entries)) if (e.hourly) prices[key] = e.hourly;
  return { total: s.total, prices, digest: digest(entries) };
}

/** Entries enough for the cost line of a delete, from the outputs' prices: the key is the ledger's slot, `<kind> <name>[ #n]`. */
function fromPrices(prices: Record<string, HourlyRange>): Record<string, PricedEntry> {
  const entries: Record<string, PricedEntry> = {};
  for (const [key, hourly] of Object.entries(prices)) {
    const [kind, ...rest] = key.split(" ");
    entries[key] = { kind, name: rest.join(" ").replace(/ #\d+$/, ""), hourly } as PricedEntry;
  }
  return entries;
}

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
 *   diff    no request: a change when any entry or price changed.
 *   create, update, read   no request: the checked entries are the outputs.
 *   delete  no request: prints the stack's cost going to nothing (every costed resource removed).
 */
import * as pulumi from "@pulumi/pulumi";
import { type ComputePlatform, ConfigurationError } from "../../client";
import { canonical } from "../engine/check";
import { budget, platform } from "../engine/settings";
import { isFatal } from "../lifecycle/poller";
import { perHour, priceBook } from "./prices";
import { costLine, costReport, type CostEntry, normalizeEntry, overBudget, type PricedEntry, priceEntries, pricePod, UNPRICED } from "./report";

/**
 * The StackCost's inputs after check, and its outputs.
 *
 * @group Providers and checks
 */
export interface StackCostState {
  entries: Record<string, PricedEntry>;
  total: { min: number; max: number };
}

/** @group Providers and checks */
export interface StackCostProviderOptions {
  /** @default the process-wide client */
  client?: () => Pick<ComputePlatform, "catalog">;
  /** Where the cost line goes. @default Pulumi's log (the plugin's output, which the engine shows) */
  print?: (line: string) => void;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** @group Providers and checks */
export class StackCostProvider implements pulumi.dynamic.ResourceProvider {
  private readonly client: () => Pick<ComputePlatform, "catalog">;
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
    const before: Record<string, PricedEntry> = isObject(olds?.entries) ? (olds.entries as Record<string, PricedEntry>) : {};
    const book = priceBook(this.client);
    let catalogError: string | undefined;
    const priced = await priceEntries(before, entries, async (e) => {
      // One failed read is enough: the other entries are not asked for again.
      if (catalogError !== undefined) return UNPRICED;
      try {
        return await (e.kind === "pod" ? pricePod(e, (c) => book.pod(c)) : book.endpoint(e));
      } catch (err) {
        // A key no retry fixes, or none set, fails the deployment here, as the resources' own calls would.
        if (isFatal(err) || err instanceof ConfigurationError) throw err;
        // Otherwise unpriced, not failed: without a budget the deployment goes on, the line says why.
        catalogError = err instanceof Error ? err.message : String(err);
        return UNPRICED;
      }
    });
    const report = costReport(before, priced, catalogError);
    const line = costLine(report);
    if (line) this.print(line);
    const limit = budget();
    if (limit && catalogError) {
      throw new Error(`the stack's budget ${perHour(limit.usd)} (${limit.source}) cannot be held: reading the catalog's prices failed (${catalogError})`);
    }
    const refusal = overBudget(report, priced, limit?.usd, limit?.source ?? "");
    if (refusal) throw new Error(refusal);
    return { inputs: { ...news, entries: priced, total: report.after } };
  }

  async diff(_id: string, olds: StackCostState, news: StackCostState): Promise<pulumi.dynamic.DiffResult> {
    return { changes: canonical(olds.entries ?? {}) !== canonical(news.entries ?? {}), replaces: [] };
  }

  async create(inputs: StackCostState): Promise<pulumi.dynamic.CreateResult> {
    return { id: "stack-cost", outs: outputs(inputs) };
  }

  async update(_id: string, _olds: StackCostState, news: StackCostState): Promise<pulumi.dynamic.UpdateResult> {
    return { outs: outputs(news) };
  }

  async read(id: string, props?: StackCostState): Promise<pulumi.dynamic.ReadResult> {
    return { id, props: props ?? {} };
  }

  async delete(_id: string, props: StackCostState): Promise<void> {
    const line = costLine(costReport(props?.entries ?? {}, {}));
    if (line) this.print(line);
  }
}

function outputs(s: StackCostState): StackCostState {
  return { entries: s.entries, total: s.total };
}

/*
 * StackCost: the stack's hourly cost, one per stack. Its resource is the cost ledger's holder,
 * made by the ledger (cost/ledger.ts, the service the costed kinds join) when the program
 * declares a Pod or a ServerlessEndpoint; this kind prices the ledger's entries (report.ts,
 * what-runs.ts) in its provider's check (provider.ts).
 */
export { STACK_COST_NAME, StackCost } from "../cost/ledger";
export { StackCostProvider, type StackCostProviderOptions, type StackCostState } from "./provider";
export type { CostEntry, EndpointEntry, PodEntry, PricedEntry } from "./report";

/**
 * The entry this repository's own benchmarks (bench/) and tools (tools/) use for what they
 * measure below the package's public entries: the pod poller's timings, the price book the
 * cost line reads, and the emulator's GraphQL weighing. Not in the package's `exports`, so no
 * program can import it; the lint holds bench/ and tools/ to the public entries and this one.
 *
 * @internal
 */
export type { PollerTimings } from "./resources/lifecycle/poller";
export { priceBook } from "./resources/cost/prices";
export { documentCost, MAX_COST } from "./emulator/serverless/graphql/cost";
export { endpointSchema } from "./emulator/serverless/graphql/schema";

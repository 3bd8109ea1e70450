/*
 * What the cost service needs to know of the kinds it prices, handed to it from above: the
 * registry of kinds (src/resources/kinds.ts) hands it when it loads, so the service imports no
 * kind and no kind's module is loaded before it is needed.
 */

/** What a ServerlessEndpoint sends for a worker field the program declared and then removed. */
export interface RemovedEndpointDefaults {
  workersMin: number;
  workersMax: number;
  gpuCount?: number;
}

/** The facts of the costed kinds the cost service prices by. */
export interface CostedKinds {
  endpointRemovedDefaults: RemovedEndpointDefaults;
}

let handed: (() => CostedKinds) | undefined;

/** The registry of kinds hands the facts over, read on first need (no kind's module loads before). */
export function handCostedKinds(facts: () => CostedKinds): void {
  handed = facts;
}

/** The facts handed over; an error when nothing handed them (the cost service was loaded without the package's registry). */
export function costedKinds(): CostedKinds {
  if (!handed) throw new Error("pulumi-computeplatform's cost service was handed no kinds: load the package (its registry of kinds hands them over)");
  return handed();
}

/*
 * A ServerlessEndpoint's writes as the budgets see them (cost/guard.ts): the workers and GPUs a
 * create or an update saves. A worker field the program leaves out is the platform's: a new
 * endpoint gets the platform's default, an existing one keeps what it has.
 */
import type { CostedWrite } from "../cost/guard";
import { stackOf } from "../lifecycle/owner";
import type { ServerlessEndpointOutputs } from "./outputs";
import type { EndpointInputs } from "./schema";

/** The platform's defaults for a new endpoint's workers (the contract's). */
const NEW = { workersMin: 0, workersMax: 3, gpuCount: 1 } as const;

/** The create (`olds` undefined) or the update of endpoint `id` that saves `news`. */
export function endpointWrite(news: EndpointInputs, olds?: Partial<ServerlessEndpointOutputs>, id?: string, replaces?: string): CostedWrite {
  const pick = (field: "workersMin" | "workersMax" | "gpuCount"): number => news[field] ?? olds?.[field] ?? NEW[field];
  const compute = { kind: "endpoint" as const, gpuIds: news.gpuIds, workersMin: pick("workersMin"), workersMax: pick("workersMax"), gpuCount: pick("gpuCount") };
  return {
    label: `endpoint ${news.name}`,
    change: `${olds ? "update" : "create"} (${compute.workersMin} to ${compute.workersMax} workers of ${compute.gpuCount} ${compute.gpuIds.split(",")[0]} GPU${compute.gpuCount === 1 ? "" : "s"})`,
    id,
    key: id ? undefined : `create:endpoint:${news.name}`,
    replaces,
    stack: stackOf(news as unknown as Record<string, unknown>),
    compute,
  };
}

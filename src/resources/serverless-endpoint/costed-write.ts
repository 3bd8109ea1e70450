/*
 * A ServerlessEndpoint's writes as the budgets see them (cost/guard.ts): the workers and GPUs a
 * create or an update saves. A worker field the program leaves out is the platform's: a new
 * endpoint gets the platform's default, an existing one keeps what it has.
 */
import type { CostedWrite } from "../cost/guard";
import { ENDPOINT_WORKER_DEFAULTS } from "../inputs/endpoint-defaults";
import { stackOf } from "../lifecycle/owner";
import type { ServerlessEndpointOutputs } from "./outputs";
import type { EndpointInputs } from "./schema";

/** The create (`olds` undefined) or the update of endpoint `id` that saves `news`. */
export function endpointWrite(news: EndpointInputs, olds?: Partial<ServerlessEndpointOutputs>, id?: string, replaces?: string): CostedWrite {
  const pick = (field: "workersMin" | "workersMax" | "gpuCount"): number => news[field] ?? olds?.[field] ?? ENDPOINT_WORKER_DEFAULTS[field];
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

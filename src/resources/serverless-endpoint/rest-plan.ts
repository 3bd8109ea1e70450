/**
 * ServerlessEndpoint over REST v2 (`api: "rest"`), pure: the endpoint both ways between the
 * resource's fields (GraphQL's names, so cost, budget and the tables are the same either way)
 * and the contract's `/v2/serverless` bodies, and the REST verdict. A REST-managed endpoint
 * carries its container inline (`container`) and owns the template the platform binds to it;
 * it neither shows nor changes `locations` (GraphQL's own) and takes `dataCenterIds` (REST's).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Endpoint as WireEndpoint, RestEndpoint, RestEndpointCreateParams, RestEndpointUpdateParams } from "../../client";
import { isUnknown } from "../inputs/check";
import { changedLocalFields, changedSavedFields, endpointOutputs, inputsFromLive, type LocalSettings, rolloutReasons } from "./plan";
import { type ContainerInput, DEFAULT_TYPE, type EndpointInputs, type SavedField, type ServerlessEndpointOutputs } from "./schema";

/** The saved fields REST cannot show or change: the bound template's id, and GraphQL's `locations`. */
const NOT_OVER_REST = new Set<string>(["templateId", "locations"]);

/** Where a container field a program stops declaring goes: the platform's defaults (disk has none it tells). */
export const CONTAINER_DEFAULTS = { args: "", ports: [], env: {}, registry: null } as const;
export const CONTAINER_FIELDS = ["image", "args", "disk", "ports", "env", "registry"] as const;
type ContainerField = (typeof CONTAINER_FIELDS)[number];

export const isRest = (v: { api?: unknown } | undefined): boolean => v?.api === "rest";

/** The REST answer in the resource's (GraphQL's) names; `pods` from the workers read, if any. */
export function restAsWire(ep: RestEndpoint, pods: { desiredStatus: string }[] = []): WireEndpoint {
  const wire: Record<string, unknown> = {
    id: ep.id,
    name: ep.name,
    gpuIds: (ep.gpu?.pools ?? []).join(","),
    templateId: null,
    type: ep.type === "LOAD_BALANCING" ? "LB" : "QB",
    idleTimeout: ep.scaling.idleTimeout,
    locations: null,
    flashBootType: ep.flashboot,
    scalerType: ep.scaling.type,
    scalerValue: ep.scaling.value,
    workersMin: ep.workers.min,
    workersMax: ep.workers.max,
    networkVolumeId: ep.networkVolumes[0] ?? null,
    gpuCount: ep.gpu?.count ?? 1,
    executionTimeoutMs: ep.timeout,
    pods,
  };
  return wire as WireEndpoint;
}

/** The container as read back: every field present. */
export function containerOf(ep: RestEndpoint): Required<ContainerInput> {
  return {
    image: ep.image ?? "",
    args: ep.args ?? "",
    disk: ep.disk ?? 0,
    ports: [...(ep.ports ?? [])],
    env: { ...ep.env },
    registry: ep.registry ?? null,
  };
}

/** State of a REST-managed endpoint: the common outputs plus `api`, `container` and `dataCenterIds`. */
export function restOutputs(ep: RestEndpoint, pods: { desiredStatus: string }[], settings: LocalSettings): ServerlessEndpointOutputs {
  const outs = endpointOutputs(restAsWire(ep, pods), settings, DEFAULT_TYPE) as ServerlessEndpointOutputs & Record<string, unknown>;
  // The platform's own addresses, the fields the contract names (run and runSync, or base).
  const urls = Object.fromEntries((["run", "runSync", "base"] as const).flatMap((k) => (typeof ep.requestUrls?.[k] === "string" ? [[k, ep.requestUrls[k]]] : [])));
  return { ...outs, ...(Object.keys(urls).length > 0 ? { requestUrls: urls } : {}), api: "rest", container: containerOf(ep), dataCenterIds: [...ep.dataCenterIds] };
}

/**
 * The inputs a refresh reports for a REST-managed endpoint. The container's `env` is left out:
 * its values are credentials as often as not, and inputs, unlike the `container` output, are
 * stored secret only where the program's own were, which an endpoint read by `.get` has none of.
 * The diff reads the outputs, so nothing is lost to it.
 */
export function restInputsFromLive(ep: RestEndpoint, settings: LocalSettings): Record<string, unknown> {
  const inputs = inputsFromLive(restAsWire(ep), settings);
  for (const field of NOT_OVER_REST) delete inputs[field];
  const { env: _credentials, ...container } = containerOf(ep);
  return { ...inputs, api: "rest", container, ...(ep.dataCenterIds.length > 0 ? { dataCenterIds: [...ep.dataCenterIds] } : {}) };
}

/** The value a container field should have: the declared one, else the platform's default, else (disk) none. */
function wantedContainer(field: ContainerField, news: Partial<ContainerInput> | undefined): unknown {
  const given = news?.[field];
  if (given !== undefined) return given;
  return Object.hasOwn(CONTAINER_DEFAULTS, field) ? CONTAINER_DEFAULTS[field as keyof typeof CONTAINER_DEFAULTS] : undefined;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** What a REST update changes, by the resource's names (container fields as `container.<f>`). */
export function restChanges(olds: Record<string, any>, news: Record<string, any>): string[] {
  const changed: string[] = changedSavedFields(olds, news).filter((f) => !NOT_OVER_REST.has(f));
  if (isUnknown(news.container)) changed.push("container");
  else {
    for (const field of CONTAINER_FIELDS) {
      const want = wantedContainer(field, news.container);
      if (want === undefined) continue;
      if (isUnknown(want) || !same(olds.container?.[field], want)) changed.push(`container.${field}`);
    }
  }
  const dcs = news.dataCenterIds ?? [];
  if (isUnknown(dcs) || !same(olds.dataCenterIds ?? [], dcs)) changed.push("dataCenterIds");
  return changed;
}

/**
 * `diff()` of a REST-managed endpoint (or one moving to REST): a different `type` replaces, as
 * over GraphQL; the move itself (`api` from GraphQL to REST) and everything else update in
 * place, so the endpoint keeps its id and its workers.
 */
export function planRestDiff(olds: Record<string, any>, news: Record<string, any>): pulumi.dynamic.DiffResult {
  const replaces: string[] = [];
  const newType = news.type ?? DEFAULT_TYPE;
  if (isUnknown(newType) || (olds.type != null && olds.type !== newType)) replaces.push("type");
  const changes = restChanges(olds, news);
  const changed = changes.length > 0 || !isRest(olds) || changedLocalFields(olds, news).length > 0 || rolloutReasons(olds, news, changes).length > 0;
  return { changes: replaces.length > 0 || changed, replaces, deleteBeforeReplace: false };
}

/** The contract's CreateEndpointRequest for checked inputs. */
export function restCreateBody(inputs: EndpointInputs): RestEndpointCreateParams {
  const i = inputs as EndpointInputs & Record<string, any>;
  const body: Record<string, any> = { name: i.name, ...i.container, gpu: { pools: i.gpuIds.split(",") } };
  if (i.gpuCount !== undefined) body.gpu.count = i.gpuCount;
  const workers = compact({ min: i.workersMin, max: i.workersMax });
  if (workers) body.workers = workers;
  const scaling = compact({ type: i.scalerType, value: i.scalerValue, idleTimeout: i.idleTimeout });
  if (scaling) body.scaling = scaling;
  if (i.dataCenterIds !== undefined) body.dataCenterIds = [...i.dataCenterIds];
  if (i.networkVolumeId) body.networkVolumes = [i.networkVolumeId];
  if (i.executionTimeoutMs !== undefined) body.timeout = i.executionTimeoutMs;
  if (i.flashBootType !== undefined) body.flashboot = i.flashBootType;
  return body as RestEndpointCreateParams;
}

/**
 * The sparse PATCH for `changed` (restChanges' names): each field's wanted value in the
 * contract's shape. `gpu` always carries its pools (the contract requires them); `workers` both
 * bounds, so the platform never sees a min above the old max.
 */
export function restPatchBody(changed: readonly string[], olds: Record<string, any>, news: Record<string, any>, wanted: (f: SavedField) => unknown): RestEndpointUpdateParams {
  const body: Record<string, any> = {};
  const has = (f: string) => changed.includes(f);
  const value = (f: string) => {
    const w = wanted(f as SavedField);
    return w === undefined ? olds[f] : w;
  };
  if (has("name")) body.name = value("name");
  if (has("gpuIds") || has("gpuCount")) {
    body.gpu = { pools: String(value("gpuIds")).split(",") };
    const count = value("gpuCount");
    if (typeof count === "number") body.gpu.count = count;
  }
  if (has("workersMin") || has("workersMax")) body.workers = { min: value("workersMin") ?? 0, max: value("workersMax") ?? 0 };
  const scaling = compact({
    type: has("scalerType") ? value("scalerType") : undefined,
    value: has("scalerValue") ? value("scalerValue") : undefined,
    idleTimeout: has("idleTimeout") ? value("idleTimeout") : undefined,
  });
  if (scaling) body.scaling = scaling;
  if (has("networkVolumeId")) body.networkVolumes = value("networkVolumeId") ? [value("networkVolumeId")] : [];
  if (has("executionTimeoutMs")) body.timeout = value("executionTimeoutMs");
  if (has("flashBootType")) body.flashboot = value("flashBootType");
  if (has("dataCenterIds")) body.dataCenterIds = [...(news.dataCenterIds ?? [])];
  for (const field of CONTAINER_FIELDS) {
    if (has(`container.${field}`) || has("container")) {
      const want = wantedContainer(field, news.container);
      if (want !== undefined) body[field] = want;
    }
  }
  return body as RestEndpointUpdateParams;
}

/** Workers IDLE or RUNNING: ready for jobs. */
export const READY_WORKER_STATUSES = ["IDLE", "RUNNING"] as const;

/** The workers list as state's `pods`: a ready worker (IDLE or RUNNING) reads RUNNING, as over GraphQL; others their REST status. */
export function podsOfWorkers(workers: readonly { status: string }[]): { desiredStatus: string }[] {
  return workers.map((w) => ({ desiredStatus: (READY_WORKER_STATUSES as readonly string[]).includes(w.status) ? "RUNNING" : w.status }));
}

function compact(o: Record<string, unknown>): Record<string, unknown> | undefined {
  const out = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return Object.keys(out).length > 0 ? out : undefined;
}

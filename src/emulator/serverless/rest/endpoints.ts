// Serverless endpoints over REST v2 (the contract's `/v2/serverless` operations) over the same
// store as GraphQL: an endpoint made either way is listed, read, changed and deleted the other
// way. One endpoint, two views:
//
//   REST                                   GraphQL / the store
//   gpu.pools (array, in order)            gpuIds (comma list)
//   gpu.count                              gpuCount
//   workers.min / max                      workersMin / workersMax
//   scaling.type / value / idleTimeout     scalerType / scalerValue (shown rounded up) / idleTimeout
//   flashboot                              flashBootType (PRIORITY_FLASHBOOT reads FLASHBOOT)
//   networkVolumes (at most one)           networkVolumeId
//   timeout                                executionTimeoutMs
//   type QUEUE_BASED / LOAD_BALANCING      type QB / LB
//   dataCenterIds (REST's own)             locations (GraphQL's own); each keeps the other's
//   image args disk ports env registry     the bound template (templateId)
//
// A REST create makes a serverless template from the body's container fields (named after the
// endpoint) and binds it; a PATCH of a container field changes that template; a REST delete
// deletes it too unless another endpoint is still bound to it (GraphQL's delete leaves it).
import { GraphQLError } from "graphql";
import { DATA_CENTERS, GPU_TYPES } from "../../catalog/data";
import { contractViolation, HttpError, problem } from "../../core/problem";
import type { Template } from "../../templates/store";
import { createEndpointSchema, updateEndpointSchema, validate } from "../../core/validate";
import { fromLaterRevision } from "./dialect";
import type { EndpointRecord, EndpointStore } from "../endpoints/store";
import { type EndpointInput, GPU_TIERS, MAX_WORKERS } from "../endpoints/rules";
import { type DiffEntry, templateChange } from "../endpoints/releases";
import { checkContainerLimits } from "../../catalog/limits";

const CONTAINER_FIELDS = ["image", "args", "disk", "ports", "env", "registry"] as const;

export interface RestEnvironment {
  store: EndpointStore;
  now(): number;
  /** The emulator's base URL, for `requestUrls` (known only after listen). */
  baseUrl(): string;
  templates: {
    create(body: unknown): Template;
    get(id: string): Template;
    /** `except`: the endpoint whose own release already names the change. */
    update(id: string, body: unknown, except?: string): Template;
    delete(id: string): void;
  };

  volumeExists(id: string): boolean;
  registryExists(id: string): boolean;
  /** Random in [0, 1): the bound template's name suffix. */
  random(): number;
}

type Body = Record<string, any>;

/** The contract's RolloutSummary. */
export interface RolloutView {
  inProgress: boolean;
  workersOnLatest: number;
  workersTotal: number;
  percentOnLatest: number;
}

/** The contract's ListEndpointReleasesResponse, as the emulator fills it. */
export interface ReleasesView {
  endpointVersion: number;
  rollout: RolloutView;
  releases: {
    id: string;
    version: number;
    source: "MANUAL";
    buildId: null;
    createdByUserId: null;
    workerCount: number;
    createdAt: string;
    diff: DiffEntry[];
  }[];
}

const iso = (ms: number) => new Date(ms).toISOString();

export class RestEndpoints {
  constructor(private readonly env: RestEnvironment) {}

  list(): unknown[] {
    return this.env.store.list().map((ep) => this.view(ep));
  }

  get(id: string): unknown {
    return this.view(this.mustGet(id));
  }

  create(sent: unknown): unknown {
    const body = fromLaterRevision(sent, "create", (detail) => {
      throw problem(400, detail);
    });
    const errors = validate(createEndpointSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const b = body as Body;
    this.crossField(b, { workersMin: 0, workersMax: 3 });
    const template = this.env.templates.create({
      name: `${b.name}__template__${this.suffix()}`,
      ...pick(b, CONTAINER_FIELDS),
      serverless: true,
    });
    try {
      const input = { ...this.storeInput(b), templateId: template.id, type: "QB" };
      const ep = mapped(() => this.env.store.save(input, this.env.now()));
      return this.view(ep);
    } catch (e) {
      // Nothing half-made: the template exists only for the endpoint that was refused.
      this.env.templates.delete(template.id);
      throw e;
    }
  }

  update(id: string, sent: unknown): unknown {
    const existing = this.mustGet(id);
    const body = fromLaterRevision(sent, "update", (detail) => {
      throw problem(400, detail);
    });
    const errors = validate(updateEndpointSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const b = body as Body;
    this.crossField(b, existing);
    const container = pick(b, CONTAINER_FIELDS);
    const before = this.templateOf(existing);
    // The endpoint's own release names the template's change too; the other endpoints bound to
    // the template get theirs from the template's update below.
    const template = before && Object.keys(container).length > 0 ? templateChange(before, { ...before, ...container }) : undefined;
    const ep = mapped(() => this.env.store.save({ ...this.storeInput(b), id }, this.env.now(), undefined, { template }));
    // Every check that could refuse the template's change ran above (the schema, the registry, the limits).
    if (Object.keys(container).length > 0) this.env.templates.update(ep.templateId, container, ep.id);
    return this.view(ep);
  }

  delete(id: string): void {
    const ep = this.mustGet(id);
    if (ep.workersMin !== 0 || ep.workersMax !== 0)
      throw problem(
        409,
        `endpoint '${id}' has workers.min=${ep.workersMin} and workers.max=${ep.workersMax}; set both to 0 (PATCH /v2/serverless/${id}) before deleting it`,
      );
    mapped(() => this.env.store.delete(id));
    const stillBound = this.env.store.list().some((other) => other.templateId === ep.templateId);
    if (!stillBound) this.env.templates.delete(ep.templateId);
  }

  workers(id: string): unknown {
    const ep = this.mustGet(id);
    const now = this.env.now();
    const placed = this.placement(ep);
    const workers = this.env.store.listed(ep, now).map(({ worker: w, state }) => {
      const startedAt = this.env.store.readyAt(ep, w);
      const started = state === "IDLE" || state === "RUNNING";
      return {
        id: w.id,
        status: state,
        isStale: w.version < ep.version,
        version: w.version,
        gpuCount: ep.gpuCount,
        image: w.image,
        uptimeSeconds: started ? Math.floor((now - startedAt) / 1000) : null,
        gpuTypeId: placed.gpuTypeId,
        dataCenterId: placed.dataCenterId,
        startedAt: started ? iso(startedAt) : null,
      };
    });
    const count = (s: string) => workers.filter((w) => w.status === s).length;
    return {
      endpointVersion: ep.version,
      summary: {
        running: count("RUNNING"),
        idle: count("IDLE"),
        initializing: count("INITIALIZING"),
        throttled: 0,
        unhealthy: count("UNHEALTHY"),
        total: workers.length,
      },
      workers,
    };
  }

  /** The releases, newest first, each with the workers now on its version, and the rollout's progress. */
  releases(id: string): ReleasesView {
    const ep = this.mustGet(id);
    const listed = this.env.store.listed(ep, this.env.now());
    const onLatest = listed.filter(({ worker, state }) => worker.version === ep.version && (state === "IDLE" || state === "RUNNING")).length;
    const inProgress = listed.some(
      ({ worker, state }) => worker.version < ep.version || state === "INITIALIZING" || state === "UNHEALTHY",
    );
    return {
      endpointVersion: ep.version,
      rollout: {
        inProgress,
        workersOnLatest: onLatest,
        workersTotal: listed.length,
        percentOnLatest: listed.length === 0 ? 100 : Math.round((100 * onLatest) / listed.length),
      },
      releases: ep.releases.map((r) => ({
        id: r.id,
        version: r.version,
        source: "MANUAL",
        buildId: null,
        createdByUserId: null,
        workerCount: listed.filter(({ worker }) => worker.version === r.version).length,
        createdAt: iso(r.createdAt),
        diff: structuredClone(r.diff),
      })),
    };
  }

  /** The contract's Endpoint: the stored fields in REST's names, the container from the bound template. */
  view(ep: EndpointRecord): Record<string, unknown> {
    const base = this.env.baseUrl().replace(/\/+$/, "");
    const lb = ep.type === "LB";
    const t = this.templateOf(ep);
    return {
      id: ep.id,
      name: ep.name,
      type: lb ? "LOAD_BALANCING" : "QUEUE_BASED",
      requestUrls: lb ? { base: `${base}/lb/${ep.id}` } : { run: `${base}/v2/${ep.id}/run`, runSync: `${base}/v2/${ep.id}/runsync` },
      image: t?.image ?? "",
      args: t?.args ?? "",
      disk: t?.disk ?? 1,
      ports: [...(t?.ports ?? [])],
      env: { ...t?.env },
      registry: t?.registry ?? null,
      gpu: { pools: ep.gpuIds.split(","), count: ep.gpuCount },
      workers: { min: ep.workersMin, max: ep.workersMax },
      scaling: { type: ep.scalerType, value: ep.scalerValue, idleTimeout: ep.idleTimeout },
      dataCenterIds: [...ep.dataCenterIds],
      networkVolumes: ep.networkVolumeId ? [ep.networkVolumeId] : [],
      timeout: ep.executionTimeoutMs,
      flashboot: ep.flashBootType,
      createdAt: iso(ep.createdAt),
    };
  }

  /** The store's input for the fields present in a REST body (absent ones are left out). */
  private storeInput(b: Body): EndpointInput {
    const input: EndpointInput = {};
    if (b.name !== undefined) input.name = b.name;
    if (b.gpu !== undefined) {
      input.gpuIds = (b.gpu.pools as string[]).join(",");
      if (b.gpu.count !== undefined) input.gpuCount = b.gpu.count;
    }
    if (b.workers?.min !== undefined) input.workersMin = b.workers.min;
    if (b.workers?.max !== undefined) input.workersMax = b.workers.max;
    if (b.scaling?.type !== undefined) input.scalerType = b.scaling.type;
    if (b.scaling?.value !== undefined) input.scalerValue = b.scaling.value;
    if (b.scaling?.idleTimeout !== undefined) input.idleTimeout = b.scaling.idleTimeout;
    if (b.dataCenterIds !== undefined) input.dataCenterIds = [...b.dataCenterIds];
    if (b.networkVolumes !== undefined) input.networkVolumeId = b.networkVolumes[0] ?? null;
    if (b.timeout !== undefined) input.executionTimeoutMs = b.timeout;
    if (b.flashboot !== undefined) input.flashBootType = b.flashboot;
    return input;
  }

  /**
   * The rules the contract's schema cannot express (400, `detail` names the field and the
   * rule), checked against the merged values before anything changes.
   */
  private crossField(b: Body, current: { workersMin: number; workersMax: number }): void {
    // The bound template's limits first (it throws its own 400), so a template change cannot fail after the endpoint's save.
    checkContainerLimits(b);
    const out: string[] = [];
    const pools: string[] | undefined = b.gpu?.pools;
    if (pools) {
      const bad = pools.filter((p) => !(GPU_TIERS as readonly string[]).includes(p));
      if (bad.length > 0)
        out.push(`gpu.pools: ${bad.map((p) => `'${p}'`).join(", ")} not a serverless GPU pool (${GPU_TIERS.join(", ")})`);
      else if (new Set(pools).size !== pools.length) out.push("gpu.pools: a pool is listed twice");
    }
    const min = b.workers?.min ?? current.workersMin;
    const max = b.workers?.max ?? current.workersMax;
    if (min > max) out.push(`workers.min (${min}) must not exceed workers.max (${max})`);
    if (max > MAX_WORKERS) out.push(`workers.max must be <= ${MAX_WORKERS} in the emulator, got ${max}`);
    const volumes: string[] | undefined = b.networkVolumes;
    if (volumes && volumes.length > 1)
      out.push(`networkVolumes: an endpoint takes at most one network volume, got ${volumes.length}`);
    else if (volumes?.[0] !== undefined && !this.env.volumeExists(volumes[0]))
      out.push(`networkVolumes[0]: network volume '${volumes[0]}' does not exist (see GET /v2/network-volumes)`);
    for (const dc of (b.dataCenterIds as string[] | undefined) ?? []) {
      if (!DATA_CENTERS.some((d) => d.id === dc)) out.push(`dataCenterIds: '${dc}' is not a data center (see GET /v2/catalog/datacenters)`);
    }
    if (typeof b.timeout === "number" && b.timeout < 0) out.push(`timeout must be >= 0 ms (0: no limit), got ${b.timeout}`);
    if (typeof b.registry === "string" && !this.env.registryExists(b.registry))
      out.push(`registry: registry '${b.registry}' does not exist (see GET /v2/registries)`);
    if (out.length > 0) throw problem(400, out.join("; "));
  }

  private mustGet(id: string): EndpointRecord {
    const ep = this.env.store.get(id);
    if (!ep) throw problem(404, `serverless endpoint '${id}' not found`);
    return ep;
  }

  private templateOf(ep: EndpointRecord): Template | undefined {
    try {
      return this.env.templates.get(ep.templateId);
    } catch (e) {
      if (e instanceof HttpError && e.status === 404) return undefined;
      throw e;
    }
  }

  /** Where the endpoint's workers run: its first pool's first GPU type, its first data center. */
  private placement(ep: EndpointRecord): { gpuTypeId: string | null; dataCenterId: string | null } {
    const pool = ep.gpuIds.split(",")[0];
    return {
      gpuTypeId: GPU_TYPES.find((g) => g.pool === pool)?.id ?? null,
      dataCenterId: ep.dataCenterIds[0] ?? DATA_CENTERS[0].id,
    };
  }

  private suffix(): string {
    let s = "";
    for (let i = 0; i < 6; i++) s += Math.floor(this.env.random() * 36).toString(36);
    return s;
  }
}

/** Runs a store call, turning its GraphQL-coded refusals into REST statuses. */
function mapped<T>(call: () => T): T {
  try {
    return call();
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    const codes: Record<string, number> = { NOT_FOUND: 404, FAILED_PRECONDITION: 409 };
    throw problem(codes[String(e.extensions.code)] ?? 400, e.message.replace(/\binput\./g, ""));
  }
}

function pick(b: Body, keys: readonly string[]): Body {
  const out: Body = {};
  for (const k of keys) if (Object.hasOwn(b, k)) out[k] = b[k];
  return out;
}

import { z } from "zod";
import { recordsOf } from "../core/records";
import { containerConfigParams, EnvSchema, int } from "./common";
import { GPU_TIERS } from "./endpoints";

// --- Serverless endpoints over REST v2 (`/v2/serverless`, the contract's Endpoint) ---

export const RestEndpointTypeSchema = z.enum(["QUEUE_BASED", "LOAD_BALANCING"]);
export type RestEndpointType = z.infer<typeof RestEndpointTypeSchema>;
export const RestFlashBootSchema = z.enum(["OFF", "FLASHBOOT", "PRIORITY_FLASHBOOT"]);
export type RestFlashBoot = z.infer<typeof RestFlashBootSchema>;
export const RestScalerTypeSchema = z.enum(["QUEUE_DELAY", "REQUEST_COUNT"]);
/** The contract's WorkerStatus values. */
export const WORKER_STATUSES = ["RUNNING", "IDLE", "INITIALIZING", "THROTTLED", "UNHEALTHY"] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A later revision of the contract (what the platform's own MCP server speaks) spells an
 * endpoint `type` QUEUE / LOAD_BALANCER, `scaling` `{ type, queueDelay | requestCount }` and
 * keeps `idleTimeout` in `workers`. An answer in those spellings is read as this contract's,
 * so a platform that moved on does not make every endpoint unreadable.
 */
function asContractEndpoint(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const out: Record<string, unknown> = { ...raw };
  if (out.type === "QUEUE") out.type = "QUEUE_BASED";
  else if (out.type === "LOAD_BALANCER") out.type = "LOAD_BALANCING";
  const scaling = isObject(out.scaling) ? { ...out.scaling } : out.scaling;
  if (isObject(scaling) && scaling.value === undefined) {
    scaling.value = scaling.queueDelay ?? scaling.requestCount;
    delete scaling.queueDelay;
    delete scaling.requestCount;
  }
  if (isObject(scaling) && scaling.idleTimeout === undefined && isObject(out.workers)) scaling.idleTimeout = out.workers.idleTimeout;
  out.scaling = scaling;
  return out;
}

/** The contract's Endpoint as the platform answers it; container fields come from its bound template. */
export const RestEndpointSchema = z.preprocess(
  asContractEndpoint,
  z.looseObject({
    id: z.string(),
    name: z.string(),
    type: RestEndpointTypeSchema.optional(),
    requestUrls: z.looseObject({ run: z.string().optional(), runSync: z.string().optional(), base: z.string().optional() }).optional(),
    image: z.string().optional(),
    args: z.string().optional(),
    disk: int().optional(),
    ports: z.array(z.string()).optional(),
    env: EnvSchema.optional(),
    registry: z.string().nullable().optional(),
    gpu: z.looseObject({ pools: z.array(z.string()), count: int().optional() }).nullable().optional(),
    cpu: z.looseObject({}).nullable().optional(),
    workers: z.looseObject({ min: int().min(0), max: int().min(0) }),
    scaling: z.looseObject({ type: RestScalerTypeSchema, value: z.number(), idleTimeout: int().min(0) }),
    dataCenterIds: z.array(z.string()),
    networkVolumes: z.array(z.string()),
    timeout: int(),
    flashboot: RestFlashBootSchema,
    createdAt: z.string(),
  }),
);
export type RestEndpoint = z.infer<typeof RestEndpointSchema>;

export const RestEndpointListSchema = z.looseObject({ endpoints: recordsOf(RestEndpointSchema) });

/** The contract's WorkerStatus. */
export const WorkerStatusSchema = z.enum(WORKER_STATUSES);
export type WorkerStatus = z.infer<typeof WorkerStatusSchema>;
/** The contract's ReleaseSource: what produced a release. */
export const ReleaseSourceSchema = z.enum(["GIT_BUILD", "MANUAL"]);
export type ReleaseSource = z.infer<typeof ReleaseSourceSchema>;

/**
 * The contract's Worker. `status` and a release's `source` are read leniently (a value the
 * contract may add later is kept as sent, typed as the contract's values or any string): a
 * rollout wait must not fail on every worker of an endpoint because the platform named one
 * more state.
 */
export const EndpointWorkerRecordSchema = z.looseObject({
  id: z.string(),
  status: z.union([WorkerStatusSchema, z.string()]),
  isStale: z.boolean(),
  gpuCount: int().min(0),
  /** The endpoint version this worker runs; null when the platform does not know. */
  version: int().nullable().optional(),
  image: z.string().nullable().optional(),
  uptimeSeconds: int().min(0).nullable().optional(),
  gpuTypeId: z.string().nullable().optional(),
  dataCenterId: z.string().nullable().optional(),
  startedAt: z.string().nullable().optional(),
});
export type EndpointWorkerRecord = z.infer<typeof EndpointWorkerRecordSchema>;

const count = () => int().min(0);
/** The contract's WorkerSummary: the workers counted by status. */
export const WorkerSummarySchema = z.looseObject({
  running: count(),
  idle: count(),
  initializing: count(),
  throttled: count(),
  unhealthy: count(),
  total: count(),
});
/** The contract's ListEndpointWorkersResponse. */
export const EndpointWorkersSchema = z.looseObject({
  workers: recordsOf(EndpointWorkerRecordSchema),
  summary: WorkerSummarySchema,
  endpointVersion: int().nullable().optional(),
});
export type EndpointWorkers = z.infer<typeof EndpointWorkersSchema>;

/** The contract's ReleaseDiffEntry: one changed field, `old` and `new` as raw JSON (null when added or removed). */
const rawJson = z.union([z.null(), z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);
export const ReleaseDiffEntrySchema = z.looseObject({ field: z.string(), old: rawJson, new: rawJson });
export type ReleaseDiffEntry = z.infer<typeof ReleaseDiffEntrySchema>;

/** The contract's Release: a versioned configuration of the endpoint and what changed in it. */
export const ReleaseSchema = z.looseObject({
  id: z.string(),
  version: int().nullable().optional(),
  source: z.union([ReleaseSourceSchema, z.string()]),
  buildId: z.string().nullable().optional(),
  createdByUserId: z.string().nullable().optional(),
  /** Workers running this release's version now. */
  workerCount: count(),
  createdAt: z.string(),
  diff: z.array(ReleaseDiffEntrySchema),
});
export type Release = z.infer<typeof ReleaseSchema>;

/** The contract's RolloutSummary: how far the latest version has reached the workers. */
export const RolloutSummarySchema = z.looseObject({
  inProgress: z.boolean(),
  workersOnLatest: count(),
  workersTotal: count(),
  percentOnLatest: count().max(100),
});
export type RolloutSummary = z.infer<typeof RolloutSummarySchema>;

/** The contract's ListEndpointReleasesResponse: releases newest first, and the rollout. */
export const EndpointReleasesSchema = z.looseObject({
  endpointVersion: int().nullable().optional(),
  rollout: RolloutSummarySchema,
  releases: z.array(ReleaseSchema),
});
export type EndpointReleases = z.infer<typeof EndpointReleasesSchema>;

/** Serverless GPU pools in priority order: distinct tiers of the catalog's `pool`. */
const PoolsSchema = z
  .array(z.enum(GPU_TIERS))
  .min(1)
  .refine((pools) => new Set(pools).size === pools.length, "must not name a pool twice");

const restEndpointFields = {
  ...containerConfigParams,
  gpu: z.strictObject({ pools: PoolsSchema, count: int().min(1).optional() }).optional(),
  workers: z.strictObject({ min: int().min(0).optional(), max: int().min(0).optional() }).optional(),
  scaling: z
    .strictObject({ type: RestScalerTypeSchema.optional(), value: z.number().min(0.5).optional(), idleTimeout: int().min(0).optional() })
    .optional(),
  /** Preferred data centers; empty lets the scheduler choose. */
  dataCenterIds: z.array(z.string().min(1)).optional(),
  /** At most one network volume per endpoint. */
  networkVolumes: z.array(z.string().min(1)).max(1).optional(),
  /** A job's limit in ms; 0 for none. */
  timeout: int().min(0).optional(),
  flashboot: RestFlashBootSchema.optional(),
};

const minNotAboveMax = (p: { workers?: { min?: number; max?: number } }) =>
  p.workers?.min === undefined || p.workers.max === undefined || p.workers.min <= p.workers.max;

/** The contract's CreateEndpointRequest: a queue-based endpoint with its container inline. */
export const RestEndpointCreateParamsSchema = z
  .strictObject({
    ...restEndpointFields,
    name: z.string().min(1),
    image: z.string().min(1),
    gpu: z.strictObject({ pools: PoolsSchema, count: int().min(1).optional() }),
  })
  .refine(minNotAboveMax, { message: "workers.min must not exceed workers.max", path: ["workers", "min"] });
/** Defaults (the platform's): workers 0..3, scaling QUEUE_DELAY 4 with idleTimeout 5, timeout 300000, flashboot OFF, gpu.count 1. */
export type RestEndpointCreateParams = z.input<typeof RestEndpointCreateParamsSchema>;

/** The contract's UpdateEndpointRequest: a sparse PATCH, fields left out keep their values. */
export const RestEndpointUpdateParamsSchema = z
  .strictObject({ ...restEndpointFields, name: z.string().min(1).optional() })
  .refine(minNotAboveMax, { message: "workers.min must not exceed workers.max", path: ["workers", "min"] });
export type RestEndpointUpdateParams = z.input<typeof RestEndpointUpdateParamsSchema>;

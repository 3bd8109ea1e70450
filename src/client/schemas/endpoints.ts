import { z } from "zod";
import { recordsOf } from "../core/records";
import { int } from "./common";

// --- Serverless endpoints (GraphQL) ---

export const GPU_TIERS = ["AMPERE_16", "AMPERE_24", "ADA_24", "AMPERE_48", "ADA_48_PRO", "AMPERE_80", "ADA_80_PRO"] as const;
export const LOCATIONS = ["CZ", "FR", "GB", "NO", "RO", "US"] as const;

/**
 * Why `value` is not a priority list of `allowed` (one allowed value or a
 * comma-separated list of distinct ones, in priority order, no spaces), or undefined. The
 * string is checked as it will be sent: nothing is trimmed.
 */
function priorityListProblem(value: string, allowed: readonly string[], emptyMeansAny: boolean): string | undefined {
  if (value === "") return emptyMeansAny ? undefined : `must name at least one of ${allowed.join(", ")}`;
  const items = value.split(",");
  const bad = items.filter((item) => !allowed.includes(item));
  if (bad.length > 0) {
    return `${bad.map((b) => JSON.stringify(b)).join(", ")} is not one of ${allowed.join(", ")} (one value or a comma-separated list, no spaces)`;
  }
  const repeated = items.find((item, i) => items.indexOf(item) !== i);
  return repeated === undefined ? undefined : `names ${repeated} twice (${JSON.stringify(value)})`;
}

const named = (field: string, problem: string | undefined) => (problem === undefined ? undefined : `${field} ${problem}`);

const gpuIdsProblem = (value: string) => priorityListProblem(value, GPU_TIERS, false);
const locationsProblem = (value: string) => priorityListProblem(value, LOCATIONS, true);

/** Why `gpuIds` is refused (one tier or a priority list of distinct tiers), or undefined when it is valid. */
export const validateGpuIds = (value: string): string | undefined => named("gpuIds", gpuIdsProblem(value));

/** Why `locations` is refused (empty, one location or a priority list of distinct ones), or undefined when it is valid. */
export const validateLocations = (value: string): string | undefined => named("locations", locationsProblem(value));

/** A string `problem` finds nothing wrong with; its finding is the issue otherwise. */
function checkedString(problem: (value: string) => string | undefined) {
  return z.string().superRefine((value, ctx) => {
    const found = problem(value);
    if (found) ctx.addIssue({ code: "custom", message: found });
  });
}

export const FlashBootTypeSchema = z.enum(["OFF", "FLASHBOOT"]);
export type FlashBootType = z.infer<typeof FlashBootTypeSchema>;
export const EndpointTypeSchema = z.enum(["QB", "LB"]);
export const ScalerTypeSchema = z.enum(["QUEUE_DELAY", "REQUEST_COUNT"]);

export const EndpointInputSchema = z.strictObject({
  /** Present: modify that endpoint. Absent: create one. */
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  gpuIds: checkedString(gpuIdsProblem),
  templateId: z.string().min(1),
  type: EndpointTypeSchema.optional(),
  idleTimeout: int().min(0).optional(),
  locations: checkedString(locationsProblem).nullable().optional(),
  flashBootType: FlashBootTypeSchema.optional(),
  scalerType: ScalerTypeSchema.optional(),
  scalerValue: int().min(0).optional(),
  workersMin: int().min(0).optional(),
  workersMax: int().min(0).optional(),
  networkVolumeId: z.string().nullable().optional(),
  /** GPUs per worker (a worker costs that many times its GPU's price). */
  gpuCount: int().min(1).optional(),
  /** A job's limit in ms; 0 for none. */
  executionTimeoutMs: int().min(0).optional(),
});
export type EndpointInput = z.input<typeof EndpointInputSchema>;

export const EndpointWorkerSchema = z.looseObject({ desiredStatus: z.string() });

export const EndpointSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  gpuIds: z.string(),
  templateId: z.string(),
  type: z.string().nullable().optional(),
  idleTimeout: int().nullable().optional(),
  locations: z.string().nullable().optional(),
  flashBootType: z.string().nullable().optional(),
  scalerType: z.string().nullable().optional(),
  scalerValue: int().nullable().optional(),
  workersMin: int().nullable().optional(),
  workersMax: int().nullable().optional(),
  networkVolumeId: z.string().nullable().optional(),
  gpuCount: int().nullable().optional(),
  executionTimeoutMs: int().nullable().optional(),
  pods: z.array(EndpointWorkerSchema),
});
export type Endpoint = z.infer<typeof EndpointSchema>;

export const ServerlessDiscountSchema = z.looseObject({
  discountFactor: z.number(),
  type: z.string(),
  /** null: the discount does not expire. */
  expirationDate: z.string().nullable(),
});
export type ServerlessDiscount = z.infer<typeof ServerlessDiscountSchema>;

export const MyselfSchema = z.looseObject({
  endpoints: recordsOf(EndpointSchema),
  serverlessDiscount: ServerlessDiscountSchema.nullable().optional(),
});
export type Myself = z.infer<typeof MyselfSchema>;

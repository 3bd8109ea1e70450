import { z } from "zod";
import { int } from "./common";

// --- Serverless endpoints (GraphQL) ---

export const GPU_TIERS = ["AMPERE_16", "AMPERE_24", "ADA_24", "AMPERE_48", "ADA_48_PRO", "AMPERE_80", "ADA_80_PRO"] as const;
export const LOCATIONS = ["CZ", "FR", "GB", "NO", "RO", "US"] as const;

/** A comma-separated list whose members are all in `allowed` (e.g. `AMPERE_16,ADA_24`). */
function csvOf(allowed: readonly string[]) {
  return z.string().refine(
    (s) => s.split(",").every((part) => allowed.includes(part.trim())),
    `must be one of ${allowed.join(", ")} (comma-separated for several)`,
  );
}

export const FlashBootTypeSchema = z.enum(["OFF", "FLASHBOOT"]);
export type FlashBootType = z.infer<typeof FlashBootTypeSchema>;
export const EndpointTypeSchema = z.enum(["QB", "LB"]);
export const ScalerTypeSchema = z.enum(["QUEUE_DELAY", "REQUEST_COUNT"]);

export const EndpointInputSchema = z.strictObject({
  /** Present: modify that endpoint. Absent: create one. */
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  gpuIds: csvOf(GPU_TIERS),
  templateId: z.string().min(1),
  type: EndpointTypeSchema.optional(),
  idleTimeout: int().min(0).optional(),
  locations: z.union([z.literal(""), csvOf(LOCATIONS)]).nullable().optional(),
  flashBootType: FlashBootTypeSchema.optional(),
  scalerType: ScalerTypeSchema.optional(),
  scalerValue: int().min(0).optional(),
  workersMin: int().min(0).optional(),
  workersMax: int().min(0).optional(),
  networkVolumeId: z.string().nullable().optional(),
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
  endpoints: z.array(EndpointSchema),
  serverlessDiscount: ServerlessDiscountSchema.nullable().optional(),
});
export type Myself = z.infer<typeof MyselfSchema>;

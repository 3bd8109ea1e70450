import { z } from "zod";
import { dateTime, int } from "./common";

/**
 * Billing (contract `/v2/billing*`): time-bucketed spend, one record per bucket (per pod or
 * per volume where the route splits by object), with the resolved query and totals.
 */

export const BillingBucketSizeSchema = z.enum(["hour", "day", "week", "month", "year"]);
export type BillingBucketSize = z.infer<typeof BillingBucketSizeSchema>;

// --- Records (responses) ---

const timeRange = { startTime: dateTime(), endTime: dateTime() };
const amounts = <K extends string>(...names: K[]) =>
  Object.fromEntries(names.map((n) => [n, z.number()])) as Record<K, z.ZodNumber>;

export const BillingAmountsSchema = z.looseObject(
  amounts(
    "totalAmount",
    "podGpuAmount",
    "podCpuAmount",
    "podDiskAmount",
    "serverlessGpuAmount",
    "serverlessCpuAmount",
    "serverlessDiskAmount",
    "serverlessFeeAmount",
    "storageStandardAmount",
    "storageHighPerformanceAmount",
    "endpointAmount",
    "clusterGpuAmount",
    "clusterDiskAmount",
    "clusterNetworkingAmount",
  ),
);
export type BillingAmounts = z.infer<typeof BillingAmountsSchema>;
export const PodBillingAmountsSchema = z.looseObject(amounts("totalAmount", "gpuAmount", "cpuAmount", "diskAmount"));
export type PodBillingAmounts = z.infer<typeof PodBillingAmountsSchema>;
export const EndpointBillingAmountsSchema = z.looseObject(amounts("totalAmount"));
export type EndpointBillingAmounts = z.infer<typeof EndpointBillingAmountsSchema>;
export const NetworkVolumeBillingAmountsSchema = z.looseObject(
  amounts("totalAmount", "standardAmount", "highPerformanceAmount"),
);
export type NetworkVolumeBillingAmounts = z.infer<typeof NetworkVolumeBillingAmountsSchema>;

export const BillingRecordSchema = BillingAmountsSchema.extend(timeRange);
export type BillingRecord = z.infer<typeof BillingRecordSchema>;
export const PodBillingRecordSchema = PodBillingAmountsSchema.extend({ ...timeRange, podId: z.string() });
export type PodBillingRecord = z.infer<typeof PodBillingRecordSchema>;
export const EndpointBillingRecordSchema = EndpointBillingAmountsSchema.extend(timeRange);
export type EndpointBillingRecord = z.infer<typeof EndpointBillingRecordSchema>;
export const NetworkVolumeBillingRecordSchema = NetworkVolumeBillingAmountsSchema.extend({
  ...timeRange,
  networkVolumeId: z.string(),
});
export type NetworkVolumeBillingRecord = z.infer<typeof NetworkVolumeBillingRecordSchema>;

/** The window and bucket size the server resolved (after snapping to bucket boundaries). */
export const BillingQueryEchoSchema = z.looseObject({ ...timeRange, bucketSize: BillingBucketSizeSchema });
const filterEcho = (name: string) => BillingQueryEchoSchema.extend({ [name]: z.string().nullable().optional() });

export const BillingResponseSchema = z.looseObject({
  records: z.array(BillingRecordSchema),
  metadata: z.looseObject({ query: BillingQueryEchoSchema, recordCount: int(), totals: BillingAmountsSchema }),
});
export type BillingResponse = z.infer<typeof BillingResponseSchema>;

/** A route that bills object by object: its filter echoed, and how many distinct objects the records span. */
function perObjectResponse<R extends z.ZodType, T extends z.ZodType, U extends string>(
  record: R,
  filter: string,
  uniqueCount: U,
  totals: T,
) {
  const counts = { recordCount: int(), [uniqueCount]: int() } as { recordCount: z.ZodNumber } & Record<U, z.ZodNumber>;
  return z.looseObject({ records: z.array(record), metadata: z.looseObject({ query: filterEcho(filter), ...counts, totals }) });
}

export const PodBillingResponseSchema = perObjectResponse(PodBillingRecordSchema, "podId", "uniquePodCount", PodBillingAmountsSchema);
export type PodBillingResponse = z.infer<typeof PodBillingResponseSchema>;

export const EndpointBillingResponseSchema = z.looseObject({
  records: z.array(EndpointBillingRecordSchema),
  metadata: z.looseObject({ query: BillingQueryEchoSchema, recordCount: int(), totals: EndpointBillingAmountsSchema }),
});
export type EndpointBillingResponse = z.infer<typeof EndpointBillingResponseSchema>;

export const NetworkVolumeBillingResponseSchema = perObjectResponse(
  NetworkVolumeBillingRecordSchema,
  "networkVolumeId",
  "uniqueNetworkVolumeCount",
  NetworkVolumeBillingAmountsSchema,
);
export type NetworkVolumeBillingResponse = z.infer<typeof NetworkVolumeBillingResponseSchema>;

// --- Query parameters (requests) ---

/** An RFC 3339 instant with an offset, or a `Date`; sent as an ISO string. */
const instant = z
  .union([z.date(), dateTime()], "must be a Date or an RFC 3339 date-time with offset, e.g. 2026-06-01T00:00:00Z")
  .transform((v) => (v instanceof Date ? v.toISOString() : v));

const queryFields = {
  /** Start of the window (inclusive), snapped down to its bucket. @default 30 days ago */
  startTime: instant.optional(),
  /** End of the window (exclusive), snapped up to its bucket. @default now */
  endTime: instant.optional(),
  /** Length of each bucket. @default "day" */
  bucketSize: BillingBucketSizeSchema.optional(),
  /** The last N buckets, the current one included; not with `startTime`/`endTime`. */
  lastN: int().min(1).optional(),
};

/** The window rules the contract states in prose: `lastN` or a time range, and a range that moves forward. */
function windowRules<S extends z.ZodType<{ startTime?: string; endTime?: string; lastN?: number }>>(schema: S) {
  return schema.superRefine((q, ctx) => {
    if (q.lastN !== undefined && (q.startTime !== undefined || q.endTime !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["lastN"], message: "cannot be combined with startTime or endTime (give one or the other)" });
    }
    if (q.startTime !== undefined && q.endTime !== undefined && Date.parse(q.startTime) >= Date.parse(q.endTime)) {
      ctx.addIssue({ code: "custom", path: ["endTime"], message: "must be after startTime" });
    }
  });
}

export const BillingQueryParamsSchema = windowRules(z.strictObject(queryFields));
export type BillingQueryParams = z.input<typeof BillingQueryParamsSchema>;

export const PodBillingQueryParamsSchema = windowRules(
  z.strictObject({ ...queryFields, /** Only this pod. */ podId: z.string().min(1).optional() }),
);
export type PodBillingQueryParams = z.input<typeof PodBillingQueryParamsSchema>;

export const NetworkVolumeBillingQueryParamsSchema = windowRules(
  z.strictObject({ ...queryFields, /** Only this volume. */ networkVolumeId: z.string().min(1).optional() }),
);
export type NetworkVolumeBillingQueryParams = z.input<typeof NetworkVolumeBillingQueryParamsSchema>;

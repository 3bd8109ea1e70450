import { z } from "zod";
import { recordsOf } from "../core/records";
import { int, vcpuCount } from "./common";

/**
 * The catalog (contract `GpuType`, `CpuType`, `DataCenter`): what pods and endpoints can run
 * on, with prices in USD per hour, and the availability expansions a look-up may ask for.
 */

export const AvailabilityLevelSchema = z.enum(["NONE", "LOW", "MEDIUM", "HIGH"]);
export type AvailabilityLevel = z.infer<typeof AvailabilityLevelSchema>;

export const VolumeTypeSchema = z.enum(["STANDARD", "HIGH_PERFORMANCE"]);
export type VolumeType = z.infer<typeof VolumeTypeSchema>;

/** One catalog object's (or data center's) stock: id, name and a level. */
export const CatalogAvailabilitySchema = z.looseObject({ id: z.string(), name: z.string(), availability: AvailabilityLevelSchema });
export type CatalogAvailability = z.infer<typeof CatalogAvailabilitySchema>;

// Present only when asked for with include=AVAILABILITY.
const availabilityExpansion = {
  availability: AvailabilityLevelSchema.optional(),
  dataCenters: z.array(CatalogAvailabilitySchema).optional(),
};

export const GpuManufacturerSchema = z.enum(["NVIDIA", "AMD", "UNKNOWN"]);
export type GpuManufacturer = z.infer<typeof GpuManufacturerSchema>;

export const GpuTypeSchema = z.looseObject({
  /** The id a pod's `gpu.id` takes, e.g. `NVIDIA GeForce RTX 4090`. */
  id: z.string(),
  name: z.string(),
  /** The serverless tier it belongs to (an endpoint's `gpuIds`), or null. */
  pool: z.string().nullable(),
  manufacturer: GpuManufacturerSchema,
  /** VRAM in GB. */
  memory: int(),
  secure: z.boolean(),
  community: z.boolean(),
  /** USD per GPU per hour on each cloud. */
  price: z.looseObject({ secure: z.number(), community: z.number() }),
  maxCount: z.looseObject({ secure: int(), community: int() }),
  ...availabilityExpansion,
});
/** @group Catalog and billing */
export type GpuType = z.infer<typeof GpuTypeSchema>;

export const CpuTypeSchema = z.looseObject({
  /** The flavor id a pod's `cpu.id` takes, e.g. `cpu5c`. */
  id: z.string(),
  name: z.string(),
  group: z.string(),
  vcpu: z.looseObject({ min: int(), max: int() }),
  /** GB of RAM per vCPU (may be fractional). */
  ramGbPerVcpu: z.number(),
  /** USD per vCPU per hour. */
  price: z.looseObject({ securePerVcpu: z.number(), serverlessPerVcpu: z.number() }),
  ...availabilityExpansion,
});
export type CpuType = z.infer<typeof CpuTypeSchema>;
/**
 * @deprecated The contract calls it `CpuType`.
 *
 * @group Catalog and billing
 */
export type CpuFlavor = CpuType;

export const DataCenterRegionSchema = z.enum([
  "NORTH_AMERICA",
  "SOUTH_AMERICA",
  "EUROPE",
  "ASIA",
  "MIDDLE_EAST",
  "AFRICA",
  "OCEANIA",
  "ANTARCTICA",
  "UNKNOWN",
]);
export type DataCenterRegion = z.infer<typeof DataCenterRegionSchema>;

export const ComplianceSchema = z.enum([
  "GDPR",
  "ISO_IEC_27001",
  "ISO_14001",
  "PCI_DSS",
  "HITRUST",
  "SOC_1_TYPE_2",
  "SOC_2_TYPE_2",
  "SOC_3_TYPE_2",
  "ITAR",
  "FISMA_HIGH",
  "HIPAA",
  "RENEWABLE",
]);
export type Compliance = z.infer<typeof ComplianceSchema>;

export const DataCenterSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  region: DataCenterRegionSchema,
  /** Whether pods here can join the private cross-data-center network. */
  globalNetwork: z.boolean(),
  /** The volume tiers this data center offers; the first is a new volume's default. */
  networkVolumeTypes: z.array(VolumeTypeSchema),
  compliance: z.array(ComplianceSchema),
  /** Present only when asked for with include=GPU_AVAILABILITY. */
  gpuAvailability: z.array(CatalogAvailabilitySchema).optional(),
  /** Present only when asked for with include=CPU_AVAILABILITY. */
  cpuAvailability: z.array(CatalogAvailabilitySchema).optional(),
});
/** @group Catalog and billing */
export type DataCenter = z.infer<typeof DataCenterSchema>;

export const CpuListSchema = z.looseObject({ cpus: recordsOf(CpuTypeSchema) });
export const GpuListSchema = z.looseObject({ gpus: recordsOf(GpuTypeSchema) });
export const DataCenterListSchema = z.looseObject({ dataCenters: recordsOf(DataCenterSchema) });

// --- Look-up options (query parameters) ---

const AVAILABILITY_ONLY = 'is valid only with include: ["AVAILABILITY"]';

/** The contract's rule for the availability filters: they need the AVAILABILITY expansion. */
function availabilityRule<S extends z.ZodType<{ include?: readonly string[] }>>(schema: S, filters: readonly string[]) {
  return schema.superRefine((q, ctx) => {
    if (q.include?.includes("AVAILABILITY")) return;
    for (const name of filters) {
      if ((q as Record<string, unknown>)[name] !== undefined) ctx.addIssue({ code: "custom", path: [name], message: AVAILABILITY_ONLY });
    }
  });
}

const include = z.array(z.enum(["AVAILABILITY"])).max(1).optional();

/** Options of `catalog.gpus()` and `catalog.gpu(id)`. */
export const GpuCatalogQuerySchema = availabilityRule(
  z.strictObject({
    /** `["AVAILABILITY"]` adds `availability` and per-data-center `dataCenters`. */
    include,
    /** Availability for these products. @default ["POD"] (server side) */
    product: z.array(z.enum(["POD", "CLUSTER", "SERVERLESS"])).min(1).optional(),
    /** GPU count the availability is for. @default 1 */
    count: int().min(1).optional(),
    /** Cloud the availability is for. @default "SECURE" (server side) */
    cloud: z.enum(["SECURE", "COMMUNITY"]).optional(),
    /** Lowest CUDA version, `12` or `12.1`. */
    minCudaVersion: z.string().regex(/^\d+(\.\d+)?$/, "must be a CUDA version such as 12 or 12.1").optional(),
  }),
  ["product", "count", "cloud", "minCudaVersion"],
);
export type GpuCatalogQuery = z.input<typeof GpuCatalogQuerySchema>;

/** Options of `catalog.cpus()` and `catalog.cpu(id)`. */
export const CpuCatalogQuerySchema = availabilityRule(
  z.strictObject({
    include,
    product: z.array(z.enum(["POD", "SERVERLESS"])).min(1).optional(),
    /** vCPU count the availability is for: a power of two, at least 2. */
    vcpuCount: vcpuCount().optional(),
  }),
  ["product", "vcpuCount"],
);
export type CpuCatalogQuery = z.input<typeof CpuCatalogQuerySchema>;

const dataCenterInclude = z.array(z.enum(["GPU_AVAILABILITY", "CPU_AVAILABILITY"])).optional();

/** Options of `catalog.dataCenter(id)`. */
export const DataCenterLookupQuerySchema = z.strictObject({
  /** Adds `gpuAvailability` and/or `cpuAvailability`. */
  include: dataCenterInclude,
});
export type DataCenterLookupQuery = z.input<typeof DataCenterLookupQuerySchema>;

/** Options of `catalog.dataCenters()`: each filter narrows the list (families combine with AND). */
export const DataCenterCatalogQuerySchema = z.strictObject({
  include: dataCenterInclude,
  /** Any of these regions. */
  regions: z.array(DataCenterRegionSchema).min(1).optional(),
  /** Every one of these volume tiers. */
  networkVolumeTypes: z.array(VolumeTypeSchema).min(1).optional(),
  /** Every one of these certifications. */
  compliance: z.array(ComplianceSchema).min(1).optional(),
  /** Only those with (true) or without (false) global networking. */
  globalNetwork: z.boolean().optional(),
});
export type DataCenterCatalogQuery = z.input<typeof DataCenterCatalogQuerySchema>;

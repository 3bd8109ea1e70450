import { z } from "zod";

/**
 * zod schemas of the wire objects (spec section 2, open-parts): the one source for both the
 * types and the validation. Response schemas are loose (unknown extra fields pass, for
 * forward compatibility) but strict about the fields the spec requires; request schemas are
 * strict (the service rejects unknown properties with 422, so we reject them first).
 */

const int = () => z.number().int();
const dateTime = () => z.iso.datetime({ offset: true });

export const PodStatusSchema = z.enum(["PROVISIONING", "STARTING", "RUNNING", "EXITED", "ERROR", "TERMINATED"]);
export type PodStatus = z.infer<typeof PodStatusSchema>;

export const PodActionSchema = z.enum(["start", "stop", "restart", "terminate"]);
export type PodAction = z.infer<typeof PodActionSchema>;

export const CloudSchema = z.enum(["SECURE", "COMMUNITY"]);
export type Cloud = z.infer<typeof CloudSchema>;

/** `<port>/<protocol>`, e.g. `8888/http`. */
const PortSchema = z.string().regex(/^\d{1,5}\/[a-z]+$/, "must be formatted <port>/<protocol>, e.g. 8888/http");
const EnvSchema = z.record(z.string(), z.string());

// --- Pod (response) ---

export const PersistentMountSchema = z.looseObject({ size: int(), path: z.string() });
export const NetworkMountSchema = z.looseObject({ volumeId: z.string(), path: z.string() });
export const MountsSchema = z.looseObject({
  persistent: PersistentMountSchema.optional(),
  network: z.array(NetworkMountSchema).optional(),
});
export type Mounts = z.infer<typeof MountsSchema>;

export const GpuConfigSchema = z.looseObject({ id: z.string(), count: int() });
export type GpuConfig = z.infer<typeof GpuConfigSchema>;
export const CpuConfigSchema = z.looseObject({ id: z.string(), vcpuCount: int(), memory: int() });
export type CpuConfig = z.infer<typeof CpuConfigSchema>;

export const PodGlobalNetworkingSchema = z.looseObject({
  enabled: z.boolean(),
  ip: z.string().optional(),
  internalDns: z.string().optional(),
});
export type PodGlobalNetworking = z.infer<typeof PodGlobalNetworkingSchema>;

const util = z.looseObject({ util: int().optional() });
export const PodRuntimeSchema = z.looseObject({
  uptime: int().optional(),
  gpus: z.array(z.looseObject({ util: int().optional(), memoryUtil: int().optional() })).optional(),
  cpu: util.optional(),
  memory: util.optional(),
  ports: z
    .array(
      z.looseObject({
        private: int().optional(),
        public: int().nullable().optional(),
        type: z.string().optional(),
        ip: z.string().nullable().optional(),
      }),
    )
    .optional(),
});
export type PodRuntime = z.infer<typeof PodRuntimeSchema>;

export const PodSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: PodStatusSchema,
  actions: z.array(PodActionSchema),
  image: z.string(),
  args: z.string(),
  disk: int(),
  mounts: MountsSchema,
  ports: z.array(z.string()),
  env: EnvSchema,
  registry: z.string().nullable(),
  gpu: GpuConfigSchema.optional(),
  cpu: CpuConfigSchema.optional(),
  cloud: CloudSchema,
  dataCenterId: z.string().nullable(),
  template: z.string().nullable(),
  cost: z.number(),
  locked: z.boolean(),
  runtime: PodRuntimeSchema.nullable(),
  createdAt: dateTime(),
  startedAt: dateTime().nullable(),
  globalNetworking: PodGlobalNetworkingSchema,
});
export type Pod = z.infer<typeof PodSchema>;

export const PodListSchema = z.looseObject({ pods: z.array(PodSchema) });

// --- Pod requests ---

const CreatePersistentMountSchema = z.strictObject({ size: int().min(10), path: z.string().min(1) });
const CreateNetworkMountSchema = z.strictObject({ volumeId: z.string().min(1), path: z.string().min(1) });
export const MountsParamsSchema = z.strictObject({
  persistent: CreatePersistentMountSchema.optional(),
  network: z.array(CreateNetworkMountSchema).max(1).optional(),
});
export type MountsParams = z.infer<typeof MountsParamsSchema>;

const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

export const PodCreateParamsSchema = z
  .strictObject({
    name: z.string().min(1),
    image: z.string().min(1),
    args: z.string().optional(),
    disk: int().min(1).optional(),
    ports: z.array(PortSchema).optional(),
    env: EnvSchema.optional(),
    registry: z.string().nullable().optional(),
    gpu: z.strictObject({ id: z.string().min(1), count: int().min(1).optional() }).optional(),
    cpu: z
      .strictObject({
        id: z.string().min(1),
        vcpuCount: int().min(2).refine(isPowerOfTwo, "must be a power of two"),
      })
      .optional(),
    mounts: MountsParamsSchema.optional(),
    cloud: CloudSchema.optional(),
    dataCenterIds: z.array(z.string().min(1)).optional(),
    globalNetworking: z.boolean().optional(),
  })
  .superRefine((p, ctx) => {
    if ((p.gpu === undefined) === (p.cpu === undefined)) {
      ctx.addIssue({ code: "custom", path: ["gpu"], message: "exactly one of gpu or cpu must be set" });
    }
    if (p.mounts?.persistent && p.mounts.network) {
      ctx.addIssue({ code: "custom", path: ["mounts"], message: "may set persistent or network, not both" });
    }
    if (p.mounts?.network?.length === 0) {
      ctx.addIssue({ code: "custom", path: ["mounts", "network"], message: "must not be empty (leave it out instead)" });
    }
    if (p.mounts?.persistent && p.cpu) {
      ctx.addIssue({ code: "custom", path: ["mounts", "persistent"], message: "is invalid on a CPU pod (use a network mount)" });
    }
    if (p.globalNetworking && p.cpu) {
      ctx.addIssue({ code: "custom", path: ["globalNetworking"], message: "requires a GPU pod" });
    }
  });
export type PodCreateParams = z.input<typeof PodCreateParamsSchema>;

export const PodUpdateParamsSchema = z.strictObject({
  name: z.string().min(1).optional(),
  image: z.string().min(1).optional(),
  args: z.string().optional(),
  disk: int().min(1).optional(),
  ports: z.array(PortSchema).optional(),
  env: EnvSchema.optional(),
  registry: z.string().nullable().optional(),
  mounts: MountsParamsSchema.optional(),
  locked: z.boolean().optional(),
  globalNetworking: z.boolean().optional(),
});
export type PodUpdateParams = z.input<typeof PodUpdateParamsSchema>;

// --- Catalog ---

export const CpuFlavorSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  vcpu: z.looseObject({ min: int(), max: int() }),
  ramGbPerVcpu: z.number(),
});
export type CpuFlavor = z.infer<typeof CpuFlavorSchema>;

export const GpuTypeSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  manufacturer: z.enum(["NVIDIA", "AMD"]),
  memoryGb: z.number(),
});
export type GpuType = z.infer<typeof GpuTypeSchema>;

export const DataCenterSchema = z.looseObject({ id: z.string(), name: z.string(), globalNetwork: z.boolean() });
export type DataCenter = z.infer<typeof DataCenterSchema>;

export const CpuListSchema = z.looseObject({ cpus: z.array(CpuFlavorSchema) });
export const GpuListSchema = z.looseObject({ gpus: z.array(GpuTypeSchema) });
export const DataCenterListSchema = z.looseObject({ dataCenters: z.array(DataCenterSchema) });

// --- Network volumes ---

export const NetworkVolumeSchema = z.looseObject({ id: z.string(), name: z.string(), size: int(), dataCenter: z.string() });
export type NetworkVolume = z.infer<typeof NetworkVolumeSchema>;
export const NetworkVolumeListSchema = z.looseObject({ networkVolumes: z.array(NetworkVolumeSchema) });

export const NetworkVolumeCreateParamsSchema = z.strictObject({
  name: z.string().min(1),
  size: int().min(10).max(4096),
  dataCenter: z.string().min(1),
});
export type NetworkVolumeCreateParams = z.input<typeof NetworkVolumeCreateParamsSchema>;

export const NetworkVolumeUpdateParamsSchema = z.strictObject({
  name: z.string().min(1).optional(),
  size: int().min(10).max(4096).optional(),
});
export type NetworkVolumeUpdateParams = z.input<typeof NetworkVolumeUpdateParamsSchema>;

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
  expirationDate: z.string(),
});
export type ServerlessDiscount = z.infer<typeof ServerlessDiscountSchema>;

export const MyselfSchema = z.looseObject({
  endpoints: z.array(EndpointSchema),
  serverlessDiscount: ServerlessDiscountSchema.nullable().optional(),
});
export type Myself = z.infer<typeof MyselfSchema>;

// --- Hosted model call ---

export const RunSyncResponseSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  output: z.looseObject({ image_url: z.string().optional() }),
});
export type RunSyncResponse = z.infer<typeof RunSyncResponseSchema>;

import { z } from "zod";
import { recordsOf } from "../core/records";
import {
  CloudSchema,
  containerConfigFields,
  containerConfigParams,
  CreateNetworkMountSchema,
  CreatePersistentMountSchema,
  dateTime,
  EnvSchema,
  int,
  NetworkMountSchema,
  PersistentMountSchema,
  PortSchema,
  vcpuCount,
} from "./common";

/** Pods. */

export const PodStatusSchema = z.enum(["PROVISIONING", "STARTING", "RUNNING", "EXITED", "ERROR", "TERMINATED"]);
export type PodStatus = z.infer<typeof PodStatusSchema>;

export const PodActionSchema = z.enum(["start", "stop", "restart", "terminate"]);
export type PodAction = z.infer<typeof PodActionSchema>;
/** The body of `POST /v2/pods/{id}/action`. */
export const PodActionRequestSchema = z.strictObject({ action: PodActionSchema });

// --- Pod (response) ---

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
  ...containerConfigFields,
  mounts: MountsSchema,
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

export const PodListSchema = z.looseObject({ pods: recordsOf(PodSchema) });

// --- Pod requests ---

export const MountsParamsSchema = z.strictObject({
  persistent: CreatePersistentMountSchema.optional(),
  network: z.array(CreateNetworkMountSchema).max(1).optional(),
});
export type MountsParams = z.infer<typeof MountsParamsSchema>;

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
        vcpuCount: vcpuCount(),
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
  ...containerConfigParams,
  mounts: MountsParamsSchema.optional(),
  locked: z.boolean().optional(),
  globalNetworking: z.boolean().optional(),
});
export type PodUpdateParams = z.input<typeof PodUpdateParamsSchema>;

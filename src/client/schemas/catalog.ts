import { z } from "zod";
import { int } from "./common";

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

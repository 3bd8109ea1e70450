import { z } from "zod";
import { int } from "./common";

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

import { z } from "zod";
import { recordsOf } from "../core/records";
import { VolumeTypeSchema } from "./catalog";
import { int } from "./common";

// --- Network volumes (contract `NetworkVolume`) ---

export const NetworkVolumeSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  size: int(),
  dataCenter: z.string(),
  /** Storage tier, fixed at creation. */
  type: VolumeTypeSchema,
});
export type NetworkVolume = z.infer<typeof NetworkVolumeSchema>;
export const NetworkVolumeListSchema = z.looseObject({ networkVolumes: recordsOf(NetworkVolumeSchema) });

export const NetworkVolumeCreateParamsSchema = z.strictObject({
  name: z.string().min(1),
  size: int().min(10).max(4096),
  dataCenter: z.string().min(1),
  /** Storage tier. @default the data center's first `networkVolumeTypes` entry */
  type: VolumeTypeSchema.optional(),
});
export type NetworkVolumeCreateParams = z.input<typeof NetworkVolumeCreateParamsSchema>;

/** Rename or grow; at least one field (the contract's `minProperties: 1`). */
export const NetworkVolumeUpdateParamsSchema = z
  .strictObject({
    name: z.string().min(1).optional(),
    size: int().min(10).max(4096).optional(),
  })
  .refine((p) => p.name !== undefined || p.size !== undefined, "must set name or size (an empty update is refused)");
export type NetworkVolumeUpdateParams = z.input<typeof NetworkVolumeUpdateParamsSchema>;

import { z } from "zod";
import { recordsOf } from "../core/records";

/**
 * Container registry credentials (contract `Registry`, `CreateRegistryRequest`). `username`
 * and `password` are write-only: no answer carries them, and there is no update.
 */

export const RegistrySchema = z.looseObject({ id: z.string(), name: z.string() });
export type Registry = z.infer<typeof RegistrySchema>;

export const RegistryListSchema = z.looseObject({ registries: recordsOf(RegistrySchema) });

export const RegistryCreateParamsSchema = z.strictObject({
  name: z.string().min(1),
  username: z.string().min(1),
  password: z.string().min(1),
});
export type RegistryCreateParams = z.input<typeof RegistryCreateParamsSchema>;

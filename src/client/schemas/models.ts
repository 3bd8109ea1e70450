import { z } from "zod";

// --- Hosted model call ---

export const RunSyncResponseSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  output: z.looseObject({ image_url: z.string().optional() }),
});
export type RunSyncResponse = z.infer<typeof RunSyncResponseSchema>;

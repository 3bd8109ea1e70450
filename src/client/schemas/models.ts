import { z } from "zod";

// --- Hosted model call ---

/** `wait` of a runsync call, in ms. */
export const RUNSYNC_WAIT_MS = { min: 1000, max: 300000, default: 90000 } as const;

const WAIT_RULE = `wait must be an integer from ${RUNSYNC_WAIT_MS.min} to ${RUNSYNC_WAIT_MS.max} ms`;
export const RunSyncWaitSchema = z
  .number(WAIT_RULE)
  .int(WAIT_RULE)
  .refine((n) => n >= RUNSYNC_WAIT_MS.min && n <= RUNSYNC_WAIT_MS.max, WAIT_RULE);

/** A finished job: what `models.runSync` returns. */
export const RunSyncResponseSchema = z.looseObject({
  id: z.string(),
  status: z.literal("COMPLETED"),
  output: z.looseObject({ image_url: z.string().optional() }),
});
export type RunSyncResponse = z.infer<typeof RunSyncResponseSchema>;

/** Every answer a runsync call may give: finished, still running when `wait` ran out, failed. */
export const RunSyncAnswerSchema = z.discriminatedUnion("status", [
  RunSyncResponseSchema,
  z.looseObject({ id: z.string(), status: z.literal("IN_PROGRESS") }),
  z.looseObject({ id: z.string(), status: z.literal("FAILED"), error: z.string() }),
]);
export type RunSyncAnswer = z.infer<typeof RunSyncAnswerSchema>;

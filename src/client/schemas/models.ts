import { z } from "zod";

// --- Hosted model call ---

/** `wait` of a runsync call, in ms. */
export const RUNSYNC_WAIT_MS = { min: 1000, max: 300000, default: 90000 } as const;

const WAIT_RULE = `wait must be an integer from ${RUNSYNC_WAIT_MS.min} to ${RUNSYNC_WAIT_MS.max} ms`;
export const RunSyncWaitSchema = z
  .number(WAIT_RULE)
  .int(WAIT_RULE)
  .refine((n) => n >= RUNSYNC_WAIT_MS.min && n <= RUNSYNC_WAIT_MS.max, WAIT_RULE);

/** How long a finished job queued and ran, in ms; the platform adds both once a job ends. */
const jobTimes = {
  delayTime: z.number().optional(),
  executionTime: z.number().optional(),
};

/** A finished job: what `models.runSync` returns. */
export const RunSyncResponseSchema = z.looseObject({
  id: z.string(),
  status: z.literal("COMPLETED"),
  output: z.looseObject({ image_url: z.string().optional() }),
  ...jobTimes,
});
export type RunSyncResponse = z.infer<typeof RunSyncResponseSchema>;

/**
 * Every answer of runsync, run, status and status-sync: waiting for a worker (IN_QUEUE),
 * running (IN_PROGRESS), finished (COMPLETED), failed (FAILED), or ended without a result
 * (CANCELLED, TIMED_OUT: the platform's own endings, e.g. a job past the endpoint's execution
 * timeout).
 */
export const ModelJobAnswerSchema = z.discriminatedUnion("status", [
  RunSyncResponseSchema,
  z.looseObject({ id: z.string(), status: z.enum(["IN_QUEUE", "IN_PROGRESS"]) }),
  z.looseObject({ id: z.string(), status: z.literal("FAILED"), error: z.string(), ...jobTimes }),
  z.looseObject({ id: z.string(), status: z.enum(["CANCELLED", "TIMED_OUT"]), error: z.string().optional(), ...jobTimes }),
]);
export type ModelJobAnswer = z.infer<typeof ModelJobAnswerSchema>;
/** @deprecated the same as {@link ModelJobAnswer}, whose name says it covers every job route */
export const RunSyncAnswerSchema = ModelJobAnswerSchema;
/** @deprecated the same as {@link ModelJobAnswer} */
export type RunSyncAnswer = ModelJobAnswer;

/** How long `models.runSync` follows its job in all, when the caller sets no deadline: 10 minutes. */
export const RUNSYNC_DEADLINE_MS = 600_000;

const DEADLINE_RULE = "deadlineMs must be an integer of at least 1000 ms";
export const RunSyncDeadlineSchema = z
  .number(DEADLINE_RULE)
  .int(DEADLINE_RULE)
  .refine((n) => n >= RUNSYNC_WAIT_MS.min, DEADLINE_RULE);

import { z } from "zod";

// --- Jobs on an account's own endpoint (`{serverlessUrl}/v2/{endpointId}/...`) ---

const times = {
  delayTime: z.number().optional(),
  executionTime: z.number().optional(),
  /** The worker that took the job (`listEndpointWorkers` lists it with its `version`): which release served it. */
  workerId: z.string().optional(),
};

/** Every answer of run, runsync, status and status-sync of an endpoint's job; `output` is what its worker returned. */
export const JobAnswerSchema = z.discriminatedUnion("status", [
  z.looseObject({ id: z.string(), status: z.literal("COMPLETED"), output: z.unknown(), ...times }),
  z.looseObject({ id: z.string(), status: z.enum(["IN_QUEUE", "IN_PROGRESS"]), ...times }),
  z.looseObject({ id: z.string(), status: z.literal("FAILED"), error: z.string(), ...times }),
  z.looseObject({ id: z.string(), status: z.enum(["CANCELLED", "TIMED_OUT"]), error: z.string().optional(), ...times }),
]);
export type JobAnswer = z.infer<typeof JobAnswerSchema>;
export type JobStatus = JobAnswer["status"];

/** `GET stream/{jobId}`: the chunks produced since the last stream read. */
export const JobStreamSchema = z.looseObject({
  status: z.enum(["IN_QUEUE", "IN_PROGRESS", "COMPLETED", "FAILED", "CANCELLED", "TIMED_OUT"]),
  stream: z.array(z.looseObject({ output: z.unknown() })),
});
export type JobStreamAnswer = z.infer<typeof JobStreamSchema>;

/** `POST cancel/{jobId}` and `POST retry/{jobId}`. */
export const JobStatusOnlySchema = z.looseObject({ id: z.string(), status: z.string() });

/** `POST purge-queue`. */
export const PurgeQueueSchema = z.looseObject({ removed: z.number().int().min(0), status: z.string() });
export type PurgeQueueAnswer = z.infer<typeof PurgeQueueSchema>;

const count = z.number().int().min(0);
/** `GET health`. */
export const EndpointHealthSchema = z.looseObject({
  jobs: z.looseObject({ completed: count, failed: count, inProgress: count, inQueue: count, retried: count }),
  workers: z.looseObject({ idle: count, initializing: count, ready: count, running: count, throttled: count, unhealthy: count }),
});
export type EndpointHealth = z.infer<typeof EndpointHealthSchema>;

/** What a job submission carries beside `input`, checked before the request. */
export const JobSubmitOptionsSchema = z.strictObject({
  webhook: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  policy: z
    .strictObject({
      executionTimeout: z.number().int().min(5000).max(604_800_000).optional(),
      ttl: z.number().int().min(10_000).optional(),
      lowPriority: z.boolean().optional(),
    })
    .optional(),
  s3Config: z.record(z.string(), z.unknown()).optional(),
});
export type JobSubmitOptions = z.infer<typeof JobSubmitOptionsSchema>;

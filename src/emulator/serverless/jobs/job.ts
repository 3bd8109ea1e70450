// The jobs of the account's own endpoints: what a job is, what the queue keeps per endpoint,
// what a reader is answered, the emulator's limits on them, and the problem+json refusal the
// job routes share. The queue (queue.ts) and the workers (workers.ts) build on these.
import type { EndpointStore } from "../endpoints/store";
import type { JobPolicy } from "./envelope";
import type { WorkerPlan } from "./test-worker";
import type { WaitingJobs } from "./waiting";

export type EndpointJobStatus = "IN_QUEUE" | "IN_PROGRESS" | "COMPLETED" | "FAILED" | "CANCELLED" | "TIMED_OUT";

export const FINAL: readonly EndpointJobStatus[] = ["COMPLETED", "FAILED", "CANCELLED", "TIMED_OUT"];

/** What a handler function (the in-process option) receives. */
export interface HandlerJob {
  id: string;
  endpointId: string;
  input: Record<string, unknown>;
}

/** An embedder's worker: returns the job's output (or a promise of it), or throws to fail it. */
export type JobHandler = (job: HandlerJob) => unknown;

export interface JobAnswer {
  id: string;
  status: EndpointJobStatus;
  delayTime?: number;
  executionTime?: number;
  output?: unknown;
  error?: string;
  /** The worker that took it (listEndpointWorkers names its version and image); absent while queued. */
  workerId?: string;
}

/** A job as the queue keeps it (the answers are built from it). */
export interface Job {
  id: string;
  endpointId: string;
  input: Record<string, unknown>;
  webhook?: string;
  policy: JobPolicy;
  seq: number;
  submittedAt: number;
  ttlEnd: number;
  status: EndpointJobStatus;
  workerId?: string;
  startedAt?: number;
  /** Planned end (clock ms); undefined while a handler has not settled. */
  endsAt?: number;
  /** Execution timeout or ttl, whichever comes first (clock ms). */
  deadline?: number;
  plan?: WorkerPlan;
  chunkTimes: number[];
  streamRead: number;
  finishedAt?: number;
  outcome?: { output: unknown } | { error: string };
  /** What became of the webhook: undefined until the job ended. */
  webhookResult?: string;
  /** Its input's size as JSON (what the queue's byte limit counts). */
  bytes: number;
  /** Set while IN_QUEUE: which of its entries in the waiting heaps are its own (waiting.ts). */
  queueMark?: number;
}

/** A call held open on a job: it ends at the job's end, its purge, or its own deadline. */
export interface Waiter {
  /** Clock ms: the wait's end on the emulator's clock. */
  waitEnd: number;
  /** performance.now() ms: the same wait in real time, so a clock that never moves cannot hold the call. */
  until: number;
  /** `gone`: the job was purged or its endpoint deleted. */
  done: (gone: boolean) => void;
}

/** One endpoint's jobs. */
export interface Queue {
  jobs: Map<string, Job>;
  /** The jobs not ended yet (IN_QUEUE, IN_PROGRESS): what the event replay looks at, so it costs no more with many finished jobs kept. */
  active: Set<Job>;
  /** Of `active`, the IN_QUEUE jobs (in their order) and the IN_PROGRESS ones. */
  waiting: WaitingJobs<Job>;
  running: Set<Job>;
  /** The input bytes of `active` and how many of them have a webhook (kept as they change, never counted again). */
  activeBytes: number;
  webhooks: number;
  lastTick: number;
  counters: { completed: number; failed: number; retried: number };
}

export interface QueueOptions {
  store: EndpointStore;
  clock: { now(): number };
  random: () => number;
  /** Emulated ms per clock ms. */
  timeScale: number;
  handler?: JobHandler;
  /** @default DEFAULT_JOB_LIMITS */
  limits?: Partial<JobLimits>;
}

/** The emulator's limits on jobs (docs/emulator.md, Limits): past them a call is refused at once, with Retry-After. */
export interface JobLimits {
  /** Jobs not ended (IN_QUEUE or IN_PROGRESS) per endpoint; past it `run`, `runsync` and completions answer 429. @default 5000 */
  queuedJobs: number;
  /** Bytes of input (as JSON) of those jobs per endpoint; past it 429. @default 67108864 (64 MiB) */
  queuedBytes: number;
  /** Calls held open on a job (runsync, status-sync with a wait, completions) per account; past it 503. @default 2000 */
  heldCalls: number;
}

export const DEFAULT_JOB_LIMITS: JobLimits = { queuedJobs: 5000, queuedBytes: 64 * 1024 * 1024, heldCalls: 2000 };

/** `Retry-After` (s) of a refusal for a full queue or too many held calls: a guess, since nothing says when room comes. */
export const BUSY_RETRY_AFTER_S = 1;

/** `GET health`: job counts and workers by state. */
export interface EndpointHealth {
  jobs: { completed: number; failed: number; inProgress: number; inQueue: number; retried: number };
  workers: { idle: number; initializing: number; ready: number; running: number; throttled: number; unhealthy: number };
}

/** A finished job stays readable this long (emulated ms): at least the 10 minutes the platform promises. */
export const JOB_RETENTION_MS = 15 * 60_000;
/** An emulator limit: jobs kept per endpoint (the oldest finished go first past it). */
export const MAX_JOBS_PER_ENDPOINT = 10_000;
/** Events replayed per endpoint in one sync: a bound on the loop, far above any real use. */
export const MAX_EVENTS = 1_000_000;

export type Reply = { status: number; body: unknown; headers?: Record<string, string> };
const PROBLEM = { "content-type": "application/problem+json" } as const;
export const refuse = (status: number, detail: string, errors?: string[]): Reply => ({
  status,
  body: {
    title: ({ 400: "Bad Request", 404: "Not Found", 409: "Conflict", 422: "Unprocessable Entity", 429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable", 504: "Gateway Timeout" } as Record<number, string>)[status] ?? "Error",
    status,
    detail,
    ...(errors ? { errors } : {}),
  },
  headers: { ...PROBLEM },
});

/** A refusal for lack of room (429: the endpoint's queue; 503: held calls), with `Retry-After`. */
export const busy = (status: 429 | 503, detail: string): Reply => {
  const r = refuse(status, detail);
  return { ...r, headers: { ...r.headers, "retry-after": String(BUSY_RETRY_AFTER_S) } };
};

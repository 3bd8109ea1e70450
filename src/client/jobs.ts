import { type ClientContext, checkParams, type RequestOptions, seg, withQuery } from "./context";
import { ModelJobFailedError, ModelJobInProgressError, RequestValidationError } from "./core/errors";
import {
  type EndpointHealth,
  EndpointHealthSchema,
  type JobAnswer,
  JobAnswerSchema,
  JobStatusOnlySchema,
  JobStreamSchema,
  type JobSubmitOptions,
  JobSubmitOptionsSchema,
  type PurgeQueueAnswer,
  PurgeQueueSchema,
  RUNSYNC_DEADLINE_MS,
  RUNSYNC_WAIT_MS,
  RunSyncDeadlineSchema,
  RunSyncWaitSchema,
} from "./schemas";

/** Options of `jobs.run`. */
export interface JobRunOptions extends RequestOptions, JobSubmitOptions {}

/** Options of `jobs.runSync`. */
export interface JobRunSyncOptions extends JobRunOptions {
  /** How long the platform holds each call (runsync, then each status-sync), 1000..300000 ms. @default 90000 (server side) */
  wait?: number;
  /**
   * How long `runSync` may take in all, from the submission; past it, `ModelJobInProgressError`
   * with the job id (the job was not submitted again and runs on).
   * @default 600000 (10 minutes)
   */
  deadlineMs?: number;
}

/** Options of `jobs.stream`. */
export interface JobStreamOptions extends RequestOptions {
  /** Ms between two stream reads that brought nothing new. @default 1000 */
  pollMs?: number;
  /** The iteration ends with `ModelJobInProgressError` when the job has not ended by then (ms from the first read). @default 600000 */
  deadlineMs?: number;
}

const running = (s: string) => s === "IN_QUEUE" || s === "IN_PROGRESS";

/**
 * Jobs on the account's own serverless endpoints (`{serverlessUrl}/v2/{endpointId}/...`), the
 * routes the platform's SDKs call: run, runsync, status, stream, cancel, retry, purge-queue,
 * health. A submission is a paid job and is sent once: only a 429 or a connection never made is
 * retried; reads are retried as any read.
 */
export class Jobs {
  constructor(private readonly ctx: ClientContext) {}

  /** Submit a job (`POST run`): its id and first status, to follow with `status` or `stream`. */
  async run(endpointId: string, input: Record<string, unknown>, opts: JobRunOptions = {}): Promise<JobAnswer> {
    const body = submission(input, opts);
    return this.call("POST", `/v2/${seg(endpointId)}/run`, JobAnswerSchema, body, opts.signal);
  }

  /**
   * Submit a job and wait for its output (`POST runsync`). A job still running when a wait runs
   * out is followed with `status-sync` until it ends or `deadlineMs` passes: it is never
   * submitted twice. COMPLETED returns the answer (with `output`); FAILED, CANCELLED and
   * TIMED_OUT throw `ModelJobFailedError` with the job id.
   */
  async runSync(endpointId: string, input: Record<string, unknown>, opts: JobRunSyncOptions = {}): Promise<JobAnswer & { status: "COMPLETED" }> {
    const body = submission(input, opts);
    const wait = opts.wait === undefined ? undefined : checkParams(RunSyncWaitSchema, opts.wait, "runsync wait");
    const budget = opts.deadlineMs === undefined ? RUNSYNC_DEADLINE_MS : checkParams(RunSyncDeadlineSchema, opts.deadlineMs, "runsync deadlineMs");
    const clock = this.ctx.transport.options.clock;
    const started = clock.now();
    let answer = await this.call("POST", withQuery(`/v2/${seg(endpointId)}/runsync`, { wait }), JobAnswerSchema, body, opts.signal, wait ?? RUNSYNC_WAIT_MS.default);
    while (running(answer.status)) {
      const left = started + budget - clock.now();
      if (left <= 0) throw new ModelJobInProgressError(endpointId, answer.id, clock.now() - started, answer.status);
      const hold = Math.min(RUNSYNC_WAIT_MS.max, Math.max(RUNSYNC_WAIT_MS.min, Math.ceil(Math.min(wait ?? RUNSYNC_WAIT_MS.default, left))));
      answer = await this.status(endpointId, answer.id, { wait: hold, signal: opts.signal });
    }
    if (answer.status === "COMPLETED") return answer;
    throw new ModelJobFailedError(endpointId, answer.id, typeof answer.error === "string" ? answer.error : `the job ended ${answer.status}`, answer.status);
  }

  /** A job's answer (`GET status/{jobId}`), or with `wait` held up to that long for it to end (`status-sync`). */
  async status(endpointId: string, jobId: string, opts: RequestOptions & { wait?: number } = {}): Promise<JobAnswer> {
    const wait = opts.wait === undefined ? undefined : checkParams(RunSyncWaitSchema, opts.wait, "status wait");
    const route = wait === undefined ? "status" : "status-sync";
    return this.call("GET", withQuery(`/v2/${seg(endpointId)}/${route}/${seg(jobId)}`, { wait }), JobAnswerSchema, undefined, opts.signal, wait);
  }

  /**
   * The job's stream chunks as they are produced (`GET stream/{jobId}`, read again every
   * `pollMs` while nothing new came), ending when the job ends. A job that ends FAILED, CANCELLED
   * or TIMED_OUT ends the iteration with `ModelJobFailedError` after the chunks it produced.
   */
  async *stream(endpointId: string, jobId: string, opts: JobStreamOptions = {}): AsyncGenerator<unknown, void, undefined> {
    const clock = this.ctx.transport.options.clock;
    const pollMs = opts.pollMs ?? 1000;
    if (!(Number.isInteger(pollMs) && pollMs >= 0)) throw new RequestValidationError("stream options", [{ path: "pollMs", message: "must be an integer >= 0" }]);
    const deadline = clock.now() + (opts.deadlineMs ?? RUNSYNC_DEADLINE_MS);
    for (;;) {
      const r = await this.call("GET", `/v2/${seg(endpointId)}/stream/${seg(jobId)}`, JobStreamSchema, undefined, opts.signal);
      for (const chunk of r.stream) yield chunk.output;
      if (r.status === "COMPLETED") return;
      if (!running(r.status)) {
        const final = await this.status(endpointId, jobId, { signal: opts.signal });
        throw new ModelJobFailedError(endpointId, jobId, "error" in final && typeof final.error === "string" ? final.error : `the job ended ${r.status}`, r.status);
      }
      if (clock.now() >= deadline) throw new ModelJobInProgressError(endpointId, jobId, opts.deadlineMs ?? RUNSYNC_DEADLINE_MS, r.status);
      if (r.stream.length === 0) await clock.sleep(pollMs, opts.signal);
    }
  }

  /** Cancel a queued or running job (`POST cancel/{jobId}`); a finished job keeps its status. */
  async cancel(endpointId: string, jobId: string, opts: RequestOptions = {}): Promise<{ id: string; status: string }> {
    return this.call("POST", `/v2/${seg(endpointId)}/cancel/${seg(jobId)}`, JobStatusOnlySchema, undefined, opts.signal);
  }

  /** Queue a FAILED or TIMED_OUT job again (`POST retry/{jobId}`); any other status → 409. */
  async retry(endpointId: string, jobId: string, opts: RequestOptions = {}): Promise<{ id: string; status: string }> {
    return this.call("POST", `/v2/${seg(endpointId)}/retry/${seg(jobId)}`, JobStatusOnlySchema, undefined, opts.signal);
  }

  /** Remove every queued job (`POST purge-queue`); running jobs go on. */
  async purgeQueue(endpointId: string, opts: RequestOptions = {}): Promise<PurgeQueueAnswer> {
    return this.call("POST", `/v2/${seg(endpointId)}/purge-queue`, PurgeQueueSchema, undefined, opts.signal);
  }

  /** The endpoint's job counts and workers by state (`GET health`). */
  async health(endpointId: string, opts: RequestOptions = {}): Promise<EndpointHealth> {
    return this.call("GET", `/v2/${seg(endpointId)}/health`, EndpointHealthSchema, undefined, opts.signal);
  }

  private call<S extends Parameters<ClientContext["rest"]>[3] & {}>(
    method: "GET" | "POST",
    path: string,
    schema: S,
    body: unknown,
    signal: AbortSignal | undefined,
    holdMs = 0,
  ) {
    return this.ctx.rest(method, path, body, schema, "an endpoint job's answer", {
      signal,
      // A POST submits or changes a job: never resent on its own.
      mode: method === "POST" ? "unsafe" : "idempotent",
      setting: "serverlessUrl",
      timeoutMs: holdMs + this.ctx.transport.options.timeoutMs,
    });
  }
}

/** The body of a submission, checked before any request. */
function submission(input: unknown, opts: JobRunOptions): Record<string, unknown> {
  if (input === null || typeof input !== "object" || Array.isArray(input))
    throw new RequestValidationError("job input", [{ path: "input", message: "must be an object" }]);
  const { webhook, policy, s3Config } = opts;
  const extra = checkParams(JobSubmitOptionsSchema, strip({ webhook, policy, s3Config }), "job options");
  return { input, ...extra };
}

const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

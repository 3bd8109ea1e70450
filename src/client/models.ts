import { type ClientContext, checkParams, type RequestOptions, seg, withQuery } from "./context";
import { ModelJobFailedError, ModelJobInProgressError, RequestValidationError } from "./core/errors";
import {
  type ModelJobAnswer,
  ModelJobAnswerSchema,
  RUNSYNC_DEADLINE_MS,
  RUNSYNC_WAIT_MS,
  RunSyncDeadlineSchema,
  type RunSyncResponse,
  RunSyncWaitSchema,
} from "./schemas";

/** Options of `models.runSync`. */
export interface RunSyncOptions extends RequestOptions {
  /**
   * How long the platform holds each call for the job, in ms (1000..300000): the runsync call
   * and each `status-sync` that follows it. Left out, the platform's default applies (shortened
   * to what is left of `deadlineMs` when that is less).
   * @default 90000 (server side)
   */
  wait?: number;
  /**
   * How long `runSync` may take in all, in ms from the submission: a job still unfinished when
   * its wait runs out is followed with `status-sync` (never submitted again) until it ends or
   * this passes; then `ModelJobInProgressError` with the job id. Checked before each follow-up,
   * so the call ends at most one wait (at least 1000 ms) after it.
   * @default 600000 (10 minutes)
   */
  deadlineMs?: number;
}

/** Options of `models.status`. */
export interface ModelJobStatusOptions extends RequestOptions {
  /**
   * Hold the call up to this many ms for the job to finish (`status-sync`, 1000..300000);
   * left out, the job's current answer at once (`status`).
   */
  wait?: number;
}

/** A follow-up that came back unfinished this fast is spaced out, so a server that does not hold is not flooded. */
const MIN_FOLLOW_MS = 1000;

const isRunning = (a: ModelJobAnswer) => a.status === "IN_QUEUE" || a.status === "IN_PROGRESS";

/**
 * Hosted models: `{serverlessUrl}/v2/{id}/runsync`, `/run`, `/status/{jobId}` and
 * `/status-sync/{jobId}`.
 */
export class Models {
  constructor(private readonly ctx: ClientContext) {}

  /**
   * Run a hosted model and wait for its result; for an image model `output.image_url` is it.
   * Each submission is a paid job, so it is sent once: only a 429 or a connection never made is
   * retried, and a 5xx, a cut connection or a timeout fails the call (the job may have run). A
   * job still running when the call's `wait` runs out is followed with `status-sync` until it
   * finishes or `deadlineMs` passes (then `ModelJobInProgressError`); a failed, cancelled or
   * timed-out job throws `ModelJobFailedError`. Both errors carry the job id.
   */
  async runSync(id: string, input: Record<string, unknown>, opts: RunSyncOptions = {}): Promise<RunSyncResponse> {
    checkInput(input);
    const wait = opts.wait === undefined ? undefined : checkParams(RunSyncWaitSchema, opts.wait, "runsync wait");
    const budget = opts.deadlineMs === undefined ? RUNSYNC_DEADLINE_MS : checkParams(RunSyncDeadlineSchema, opts.deadlineMs, "runsync deadlineMs");
    const clock = this.ctx.transport.options.clock;
    const started = clock.now();
    const deadline = started + budget;
    // The first hold: the caller's wait, or the platform's default unless the deadline is nearer.
    const first = wait ?? (budget < RUNSYNC_WAIT_MS.default ? budget : undefined);
    let answer = await this.call("POST", `/v2/${seg(id)}/runsync`, first, { input }, opts.signal);
    while (isRunning(answer)) {
      const left = deadline - clock.now();
      if (left <= 0) throw new ModelJobInProgressError(id, answer.id, clock.now() - started, answer.status);
      const asked = clock.now();
      const hold = clampWait(Math.min(wait ?? RUNSYNC_WAIT_MS.default, left));
      answer = await this.call("GET", `/v2/${seg(id)}/status-sync/${seg(answer.id)}`, hold, undefined, opts.signal);
      const quick = MIN_FOLLOW_MS - (clock.now() - asked);
      if (isRunning(answer) && quick > 0) await clock.sleep(Math.min(quick, Math.max(deadline - clock.now(), 0)), opts.signal);
    }
    if (answer.status === "COMPLETED") return answer;
    const reason = typeof answer.error === "string" ? answer.error : `the job ended ${answer.status} without a result`;
    throw new ModelJobFailedError(id, answer.id, reason, answer.status);
  }

  /**
   * Submit a job without waiting for it (`POST /v2/{id}/run`): the answer is its id and first
   * status (IN_QUEUE), to follow with `status`. A paid job, sent once, as `runSync`.
   */
  async run(id: string, input: Record<string, unknown>, opts: RequestOptions = {}): Promise<ModelJobAnswer> {
    checkInput(input);
    return this.call("POST", `/v2/${seg(id)}/run`, undefined, { input }, opts.signal);
  }

  /**
   * A job's answer (`GET /v2/{id}/status/{jobId}`), or with `wait` held up to that long for
   * the job to finish (`status-sync`). Reading a job costs nothing and never submits it again;
   * a FAILED job is an answer here, not an error.
   */
  async status(id: string, jobId: string, opts: ModelJobStatusOptions = {}): Promise<ModelJobAnswer> {
    const wait = opts.wait === undefined ? undefined : checkParams(RunSyncWaitSchema, opts.wait, "status wait");
    const path = `/v2/${seg(id)}/${wait === undefined ? "status" : "status-sync"}/${seg(jobId)}`;
    return this.call("GET", path, wait, undefined, opts.signal);
  }

  /** One job route: a POST submits (never resent), a GET reads (retried as any read). */
  private call(method: "GET" | "POST", path: string, wait: number | undefined, body: unknown, signal?: AbortSignal) {
    return this.ctx.rest(method, withQuery(path, { wait }), body, ModelJobAnswerSchema, "a hosted-model job's answer", {
      signal,
      mode: method === "POST" ? "unsafe" : "idempotent",
      setting: "serverlessUrl",
      // The platform may hold the call for the whole wait: the usual limit starts after it.
      timeoutMs: (wait ?? (path.endsWith("/runsync") ? RUNSYNC_WAIT_MS.default : 0)) + this.ctx.transport.options.timeoutMs,
    });
  }
}

function checkInput(input: unknown): void {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new RequestValidationError("runsync input", [{ path: "input", message: "must be an object" }]);
  }
}

const clampWait = (ms: number) => Math.min(RUNSYNC_WAIT_MS.max, Math.max(RUNSYNC_WAIT_MS.min, Math.ceil(ms)));

import { type ClientContext, checkParams, type RequestOptions, seg, withQuery } from "./context";
import { ModelJobFailedError, ModelJobInProgressError, RequestValidationError } from "./core/errors";
import { RUNSYNC_WAIT_MS, type RunSyncResponse, RunSyncAnswerSchema, RunSyncWaitSchema } from "./schemas";

/** Options of `models.runSync`. */
export interface RunSyncOptions extends RequestOptions {
  /**
   * How long the platform holds the call for the job, in ms (1000..300000); a job still
   * running then answers IN_PROGRESS. Left out, the platform's default applies.
   * @default 90000 (server side)
   */
  wait?: number;
}

/** Hosted models: `POST {serverlessUrl}/v2/{id}/runsync`. */
export class Models {
  constructor(private readonly ctx: ClientContext) {}

  /**
   * Run a hosted model synchronously; for an image model `output.image_url` is the result.
   * Each call is a paid job, so it is never resent after it may have reached the platform:
   * only a 429 or a connection never made is retried, and a 5xx, a cut connection or a
   * timeout fails the call (the job may have run). A job still running when `wait` runs out
   * throws `ModelJobInProgressError`, a failed one `ModelJobFailedError`, both with the job id.
   */
  async runSync(id: string, input: Record<string, unknown>, opts: RunSyncOptions = {}): Promise<RunSyncResponse> {
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      throw new RequestValidationError("runsync input", [{ path: "input", message: "must be an object" }]);
    }
    const wait = opts.wait === undefined ? undefined : checkParams(RunSyncWaitSchema, opts.wait, "runsync wait");
    const answer = await this.ctx.rest(
      "POST",
      withQuery(`/v2/${seg(id)}/runsync`, { wait }),
      { input },
      RunSyncAnswerSchema,
      "a runsync result",
      {
        signal: opts.signal,
        mode: "unsafe",
        setting: "serverlessUrl",
        // The platform may hold the call for the whole wait: the usual limit starts after it.
        timeoutMs: (wait ?? RUNSYNC_WAIT_MS.default) + this.ctx.transport.options.timeoutMs,
      },
    );
    if (answer.status === "IN_PROGRESS") {
      throw new ModelJobInProgressError(id, answer.id, wait ?? RUNSYNC_WAIT_MS.default);
    }
    if (answer.status === "FAILED") throw new ModelJobFailedError(id, answer.id, answer.error);
    return answer;
  }
}

import { type ClientContext, type RequestOptions, seg } from "./context";
import { RequestValidationError } from "./core/errors";
import { type RunSyncResponse, RunSyncResponseSchema } from "./schemas";

/** Hosted models: `POST {serverlessUrl}/v2/{id}/runsync` (spec 4.4). */
export class Models {
  constructor(private readonly ctx: ClientContext) {}

  /** Run a hosted model synchronously; for an image model `output.image_url` is the result. */
  runSync(id: string, input: Record<string, unknown>, opts: RequestOptions = {}): Promise<RunSyncResponse> {
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      throw new RequestValidationError("runsync input", [{ path: "input", message: "must be an object" }]);
    }
    return this.ctx.rest("POST", `/v2/${seg(id)}/runsync`, { input }, RunSyncResponseSchema, "a runsync result", {
      ...opts,
      mode: "idempotent",
      setting: "serverlessUrl",
    });
  }
}

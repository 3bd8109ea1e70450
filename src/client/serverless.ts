import { type ClientContext, checkParams, type CreateOptions, type RequestOptions, seg } from "./context";
import { createOnce } from "./core/create-once";
import { findNew, findReadable, type Listed } from "./core/records";
import {
  type EndpointReleases,
  EndpointReleasesSchema,
  type EndpointWorkers,
  EndpointWorkersSchema,
  type RestEndpoint,
  type RestEndpointCreateParams,
  RestEndpointCreateParamsSchema,
  RestEndpointListSchema,
  RestEndpointSchema,
  type RestEndpointUpdateParams,
  RestEndpointUpdateParamsSchema,
} from "./schemas";

/**
 * Serverless endpoints over REST v2 (`/v2/serverless`), the platform's successor to GraphQL
 * for managing endpoints. The same endpoints as `client.endpoints` (GraphQL): one made either
 * way is read and changed the other way. An endpoint carries its container inline here; the
 * platform keeps it in the endpoint's bound template, which a container change and a delete
 * act on.
 */
export class ServerlessEndpoints {
  constructor(private readonly ctx: ClientContext) {}

  /**
   * Create a queue-based endpoint (201) and the template bound to it. Never makes two: after an
   * ambiguous failure the endpoint is looked up by name and image first (with `opts.seenBefore`,
   * only one that was not there before: see {@link CreateOptions}).
   */
  async create(params: RestEndpointCreateParams, opts: CreateOptions = {}): Promise<RestEndpoint> {
    const body = checkParams(RestEndpointCreateParamsSchema, params, "endpoint create params");
    return createOnce({
      transport: this.ctx.transport,
      what: "endpoint",
      name: body.name,
      signal: opts.signal,
      attempt: () => this.ctx.rest("POST", "/v2/serverless", body, RestEndpointSchema, "an Endpoint", { signal: opts.signal, mode: "unsafe" }),
      lookup: async () => {
        const ours = (e: RestEndpoint) => e.name === body.name && e.image === body.image;
        const list = await this.list({ signal: opts.signal });
        return opts.seenBefore ? findNew(list, body.name, ours, opts.seenBefore) : findReadable(list, body.name, ours);
      },
    });
  }

  /** Read one endpoint. 404 → `NotFoundError`. */
  async get(id: string, opts: RequestOptions = {}): Promise<RestEndpoint> {
    return this.ctx.rest("GET", `/v2/serverless/${seg(id)}`, undefined, RestEndpointSchema, "an Endpoint", opts);
  }

  /** Every endpoint of the account; those the client cannot read are in `unreadable`. */
  async list(opts: RequestOptions = {}): Promise<Listed<RestEndpoint>> {
    return (await this.ctx.rest("GET", "/v2/serverless", undefined, RestEndpointListSchema, "an endpoint list", opts)).endpoints;
  }

  /**
   * PATCH only the given fields (the others keep their values). A container field (`image`,
   * `args`, `disk`, `ports`, `env`, `registry`) changes the endpoint's bound template, so every
   * endpoint bound to it. Same body, same result: retried.
   */
  async update(id: string, params: RestEndpointUpdateParams, opts: RequestOptions = {}): Promise<RestEndpoint> {
    const body = checkParams(RestEndpointUpdateParamsSchema, params, "endpoint update params");
    return this.ctx.rest("PATCH", `/v2/serverless/${seg(id)}`, body, RestEndpointSchema, "an Endpoint", opts);
  }

  /**
   * Delete the endpoint and its bound template (unless another endpoint is bound to it).
   * Refused (`ConflictError`) while `workers.min` or `workers.max` is not 0: scale to zero with
   * `update` first. A retry that finds it gone counts as done.
   */
  async delete(id: string, opts: RequestOptions = {}): Promise<void> {
    await this.ctx.rest("DELETE", `/v2/serverless/${seg(id)}`, undefined, undefined, "nothing", {
      ...opts,
      notFoundOnRetryIsSuccess: true,
    });
  }

  /** The endpoint's active workers (`INITIALIZING`, `IDLE`, `RUNNING`, ...) and their count by status. */
  async workers(id: string, opts: RequestOptions = {}): Promise<EndpointWorkers> {
    return this.ctx.rest("GET", `/v2/serverless/${seg(id)}/workers`, undefined, EndpointWorkersSchema, "an endpoint's workers", opts);
  }

  /** The endpoint's release history (newest first) and rollout summary. */
  async releases(id: string, opts: RequestOptions = {}): Promise<EndpointReleases> {
    return this.ctx.rest("GET", `/v2/serverless/${seg(id)}/releases`, undefined, EndpointReleasesSchema, "an endpoint's releases", opts);
  }
}

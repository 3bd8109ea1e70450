import { type ClientContext, checkParams, type CreateOptions, type RequestOptions, seg } from "./context";
import { createOnce } from "./core/create-once";
import { findNew, type Listed, unreadableOf } from "./core/records";
import { type Registry, type RegistryCreateParams, RegistryCreateParamsSchema, RegistryListSchema, RegistrySchema } from "./schemas";

/**
 * Container registry credentials: REST under `/v2/registries`. `username` and `password` are
 * write-only: sent once on create, masked in every error and log line, never read back.
 * There is no update: a new credential replaces an old one.
 */
export class Registries {
  constructor(private readonly ctx: ClientContext) {}

  /**
   * Create a credential (201); never makes two: after an ambiguous failure it is looked up by
   * name. The credentials cannot be read back to compare, so only one that was not there
   * before this call counts (one list before the create, unless `opts.seenBefore` gives the
   * ids of one): an older credential of the same name is never taken for the new one.
   */
  async create(params: RegistryCreateParams, opts: CreateOptions = {}): Promise<Registry> {
    const body = checkParams(RegistryCreateParamsSchema, params, "registry create params");
    const writeOnly = [body.username, body.password];
    const before = opts.seenBefore ? [] : await this.list({ signal: opts.signal });
    // Unreadable records that were already there cannot be the new one either.
    const older = new Set([
      ...(opts.seenBefore ?? []),
      ...before.map((r) => r.id),
      ...unreadableOf(before).flatMap((r) => (r.id === undefined ? [] : [r.id])),
    ]);
    return createOnce({
      transport: this.ctx.transport,
      what: "registry",
      name: body.name,
      signal: opts.signal,
      writeOnly,
      attempt: () =>
        this.ctx.rest("POST", "/v2/registries", body, RegistrySchema, "a Registry", { signal: opts.signal, mode: "unsafe", writeOnly }),
      lookup: async () => findNew(await this.list({ signal: opts.signal }), body.name, (r) => r.name === body.name, older),
    });
  }

  /** Read one credential's id and name. 404 → `NotFoundError`. */
  async get(id: string, opts: RequestOptions = {}): Promise<Registry> {
    return this.ctx.rest("GET", `/v2/registries/${seg(id)}`, undefined, RegistrySchema, "a Registry", opts);
  }

  /** The key owner's credentials (ids and names only); those the client cannot read are in `unreadable`. */
  async list(opts: RequestOptions = {}): Promise<Listed<Registry>> {
    return (await this.ctx.rest("GET", "/v2/registries", undefined, RegistryListSchema, "a registry list", opts)).registries;
  }

  /** Delete; refused (`ConflictError`, or the contract's 400) while a live pod or a template uses it. */
  async delete(id: string, opts: RequestOptions = {}): Promise<void> {
    await this.ctx.rest("DELETE", `/v2/registries/${seg(id)}`, undefined, undefined, "nothing", {
      ...opts,
      notFoundOnRetryIsSuccess: true,
    });
  }
}

import { type ClientContext, checkParams, type CreateOptions, type RequestOptions, seg } from "./context";
import { createOnce } from "./core/create-once";
import { findNew, findReadable, type Listed } from "./core/records";
import {
  type Template,
  type TemplateCreateParams,
  TemplateCreateParamsSchema,
  TemplateListSchema,
  TemplateSchema,
  type TemplateUpdateParams,
  TemplateUpdateParamsSchema,
} from "./schemas";

/** Templates: REST under `/v2/templates`. */
export class Templates {
  constructor(private readonly ctx: ClientContext) {}

  /**
   * Create a template (201). Like a pod create, never makes two: after an ambiguous failure
   * the template is looked up by name, image and kind (pod or serverless) first (with
   * `opts.seenBefore`, only one that was not there before: see {@link CreateOptions}).
   */
  async create(params: TemplateCreateParams, opts: CreateOptions = {}): Promise<Template> {
    const body = checkParams(TemplateCreateParamsSchema, params, "template create params");
    return createOnce({
      transport: this.ctx.transport,
      what: "template",
      name: body.name,
      signal: opts.signal,
      attempt: () => this.ctx.rest("POST", "/v2/templates", body, TemplateSchema, "a Template", { signal: opts.signal, mode: "unsafe" }),
      lookup: async () => {
        const ours = (t: Template) => t.name === body.name && t.image === body.image && t.serverless === (body.serverless ?? false);
        const list = await this.list({ signal: opts.signal });
        return opts.seenBefore ? findNew(list, body.name, ours, opts.seenBefore) : findReadable(list, body.name, ours);
      },
    });
  }

  /** Read one template. 404 → `NotFoundError`. */
  async get(id: string, opts: RequestOptions = {}): Promise<Template> {
    return this.ctx.rest("GET", `/v2/templates/${seg(id)}`, undefined, TemplateSchema, "a Template", opts);
  }

  /** The key owner's templates; those the client cannot read are in `unreadable`. */
  async list(opts: RequestOptions = {}): Promise<Listed<Template>> {
    return (await this.ctx.rest("GET", "/v2/templates", undefined, TemplateListSchema, "a template list", opts)).templates;
  }

  /** PATCH the given fields; `mounts` left out or `{}` keeps the mount. Same body, same result: retried. */
  async update(id: string, params: TemplateUpdateParams, opts: RequestOptions = {}): Promise<Template> {
    const body = checkParams(TemplateUpdateParamsSchema, params, "template update params");
    return this.ctx.rest("PATCH", `/v2/templates/${seg(id)}`, body, TemplateSchema, "a Template", opts);
  }

  /** Delete; refused (`ConflictError`, or the contract's 400) while an endpoint or pod uses it. */
  async delete(id: string, opts: RequestOptions = {}): Promise<void> {
    await this.ctx.rest("DELETE", `/v2/templates/${seg(id)}`, undefined, undefined, "nothing", {
      ...opts,
      notFoundOnRetryIsSuccess: true,
    });
  }
}

import { type ClientContext, checkParams, type CreateOptions, type RequestOptions } from "./context";
import { createOnce } from "./core/create-once";
import { makeApiError } from "./core/errors";
import { buildDocument, EnumLiteral, GraphqlRunner, type Selection } from "./core/graphql";
import { redactUrl } from "./core/redact";
import { findNew, findReadable, type Listed, unreadableError, unreadableRecord } from "./core/records";
import type { RetryMode } from "./core/transport";
import { type Endpoint, type EndpointInput, EndpointInputSchema, EndpointSchema, type Myself, MyselfSchema } from "./schemas";

/** The platform's endpoint fields that a save can set (`type` at creation only), in one place. */
export const ENDPOINT_FIELDS = [
  "name",
  "gpuIds",
  "templateId",
  "type",
  "idleTimeout",
  "locations",
  "flashBootType",
  "scalerType",
  "scalerValue",
  "workersMin",
  "workersMax",
  "networkVolumeId",
  "gpuCount",
  "executionTimeoutMs",
] as const;
export type EndpointField = (typeof ENDPOINT_FIELDS)[number];

/** The fields read back from every endpoint operation. */
export const ENDPOINT_SELECTION: Selection[] = ["id", ...ENDPOINT_FIELDS, { name: "pods", select: ["desiredStatus"] }];

/** The `saveEndpoint` mutation for `input` (already checked): `flashBootType` as an enum literal. */
export function saveEndpointDocument(input: EndpointInput): string {
  const args = {
    ...input,
    flashBootType: input.flashBootType === undefined ? undefined : new EnumLiteral(input.flashBootType),
  };
  return buildDocument("mutation", [{ name: "saveEndpoint", args: { input: args }, select: ENDPOINT_SELECTION }]);
}

/** The `deleteEndpoint` mutation. */
export function deleteEndpointDocument(id: string): string {
  return buildDocument("mutation", [{ name: "deleteEndpoint", args: { id } }]);
}

/** The `myself` query: every endpoint and the account's serverless discount. */
export function myselfDocument(): string {
  return buildDocument("query", [
    {
      name: "myself",
      select: [
        { name: "endpoints", select: ENDPOINT_SELECTION },
        { name: "serverlessDiscount", select: ["discountFactor", "type", "expirationDate"] },
      ],
    },
  ]);
}

/** Serverless endpoints over GraphQL. */
export class Endpoints {
  private readonly gql: GraphqlRunner;
  constructor(private readonly ctx: ClientContext) {
    this.gql = new GraphqlRunner(ctx.transport, ctx.apiUrl);
  }

  /**
   * Create (no `id`) or modify (`id`) an endpoint. A modify is the same document every time
   * and is retried; a create is looked up by name after an ambiguous failure, never sent twice
   * (with `opts.seenBefore`, only an endpoint that was not there before: see {@link CreateOptions}).
   */
  async save(input: EndpointInput, opts: CreateOptions = {}): Promise<Endpoint> {
    const checked = checkParams(EndpointInputSchema, input, "endpoint input");
    const doc = saveEndpointDocument(checked);
    const run = async (mode: RetryMode) => {
      const data = await this.gql.run(doc, mode, opts.signal);
      return this.validate(EndpointSchema, data.saveEndpoint, "saveEndpoint", "an Endpoint");
    };
    if (checked.id !== undefined) return run("idempotent");
    return createOnce({
      transport: this.ctx.transport,
      what: "endpoint",
      name: checked.name,
      signal: opts.signal,
      attempt: () => run("unsafe"),
      // The type too: a replacement (only `type` forces one) keeps name and template, and the
      // old endpoint must not pass for the new one.
      lookup: async () => {
        const ours = (e: Endpoint) =>
          e.name === checked.name && e.templateId === checked.templateId && (checked.type === undefined || e.type == null || e.type === checked.type);
        const list = await this.list({ signal: opts.signal });
        return opts.seenBefore ? findNew(list, checked.name, ours, opts.seenBefore) : findReadable(list, checked.name, ours);
      },
    });
  }

  /** Every endpoint of the account; those the client cannot read are in `unreadable`. */
  async list(opts: RequestOptions = {}): Promise<Listed<Endpoint>> {
    return (await this.account(opts)).endpoints;
  }

  /** `myself`: the endpoints and the serverless discount (null when none applies). */
  async account(opts: RequestOptions = {}): Promise<Myself> {
    const data = await this.gql.run(myselfDocument(), "idempotent", opts.signal);
    return this.validate(MyselfSchema, data.myself, "myself", "an account");
  }

  /**
   * One endpoint by id, read through `myself`; `NotFoundError` when absent, and
   * `ResponseValidationError` naming the fields when its record cannot be read (never "absent").
   */
  async get(id: string, opts: RequestOptions = {}): Promise<Endpoint> {
    const list = await this.list(opts);
    const found = list.find((e) => e.id === id);
    if (found) return found;
    const odd = unreadableRecord(list, id);
    if (odd) throw unreadableError(odd, "POST", `${this.safeUrl()}#myself`, "the endpoint");
    throw makeApiError({
      status: 404,
      title: "NOT_FOUND",
      detail: `no endpoint with id ${JSON.stringify(id)}`,
      errors: [],
      method: "POST",
      url: this.safeUrl(),
      code: "NOT_FOUND",
    });
  }

  /**
   * Delete an endpoint. The platform refuses (`ConflictError`) while `workersMin` or
   * `workersMax` is not 0: scale it to zero with `save` first. A retry that finds it gone counts as done.
   */
  async delete(id: string, opts: RequestOptions = {}): Promise<void> {
    await this.gql.run(deleteEndpointDocument(id), "idempotent", opts.signal, { notFoundOnRetryIsSuccess: true });
  }

  private safeUrl(): string {
    return redactUrl(`${this.ctx.apiUrl}/graphql`);
  }

  private validate<S extends typeof EndpointSchema | typeof MyselfSchema>(
    schema: S,
    value: unknown,
    field: string,
    what: string,
  ): ReturnType<S["parse"]> {
    return this.ctx.transport.validate(
      schema,
      value,
      { method: "POST", url: `${this.safeUrl()}#${field}`, auth: "query", setting: "apiUrl" },
      what,
    ) as ReturnType<S["parse"]>;
  }
}

import { type ClientContext, checkParams, type CreateOptions, type RequestOptions } from "./context";
import { createOnce } from "./core/create-once";
import { BadRequestError, makeApiError } from "./core/errors";
import { buildDocument, EnumLiteral, GraphqlRunner, type Selection } from "./core/graphql";
import { redactUrl } from "./core/redact";
import { z } from "zod";
import { findNew, findReadable, type Listed, recordsOf, unreadableError, unreadableRecord } from "./core/records";
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

/** What a read of the account's endpoints may select besides `id` (which every read carries). */
export const ENDPOINT_READ_FIELDS = [...ENDPOINT_FIELDS, "pods"] as const;
/** A field a read of the account's endpoints may select. */
export type EndpointReadField = (typeof ENDPOINT_READ_FIELDS)[number];

/** An endpoint as a read of `F` answers it: its id and those fields. */
export type EndpointRead<F extends EndpointReadField> = Pick<Endpoint, "id" | F>;

const DISCOUNT_SELECTION: Selection = { name: "serverlessDiscount", select: ["discountFactor", "type", "expirationDate"] };

/**
 * The `myself` query: the endpoints' `id` and `fields` (every field when left out), and the
 * account's serverless discount when `discount`.
 */
export function myselfDocument(fields: readonly EndpointReadField[] = ENDPOINT_READ_FIELDS, discount = true): string {
  const select = ["id", ...fields].map((f): Selection => (f === "pods" ? { name: "pods", select: ["desiredStatus"] } : f));
  return buildDocument("query", [{ name: "myself", select: [{ name: "endpoints", select }, ...(discount ? [DISCOUNT_SELECTION] : [])] }]);
}

/**
 * `fields` in the fewest documents of at most `perDocument` fields each, as even as can be: a
 * read of the account's endpoints costs each field once per endpoint, and no argument of
 * `myself { endpoints }` narrows the endpoints it answers, so a read splits by field.
 */
export function splitFields<F extends string>(fields: readonly F[], perDocument: number): F[][] {
  const parts = Math.max(1, Math.ceil(fields.length / Math.max(1, perDocument)));
  const size = Math.ceil(fields.length / parts);
  return Array.from({ length: parts }, (_, i) => fields.slice(i * size, (i + 1) * size)).filter((p) => p.length > 0);
}

/**
 * The `myself` answers of one read split by field, as one: each endpoint that every part lists,
 * its fields from every part, in the first part's order. An endpoint missing from a part was made
 * or deleted between the parts: it is left out, as a read taken when it was missing would.
 * A record without a string id is kept as the first part has it (the list says it is unreadable).
 */
export function mergeParts(parts: readonly unknown[]): unknown {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const [first, ...rest] = parts;
  if (!isObject(first) || !Array.isArray(first.endpoints)) return first;
  const byId: Map<string, Record<string, unknown>>[] = [];
  for (const part of rest) {
    // A part that is not a list of endpoints: the whole read fails its check, naming that part's shape.
    if (!isObject(part) || !Array.isArray(part.endpoints)) return part;
    byId.push(new Map(part.endpoints.filter(isObject).filter((e) => typeof e.id === "string").map((e) => [e.id as string, e])));
  }
  const endpoints: unknown[] = [];
  for (const e of first.endpoints) {
    if (!isObject(e) || typeof e.id !== "string") {
      endpoints.push(e);
      continue;
    }
    const others = byId.map((m) => m.get(e.id as string));
    if (others.every((o) => o !== undefined)) endpoints.push(Object.assign({}, e, ...others));
  }
  return { ...first, endpoints };
}

/** Whether the platform refused a document for its cost (or size), which a smaller document may pass. */
export function isTooCostly(err: unknown): boolean {
  return err instanceof BadRequestError && (err.code === "QUERY_TOO_COSTLY" || /\b(cost|complexity)\b/i.test(err.message));
}

/** `fields` as a zod `pick` mask, `id` always. */
function picked(fields: readonly EndpointReadField[]): { [K in "id" | EndpointReadField]?: true } {
  return Object.fromEntries(["id", ...fields].map((f) => [f, true]));
}

/** The refusal of a one-field read: no split passes, so the message says where the endpoints can be read. */
function tooManyEndpoints(err: BadRequestError): BadRequestError {
  return makeApiError({
    status: 400,
    title: err.title,
    detail: err.detail,
    errors: [
      ...err.errors,
      "the account has too many endpoints to read over GraphQL even one field a request: list them over REST v2 (client.serverless.list(), GET /v2/serverless), which lists the same endpoints",
    ],
    method: err.method,
    url: err.url,
    code: err.code,
  }) as BadRequestError;
}

/** Serverless endpoints over GraphQL. */
export class Endpoints {
  private readonly gql: GraphqlRunner;
  /** The most fields one read of the account's endpoints asks for: fewer once the platform refused one for its cost. */
  private fieldsPerDocument: number = ENDPOINT_READ_FIELDS.length;
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

  /**
   * Every endpoint of the account; those the client cannot read are in `unreadable`. With
   * `fields`, only their id and those fields are asked for (a cheaper document).
   */
  async list(opts?: RequestOptions): Promise<Listed<Endpoint>>;
  async list<F extends EndpointReadField>(opts: RequestOptions & { fields: readonly F[] }): Promise<Listed<EndpointRead<F>>>;
  async list(opts: RequestOptions & { fields?: readonly EndpointReadField[] } = {}): Promise<Listed<EndpointRead<EndpointReadField>>> {
    const fields = opts.fields ?? ENDPOINT_READ_FIELDS;
    const myself = await this.read(fields, false, opts.signal);
    const schema = z.looseObject({ endpoints: recordsOf(EndpointSchema.pick(picked(fields))) });
    return this.validate(schema, myself, "myself", "an account").endpoints as Listed<EndpointRead<EndpointReadField>>;
  }

  /** `myself`: the endpoints and the serverless discount (null when none applies). */
  async account(opts: RequestOptions = {}): Promise<Myself> {
    return this.validate(MyselfSchema, await this.read(ENDPOINT_READ_FIELDS, true, opts.signal), "myself", "an account");
  }

  /**
   * The `myself` answer for `fields`, in as few documents as the platform's query-cost limit
   * lets through. The cost grows with the account's endpoints and no argument pages them, so a
   * document the platform refuses for its cost is sent again as two of half the fields each (and
   * so on, down to one field a document); the client keeps the size that passed, so its later
   * reads send those documents at once. An account of a few hundred endpoints reads in one
   * request; 600 endpoints with every field in two (three the first time: the refused one).
   */
  private async read(fields: readonly EndpointReadField[], discount: boolean, signal?: AbortSignal): Promise<unknown> {
    for (;;) {
      const parts = splitFields(fields, this.fieldsPerDocument);
      // Every part answered before anything is decided: no request outlives the read.
      const answers = await Promise.allSettled(parts.map((part, i) => this.gql.run(myselfDocument(part, discount && i === 0), "idempotent", signal)));
      const failed = answers.flatMap((a) => (a.status === "rejected" ? [a.reason as unknown] : []));
      if (failed.length === 0) {
        const myself = answers.map((a) => (a as PromiseFulfilledResult<Record<string, unknown>>).value.myself);
        return myself.length === 1 ? myself[0] : mergeParts(myself);
      }
      const costly = failed.find(isTooCostly) as BadRequestError | undefined;
      if (!costly) throw failed[0];
      const largest = Math.max(...parts.map((p) => p.length));
      if (largest <= 1) throw tooManyEndpoints(costly);
      this.fieldsPerDocument = Math.min(this.fieldsPerDocument, Math.ceil(largest / 2));
    }
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

  private validate<S extends z.ZodType>(schema: S, value: unknown, field: string, what: string): z.infer<S> {
    return this.ctx.transport.validate(
      schema,
      value,
      { method: "POST", url: `${this.safeUrl()}#${field}`, auth: "query", setting: "apiUrl" },
      what,
    ) as z.infer<S>;
  }

}

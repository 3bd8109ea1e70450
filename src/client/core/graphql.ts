import type { ArgumentNode, FieldNode, SelectionNode, ValueNode } from "graphql";
// The three parts of graphql-js the documents are built with, not its index (129 modules):
// a client that sends no GraphQL request (a preview in the plugin) loads little of it.
import { OperationTypeNode } from "graphql/language/ast";
import { Kind } from "graphql/language/kinds";
import { print } from "graphql/language/printer";
import {
  type ApiError,
  GRAPHQL_CODE_STATUS,
  errorEntries,
  makeApiError,
  NotFoundError,
  PlatformError,
  ResponseValidationError,
} from "./errors";
import { redactUrl } from "./redact";
import type { HttpResponse, RetryMode, Transport } from "./transport";

/**
 * GraphQL documents are built as a graphql-js AST and printed, because the platform's GraphQL body has
 * one field, `query`, with no `variables`: values must be written into the document, and the
 * printer escapes every string. No user value is ever spliced into GraphQL text.
 */

/** An enum literal (written without quotes), e.g. `FLASHBOOT`. */
export class EnumLiteral {
  constructor(readonly value: string) {
    if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(value) || ["true", "false", "null"].includes(value)) {
      throw new PlatformError(`${JSON.stringify(value)} is not a GraphQL enum value`);
    }
  }
}

/** A JS value as a GraphQL value node; `undefined` object fields are left out. */
export function valueNode(v: unknown): ValueNode {
  if (v instanceof EnumLiteral) return { kind: Kind.ENUM, value: v.value };
  if (v === null) return { kind: Kind.NULL };
  switch (typeof v) {
    case "string":
      return { kind: Kind.STRING, value: v, block: false };
    case "boolean":
      return { kind: Kind.BOOLEAN, value: v };
    case "number":
      if (!Number.isFinite(v)) throw new PlatformError(`${v} cannot be sent to GraphQL`);
      return Number.isInteger(v) ? { kind: Kind.INT, value: String(v) } : { kind: Kind.FLOAT, value: String(v) };
    case "object":
      if (Array.isArray(v)) return { kind: Kind.LIST, values: v.map(valueNode) };
      return {
        kind: Kind.OBJECT,
        fields: Object.entries(v as Record<string, unknown>)
          .filter(([, fv]) => fv !== undefined)
          .map(([name, fv]) => ({ kind: Kind.OBJECT_FIELD, name: { kind: Kind.NAME, value: name }, value: valueNode(fv) })),
      };
    default:
      throw new PlatformError(`a ${typeof v} cannot be sent to GraphQL`);
  }
}

/** A field to select: a name, or a name with arguments and sub-selections. */
export type Selection = string | { name: string; args?: Record<string, unknown>; select?: Selection[] };

function fieldNode(s: Selection): FieldNode {
  const spec = typeof s === "string" ? { name: s } : s;
  const args: ArgumentNode[] = Object.entries(spec.args ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([name, v]) => ({ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: name }, value: valueNode(v) }));
  return {
    kind: Kind.FIELD,
    name: { kind: Kind.NAME, value: spec.name },
    arguments: args,
    selectionSet: spec.select?.length
      ? { kind: Kind.SELECTION_SET, selections: spec.select.map(fieldNode) as SelectionNode[] }
      : undefined,
  };
}

/** An anonymous operation, printed: anonymous so the body carries no `operationName`. */
export function buildDocument(operation: "query" | "mutation", select: Selection[]): string {
  return print({
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: operation === "query" ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION,
        selectionSet: { kind: Kind.SELECTION_SET, selections: select.map(fieldNode) },
      },
    ],
  });
}

interface GraphqlErrorEntry {
  message?: unknown;
  path?: unknown;
  extensions?: { code?: unknown };
}

/** GraphQL `errors[]` (and the HTTP status) as one `ApiError` of the matching class. */
export function graphqlError(
  errors: readonly GraphqlErrorEntry[],
  httpStatus: number,
  method: string,
  url: string,
  retryAfterMs?: number,
): ApiError {
  const first = errors[0] ?? {};
  const code = typeof first.extensions?.code === "string" ? first.extensions.code : undefined;
  const status = (code && GRAPHQL_CODE_STATUS[code]) || (httpStatus >= 400 ? httpStatus : 500);
  const messages = errorEntries(
    errors.map((e) => {
      const path = Array.isArray(e.path) ? `${e.path.join(".")}: ` : "";
      return `${path}${typeof e.message === "string" ? e.message : "GraphQL error"}`;
    }),
  );
  return makeApiError({
    status,
    title: code ?? "GraphQL error",
    detail: messages.join("; "),
    errors: messages,
    method,
    url,
    code,
    retryAfterMs,
  });
}

/**
 * Runs documents through graphql-request at `{apiUrl}/graphql?api_key=...`, with the
 * transport as its `fetch` (same pool, pacing, timeout, redaction). graphql-request's own
 * errors embed the request and response, so none of them is let through: every failure
 * leaves as a `PlatformError`.
 */
export class GraphqlRunner {
  private readonly endpoint: string;
  constructor(
    private readonly transport: Transport,
    apiUrl: string,
  ) {
    this.endpoint = `${apiUrl.replace(/\/+$/, "")}/graphql`;
  }

  /**
   * Execute `document`; returns `data`. With `notFoundOnRetryIsSuccess`, a NOT_FOUND on a
   * retry (the first attempt's delete may have landed) resolves to `{}`.
   */
  run(
    document: string,
    mode: RetryMode,
    signal?: AbortSignal,
    opts: { notFoundOnRetryIsSuccess?: boolean } = {},
  ): Promise<Record<string, unknown>> {
    return this.transport.retrying(
      (n) =>
        this.attempt(document, n, signal).catch((err) => {
          if (opts.notFoundOnRetryIsSuccess && n > 1 && err instanceof NotFoundError) return {};
          throw err;
        }),
      mode,
      signal,
    );
  }

  private async attempt(document: string, n: number, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const url = `${this.endpoint}?api_key=${encodeURIComponent(this.transport.requireKey())}`;
    const safeUrl = redactUrl(url);
    let raw: HttpResponse | undefined;
    const transport = this.transport;
    const fetchThroughTransport = async (input: URL | string, init?: RequestInit): Promise<Response> => {
      raw = await transport.send(
        {
          method: "POST",
          url: String(input),
          body: typeof init?.body === "string" ? init.body : undefined,
          headers: { "content-type": "application/json" },
          auth: "query",
          setting: "apiUrl",
          signal,
        },
        n,
      );
      const noBody = raw.status === 204 || raw.status === 304;
      return new Response(noBody ? null : raw.body, { status: raw.status, headers: raw.headers as Record<string, string> });
    };
    // Loaded with the first GraphQL call, not with the client (a preview sends none).
    const { GraphQLClient } = require("graphql-request") as typeof import("graphql-request");
    const client = new GraphQLClient(url, {
      fetch: fetchThroughTransport as typeof fetch,
      errorPolicy: "all",
      excludeOperationName: true,
    });
    let result: { data?: unknown; errors?: unknown };
    try {
      result = await client.rawRequest(document);
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      if (signal?.aborted && !raw) throw signal.reason;
      if (raw && raw.status < 400) {
        throw new ResponseValidationError("POST", safeUrl, "a body", [{ path: "", message: "is not a GraphQL result" }]);
      }
      if (raw) throw this.fromRaw(raw, safeUrl);
      throw new PlatformError(`GraphQL request failed: ${transport.redact(String((err as Error)?.message ?? err)).slice(0, 200)}`, {
        cause: transport.sanitize(err),
      });
    }
    if (Array.isArray(result.errors) && result.errors.length > 0) {
      throw graphqlError(this.redacted(result.errors), raw?.status ?? 200, "POST", safeUrl);
    }
    if (!result.data || typeof result.data !== "object") {
      throw new ResponseValidationError("POST", safeUrl, "a GraphQL result", [{ path: "data", message: "is required" }]);
    }
    return result.data as Record<string, unknown>;
  }

  /** Server-written error entries with their messages redacted (a server may echo the request). */
  private redacted(errors: unknown[]): GraphqlErrorEntry[] {
    return (errors as GraphqlErrorEntry[]).map((e) => ({
      ...e,
      message: typeof e?.message === "string" ? this.transport.redact(e.message) : e?.message,
    }));
  }

  private fromRaw(raw: HttpResponse, safeUrl: string): ApiError {
    let body: { errors?: unknown } | undefined;
    try {
      body = JSON.parse(raw.body);
    } catch {
      body = undefined;
    }
    const req = { method: "POST", url: safeUrl, auth: "query" as const, setting: "apiUrl" as const };
    const fromHttp = this.transport.errorFrom(req, raw);
    if (Array.isArray(body?.errors) && body.errors.length > 0) {
      return graphqlError(this.redacted(body.errors), raw.status, "POST", safeUrl, fromHttp.retryAfterMs);
    }
    return fromHttp;
  }
}

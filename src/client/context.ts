import type { z } from "zod";
import { RequestValidationError } from "./core/errors";
import { pathSegment } from "./core/path";
import type { AddressSetting, RetryMode, Transport } from "./core/transport";
import { fieldIssues } from "./core/validate";

/** Per-call options. */
export interface RequestOptions {
  /** Cancels the call, including any retry or pacing wait. */
  signal?: AbortSignal;
  /**
   * A status read that yields to work: while other requests with this API key wait for the
   * rate limit (or are out after waiting), this one waits behind them, so a binding quota is
   * spent on changes first and this answer sees what they did. Where nothing waits, it goes at
   * once. Read calls only (a list, a get).
   * @default false
   */
  yieldToWork?: boolean;
  /** Called as the request leaves for the server, after any pacing wait (once per attempt). */
  onSend?: () => void;
}

/** Options of a create: a request's, and the ids of the objects that were there before it began. */
export interface CreateOptions extends RequestOptions {
  /**
   * The ids of the kind's objects listed before this create began. After an ambiguous failure
   * the create's look-up takes only an object whose id is not among them (and fails rather than
   * guess when two such objects match): an object that existed before is never the one it made,
   * whatever its name. Without it the look-up takes a matching object by name.
   */
  seenBefore?: ReadonlySet<string>;
}

/** What every API class shares: one transport and the two base addresses. */
export class ClientContext {
  constructor(
    readonly transport: Transport,
    readonly apiUrl: string,
    readonly serverlessUrl: string,
  ) {}

  /** One REST call: path, verb, typed body; everything else lives in the transport. */
  rest<S extends z.ZodType>(
    method: string,
    path: string,
    body: unknown,
    schema: S | undefined,
    what: string,
    opts: RequestOptions & {
      mode?: RetryMode;
      setting?: AddressSetting;
      notFoundOnRetryIsSuccess?: boolean;
      /** Values of `body` that must never reach an error or a log line (write-only credentials). */
      writeOnly?: readonly string[];
      /** This call's per-attempt limit, in ms. @default the client's timeoutMs */
      timeoutMs?: number;
    } = {},
  ): Promise<z.infer<S>> {
    const setting = opts.setting ?? "apiUrl";
    const base = setting === "apiUrl" ? this.apiUrl : this.serverlessUrl;
    return this.transport.json(
      {
        method,
        url: `${base}${path}`,
        body: body === undefined ? undefined : JSON.stringify(body),
        auth: "bearer",
        setting,
        signal: opts.signal,
        writeOnly: opts.writeOnly,
        timeoutMs: opts.timeoutMs,
        yieldToWork: opts.yieldToWork,
        onSend: opts.onSend,
      },
      schema,
      what,
      opts.mode ?? (method === "POST" ? "unsafe" : "idempotent"),
      { notFoundOnRetryIsSuccess: opts.notFoundOnRetryIsSuccess },
    );
  }
}

/** `value` checked against a request schema, or a `RequestValidationError` before anything is sent. */
export function checkParams<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new RequestValidationError(what, fieldIssues(parsed.error, value));
}

/** A path segment from a caller's id: see `pathSegment` (empty, `.` and `..` refused; the rest percent-encoded). */
export const seg = (id: string): string => pathSegment(id);

/** A query value: lists go comma-separated (the contract's `style: form, explode: false`). */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** `path` with the defined entries of `query` as its query string (none: `path` unchanged). */
export function withQuery(path: string, query: Readonly<Record<string, QueryValue>>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, Array.isArray(value) ? value.join(",") : String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

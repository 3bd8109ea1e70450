// The `recordExchanges` option: the last N requests with their bodies and answers, so a test
// can check them against the public contract. Never the key (no headers are kept, and the
// query, which may carry `api_key`, only as parameter names for /graphql), never registry
// credentials (`username` and `password` values are replaced wherever they appear).

import type { RequestLogEntry } from "../request-log";
import type { Reply } from "./types";

export interface Exchange {
  method: string;
  /** Without the query string. */
  path: string;
  /** The query string of a REST call (`?bucketSize=day`); "" when there is none. */
  query: string;
  op: string;
  status: number;
  /** The answer's media type; undefined when it has no body. */
  contentType?: string;
  /** The parsed JSON request body; undefined when the route takes none or it did not parse. */
  requestBody?: unknown;
  /** The parsed JSON answer; undefined for no body and for raw bytes (PNGs). */
  responseBody?: unknown;
  dropped: boolean;
}

export const REDACTED = "[redacted]";
const WRITE_ONLY = new Set(["username", "password"]);

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, WRITE_ONLY.has(k) && typeof v === "string" ? REDACTED : redact(v)]),
  );
}

export class ExchangeRecorder {
  private readonly kept: Exchange[] = [];

  constructor(private readonly capacity: number) {}

  record(entry: RequestLogEntry, query: string, requestBody: unknown, reply: Reply): void {
    const hasBody = reply.body !== undefined && reply.status !== 204 && !reply.raw;
    const exchange: Exchange = {
      method: entry.method,
      path: entry.path,
      query: entry.path === "/graphql" ? "" : query,
      op: entry.op,
      status: reply.status,
      contentType: reply.raw
        ? reply.raw.contentType
        : hasBody
          ? (reply.headers?.["content-type"] ?? "application/json")
          : undefined,
      requestBody: requestBody === undefined ? undefined : redact(structuredClone(requestBody)),
      responseBody: hasBody ? structuredClone(reply.body) : undefined,
      dropped: entry.dropped,
    };
    this.kept.push(exchange);
    if (this.kept.length > this.capacity) this.kept.shift();
  }

  /** Oldest first, copies. */
  all(): Exchange[] {
    return structuredClone(this.kept);
  }
}

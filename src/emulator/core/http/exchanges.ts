// The `recordExchanges` option: the last N requests with their bodies and answers, so a test
// can check them against the public contract. Never the key: no headers are kept, and the
// query only of a request routed to a REST or hosted-model route (decided from the route the
// router matched, after it normalised the path, so `/graphql/`, `/%67raphql` and `//graphql`
// keep nothing), with any `api_key` value replaced there too. Never registry credentials
// (`username` and `password` values are replaced wherever they appear).

import type { RequestLogEntry } from "../request-log";
import type { Reply, RouteKind } from "./types";

export interface Exchange {
  method: string;
  /** Without the query string. */
  path: string;
  /**
   * The query string of a REST or hosted-model call (`?bucketSize=day`); "" when there is none,
   * and for GraphQL and unrouted requests, whose query may carry the key.
   */
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

/** `query` with the value of any `api_key` parameter (any case) replaced; unchanged when it has none. */
function redactQuery(query: string): string {
  const params = new URLSearchParams(query);
  let found = false;
  for (const name of new Set(params.keys())) {
    if (name.toLowerCase() !== "api_key") continue;
    found = true;
    params.set(name, REDACTED);
  }
  return found ? `?${params.toString()}` : query;
}

/** A copy of a body; a body nested past what the copy's recursion can take is kept as a note (a hostile request must not turn into a 500). */
function copy(body: unknown): unknown {
  try {
    return structuredClone(body);
  } catch (err) {
    // By name: the error comes from Node's own realm, which a test's sandbox does not share.
    if ((err as Error | undefined)?.name === "RangeError") return "(not recorded: nested too deep to copy)";
    throw err;
  }
}

export class ExchangeRecorder {
  private readonly kept: Exchange[] = [];

  constructor(private readonly capacity: number) {}

  /** `kind`: the kind of the route the request was routed to; undefined when none (404, 405, cut). */
  record(entry: RequestLogEntry, query: string, requestBody: unknown, reply: Reply, kind: RouteKind | undefined): void {
    // Off (the default): no copy of every body on every request.
    if (this.capacity === 0) return;
    const hasBody = reply.body !== undefined && reply.status !== 204 && !reply.raw;
    const exchange: Exchange = {
      method: entry.method,
      path: entry.path,
      query: kind === "rest" || kind === "runsync" ? redactQuery(query) : "",
      op: entry.op,
      status: reply.status,
      contentType: reply.raw
        ? reply.raw.contentType
        : hasBody
          ? (reply.headers?.["content-type"] ?? "application/json")
          : undefined,
      requestBody: requestBody === undefined ? undefined : redact(copy(requestBody)),
      responseBody: hasBody ? copy(reply.body) : undefined,
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

// The seams between the HTTP pipeline and the groups that serve paths: a group contributes
// routes (a method, a path template and a handler) and, when it holds state, the parts it
// saves into and restores from the state file. The pipeline knows no record types.

import type { StatePart } from "../persistence";
import type { Quotas } from "../rate-limit";

export type { StatePart };

export type Scope = "read" | "write";

export interface ApiKey {
  /** The bearer token (and GraphQL `api_key`). */
  key: string;
  /** What the key may do: `read` for GET and GraphQL queries, `write` for everything else. */
  scopes: Scope[];
  /**
   * This key's own requests per window, in place of the emulator's `quotas` (a plan with a
   * larger quota; a benchmark's setup key that must not wait). @default the emulator's quotas
   */
  quotas?: Partial<Quotas>;
  /**
   * The account the key belongs to: a request is answered from its key's account alone (its
   * objects, its billing); another account's id is a 404. Keys that name the same account share it.
   * @default "default" (every key of an emulator whose keys name no account shares one)
   */
  account?: string;
}

export interface Reply {
  status: number;
  body?: unknown;
  /**
   * Raw bytes with their content type: whole (the PNGs), or pieces written one by one as the
   * socket takes them (a server-sent event stream), so a long answer is never built in memory.
   */
  raw?: { data: Buffer | Iterable<string>; contentType: string };
  headers?: Record<string, string>;
  /** GraphQL: the root fields that ran, for the log and counts. */
  ops?: string[];
}

/** How a route authenticates and how its failures are shaped. */
export type RouteKind = "rest" | "graphql" | "runsync";

export interface RouteContext {
  /** The `{name}` segments of the path template, percent-decoded. */
  params: Record<string, string>;
  /** The parsed JSON body (routes with `hasBody`), else undefined. */
  body: unknown;
  query: URLSearchParams;
  /**
   * The key's scopes, and `charge(n)`: n more requests against the key's rate limit (a GraphQL
   * document's mutations past the first), or the 429 thrown when a window cannot take them all.
   */
  caller: { canRead: boolean; canWrite: boolean; charge: (requests: number) => void };
}

export interface Route {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** `/v2/pods/{id}`: literal segments and `{name}` parameters. */
  path: string;
  /** The operation name of the log and `counts()` (the contract's operationId). */
  op: string;
  /** @default "rest" */
  kind?: RouteKind;
  /** Triggers a state-file write. @default method !== "GET" */
  mutates?: boolean;
  /**
   * The scopes a key needs before the route runs (403 without them). GraphQL checks per field
   * instead: queries need `read`, mutations `write`.
   * @default mutates ? ["write"] : ["read"]
   */
  scopes?: Scope[];
  /**
   * The emulator's own control plane (/emulator/...): exempt from faults and rate limits, and
   * callable by a console session (cookie plus CSRF token) as well as a bearer key. @default false
   */
  control?: boolean;
  /** Whether the request carries a JSON body. @default mutates and method !== "DELETE" */
  hasBody?: boolean;
  run: (ctx: RouteContext) => Reply | Promise<Reply>;
}

/** What one REST group (or the serverless side) contributes to the server. */
export interface Group {
  routes: Route[];
  state?: StatePart[];
}

export const ok = (status: number, body?: unknown): Reply => ({ status, body });

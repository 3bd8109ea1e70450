// The request pipeline every call passes, in this order: read the body (bounded), route,
// authenticate, roll the faults, rate-limit, check the key's scope, parse
// the JSON body, run the route, persist after a change, log, and answer (after the `slowMs`
// fault, or not at all after the `dropAfterProcessRate` one).

import type { ListOrdering } from "./list-order";
import type * as http from "node:http";
import type { FaultState } from "../faults";
import { HttpError, problem } from "../problem";
import type { RateLimiter } from "../rate-limit";
import { fingerprint, type RequestLog, type RequestLogEntry } from "../request-log";
import type { ExchangeRecorder } from "./exchanges";
import { graphqlError, problemReply, send } from "./reply";
import type { Router } from "./router";
import type { ApiKey, Reply, Route, RouteKind } from "./types";

const MAX_BODY_BYTES = 1024 * 1024;
/** Beyond this a too-large body is no longer drained: the socket is cut. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

export interface PipelineDeps {
  /** Matches a request before it is authenticated (every account serves the same routes). */
  router: Router;
  /**
   * The account of an authenticated key and the router over that account's stores, which
   * answers the request. @default `router`, one account
   */
  routerOf?: (key: ApiKey) => { account: string; router: Router };
  keys: ReadonlyMap<string, ApiKey>;
  limiter: RateLimiter;
  faults: FaultState;
  log: RequestLog;
  clock: { now(): number };
  /** Writes the state file after a change. */
  persist: () => void;
  /**
   * The root fields of GraphQL's Mutation type. The GraphQL route cannot say beforehand whether
   * a document changes anything (one route serves queries and mutations): a document that ran
   * one of these is saved before its answer, and a query, whoever's key sent it, writes nothing.
   */
  graphqlMutations: ReadonlySet<string>;
  /** Answers a GET no route serves (the PNGs behind `output.image_url`), without auth. */
  fallback: (method: string, path: string) => Reply | undefined;
  /** The order of list answers (list-order.ts). */
  listOrder: ListOrdering;
  /** Whether the server is closing (replies then ask the client to close the connection). */
  closing: () => boolean;
  /** Keeps what was asked and answered, when the `recordExchanges` option is on. */
  recorder?: ExchangeRecorder;
  /** The console session a request without a bearer key carries, which may call the control routes. */
  sessions?: SessionLookup;
}

/**
 * The caller a request's console session stands for (the key it signed in with), and, for a
 * change, why it is refused (not from the emulator's own pages); undefined without a session.
 * The composition root hands it over, so the pipeline knows no console.
 */
export type SessionLookup = (req: http.IncomingMessage, mutates: boolean) => { key: ApiKey; refused?: HttpError } | undefined;

/** One request on its way through; `finish` answers it exactly once. */
interface Exchange {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  entry: RequestLogEntry;
  ops: string[];
  query: string;
  requestBody?: unknown;
  /** A control route's: no fault delays its answer. */
  control?: boolean;
  /** The kind of the route matched (after the router normalised the path); undefined before or without one. */
  kind?: RouteKind;
}

/**
 * The body, bounded: past `MAX_BODY_BYTES` the rest is read and dropped (so the 413 reaches a
 * client still sending); past `MAX_DRAIN_BYTES` reading stops ("oversized": answered 413, then
 * the connection is closed); a client gone before the end is "aborted" (nobody to answer).
 * Never rejects: a request stream's error is the client's leaving, not the emulator's fault.
 */
function readBody(req: http.IncomingMessage): Promise<Buffer | "too-large" | "oversized" | "aborted"> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: Buffer | "too-large" | "oversized" | "aborted") => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DRAIN_BYTES) {
        req.pause();
        settle("oversized");
      } else if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => settle(size > MAX_BODY_BYTES ? "too-large" : Buffer.concat(chunks)));
    // Kept for the request's life: an error after the body was read (the socket cut) is expected.
    req.on("error", () => settle("aborted"));
    req.once("close", () => settle("aborted"));
  });
}

export class Pipeline {
  private readonly pending = new Set<NodeJS.Timeout>();

  constructor(private readonly deps: PipelineDeps) {}

  /** Cancels answers still waiting out the `slowMs` fault. */
  cancelPending(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }

  /** Sends a reply outside the pipeline (the 500 of an unexpected error). */
  sendProblem(res: http.ServerResponse, err: HttpError): void {
    send(res, problemReply(err), this.deps.closing());
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // The request target is a path: "//" must not throw, and "//host/v2/pods" must not route as /v2/pods.
    const url = new URL(`http://emulator.invalid${req.url?.startsWith("/") ? req.url : "/"}`);
    const method = req.method ?? "GET";
    // Held before reading: a stream that ends early lets go of its socket.
    const socket = req.socket;
    const body = await readBody(req);
    if (body === "aborted") return;
    const ex: Exchange = {
      req,
      res,
      entry: {
        at: new Date(this.deps.clock.now()).toISOString(),
        method,
        path: url.pathname,
        status: 0,
        key: null,
        op: "unknown",
        dropped: false,
      },
      ops: [],
      query: url.search,
    };
    if (body === "oversized") {
      // Before routing and authentication: nothing of it is read further. The answer goes out,
      // then the connection is cut (the client may still be sending: it may see the reset first).
      res.once("finish", () => socket.destroy());
      const err = problem(413, `request body exceeds ${MAX_DRAIN_BYTES} bytes; the connection is closed`);
      err.headers.connection = "close";
      return this.finish(ex, problemReply(err));
    }

    const match = this.deps.router.match(method, url.pathname);
    if (match === undefined) {
      const fallback = this.deps.fallback(method, url.pathname);
      if (fallback) {
        ex.entry.op = "image";
        return this.finish(ex, fallback);
      }
      return this.finish(ex, problemReply(problem(404, `no route for ${method} ${url.pathname}`)));
    }
    if ("allow" in match) {
      const err = problem(405, `${method} is not allowed on ${url.pathname}; allowed: ${match.allow.join(", ")}`);
      err.headers.allow = match.allow.join(", ");
      return this.finish(ex, problemReply(err));
    }
    const { route, params } = match;
    const kind: RouteKind = route.kind ?? "rest";
    const mutates = route.mutates ?? route.method !== "GET";
    const hasBody = route.hasBody ?? (mutates && route.method !== "DELETE");
    ex.entry.op = route.op;
    ex.ops = [route.op];
    ex.kind = kind;
    ex.control = route.control;
    const fail = (err: HttpError, headers: Record<string, string> = {}, drop = false): void => {
      const r = kind === "graphql" ? graphqlError(err) : problemReply(err);
      this.finish(ex, { ...r, headers: { ...r.headers, ...headers } }, drop);
    };

    const session = route.control && !req.headers.authorization ? this.deps.sessions?.(req, mutates) : undefined;
    if (session) {
      ex.entry.via = "console";
      ex.entry.key = fingerprint(session.key.key);
      if (session.refused) return fail(session.refused);
    }
    const key = session?.key ?? this.authenticate(req, url, kind);
    if (key instanceof HttpError) return fail(key, { "www-authenticate": kind === "graphql" ? "" : "Bearer" });
    ex.entry.key = fingerprint(key.key);
    // The key's account answers, over its own stores; the route is the same in every account.
    const mine = this.deps.routerOf?.(key);
    const served = mine ? mine.router.match(method, url.pathname) : match;
    if (mine) ex.entry.account = mine.account;
    const { route: ownRoute, params: ownParams } = served && "route" in served ? served : { route, params };

    // The control plane must stay reachable whatever faults and quotas it set.
    const rolled = route.control ? { storm: false, fail5xx: false, drop: false } : this.deps.faults.roll();
    const aimed = route.control ? undefined : this.deps.faults.aim(method, url.pathname, body === "too-large" ? "" : body.toString("utf8"));
    const { storm } = rolled;
    const fail5xx = rolled.fail5xx || aimed === "5xx";
    const drop = rolled.drop || aimed === "drop";
    const rate = route.control ? { exceeded: undefined, headers: {}, retryAfterSec: 0 } : this.deps.limiter.take(key.key);
    if (rate.exceeded) {
      return fail(
        problem(429, `rate limit exceeded for the ${rate.exceeded} window; retry after ${rate.retryAfterSec} s`),
        rate.headers,
      );
    }
    if (storm) {
      ex.entry.fault = "rate429";
      return fail(
        problem(429, "rate limit exceeded for the minute window; retry after 1 s"),
        this.deps.limiter.stormHeaders(key.key),
      );
    }
    const canRead = key.scopes.includes("read");
    const canWrite = key.scopes.includes("write");
    const missing = (route.scopes ?? (mutates ? ["write"] : ["read"])).filter((s) => !key.scopes.includes(s));
    if (missing.length > 0) {
      const readOnly = missing.includes("write") && canRead ? "; this key is read-only" : "";
      const names = missing.map((s) => `'${s}'`).join(" and ");
      return fail(problem(403, `${route.op} needs a key with the ${names} scope${readOnly}`), rate.headers);
    }
    if (fail5xx) {
      ex.entry.fault = "rate5xx";
      return fail(problem(this.deps.faults.serverErrorStatus(), "injected fault: the platform failed"), rate.headers);
    }

    const parsed = hasBody ? parseJsonBody(req, body) : undefined;
    if (parsed instanceof HttpError) return fail(parsed, rate.headers);
    ex.requestBody = parsed;

    let rateHeaders = rate.headers;
    const charge = (requests: number): void => {
      if (route.control || requests <= 0) return;
      const more = this.deps.limiter.take(key.key, requests);
      if (more.exceeded) {
        // Refused with 429: the request itself counts nothing either.
        this.deps.limiter.refund(key.key);
        const err = problem(
          429,
          `rate limit exceeded for the ${more.exceeded} window: this request counts as ${requests + 1} requests (one a mutation); retry after ${more.retryAfterSec} s`,
        );
        Object.assign(err.headers, more.headers);
        throw err;
      }
      rateHeaders = more.headers;
    };
    let reply: Reply;
    try {
      reply = await this.run(ownRoute, { params: ownParams, body: parsed, query: url.searchParams, caller: { canRead, canWrite, charge } });
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      return fail(err, { ...rateHeaders, ...err.headers }, drop);
    }
    if (kind === "graphql") {
      ex.ops = reply.ops?.length ? reply.ops : ["graphql"];
      ex.entry.op = ex.ops.join(",");
    }
    const changed = mutates || (kind === "graphql" && ex.ops.some((op) => this.deps.graphqlMutations.has(op)));
    if (reply.status < 400 && changed) this.deps.persist();
    return this.finish(ex, { ...reply, headers: { ...reply.headers, ...rateHeaders } }, drop);
  }

  private async run(route: Route, ctx: Parameters<Route["run"]>[0]): Promise<Reply> {
    return this.deps.listOrder.apply(route.op, await route.run(ctx));
  }

  private authenticate(req: http.IncomingMessage, url: URL, kind: RouteKind): ApiKey | HttpError {
    // GraphQL takes the key as `?api_key=` or as the bearer header the platform's
    // own clients send; the query parameter is looked at first.
    const fromQuery = kind === "graphql" ? url.searchParams.get("api_key") : null;
    let token: string;
    if (fromQuery) {
      token = fromQuery;
    } else {
      const header = req.headers.authorization;
      if (!header)
        return problem(
          401,
          kind === "graphql"
            ? "missing API key; send it as the api_key query parameter or as 'Authorization: Bearer <API_KEY>'"
            : "missing Authorization header; send 'Authorization: Bearer <API_KEY>'",
        );
      const m = /^Bearer ([\x21-\x7e]+)$/i.exec(header);
      if (!m) return problem(401, "malformed Authorization header; expected 'Bearer <API_KEY>'");
      token = m[1];
    }
    return this.deps.keys.get(token) ?? problem(401, "invalid API key");
  }

  private finish(ex: Exchange, reply: Reply, drop = false): void {
    ex.entry.status = reply.status;
    ex.entry.dropped = drop;
    const slow = ex.control || ex.entry.key === null ? 0 : this.deps.faults.slowMs;
    if (drop) ex.entry.fault = "dropAfterProcess";
    else if (slow > 0) ex.entry.fault ??= "slow";
    this.deps.log.record(ex.entry, ex.ops);
    this.deps.recorder?.record(ex.entry, ex.query, ex.requestBody, reply, ex.kind);
    const deliver = () => {
      if (drop) ex.res.socket?.destroy();
      else send(ex.res, reply, this.deps.closing());
    };
    if (slow > 0) {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        deliver();
      }, slow);
      this.pending.add(timer);
    } else {
      deliver();
    }
  }
}

function parseJsonBody(req: http.IncomingMessage, body: Buffer | "too-large"): unknown {
  if (body === "too-large") return problem(413, `request body exceeds ${MAX_BODY_BYTES} bytes`);
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") return problem(415, `content-type must be application/json, got '${type || "none"}'`);
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (err) {
    // The parser's message quotes the body, which may hold a registry password: only the position.
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    return problem(400, `request body is not valid JSON${at ? ` (at position ${at})` : ""}`);
  }
}

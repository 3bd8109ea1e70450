// The emulator's HTTP front: routing, auth (spec 5), rate limits (spec 8), faults, body
// limits, the request log, and persistence after every change. Handlers in ./pods and
// ./network-volumes throw HttpError; the GraphQL side is ServerlessService.
//
//   GET    /v2/pods                     listPods
//   POST   /v2/pods                     createPod
//   GET    /v2/pods/{id}                getPod
//   PATCH  /v2/pods/{id}                updatePod
//   DELETE /v2/pods/{id}                deletePod
//   POST   /v2/pods/{id}/action         podAction
//   GET    /v2/catalog/{cpus|gpus|datacenters}
//   GET|POST /v2/network-volumes, GET|PATCH|DELETE /v2/network-volumes/{id}
//   POST   /v2/{id}/runsync             runSync (hosted models)
//   POST   /graphql?api_key=            the ops ServerlessService names
//   GET    anything ServerlessService.image() knows (the PNGs of output.image_url), no auth

import { createHash, randomBytes } from "node:crypto";
import * as http from "node:http";
import type { Socket } from "node:net";
import { CPU_FLAVORS, DATA_CENTERS, GPU_TYPES } from "./catalog";
import { checkRate, type Faults, seededRandom, toRegExp } from "./faults";
import { type NetworkVolume, NetworkVolumes } from "./network-volumes";
import { type PodRecord, type PodView, Pods } from "./pods";
import { HttpError, problem } from "./problem";
import { type Quotas, RateLimiter } from "./rate-limit";
import { ServerlessService } from "./serverless";
import { readStateFile, writeFileAtomic } from "./state-file";

export type Scope = "read" | "write";

export interface ApiKey {
  /** The bearer token (and GraphQL `api_key`). */
  key: string;
  /** What the key may do: `read` for GET and GraphQL queries, `write` for everything else. */
  scopes: Scope[];
}

export interface Timings {
  /** Emulated milliseconds a pod stays PROVISIONING. @default 2000 */
  provisioningMs: number;
  /** Emulated milliseconds a container stays STARTING (pods and serverless workers). @default 3000 */
  startingMs: number;
  /** Emulated milliseconds a drained serverless worker stays EXITED before it is gone. @default 3000 */
  drainMs: number;
}

/** One request as the log keeps it; `key` is a fingerprint, never the key. */
export interface RequestLogEntry {
  at: string;
  method: string;
  /** Without the query string (which may carry `api_key`). */
  path: string;
  status: number;
  key: string | null;
  /** The operation name; GraphQL requests list the root fields that ran, comma-separated. */
  op: string;
  /** True when the `dropAfterProcessRate` fault destroyed the socket instead of answering. */
  dropped: boolean;
}

export interface EmulatorState {
  /** Every pod, TERMINATED ones included, as GET /v2/pods/{id} would answer. */
  pods: PodView[];
  networkVolumes: NetworkVolume[];
  endpoints: readonly unknown[];
}

export interface ServerConfig {
  keys: ApiKey[];
  quotas: Quotas;
  timings: Timings;
  timeScale: number;
  faults: Faults;
  stateFile?: string;
  logCapacity: number;
  clock: { now(): number };
}

interface Reply {
  status: number;
  body?: unknown;
  /** Raw bytes with their content type (the PNGs). */
  raw?: { data: Buffer; contentType: string };
  headers?: Record<string, string>;
  /** GraphQL: the root fields that ran, for the log and counts. */
  ops?: string[];
}

type Kind = "rest" | "graphql" | "runsync" | "image";

interface Route {
  op: string;
  kind: Kind;
  /** Whether the call changes state: needs the `write` scope, and triggers a state-file write. */
  mutates: boolean;
  /** Whether the request carries a JSON body. */
  hasBody: boolean;
  run: (body: unknown, caller: { canWrite: boolean }) => Reply | Promise<Reply>;
}

const MAX_BODY_BYTES = 1024 * 1024;
/** Beyond this a too-large body is no longer drained: the socket is cut. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;
const STATE_VERSION = 1;

const GRAPHQL_CODES: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMITED",
};

function fingerprint(key: string): string {
  return `key_${createHash("sha256").update(key).digest("hex").slice(0, 8)}`;
}

function randomTail(n: number): string {
  return randomBytes(n)
    .toString("base64")
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .padEnd(n, "0")
    .slice(0, n);
}

export class EmulatorServer {
  readonly server: http.Server;
  private readonly pods: Pods;
  private readonly volumes: NetworkVolumes;
  readonly serverless: ServerlessService;
  private readonly limiter: RateLimiter;
  private faults: Faults = {};
  private errorImages: RegExp[] = [];
  private random: () => number = seededRandom(1);
  private readonly log: RequestLogEntry[] = [];
  private logNext = 0;
  private readonly opCounts = new Map<string, number>();
  private readonly keys = new Map<string, ApiKey>();
  private readonly sockets = new Set<Socket>();
  private readonly pending = new Set<NodeJS.Timeout>();
  private idCounter = 0;
  private numberCounter = 0;
  private baseUrl = "";
  private closed = false;

  constructor(private readonly config: ServerConfig) {
    for (const k of config.keys) this.keys.set(k.key, k);
    this.setFaults(config.faults);
    const now = () => config.clock.now();
    this.limiter = new RateLimiter(config.quotas, config.timeScale, now);
    this.volumes = new NetworkVolumes(
      () => this.newId("nv"),
      (id) => this.pods.mounts(id),
    );
    this.pods = new Pods({
      now,
      timings: () => ({
        provisioningMs: config.timings.provisioningMs / config.timeScale,
        startingMs: config.timings.startingMs / config.timeScale,
      }),
      timeScale: config.timeScale,
      newId: () => this.newId("p"),
      nextNumber: () => ++this.numberCounter,
      volume: (id) => this.volumes.byId.get(id),
      failsToStart: (image) => this.errorImages.some((re) => re.test(image)),
      hasCapacity: (gpuId, dc) =>
        !(this.faults.noCapacity ?? []).some(
          (f) => f.gpuId === gpuId && (f.dataCenterId === undefined || f.dataCenterId === dc),
        ),
    });
    this.serverless = new ServerlessService({
      clock: { now },
      timings: {
        startingMs: config.timings.startingMs / config.timeScale,
        drainMs: config.timings.drainMs / config.timeScale,
      },
      random: seededRandom((config.faults.seed ?? 1) ^ 0x5eed),
      imageBaseUrl: () => this.baseUrl,
    });
    if (config.stateFile) {
      this.load(config.stateFile);
      // Written once at start so an unwritable path fails here, not on the first change.
      this.persist();
    }
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        // A bug in a handler must not take the server down; the caller sees a 500.
        console.error("emulator: unexpected error", err);
        if (!res.headersSent) this.send(res, this.problemReply(problem(500, "unexpected error in the emulator")));
        else res.destroy();
      });
    });
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
  }

  setBaseUrl(url: string): void {
    this.baseUrl = url;
  }

  setFaults(faults: Faults): void {
    for (const name of ["rate429", "rate5xx", "dropAfterProcessRate"] as const) checkRate(name, faults[name]);
    if (faults.slowMs !== undefined && !(faults.slowMs >= 0)) {
      throw new RangeError(`faults.slowMs must be >= 0, got ${faults.slowMs}`);
    }
    this.faults = { ...faults, noCapacity: [...(faults.noCapacity ?? [])] };
    this.errorImages = (faults.errorImages ?? []).map(toRegExp);
    // A new seed restarts the sequence; without one the current sequence continues.
    if (faults.seed !== undefined) this.random = seededRandom(faults.seed);
  }

  private newId(prefix: string): string {
    return `${prefix}${(++this.idCounter).toString(36).padStart(4, "0")}${randomTail(8)}`;
  }

  // ---- introspection ----

  requestLog(): RequestLogEntry[] {
    const n = this.log.length;
    if (n < this.config.logCapacity) return this.log.map((e) => ({ ...e }));
    return [...this.log.slice(this.logNext), ...this.log.slice(0, this.logNext)].map((e) => ({ ...e }));
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.opCounts);
  }

  state(): EmulatorState {
    return {
      pods: this.pods.all().map((p) => this.pods.view(p)),
      networkVolumes: this.volumes.list(),
      endpoints: structuredClone(this.serverless.endpoints()),
    };
  }

  private record(entry: RequestLogEntry, ops: string[]): void {
    if (this.log.length < this.config.logCapacity) this.log.push(entry);
    else this.log[this.logNext] = entry;
    this.logNext = (this.logNext + 1) % this.config.logCapacity;
    for (const op of ops) this.opCounts.set(op, (this.opCounts.get(op) ?? 0) + 1);
  }

  // ---- persistence ----

  private load(file: string): void {
    const saved = readStateFile(file) as
      | {
          version: number;
          idCounter: number;
          numberCounter: number;
          pods: PodRecord[];
          networkVolumes: { id: string; name: string; size: number; dataCenter: string }[];
          serverless: unknown;
        }
      | undefined;
    if (saved === undefined) return;
    if (saved.version !== STATE_VERSION) {
      throw new Error(`state file ${file} has version ${saved.version}; this emulator reads version ${STATE_VERSION}`);
    }
    this.idCounter = saved.idCounter;
    this.numberCounter = saved.numberCounter;
    for (const pod of saved.pods) this.pods.byId.set(pod.id, pod);
    for (const v of saved.networkVolumes) this.volumes.byId.set(v.id, v);
    if (saved.serverless !== undefined) this.serverless.restore(saved.serverless);
  }

  /** Writes the whole state atomically; called after every change, before the reply. */
  persist(): void {
    if (!this.config.stateFile) return;
    const data = {
      version: STATE_VERSION,
      savedAt: new Date().toISOString(),
      idCounter: this.idCounter,
      numberCounter: this.numberCounter,
      pods: [...this.pods.byId.values()],
      networkVolumes: [...this.volumes.byId.values()],
      serverless: this.serverless.snapshot(),
    };
    writeFileAtomic(this.config.stateFile, `${JSON.stringify(data, null, 1)}\n`);
  }

  // ---- routing ----

  private route(method: string, path: string): Route | { allow: string[] } | undefined {
    let seg: string[];
    try {
      seg = path.split("/").filter((s) => s.length > 0).map(decodeURIComponent);
    } catch {
      return undefined; // a malformed %-escape names no resource
    }
    const table: Record<string, Omit<Route, "kind"> & { kind?: Kind }> = {};
    const rest = (op: string, mutates: boolean, run: Route["run"], hasBody = mutates) =>
      ({ op, mutates, hasBody, run }) as Omit<Route, "kind">;
    const ok = (status: number, body?: unknown): Reply => ({ status, body });

    if (seg.length === 1 && seg[0] === "graphql") {
      table.POST = {
        op: "graphql",
        kind: "graphql",
        mutates: false,
        hasBody: true,
        run: async (body, caller) => {
          const r = await this.serverless.executeGraphql(body, caller);
          return { status: r.status, body: r.body, ops: r.ops };
        },
      };
    } else if (seg[0] !== "v2") {
      return undefined;
    } else if (seg.length === 3 && seg[2] === "runsync" && seg[1] !== "catalog") {
      table.POST = {
        ...rest("runSync", false, (body) => this.serverless.runSync(seg[1], body), true),
        kind: "runsync",
      };
    } else if (seg[1] === "pods" && seg.length === 2) {
      table.GET = rest("listPods", false, () => ok(200, { pods: this.pods.list().map((p) => this.pods.view(p)) }));
      table.POST = rest("createPod", true, (b) => ok(201, this.pods.view(this.pods.create(b))));
    } else if (seg[1] === "pods" && seg.length === 3) {
      const id = seg[2];
      table.GET = rest("getPod", false, () => ok(200, this.pods.view(this.pods.get(id))));
      table.PATCH = rest("updatePod", true, (b) => ok(200, this.pods.view(this.pods.update(id, b))));
      table.DELETE = rest(
        "deletePod",
        true,
        () => {
          this.pods.delete(id);
          return ok(204);
        },
        false,
      );
    } else if (seg[1] === "pods" && seg.length === 4 && seg[3] === "action") {
      const id = seg[2];
      table.POST = rest("podAction", true, (b) => {
        const pod = this.pods.action(id, b);
        return pod.status === "TERMINATED" ? ok(204) : ok(200, this.pods.view(pod));
      });
    } else if (seg[1] === "catalog" && seg.length === 3) {
      const lists: Record<string, [string, () => unknown]> = {
        cpus: ["listCpus", () => ({ cpus: structuredClone(CPU_FLAVORS) })],
        gpus: ["listGpus", () => ({ gpus: structuredClone(GPU_TYPES) })],
        datacenters: ["listDataCenters", () => ({ dataCenters: structuredClone(DATA_CENTERS) })],
      };
      const entry = lists[seg[2]];
      if (!entry) return undefined;
      table.GET = rest(entry[0], false, () => ok(200, entry[1]()));
    } else if (seg[1] === "network-volumes" && seg.length === 2) {
      table.GET = rest("listNetworkVolumes", false, () => ok(200, { networkVolumes: this.volumes.list() }));
      table.POST = rest("createNetworkVolume", true, (b) => ok(201, this.volumes.create(b)));
    } else if (seg[1] === "network-volumes" && seg.length === 3) {
      const id = seg[2];
      table.GET = rest("getNetworkVolume", false, () => ok(200, this.volumes.get(id)));
      table.PATCH = rest("updateNetworkVolume", true, (b) => ok(200, this.volumes.update(id, b)));
      table.DELETE = rest(
        "deleteNetworkVolume",
        true,
        () => {
          this.volumes.delete(id);
          return ok(204);
        },
        false,
      );
    } else {
      return undefined;
    }
    const found = table[method];
    if (!found) return { allow: Object.keys(table) };
    return { kind: "rest", ...found } as Route;
  }

  // ---- the request pipeline ----

  private async readBody(req: http.IncomingMessage): Promise<Buffer | "too-large" | "cut"> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_DRAIN_BYTES) return "cut";
      // Past the limit the rest is read and dropped, so the 413 reaches a client still sending.
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    }
    return size > MAX_BODY_BYTES ? "too-large" : Buffer.concat(chunks);
  }

  private authenticate(req: http.IncomingMessage, url: URL, kind: Kind): ApiKey | HttpError {
    let token: string | null = null;
    if (kind === "graphql") {
      token = url.searchParams.get("api_key");
      if (!token) return problem(401, "missing api_key query parameter");
    } else {
      const header = req.headers.authorization;
      if (!header) return problem(401, "missing Authorization header; send 'Authorization: Bearer <API_KEY>'");
      const m = /^Bearer ([\x21-\x7e]+)$/i.exec(header);
      if (!m) return problem(401, "malformed Authorization header; expected 'Bearer <API_KEY>'");
      token = m[1];
    }
    const key = this.keys.get(token);
    if (!key) return problem(401, "invalid API key");
    return key;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // The request target is a path: "//" must not throw, and "//host/v2/pods" must not route as /v2/pods.
    const url = new URL(`http://emulator.invalid${req.url?.startsWith("/") ? req.url : "/"}`);
    const method = req.method ?? "GET";
    const body = await this.readBody(req);
    if (body === "cut") {
      req.socket.destroy();
      return;
    }
    const entry: RequestLogEntry = {
      at: new Date(this.config.clock.now()).toISOString(),
      method,
      path: url.pathname,
      status: 0,
      key: null,
      op: "unknown",
      dropped: false,
    };
    let ops: string[] = [];
    const finish = (reply: Reply, drop = false): void => {
      entry.status = reply.status;
      entry.dropped = drop;
      this.record(entry, ops);
      const deliver = () => {
        if (drop) res.socket?.destroy();
        else this.send(res, reply);
      };
      const slow = this.faults.slowMs ?? 0;
      if (slow > 0 && entry.key !== null) {
        const timer = setTimeout(() => {
          this.pending.delete(timer);
          deliver();
        }, slow);
        this.pending.add(timer);
      } else {
        deliver();
      }
    };

    const route = this.route(method, url.pathname);
    if (route === undefined) {
      const png = method === "GET" ? this.serverless.image(url.pathname) : undefined;
      if (png) {
        entry.op = "image";
        return finish({ status: 200, raw: { data: png, contentType: "image/png" } });
      }
      return finish(this.problemReply(problem(404, `no route for ${method} ${url.pathname}`)));
    }
    if ("allow" in route) {
      const err = problem(405, `${method} is not allowed on ${url.pathname}; allowed: ${route.allow.join(", ")}`);
      err.headers.allow = route.allow.join(", ");
      return finish(this.problemReply(err));
    }
    entry.op = route.op;
    ops = [route.op];
    const shape = (err: HttpError, headers: Record<string, string> = {}): Reply => {
      const r = route.kind === "graphql" ? this.graphqlError(err) : this.problemReply(err);
      return { ...r, headers: { ...r.headers, ...headers } };
    };

    const key = this.authenticate(req, url, route.kind);
    if (key instanceof HttpError) {
      return finish(shape(key, { "www-authenticate": route.kind === "graphql" ? "" : "Bearer" }));
    }
    entry.key = fingerprint(key.key);

    // Every fault roll happens here, in a fixed order, so a seed gives the same sequence.
    const roll = (rate: number | undefined) => (rate ? this.random() < rate : false);
    const storm = roll(this.faults.rate429);
    const fail5xx = roll(this.faults.rate5xx);
    const drop = roll(this.faults.dropAfterProcessRate);

    const rate = this.limiter.take(key.key);
    if (rate.exceeded) {
      const err = problem(429, `rate limit exceeded for the ${rate.exceeded} window; retry after ${rate.retryAfterSec} s`);
      return finish(shape(err, rate.headers));
    }
    if (storm) {
      const err = problem(429, "rate limit exceeded for the minute window; retry after 1 s");
      return finish(shape(err, this.limiter.stormHeaders(key.key)));
    }
    const canWrite = key.scopes.includes("write");
    if (route.mutates && !canWrite) {
      return finish(shape(problem(403, `${route.op} needs a key with the 'write' scope; this key is read-only`), rate.headers));
    }
    if (!route.mutates && !key.scopes.includes("read") && route.kind === "rest") {
      return finish(shape(problem(403, `${route.op} needs a key with the 'read' scope`), rate.headers));
    }
    if (fail5xx) {
      const status = [500, 502, 503][Math.floor(this.random() * 3)];
      const err = problem(status, "injected fault: the platform failed");
      return finish(shape(err, rate.headers));
    }

    let parsed: unknown;
    if (route.hasBody) {
      if (body === "too-large") {
        return finish(shape(problem(413, `request body exceeds ${MAX_BODY_BYTES} bytes`), rate.headers));
      }
      const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
      if (type !== "application/json") {
        return finish(
          shape(problem(415, `content-type must be application/json, got '${type || "none"}'`), rate.headers),
        );
      }
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch (err) {
        return finish(shape(problem(400, `request body is not valid JSON: ${(err as Error).message}`), rate.headers));
      }
    }

    let reply: Reply;
    try {
      reply = await route.run(parsed, { canWrite });
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      return finish(shape(err, rate.headers), drop);
    }
    if (route.kind === "graphql") {
      ops = reply.ops?.length ? reply.ops : ["graphql"];
      entry.op = ops.join(",");
    }
    if (reply.status < 400 && (route.mutates || (route.kind === "graphql" && canWrite))) this.persist();
    return finish({ ...reply, headers: { ...reply.headers, ...rate.headers } }, drop);
  }

  private problemReply(err: HttpError): Reply {
    const body: Record<string, unknown> = { title: err.title, status: err.status, detail: err.detail };
    if (err.errors) body.errors = err.errors;
    return { status: err.status, body, headers: { "content-type": "application/problem+json", ...err.headers } };
  }

  private graphqlError(err: HttpError): Reply {
    const code = GRAPHQL_CODES[err.status] ?? "INTERNAL_SERVER_ERROR";
    return { status: err.status, body: { errors: [{ message: err.detail, extensions: { code } }] } };
  }

  private send(res: http.ServerResponse, reply: Reply): void {
    if (res.destroyed) return;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(reply.headers ?? {})) if (v !== "") headers[k] = v;
    if (this.closed) headers.connection = "close";
    if (reply.raw) {
      res.writeHead(reply.status, { ...headers, "content-type": reply.raw.contentType });
      res.end(reply.raw.data);
      return;
    }
    if (reply.body === undefined || reply.status === 204) {
      delete headers["content-type"];
      res.writeHead(reply.status, headers);
      res.end();
      return;
    }
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      "content-type": headers["content-type"] ?? "application/json",
      ...headers,
      "content-length": String(Buffer.byteLength(text)),
    });
    res.end(text);
  }

  async listen(port: number, host: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    const addr = this.server.address();
    if (addr === null || typeof addr === "string") throw new Error("emulator: no TCP address after listen");
    const shownHost = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    this.baseUrl = `http://${shownHost}:${addr.port}`;
    return this.baseUrl;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
    this.serverless.close();
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    for (const socket of this.sockets) socket.destroy();
    await closing;
    this.persist();
  }
}

// The emulator's wiring (its composition root): one instance of each service over shared ids,
// clock and faults, their routes in one table, their state parts in one file, and the HTTP
// server around the pipeline. Each service is a folder holding its store and its routes; what
// they share (pipeline, validation, rate limits, faults, meter, state file) is in ./core.
//
//   /v2/pods...                 ./pods/routes.ts
//   /v2/network-volumes...      ./network-volumes/routes.ts
//   /v2/catalog/...             ./catalog/routes.ts
//   /v2/templates...            ./templates/routes.ts
//   /v2/registries...           ./registries/routes.ts
//   /v2/billing...              ./billing/routes.ts (from ./core/meter.ts: what actually ran)
//   /v2/serverless...           ./serverless/rest/routes.ts (the GraphQL side's endpoint store)
//   POST /graphql, /v2/{id}/runsync   ./serverless/routes.ts
//   GET  the PNGs of output.image_url (no auth)
//   /emulator/faults, /emulator/events   ./control/routes.ts (the control plane)
//   /console...                 ./console (pages for a browser, outside the pipeline)

import * as http from "node:http";
import type { Socket } from "node:net";
import { Account, DEFAULT_ACCOUNT, type Timings } from "./account";
import type { JobHandler, JobLimits } from "./serverless/jobs/job";
import { Console, controlPath, isConsolePath, Sessions } from "./console";
import { clockRoutes } from "./control/clock";
import { AdjustableClock } from "./core/clock";
import { FaultState, type Faults } from "./core/faults";
import { Ids } from "./core/ids";
import type { NetworkVolume } from "./network-volumes/store";
import { Persistence } from "./core/persistence";
import type { PodView } from "./pods/store";
import { problem } from "./core/problem";
import { type Quotas, RateLimiter } from "./core/rate-limit";
import { RequestLog, type RequestLogEntry } from "./core/request-log";
import { catalogRoutes } from "./catalog/routes";
import type { Registry } from "./registries/store";
import type { Template } from "./templates/store";
import { endpointSchema } from "./serverless/graphql/schema";
import { type Exchange, ExchangeRecorder } from "./core/http/exchanges";
import { Pipeline } from "./core/http/pipeline";
import { type ListOrder, ListOrdering } from "./core/http/list-order";
import { HostCheck, hostName } from "./core/http/host";
import type { ApiKey, Group } from "./core/http/types";

export { DEFAULT_ACCOUNT, type Timings };

export interface EmulatorState {
  /** Every pod, TERMINATED ones included, as GET /v2/pods/{id} would answer. */
  pods: PodView[];
  networkVolumes: NetworkVolume[];
  templates: Template[];
  /** Names and ids only: credentials are never kept. */
  registries: Registry[];
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
  /** Exchanges kept for `exchanges()`; 0 keeps none. */
  exchangeCapacity: number;
  /** A GraphQL save resets the optional fields it leaves out (see EmulatorOptions). */
  graphqlSaveResets?: boolean;
  /** The worker of the account endpoints' jobs (see EmulatorOptions.handler). */
  handler?: JobHandler;
  /** Limits on jobs and held calls (see EmulatorOptions.jobLimits). */
  jobLimits?: Partial<JobLimits>;
  /** The order of list answers (see EmulatorOptions). */
  listOrder?: ListOrder;
  /** Host names served besides the loopback names and the bound address (see EmulatorOptions). */
  allowedHosts?: string[];
}

export class EmulatorServer {
  readonly server: http.Server;
  /** The default account's serverless service (the first key's account). */
  readonly serverless: Account["serverless"];
  /** Every account by name, the default (first key's) first. */
  readonly accounts = new Map<string, Account>();
  private readonly main: Account;
  private readonly faults: FaultState;
  private readonly log: RequestLog;
  private readonly persistence: Persistence;
  private readonly pipeline: Pipeline;
  private readonly recorder?: ExchangeRecorder;
  private readonly sockets = new Set<Socket>();
  private readonly console: Console;
  private readonly sessions: Sessions;
  private readonly hosts: HostCheck;
  private baseUrl = "";
  private closed = false;

  /** The emulator's clock: the given time source plus what the user moved it forward. */
  readonly clock: AdjustableClock;

  constructor(config: ServerConfig) {
    this.clock = new AdjustableClock(config.clock);
    this.hosts = new HostCheck(config.allowedHosts ?? []);
    const clock = this.clock;
    const now = () => clock.now();
    const ids = new Ids();
    this.faults = new FaultState(config.faults);
    this.log = new RequestLog(config.logCapacity);
    // Routes every account serves alike; moving the clock brings every account's jobs up to it.
    const common: Group[] = [
      catalogRoutes((gpuId, dc) => this.faults.hasCapacity(gpuId, dc)),
      clockRoutes(clock, config.timeScale, () => {
        for (const a of this.accounts.values()) a.serverless.endpointJobs.sync(now());
      }),
    ];
    const shared = {
      clock,
      ids,
      faults: this.faults,
      timings: config.timings,
      timeScale: config.timeScale,
      seed: config.faults.seed,
      graphqlSaveResets: config.graphqlSaveResets,
      handler: config.handler,
      jobLimits: config.jobLimits,
      baseUrl: () => this.baseUrl,
      common,
    };
    // One account per name the keys give, in the order of the keys: the first key's is the
    // default one, which `state()` and the state file's unprefixed parts stand for (the console
    // and `states()` show every account).
    for (const k of config.keys) {
      const name = accountOf(k);
      if (!this.accounts.has(name)) this.accounts.set(name, new Account(name, shared));
    }
    this.main = this.accounts.get(accountOf(config.keys[0]))!;
    const own = this.main;
    this.serverless = own.serverless;
    this.persistence = new Persistence(config.stateFile);
    // The clock first: the parts after it may read the time as they restore.
    this.persistence.register(clock.stateParts());
    this.persistence.register(ids.stateParts());
    for (const g of common) this.persistence.register(g.state ?? []);
    for (const a of this.accounts.values()) this.persistence.register(a.state);
    this.persistence.open();

    const keys = new Map(config.keys.map((k) => [k.key, k]));
    const sessions = new Sessions();
    this.sessions = sessions;
    this.console = new Console({
      sessions,
      keys,
      log: this.log,
      clock,
      accountOf,
      source: {
        accounts: () =>
          [...this.accounts.values()].map((a) => ({
            name: a.name,
            pods: () => a.pods.all().map((p) => a.pods.view(p)),
            endpoints: () => a.serverless.endpoints(),
            endpointJobs: (id: string) => ({ health: a.serverless.endpointJobs.health(id), recent: a.serverless.endpointJobs.recent(id, 10) }),
            endpointReleases: (id: string) => a.restEndpoints.releases(id),
            volumes: () => a.volumes.list(),
            templates: () => a.templates.list(),
            registries: () => a.registries.list(),
            segments: () => a.meter.overlapping(-Infinity, Infinity),
            now,
          })),
        requestLog: () => this.log.entries(),
        faults: () => this.faults.current(),
      },
    });

    if (config.exchangeCapacity > 0) this.recorder = new ExchangeRecorder(config.exchangeCapacity);
    const routers = new Map([...this.accounts].map(([name, a]) => [name, a.router]));
    this.pipeline = new Pipeline({
      recorder: this.recorder,
      router: own.router,
      // One account answers every request as it always has; with several, the key's does.
      routerOf: this.accounts.size > 1 ? (key) => ({ account: accountOf(key), router: routers.get(accountOf(key))! }) : undefined,
      keys,
      sessions: (req, mutates) => sessions.caller(req, mutates),
      limiter: new RateLimiter(
        config.quotas,
        config.timeScale,
        now,
        new Map(config.keys.filter((k) => k.quotas).map((k) => [k.key, { ...config.quotas, ...k.quotas }])),
      ),
      faults: this.faults,
      log: this.log,
      clock,
      persist: () => this.persistence.save(),
      graphqlMutations: new Set(Object.keys(endpointSchema().getMutationType()?.getFields() ?? {})),
      // The PNGs behind output.image_url carry no key: any account's hosted model may have made one.
      fallback: (method, path) => {
        if (method !== "GET") return undefined;
        for (const a of this.accounts.values()) {
          const png = a.serverless.image(path);
          if (png) return { status: 200, raw: { data: png, contentType: "image/png" } };
        }
        return undefined;
      },
      closing: () => this.closed,
      listOrder: new ListOrdering(config.listOrder ?? "created", config.faults.seed ?? 1),
    });
    this.server = http.createServer((req, res) => {
      // Before sign-in, pages, the control plane and the API: only the emulator's own host names.
      if (!this.hosts.allows(req.headers.host)) {
        const name = hostName(req.headers.host ?? "");
        req.resume();
        this.pipeline.sendProblem(res, problem(421, `this emulator serves only its own host names (${this.hosts.describe()}), not '${name.slice(0, 200)}'`));
        return;
      }
      // The pages' calls of the control plane come under /console, where their cookie is sent.
      const control = controlPath(req.url ?? "/");
      if (control) req.url = control;
      const path = (req.url ?? "/").split("?")[0];
      const handled = !control && isConsolePath(path) ? this.console.handle(req, res) : this.pipeline.handle(req, res);
      handled.catch((err) => {
        // A bug in a handler must not take the server down; the caller sees a 500.
        console.error("emulator: unexpected error", err);
        if (!res.headersSent) this.pipeline.sendProblem(res, problem(500, "unexpected error in the emulator"));
        else res.destroy();
      });
    });
    // Idle keep-alive sockets stay open for a minute, as behind the platform's load balancer.
    // With Node's 5 s default a client that reuses a socket just as the server drops it gets
    // ECONNRESET on a request that never arrived (seen on a loaded machine). close() destroys
    // every socket, so a long timeout never holds a shutdown.
    this.server.keepAliveTimeout = 65_000;
    this.server.headersTimeout = 66_000;
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
  }

  setBaseUrl(url: string): void {
    this.baseUrl = url;
  }

  setFaults(faults: Faults): void {
    this.faults.set(faults);
  }

  requestLog(): RequestLogEntry[] {
    return this.log.entries();
  }

  exchanges(): Exchange[] {
    return this.recorder?.all() ?? [];
  }

  counts(): Record<string, number> {
    return this.log.counts();
  }

  /** What `account` holds (the default account when none is named). */
  state(account?: string): EmulatorState {
    const a = account === undefined ? this.main : this.accounts.get(account);
    if (!a) throw new RangeError(`no account '${account}' (accounts: ${[...this.accounts.keys()].join(", ")})`);
    return {
      pods: a.pods.all().map((p) => a.pods.view(p)),
      networkVolumes: a.volumes.list(),
      templates: a.templates.list(),
      registries: a.registries.list(),
      endpoints: structuredClone(a.serverless.endpoints()),
    };
  }

  /** What every account holds, by name, in the order of the keys. */
  states(): Record<string, EmulatorState> {
    return Object.fromEntries([...this.accounts.keys()].map((name) => [name, this.state(name)]));
  }

  /** Writes the state file now (it is also written after every change). */
  persist(): void {
    this.persistence.save();
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
    this.sessions.bind(addr.port);
    this.hosts.bind(addr.address);
    const shownHost = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    this.baseUrl = `http://${shownHost}:${addr.port}`;
    this.persistence.announce(this.baseUrl);
    return this.baseUrl;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pipeline.cancelPending();
    for (const a of this.accounts.values()) a.close();
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    for (const socket of this.sockets) socket.destroy();
    await closing;
    this.persistence.close();
  }
}

/** The account a key belongs to. */
function accountOf(k: ApiKey): string {
  return k.account ?? DEFAULT_ACCOUNT;
}

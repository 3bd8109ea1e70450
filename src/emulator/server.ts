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
import { MODEL_CALL_PRICE, serverlessTierPrice, volumePricePerHour } from "./catalog/data";
import type { JobHandler } from "./serverless/jobs/job";
import { Meter } from "./core/meter";
import { computePrice } from "./pods/view";
import { billingRoutes } from "./billing/routes";
import { Console, controlPath, isConsolePath, Sessions } from "./console";
import { clockRoutes } from "./control/clock";
import { controlRoutes } from "./control/routes";
import { AdjustableClock } from "./core/clock";
import { FaultState, type Faults, seededRandom } from "./core/faults";
import { Ids } from "./core/ids";
import { type NetworkVolume, NetworkVolumes } from "./network-volumes/store";
import { Persistence } from "./core/persistence";
import { type PodView, Pods } from "./pods/store";
import { problem } from "./core/problem";
import { type Quotas, RateLimiter } from "./core/rate-limit";
import { RequestLog, type RequestLogEntry } from "./core/request-log";
import { catalogRoutes } from "./catalog/routes";
import { networkVolumeRoutes } from "./network-volumes/routes";
import { Registries, type Registry } from "./registries/store";
import { podRoutes } from "./pods/routes";
import { registryRoutes } from "./registries/routes";
import { restServerlessRoutes } from "./serverless/rest/routes";
import { templateRoutes } from "./templates/routes";
import { type Template, Templates } from "./templates/store";
import { ServerlessService } from "./serverless/service";
import { RestEndpoints } from "./serverless/rest/endpoints";
import { serverlessRoutes } from "./serverless/routes";
import { endpointSchema } from "./serverless/graphql/schema";
import { type Exchange, ExchangeRecorder } from "./core/http/exchanges";
import { Pipeline } from "./core/http/pipeline";
import { type ListOrder, ListOrdering } from "./core/http/list-order";
import { Router } from "./core/http/router";
import { HostCheck, hostName } from "./core/http/host";
import type { ApiKey, Group } from "./core/http/types";

export interface Timings {
  /** Emulated milliseconds a pod stays PROVISIONING. @default 2000 */
  provisioningMs: number;
  /** Emulated milliseconds a container stays STARTING (pods and serverless workers). @default 3000 */
  startingMs: number;
  /** Emulated milliseconds a drained serverless worker stays EXITED before it is gone. @default 3000 */
  drainMs: number;
  /**
   * Emulated milliseconds between an update that restarts a RUNNING pod's container and the
   * restart (the pod reads RUNNING until then, STARTING after). @default 1000
   */
  restartDelayMs: number;
}

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
  /** The order of list answers (see EmulatorOptions). */
  listOrder?: ListOrder;
  /** Host names served besides the loopback names and the bound address (see EmulatorOptions). */
  allowedHosts?: string[];
}

export class EmulatorServer {
  readonly server: http.Server;
  readonly serverless: ServerlessService;
  private readonly pods: Pods;
  private readonly volumes: NetworkVolumes;
  private readonly templates: Templates;
  private readonly registries: Registries;
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
    const meter = new Meter();
    this.faults = new FaultState(config.faults);
    this.log = new RequestLog(config.logCapacity);
    this.volumes = new NetworkVolumes(
      () => ids.newId("nv"),
      (id) => this.pods.using("volume", id) ?? this.serverless.endpointUsing("networkVolumeId", id),
      (v, on) => {
        const component = v.type === "STANDARD" ? "storageStandard" : "storageHighPerformance";
        if (on) meter.open("networkVolume", v.id, component, volumePricePerHour(v.size, v.type), now());
        else meter.close("networkVolume", v.id, now());
      },
    );
    this.registries = new Registries(
      () => ids.newId("reg"),
      (id) => this.pods.using("registry", id) ?? templateName(this.templates.usesRegistry(id)),
    );
    this.templates = new Templates({
      newId: () => ids.newId("tpl"),
      registryExists: (id) => this.registries.has(id),
      usedBy: (id) => this.serverless.endpointUsing("templateId", id),
      // The endpoints bound to it release the change (and roll, when it reaches their workers).
      changed: (before, after, except) => this.serverless.templateChanged(before, after, except),
    });
    this.pods = new Pods({
      now,
      timings: () => ({
        provisioningMs: config.timings.provisioningMs / config.timeScale,
        startingMs: config.timings.startingMs / config.timeScale,
        restartDelayMs: config.timings.restartDelayMs / config.timeScale,
      }),
      timeScale: config.timeScale,
      newId: () => ids.newId("p"),
      nextNumber: () => ids.nextNumber(),
      volume: (id) => this.volumes.byId.get(id),
      registryExists: (id) => this.registries.has(id),
      failsToStart: (image) => this.faults.failsToStart(image),
      hasCapacity: (gpuId, dc) => this.faults.hasCapacity(gpuId, dc),
      billing: (pod, on, at) => {
        if (on) meter.open("pod", pod.id, pod.gpu ? "podGpu" : "podCpu", computePrice(pod), at);
        else meter.close("pod", pod.id, at);
      },
    });
    this.serverless = new ServerlessService({
      clock: { now },
      timings: {
        startingMs: config.timings.startingMs / config.timeScale,
        drainMs: config.timings.drainMs / config.timeScale,
      },
      random: seededServerlessRandom(config.faults.seed),
      imageBaseUrl: () => this.baseUrl,
      modelJob: (prompt) => this.faults.modelJob(prompt),
      timeScale: config.timeScale,
      graphqlSaveResets: config.graphqlSaveResets,
      handler: config.handler,
      // A worker bills from its start until it leaves: gpuCount x its tier's price.
      onWorker: (ep, w, event, at) => {
        if (event === "start") meter.open("serverless", w.id, "serverlessGpu", ep.gpuCount * serverlessTierPrice(ep.gpuIds.split(",")[0]), at);
        else meter.close("serverless", w.id, at);
      },
      references: {
        isServerlessTemplate: (id) => this.templates.isServerless(id),
        volumeExists: (id) => this.volumes.has(id),
      },
      templateImage: (id) => this.templates.imageOf(id),
      failsToStart: (image) => this.faults.failsToStart(image),
    });

    const restEndpoints = new RestEndpoints({
      store: this.serverless.endpointStore,
      now,
      baseUrl: () => this.baseUrl,
      templates: this.templates,
      volumeExists: (id) => this.volumes.has(id),
      registryExists: (id) => this.registries.has(id),
      random: seededRandom((config.faults.seed ?? 1) ^ 0x7e57),
    });
    const groups: Group[] = [
      podRoutes(this.pods),
      networkVolumeRoutes(this.volumes),
      templateRoutes(this.templates),
      registryRoutes(this.registries),
      catalogRoutes((gpuId, dc) => this.faults.hasCapacity(gpuId, dc)),
      billingRoutes(meter, now),
      serverlessRoutes(this.serverless, (model) => meter.charge("endpoint", model, "endpoint", MODEL_CALL_PRICE, now()), now),
      restServerlessRoutes(restEndpoints),
      controlRoutes({ faults: this.faults, pods: this.pods, removeEndpoint: (id) => this.serverless.removeFromOutside(id) }),
      clockRoutes(clock, config.timeScale, () => this.serverless.endpointJobs.sync(now())),
    ];
    const router = new Router();
    this.persistence = new Persistence(config.stateFile);
    this.persistence.register(ids.stateParts());
    for (const g of groups) {
      router.add(g.routes);
      this.persistence.register(g.state ?? []);
    }
    this.persistence.open();

    const keys = new Map(config.keys.map((k) => [k.key, k]));
    const sessions = new Sessions();
    this.sessions = sessions;
    this.console = new Console({
      sessions,
      keys,
      log: this.log,
      clock,
      source: {
        pods: () => this.pods.all().map((p) => this.pods.view(p)),
        endpoints: () => this.serverless.endpoints(),
        endpointJobs: (id) => ({ health: this.serverless.endpointJobs.health(id), recent: this.serverless.endpointJobs.recent(id, 10) }),
        endpointReleases: (id) => restEndpoints.releases(id),
        volumes: () => this.volumes.list(),
        templates: () => this.templates.list(),
        registries: () => this.registries.list(),
        segments: () => meter.overlapping(-Infinity, Infinity),
        requestLog: () => this.log.entries(),
        faults: () => this.faults.current(),
        now,
      },
    });

    if (config.exchangeCapacity > 0) this.recorder = new ExchangeRecorder(config.exchangeCapacity);
    this.pipeline = new Pipeline({
      recorder: this.recorder,
      router,
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
      fallback: (method, path) => {
        const png = method === "GET" ? this.serverless.image(path) : undefined;
        return png ? { status: 200, raw: { data: png, contentType: "image/png" } } : undefined;
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

  state(): EmulatorState {
    return {
      pods: this.pods.all().map((p) => this.pods.view(p)),
      networkVolumes: this.volumes.list(),
      templates: this.templates.list(),
      registries: this.registries.list(),
      endpoints: structuredClone(this.serverless.endpoints()),
    };
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
    this.serverless.close();
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    for (const socket of this.sockets) socket.destroy();
    await closing;
    this.persistence.close();
  }
}

function templateName(t: Template | undefined): string | undefined {
  return t ? `template '${t.id}'` : undefined;
}

function seededServerlessRandom(seed: number | undefined): () => number {
  return seededRandom((seed ?? 1) ^ 0x5eed);
}

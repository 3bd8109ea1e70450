// One account of the emulator: a set of every service's stores over the emulator's shared ids,
// clock and faults, and the routes that serve them. Keys are grouped by account (a key's
// `account`); a request is answered by its key's account alone, so an account sees, lists and
// bills only its own objects, and another account's id is a 404 there (ids are unique across the
// emulator, as LocalStack separates accounts by access key).

import { MODEL_CALL_PRICE, serverlessTierPrice, volumePricePerHour } from "./catalog/data";
import type { JobHandler, JobLimits } from "./serverless/jobs/job";
import { Meter } from "./core/meter";
import { computePrice } from "./pods/view";
import { billingRoutes } from "./billing/routes";
import { controlRoutes } from "./control/routes";
import type { AdjustableClock } from "./core/clock";
import { type FaultState, seededRandom } from "./core/faults";
import type { Ids } from "./core/ids";
import { NetworkVolumes } from "./network-volumes/store";
import { Pods } from "./pods/store";
import { networkVolumeRoutes } from "./network-volumes/routes";
import { Registries } from "./registries/store";
import { podRoutes } from "./pods/routes";
import { registryRoutes } from "./registries/routes";
import { restServerlessRoutes } from "./serverless/rest/routes";
import { templateRoutes } from "./templates/routes";
import { type Template, Templates } from "./templates/store";
import { ServerlessService } from "./serverless/service";
import { RestEndpoints } from "./serverless/rest/endpoints";
import { serverlessRoutes } from "./serverless/routes";
import { Router } from "./core/http/router";
import type { Group, StatePart } from "./core/http/types";

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

/** The name of the account of a key that names none: every key, unless keys name accounts. */
export const DEFAULT_ACCOUNT = "default";

/** What every account shares: the emulator's clock, ids, faults and settings. */
export interface AccountShared {
  clock: AdjustableClock;
  ids: Ids;
  faults: FaultState;
  timings: Timings;
  timeScale: number;
  seed: number | undefined;
  graphqlSaveResets?: boolean;
  handler?: JobHandler;
  jobLimits?: Partial<JobLimits>;
  baseUrl: () => string;
  /** Routes every account serves alike (the catalog, the clock). */
  common: Group[];
}

export class Account {
  readonly pods: Pods;
  readonly volumes: NetworkVolumes;
  readonly templates: Templates;
  readonly registries: Registries;
  readonly serverless: ServerlessService;
  readonly restEndpoints: RestEndpoints;
  readonly meter = new Meter();
  readonly router = new Router();
  /** This account's parts of the state file. */
  readonly state: StatePart[] = [];

  constructor(
    readonly name: string,
    shared: AccountShared,
  ) {
    const { clock, ids, faults, timings, timeScale } = shared;
    const now = () => clock.now();
    const meter = this.meter;
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
        provisioningMs: timings.provisioningMs / timeScale,
        startingMs: timings.startingMs / timeScale,
        restartDelayMs: timings.restartDelayMs / timeScale,
      }),
      timeScale,
      newId: () => ids.newId("p"),
      nextNumber: () => ids.nextNumber(),
      volume: (id) => this.volumes.byId.get(id),
      registryExists: (id) => this.registries.has(id),
      failsToStart: (image) => faults.failsToStart(image),
      hasCapacity: (gpuId, dc) => faults.hasCapacity(gpuId, dc),
      billing: (pod, on, at) => {
        if (on) meter.open("pod", pod.id, pod.gpu ? "podGpu" : "podCpu", computePrice(pod), at);
        else meter.close("pod", pod.id, at);
      },
    });
    this.serverless = new ServerlessService({
      clock: { now },
      timings: { startingMs: timings.startingMs / timeScale, drainMs: timings.drainMs / timeScale },
      random: seededRandom((shared.seed ?? 1) ^ 0x5eed),
      imageBaseUrl: shared.baseUrl,
      modelJob: (prompt) => faults.modelJob(prompt),
      timeScale,
      graphqlSaveResets: shared.graphqlSaveResets,
      handler: shared.handler,
      jobLimits: shared.jobLimits,
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
      failsToStart: (image) => faults.failsToStart(image),
    });
    this.restEndpoints = new RestEndpoints({
      store: this.serverless.endpointStore,
      now,
      baseUrl: shared.baseUrl,
      templates: this.templates,
      volumeExists: (id) => this.volumes.has(id),
      registryExists: (id) => this.registries.has(id),
      random: seededRandom((shared.seed ?? 1) ^ 0x7e57),
    });
    const own: Group[] = [
      podRoutes(this.pods),
      networkVolumeRoutes(this.volumes),
      templateRoutes(this.templates),
      registryRoutes(this.registries),
      billingRoutes(meter, now),
      serverlessRoutes(this.serverless, (model) => meter.charge("endpoint", model, "endpoint", MODEL_CALL_PRICE, now()), now),
      restServerlessRoutes(this.restEndpoints),
      controlRoutes({ faults, pods: this.pods, removeEndpoint: (id) => this.serverless.removeFromOutside(id) }),
    ];
    for (const g of [...own, ...shared.common]) this.router.add(g.routes);
    // The default account's parts keep the names state files have always had; another
    // account's are prefixed with its name.
    const prefix = name === DEFAULT_ACCOUNT ? "" : `account:${name}:`;
    for (const g of own) for (const part of g.state ?? []) this.state.push({ ...part, key: `${prefix}${part.key}`, snapshot: () => part.snapshot(), restore: (s) => part.restore(s) });
  }

  close(): void {
    this.serverless.close();
  }
}

function templateName(t: Template | undefined): string | undefined {
  return t ? `template '${t.id}'` : undefined;
}

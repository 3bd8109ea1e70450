// Pods: the store and pod life. Status is derived from timestamps rather than pushed by
// timers: a pod reads as STARTING once `provisioningMs` has passed since it entered
// PROVISIONING, and so on. That is what a timer would do, but it needs nothing to stop at
// close(), is exact under any time scale, and resumes correctly from a state file written
// hours ago. The 400 rules live in ./rules, the answered object in ./view.

import { checkContainerLimits } from "../catalog/limits";
import type { NetworkVolume } from "../network-volumes/store";
import { checkCreate, checkGlobalNetworkingUpdate, nextMounts, schedule } from "./rules";
import {
  ACTIONS,
  type CreatePodBody,
  POD_ID_ENV,
  type PodAction,
  type PodRecord,
  type PodView,
  type UpdatePodBody,
} from "./types";
import { readPodRecords } from "./record";
import { podView } from "./view";
import { contractViolation, problem } from "../core/problem";
import { checkRegistryRef } from "../registries/store";
import { createPodSchema, podActionSchema, updatePodSchema, validate } from "../core/validate";

export * from "./types";

export interface PodTimings {
  /** Real milliseconds (already divided by the time scale). */
  provisioningMs: number;
  startingMs: number;
  /** How long after an update a RUNNING container's restart begins. */
  restartDelayMs: number;
}

export interface PodEnvironment {
  now: () => number;
  timings: () => PodTimings;
  timeScale: number;
  newId: () => string;
  nextNumber: () => number;
  volume: (id: string) => NetworkVolume | undefined;
  registryExists: (id: string) => boolean;
  failsToStart: (image: string) => boolean;
  hasCapacity: (gpuId: string, dataCenterId: string) => boolean;
  /** Called when the pod starts (true) or stops (false) costing money (the Pod's `cost`). */
  billing: (pod: PodRecord, on: boolean, at: number) => void;
}

/** Container disk when the request gives none. */
const DEFAULT_DISK_GB = 20;

function withoutPlatformEnv(env: Record<string, string>): Record<string, string> {
  const { [POD_ID_ENV]: _, ...rest } = env;
  return rest;
}

export class Pods {
  readonly byId = new Map<string, PodRecord>();

  constructor(private readonly env: PodEnvironment) {}

  /** Applies every transition whose time has come, in order. */
  private advance(pod: PodRecord): void {
    const now = this.env.now();
    const t = this.env.timings();
    for (;;) {
      if (pod.status === "RUNNING" && pod.restartAt !== undefined && now >= pod.restartAt) {
        const at = pod.restartAt;
        pod.restartAt = undefined;
        pod.failOnStart = this.env.failsToStart(pod.image);
        this.enterStarting(pod, at);
      } else if (pod.status === "PROVISIONING" && now >= pod.statusAt + t.provisioningMs) {
        this.enterStarting(pod, pod.statusAt + t.provisioningMs);
      } else if (pod.status === "STARTING" && now >= pod.statusAt + t.startingMs) {
        const at = pod.statusAt + t.startingMs;
        if (pod.failOnStart) {
          pod.status = "ERROR";
        } else {
          pod.status = "RUNNING";
          pod.startedAt = at;
        }
        pod.statusAt = at;
      } else {
        return;
      }
    }
  }

  /** Every (re)start of the container passes here: pending global networking takes effect. */
  private enterStarting(pod: PodRecord, at: number): void {
    pod.restartAt = undefined;
    pod.status = "STARTING";
    pod.statusAt = at;
    if (pod.globalNetworkingWanted && !pod.globalIp) pod.globalIp = this.globalIp();
    if (!pod.globalNetworkingWanted) pod.globalIp = undefined;
  }

  private restartContainer(pod: PodRecord): void {
    pod.failOnStart = this.env.failsToStart(pod.image);
    this.enterStarting(pod, this.env.now());
  }

  private globalIp(): string {
    const n = this.env.nextNumber();
    return `10.66.${(n >> 8) & 255}.${n & 255}`;
  }

  private publicPorts(count: number): number[] {
    return Array.from({ length: count }, () => 10000 + (this.env.nextNumber() % 50000));
  }

  private mustGet(id: string): PodRecord {
    const pod = this.byId.get(id);
    if (!pod) throw problem(404, `pod '${id}' not found`);
    this.advance(pod);
    return pod;
  }

  create(body: unknown): PodRecord {
    const errors = validate(createPodSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const b = body as CreatePodBody;
    checkCreate(b);
    checkRegistryRef("registry", b.registry, this.env.registryExists);
    let volume: NetworkVolume | undefined;
    const netMount = b.mounts?.network?.[0];
    if (netMount) {
      volume = this.env.volume(netMount.volumeId);
      if (!volume) {
        throw problem(400, `mounts.network[0].volumeId: network volume '${netMount.volumeId}' does not exist`);
      }
    }
    const dataCenterId = schedule(b, volume, this.env.hasCapacity);
    const now = this.env.now();
    const id = this.env.newId();
    const ports = b.ports ?? [];
    const pod: PodRecord = {
      id,
      name: b.name,
      image: b.image,
      args: b.args ?? "",
      disk: b.disk ?? DEFAULT_DISK_GB,
      ports,
      env: withoutPlatformEnv(b.env ?? {}),
      registry: b.registry ?? null,
      gpu: b.gpu ? { id: b.gpu.id, count: b.gpu.count ?? 1 } : undefined,
      cpu: b.cpu ? { id: b.cpu.id, vcpuCount: b.cpu.vcpuCount } : undefined,
      mounts: b.mounts?.persistent
        ? { persistent: { ...b.mounts.persistent } }
        : netMount
          ? { network: [{ volumeId: netMount.volumeId, path: netMount.path }] }
          : {},
      cloud: b.cloud ?? "SECURE",
      dataCenterId,
      locked: false,
      globalIp: b.globalNetworking ? this.globalIp() : undefined,
      globalNetworkingWanted: b.globalNetworking ?? false,
      createdAt: now,
      startedAt: null,
      status: "PROVISIONING",
      statusAt: now,
      failOnStart: this.env.failsToStart(b.image),
      publicIp: `203.0.113.${(this.env.nextNumber() % 250) + 1}`,
      publicPorts: this.publicPorts(ports.length),
    };
    this.byId.set(id, pod);
    this.env.billing(pod, true, now);
    return pod;
  }

  get(id: string): PodRecord {
    return this.mustGet(id);
  }

  list(): PodRecord[] {
    return this.all().filter((pod) => pod.status !== "TERMINATED");
  }

  all(): PodRecord[] {
    for (const pod of this.byId.values()) this.advance(pod);
    return [...this.byId.values()];
  }

  update(id: string, body: unknown): PodRecord {
    const pod = this.mustGet(id);
    const errors = validate(updatePodSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    if (pod.status === "TERMINATED") throw problem(409, `pod '${id}' is TERMINATED and cannot be updated`);
    const b = body as UpdatePodBody;
    checkContainerLimits(b);
    const mounts = nextMounts(pod, b.mounts);
    checkRegistryRef("registry", b.registry, this.env.registryExists);
    if (b.globalNetworking) checkGlobalNetworkingUpdate(pod);
    const next = {
      image: b.image ?? pod.image,
      args: b.args ?? pod.args,
      disk: b.disk ?? pod.disk,
      ports: b.ports ?? pod.ports,
      env: b.env ? withoutPlatformEnv(b.env) : pod.env,
      registry: b.registry !== undefined ? b.registry : pod.registry,
      mounts,
    };
    const current = {
      image: pod.image,
      args: pod.args,
      disk: pod.disk,
      ports: pod.ports,
      env: pod.env,
      registry: pod.registry,
      mounts: pod.mounts,
    };
    const containerChanged = JSON.stringify(next) !== JSON.stringify(current);
    const running = pod.status === "RUNNING" || pod.status === "STARTING";
    // A locked pod cannot be stopped or restarted, so no PATCH may restart it.
    if (containerChanged && running && (b.locked ?? pod.locked)) {
      throw problem(
        409,
        `pod '${pod.id}' is locked: a change of image, args, disk, ports, env, registry or mounts restarts its container (set locked: false first)`,
      );
    }
    if (b.name !== undefined) pod.name = b.name;
    if (b.locked !== undefined) pod.locked = b.locked;
    if (b.globalNetworking !== undefined) pod.globalNetworkingWanted = b.globalNetworking;
    if (containerChanged) {
      if (JSON.stringify(next.ports) !== JSON.stringify(pod.ports)) pod.publicPorts = this.publicPorts(next.ports.length);
      Object.assign(pod, next);
      pod.failOnStart = this.env.failsToStart(pod.image);
      // A container that runs (or is coming up) restarts with the new configuration; one that
      // is provisioning, stopped or failed picks it up at its next start. A RUNNING one keeps
      // running until the restart begins, as on the platform (RUNNING, STARTING,
      // then RUNNING again), so the answer still says RUNNING unless there is no delay.
      const delay = this.env.timings().restartDelayMs;
      if (pod.status === "RUNNING" && delay > 0) pod.restartAt ??= this.env.now() + delay;
      else if (running) this.restartContainer(pod);
    }
    return pod;
  }

  action(id: string, body: unknown): PodRecord {
    const pod = this.mustGet(id);
    const errors = validate(podActionSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    return this.apply(pod, (body as { action: PodAction }).action);
  }

  /** Idempotent (204 again for a pod already TERMINATED). */
  delete(id: string): PodRecord {
    const pod = this.mustGet(id);
    return pod.status === "TERMINATED" ? pod : this.apply(pod, "terminate");
  }

  /**
   * What the platform does to a pod on its own: its host went away (`stop`: EXITED, billing
   * stops) or it was terminated by someone else (`terminate`). A lock does not hold either back:
   * a lock binds the account's requests, not the platform.
   */
  outside(id: string, event: "stop" | "terminate"): PodRecord {
    const pod = this.mustGet(id);
    if (pod.status === "TERMINATED" || (event === "stop" && pod.status === "EXITED")) {
      throw problem(409, `pod '${id}' is already ${pod.status}`);
    }
    pod.restartAt = undefined;
    pod.status = event === "stop" ? "EXITED" : "TERMINATED";
    pod.statusAt = this.env.now();
    this.env.billing(pod, false, pod.statusAt);
    return pod;
  }

  private apply(pod: PodRecord, action: PodAction): PodRecord {
    if (!ACTIONS[pod.status].includes(action)) {
      throw problem(
        409,
        `action '${action}' is not valid while the pod is ${pod.status} (valid: ${ACTIONS[pod.status].join(", ") || "none"})`,
      );
    }
    if (pod.locked && (action === "stop" || action === "restart")) {
      throw problem(409, `pod '${pod.id}' is locked: it cannot be stopped or restarted (set locked: false first)`);
    }
    const now = this.env.now();
    switch (action) {
      case "start":
        // EXITED cost nothing; every other status already costs.
        if (pod.status === "EXITED") this.env.billing(pod, true, now);
        // PROVISIONING: start is accepted and changes nothing.
        if (pod.status !== "PROVISIONING") this.restartContainer(pod);
        break;
      case "restart":
        this.restartContainer(pod);
        break;
      case "stop":
      case "terminate":
        pod.restartAt = undefined;
        pod.status = action === "stop" ? "EXITED" : "TERMINATED";
        pod.statusAt = now;
        this.env.billing(pod, false, now);
        break;
    }
    return pod;
  }

  /** The pod, not TERMINATED, that mounts the volume or pulls with the registry credential. */
  using(what: "volume" | "registry", id: string): string | undefined {
    const pod = this.list().find((p) => (what === "volume" ? p.mounts.network?.[0]?.volumeId : p.registry) === id);
    return pod ? `pod '${pod.id}'` : undefined;
  }

  /** The platform's Pod object as of now. */
  view(pod: PodRecord): PodView {
    this.advance(pod);
    return podView(pod, this.env.now(), this.env.timeScale);
  }

  /**
   * The pod as its create answers it: as it was when made, PROVISIONING, however
   * long the request took. Reading it through `view` could move a pod with short timings on
   * before the answer was written.
   */
  viewAsCreated(pod: PodRecord): PodView {
    return podView(pod, pod.statusAt, this.env.timeScale);
  }

  /** Every pod record as stored, for the state file. */
  snapshot(): PodRecord[] {
    return [...this.byId.values()];
  }

  restore(saved: unknown): void {
    const pods = readPodRecords(saved);
    this.byId.clear();
    for (const pod of pods) this.byId.set(pod.id, pod);
  }
}

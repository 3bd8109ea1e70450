// Pods: validation beyond the contract (the 400 rules of open-parts), the scheduler, and pod
// life. Status is derived from timestamps rather than pushed by timers: a pod reads as
// STARTING once `provisioningMs` has passed since it entered PROVISIONING, and so on. That
// is what a timer would do, but it needs nothing to stop at close(), is exact under any
// time scale, and resumes correctly from a state file written hours ago.

import {
  cpuMemoryGb,
  DATA_CENTERS,
  findCpu,
  findDataCenter,
  findGpu,
  pricePerHour,
} from "./catalog";
import type { NetworkVolume } from "./network-volumes";
import { contractViolation, problem } from "./problem";
import { createPodSchema, podActionSchema, portNumber, updatePodSchema, validate } from "./validate";

export type PodStatus = "PROVISIONING" | "STARTING" | "RUNNING" | "EXITED" | "ERROR" | "TERMINATED";
export type PodAction = "start" | "stop" | "restart" | "terminate";

/** The env key the platform adds to every pod, as real platforms do. */
export const POD_ID_ENV = "COMPUTEPLATFORM_POD_ID";
export const INTERNAL_DOMAIN = "computeplatform.internal";

export interface Mounts {
  persistent?: { size: number; path: string };
  network?: { volumeId: string; path: string }[];
}

/** What the emulator stores for a pod (and writes to the state file). */
export interface PodRecord {
  id: string;
  name: string;
  image: string;
  args: string;
  disk: number;
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number };
  mounts: Mounts;
  cloud: "SECURE" | "COMMUNITY";
  dataCenterId: string;
  locked: boolean;
  /** The global-network address the pod has now. */
  globalIp?: string;
  /** What the user asked for; applied at the next start or restart (open-parts). */
  globalNetworkingWanted: boolean;
  createdAt: number;
  startedAt: number | null;
  status: PodStatus;
  /** When `status` was entered (epoch ms, real time). */
  statusAt: number;
  /** Decided when the container is (re)started, so a fault set later does not rewrite history. */
  failOnStart: boolean;
  publicIp: string;
  publicPorts: number[];
}

/** The Pod object of spec 2.2, as the API answers it. */
export interface PodView {
  id: string;
  name: string;
  status: PodStatus;
  actions: PodAction[];
  image: string;
  args: string;
  disk: number;
  mounts: Mounts;
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  cloud: "SECURE" | "COMMUNITY";
  dataCenterId: string | null;
  template: string | null;
  cost: number;
  locked: boolean;
  globalNetworking: { enabled: boolean; ip?: string; internalDns?: string };
  runtime: {
    uptime: number;
    gpus: { util: number; memoryUtil: number }[];
    cpu: { util: number };
    memory: { util: number };
    ports: { private: number; public: number | null; type: string; ip: string | null }[];
  } | null;
  createdAt: string;
  startedAt: string | null;
}

export const ACTIONS: Record<PodStatus, PodAction[]> = {
  PROVISIONING: ["start", "terminate"],
  STARTING: ["stop", "terminate"],
  RUNNING: ["stop", "restart", "terminate"],
  EXITED: ["start", "terminate"],
  ERROR: ["start", "terminate"],
  TERMINATED: [],
};

export interface PodTimings {
  /** Real milliseconds (already divided by the time scale). */
  provisioningMs: number;
  startingMs: number;
}

export interface PodEnvironment {
  now: () => number;
  timings: () => PodTimings;
  timeScale: number;
  newId: () => string;
  nextNumber: () => number;
  volume: (id: string) => NetworkVolume | undefined;
  failsToStart: (image: string) => boolean;
  hasCapacity: (gpuId: string, dataCenterId: string) => boolean;
}

interface CreateBody {
  name: string;
  image: string;
  args?: string;
  disk?: number;
  ports?: string[];
  env?: Record<string, string>;
  registry?: string | null;
  gpu?: { id: string; count?: number };
  cpu?: { id: string; vcpuCount: number };
  mounts?: Mounts;
  cloud?: "SECURE" | "COMMUNITY";
  dataCenterIds?: string[];
  globalNetworking?: boolean;
}

type UpdateBody = Partial<
  Pick<CreateBody, "name" | "image" | "args" | "disk" | "ports" | "env" | "registry" | "mounts">
> & { locked?: boolean; globalNetworking?: boolean };

/** Container disk when the request gives none. */
const DEFAULT_DISK_GB = 20;

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

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
      if (pod.status === "PROVISIONING" && now >= pod.statusAt + t.provisioningMs) {
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

  /** Picks the data center (open-parts: preferred ids, the volume's data center, capacity). */
  private schedule(b: CreateBody, volume: NetworkVolume | undefined): string {
    for (const id of b.dataCenterIds ?? []) {
      if (!findDataCenter(id)) {
        throw problem(400, `dataCenterIds: unknown data center '${id}' (see GET /v2/catalog/datacenters)`);
      }
    }
    let candidates = b.dataCenterIds?.length ? [...new Set(b.dataCenterIds)] : DATA_CENTERS.map((d) => d.id);
    if (volume) {
      if (!candidates.includes(volume.dataCenter)) {
        throw problem(
          400,
          `mounts.network[0].volumeId: network volume '${volume.id}' is in data center ${volume.dataCenter}, which is not among dataCenterIds (${candidates.join(", ")}); the volume must be in the pod's data center`,
        );
      }
      candidates = [volume.dataCenter];
    }
    if (b.globalNetworking) {
      candidates = candidates.filter((id) => findDataCenter(id)?.globalNetwork);
      if (candidates.length === 0) {
        throw problem(
          400,
          "globalNetworking: no data center that supports global networking among the allowed data centers (see globalNetwork in GET /v2/catalog/datacenters)",
        );
      }
    }
    if (b.gpu) {
      const gpuId = b.gpu.id;
      candidates = candidates.filter((dc) => this.env.hasCapacity(gpuId, dc));
      if (candidates.length === 0) {
        throw problem(400, `no capacity for GPU type '${gpuId}' in the allowed data centers`);
      }
    }
    return candidates[0];
  }

  create(body: unknown): PodRecord {
    const errors = validate(createPodSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    const b = body as CreateBody;
    if ((b.gpu === undefined) === (b.cpu === undefined)) {
      throw problem(400, "exactly one of gpu or cpu must be present");
    }
    if (b.gpu && !findGpu(b.gpu.id)) {
      throw problem(400, `gpu.id: unknown GPU type '${b.gpu.id}' (see GET /v2/catalog/gpus)`);
    }
    if (b.cpu) this.checkCpu(b.cpu);
    if (b.cpu && b.mounts?.persistent) {
      throw problem(400, "mounts.persistent is invalid on a CPU pod (CPU pods support network volumes only)");
    }
    if (b.mounts?.persistent && b.mounts.network) {
      throw problem(400, "mounts: at most one of persistent or network may be set");
    }
    if (b.mounts?.network && b.mounts.network.length === 0) {
      throw problem(400, "mounts.network: an empty list is not allowed (omit network for no mount)");
    }
    if (b.globalNetworking) {
      if (b.cpu) throw problem(400, "globalNetworking requires an NVIDIA GPU; it is not available on CPU pods");
      if (findGpu(b.gpu!.id)?.manufacturer !== "NVIDIA") {
        throw problem(400, `globalNetworking requires an NVIDIA GPU; '${b.gpu!.id}' is not one`);
      }
    }
    let volume: NetworkVolume | undefined;
    const netMount = b.mounts?.network?.[0];
    if (netMount) {
      volume = this.env.volume(netMount.volumeId);
      if (!volume) {
        throw problem(400, `mounts.network[0].volumeId: network volume '${netMount.volumeId}' does not exist`);
      }
    }
    const dataCenterId = this.schedule(b, volume);
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
    return pod;
  }

  private checkCpu(cpu: { id: string; vcpuCount: number }): void {
    const flavor = findCpu(cpu.id);
    if (!flavor) throw problem(400, `cpu.id: unknown CPU flavor '${cpu.id}' (see GET /v2/catalog/cpus)`);
    if (!isPowerOfTwo(cpu.vcpuCount)) {
      throw problem(400, `cpu.vcpuCount: must be a power of two, got ${cpu.vcpuCount}`);
    }
    if (cpu.vcpuCount < flavor.vcpu.min || cpu.vcpuCount > flavor.vcpu.max) {
      throw problem(
        400,
        `cpu.vcpuCount: flavor '${flavor.id}' allows ${flavor.vcpu.min} to ${flavor.vcpu.max} vCPUs, got ${cpu.vcpuCount}`,
      );
    }
  }

  get(id: string): PodRecord {
    return this.mustGet(id);
  }

  list(): PodRecord[] {
    const pods: PodRecord[] = [];
    for (const pod of this.byId.values()) {
      this.advance(pod);
      if (pod.status !== "TERMINATED") pods.push(pod);
    }
    return pods;
  }

  all(): PodRecord[] {
    for (const pod of this.byId.values()) this.advance(pod);
    return [...this.byId.values()];
  }

  /** Spec 2.4 rule 4 and open-parts: the mount of an update, or a 400 naming the rule. */
  private nextMounts(pod: PodRecord, m: Mounts | undefined): Mounts {
    if (m === undefined || (m.persistent === undefined && m.network === undefined)) return pod.mounts;
    if (m.persistent && m.network) throw problem(400, "mounts: at most one of persistent or network may be set");
    if (m.network) {
      if (m.network.length === 0) {
        throw problem(400, "mounts.network: clearing the network mount is unsupported (network: [] is not allowed)");
      }
      const current = pod.mounts.network?.[0];
      if (!current) {
        throw problem(
          400,
          "mounts.network: the kind of mount is fixed at creation; this pod was created without a network mount",
        );
      }
      if (m.network[0].volumeId !== current.volumeId) {
        throw problem(
          400,
          `mounts.network[0].volumeId: the network volume of a pod cannot change (it is '${current.volumeId}')`,
        );
      }
      return { network: [{ volumeId: current.volumeId, path: m.network[0].path }] };
    }
    const persistent = m.persistent!;
    if (pod.cpu) throw problem(400, "mounts.persistent is invalid on a CPU pod (CPU pods support network volumes only)");
    if (!pod.mounts.persistent) {
      throw problem(
        400,
        "mounts.persistent: the kind of mount is fixed at creation; this pod was created without a persistent mount",
      );
    }
    if (persistent.size !== pod.mounts.persistent.size) {
      throw problem(
        400,
        `mounts.persistent.size: the size of a persistent mount is fixed at creation (it is ${pod.mounts.persistent.size} GB)`,
      );
    }
    return { persistent: { size: persistent.size, path: persistent.path } };
  }

  update(id: string, body: unknown): PodRecord {
    const pod = this.mustGet(id);
    const errors = validate(updatePodSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    if (pod.status === "TERMINATED") throw problem(409, `pod '${id}' is TERMINATED and cannot be updated`);
    const b = body as UpdateBody;
    const mounts = this.nextMounts(pod, b.mounts);
    if (b.globalNetworking) {
      if (pod.cpu) throw problem(400, "globalNetworking requires an NVIDIA GPU; it is not available on CPU pods");
      if (findGpu(pod.gpu!.id)?.manufacturer !== "NVIDIA") {
        throw problem(400, `globalNetworking requires an NVIDIA GPU; '${pod.gpu!.id}' is not one`);
      }
      if (!findDataCenter(pod.dataCenterId)?.globalNetwork) {
        throw problem(
          400,
          `globalNetworking: the pod's data center ${pod.dataCenterId} does not support global networking`,
        );
      }
    }
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
    if (b.name !== undefined) pod.name = b.name;
    if (b.locked !== undefined) pod.locked = b.locked;
    if (b.globalNetworking !== undefined) pod.globalNetworkingWanted = b.globalNetworking;
    if (containerChanged) {
      if (JSON.stringify(next.ports) !== JSON.stringify(pod.ports)) pod.publicPorts = this.publicPorts(next.ports.length);
      Object.assign(pod, next);
      pod.failOnStart = this.env.failsToStart(pod.image);
      // A container that runs (or is coming up) restarts with the new configuration; one that
      // is provisioning, stopped or failed picks it up at its next start.
      if (pod.status === "RUNNING" || pod.status === "STARTING") this.restartContainer(pod);
    }
    return pod;
  }

  action(id: string, body: unknown): PodRecord {
    const pod = this.mustGet(id);
    const errors = validate(podActionSchema, body);
    if (errors.length > 0) throw contractViolation(errors);
    return this.apply(pod, (body as { action: PodAction }).action);
  }

  delete(id: string): PodRecord {
    return this.apply(this.mustGet(id), "terminate");
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
        // PROVISIONING: start is accepted and changes nothing (open-parts).
        if (pod.status !== "PROVISIONING") this.restartContainer(pod);
        break;
      case "restart":
        this.restartContainer(pod);
        break;
      case "stop":
        pod.status = "EXITED";
        pod.statusAt = now;
        break;
      case "terminate":
        pod.status = "TERMINATED";
        pod.statusAt = now;
        break;
    }
    return pod;
  }

  /** Whether a pod that is not TERMINATED mounts the volume. */
  mounts(volumeId: string): boolean {
    return this.all().some((p) => p.status !== "TERMINATED" && p.mounts.network?.[0]?.volumeId === volumeId);
  }

  /** The Pod object of spec 2.2 as of now. */
  view(pod: PodRecord): PodView {
    this.advance(pod);
    const now = this.env.now();
    const running = pod.status === "RUNNING";
    const flavor = pod.cpu ? findCpu(pod.cpu.id) : undefined;
    const cost =
      pod.status === "EXITED" || pod.status === "TERMINATED"
        ? 0.0
        : pricePerHour(pod.gpu ? { gpuId: pod.gpu.id, count: pod.gpu.count } : { cpuVcpus: pod.cpu!.vcpuCount }, pod.cloud);
    const seed = [...pod.id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
    const uptime = Math.floor(((now - pod.statusAt) * this.env.timeScale) / 1000);
    const out: PodView = {
      id: pod.id,
      name: pod.name,
      status: pod.status,
      actions: [...ACTIONS[pod.status]],
      image: pod.image,
      args: pod.args,
      disk: pod.disk,
      mounts: structuredClone(pod.mounts),
      ports: [...pod.ports],
      env: { ...pod.env, [POD_ID_ENV]: pod.id },
      registry: pod.registry,
      cloud: pod.cloud,
      dataCenterId: pod.dataCenterId,
      template: null,
      cost,
      locked: pod.locked,
      globalNetworking: pod.globalIp
        ? { enabled: true, ip: pod.globalIp, internalDns: `${pod.id}.${INTERNAL_DOMAIN}` }
        : { enabled: false },
      runtime: running
        ? {
            uptime,
            gpus: Array.from({ length: pod.gpu?.count ?? 0 }, (_, i) => ({
              util: (seed + i * 13 + uptime) % 101,
              memoryUtil: (seed + i * 29) % 101,
            })),
            cpu: { util: (seed + uptime) % 101 },
            memory: { util: (seed >>> 3) % 101 },
            ports: pod.ports.map((spec, i) => ({
              private: portNumber(spec),
              public: pod.publicPorts[i] ?? null,
              type: spec.split("/")[1],
              ip: pod.publicIp,
            })),
          }
        : null,
      createdAt: new Date(pod.createdAt).toISOString(),
      startedAt: pod.startedAt === null ? null : new Date(pod.startedAt).toISOString(),
    };
    if (pod.gpu) out.gpu = { ...pod.gpu };
    if (pod.cpu && flavor) out.cpu = { ...pod.cpu, memory: cpuMemoryGb(flavor, pod.cpu.vcpuCount) };
    return out;
  }
}

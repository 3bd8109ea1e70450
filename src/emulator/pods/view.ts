// The platform's Pod object computed from a stored record at a given time: cost from the
// catalog's prices, runtime figures that move with uptime but repeat for the same pod.

import { cpuMemoryGb, findCpu, GPU_TYPES, pricePerHour } from "../catalog/data";
import { ACTIONS, INTERNAL_DOMAIN, POD_ID_ENV, type PodRecord, type PodView } from "./types";
import { portNumber } from "../core/validate";

/** USD per hour the pod's compute costs while it is not EXITED or TERMINATED. */
export function computePrice(pod: PodRecord): number {
  return pricePerHour(pod.gpu ? { gpuId: pod.gpu.id, count: pod.gpu.count } : { cpuId: pod.cpu!.id, vcpuCount: pod.cpu!.vcpuCount }, pod.cloud);
}

/** USD per hour the pod costs now: 0 while EXITED or TERMINATED. */
export function podCost(pod: PodRecord): number {
  return pod.status === "EXITED" || pod.status === "TERMINATED" ? 0.0 : computePrice(pod);
}

/**
 * The most GPUs any type allows on either cloud: a record stored before counts were bounded
 * (or written into a state file by hand) may say more, and one runtime entry per GPU it says
 * once meant an array of 2^32 (a RangeError for every list) or 5e7 (the heap).
 */
const MOST_GPUS = Math.max(...GPU_TYPES.map((g) => Math.max(g.maxCount.secure, g.maxCount.community)));

/** An epoch-ms instant as ISO 8601; a value no Date can hold reads as the epoch, never a throw. */
function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? new Date(0).toISOString() : d.toISOString();
}

/**
 * `pod` must already be advanced to `now`. Never throws, whatever the stored numbers: no
 * allocation grows with a stored count, and every date is one a Date can hold.
 */
export function podView(pod: PodRecord, now: number, timeScale: number): PodView {
  const running = pod.status === "RUNNING";
  const flavor = pod.cpu ? findCpu(pod.cpu.id) : undefined;
  const seed = [...pod.id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  const uptime = Math.floor(((now - pod.statusAt) * timeScale) / 1000);
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
    cost: podCost(pod),
    locked: pod.locked,
    globalNetworking: pod.globalIp
      ? { enabled: true, ip: pod.globalIp, internalDns: `${pod.id}.${INTERNAL_DOMAIN}` }
      : { enabled: false },
    runtime: running
      ? {
          uptime,
          gpus: Array.from({ length: Math.min(pod.gpu?.count ?? 0, MOST_GPUS) }, (_, i) => ({
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
    createdAt: iso(pod.createdAt),
    startedAt: pod.startedAt === null ? null : iso(pod.startedAt),
  };
  if (pod.gpu) out.gpu = { ...pod.gpu };
  if (pod.cpu && flavor) out.cpu = { ...pod.cpu, memory: cpuMemoryGb(flavor, pod.cpu.vcpuCount) };
  return out;
}

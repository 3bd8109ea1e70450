// The platform's Pod object computed from a stored record at a given time: cost from the
// catalog's prices, runtime figures that move with uptime but repeat for the same pod.

import { cpuMemoryGb, findCpu, pricePerHour } from "./catalog";
import { ACTIONS, INTERNAL_DOMAIN, POD_ID_ENV, type PodRecord, type PodView } from "./pod-types";
import { portNumber } from "./validate";

/** USD per hour the pod's compute costs while it is not EXITED or TERMINATED. */
export function computePrice(pod: PodRecord): number {
  return pricePerHour(pod.gpu ? { gpuId: pod.gpu.id, count: pod.gpu.count } : { cpuId: pod.cpu!.id, vcpuCount: pod.cpu!.vcpuCount }, pod.cloud);
}

/** USD per hour the pod costs now: 0 while EXITED or TERMINATED. */
export function podCost(pod: PodRecord): number {
  return pod.status === "EXITED" || pod.status === "TERMINATED" ? 0.0 : computePrice(pod);
}

/** `pod` must already be advanced to `now`. */
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

// The platform's 400 rules for pods: the cross-field rules of a create, placement (the
// preferred data centers, the volume's data center, global networking, capacity) and the
// mount rules of an update. Each failure names the field and the rule.

import { DATA_CENTERS, findCpu, findDataCenter, findGpu } from "../catalog/data";
import type { NetworkVolume } from "../network-volumes/store";
import type { CreatePodBody, Mounts, PodRecord } from "./types";
import { checkContainerLimits, checkGpuCount } from "../catalog/limits";
import { problem } from "../core/problem";

// BigInt, not `n & (n - 1)`: the bit operators of a number see only its low 32 bits, so
// 2^32 + 2 passed as a power of two and failed later as a range error (issue 14).
function isPowerOfTwo(n: number): boolean {
  if (!Number.isSafeInteger(n) || n < 1) return false;
  const b = BigInt(n);
  return (b & (b - 1n)) === 0n;
}

const CPU_NO_PERSISTENT = "mounts.persistent is invalid on a CPU pod (CPU pods support network volumes only)";
const ONE_MOUNT_KIND = "mounts: at most one of persistent or network may be set";

/** Global networking needs an NVIDIA GPU. */
export function checkGlobalNetworkingGpu(gpu: { id: string } | undefined): void {
  if (!gpu) throw problem(400, "globalNetworking requires an NVIDIA GPU; it is not available on CPU pods");
  if (findGpu(gpu.id)?.manufacturer !== "NVIDIA") {
    throw problem(400, `globalNetworking requires an NVIDIA GPU; '${gpu.id}' is not one`);
  }
}

export function checkCpu(cpu: { id: string; vcpuCount: number }): void {
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

/** The cross-field rules of a create body that already matches the contract. */
export function checkCreate(b: CreatePodBody): void {
  if ((b.gpu === undefined) === (b.cpu === undefined)) {
    throw problem(400, "exactly one of gpu or cpu must be present");
  }
  if (b.gpu && !findGpu(b.gpu.id)) {
    throw problem(400, `gpu.id: unknown GPU type '${b.gpu.id}' (see GET /v2/catalog/gpus)`);
  }
  if (b.gpu) checkGpuCount(b.gpu, b.cloud ?? "SECURE");
  if (b.cpu) checkCpu(b.cpu);
  checkContainerLimits(b);
  if (b.cpu && b.mounts?.persistent) throw problem(400, CPU_NO_PERSISTENT);
  if (b.mounts?.persistent && b.mounts.network) throw problem(400, ONE_MOUNT_KIND);
  if (b.mounts?.network && b.mounts.network.length === 0) {
    throw problem(400, "mounts.network: an empty list is not allowed (omit network for no mount)");
  }
  if (b.globalNetworking) checkGlobalNetworkingGpu(b.gpu);
}

/** Picks the data center (preferred ids, the volume's data center, capacity). */
export function schedule(
  b: CreatePodBody,
  volume: NetworkVolume | undefined,
  hasCapacity: (gpuId: string, dataCenterId: string) => boolean,
): string {
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
    // Every candidate is in the catalog: a preferred id was checked above, a volume's is among them.
    candidates = candidates.filter((id) => findDataCenter(id)!.globalNetwork);
    if (candidates.length === 0) {
      throw problem(
        400,
        "globalNetworking: no data center that supports global networking among the allowed data centers (see globalNetwork in GET /v2/catalog/datacenters)",
      );
    }
  }
  if (b.gpu) {
    const gpuId = b.gpu.id;
    candidates = candidates.filter((dc) => hasCapacity(gpuId, dc));
    if (candidates.length === 0) {
      throw problem(400, `no capacity for GPU type '${gpuId}' in the allowed data centers`);
    }
  }
  return candidates[0];
}

/** The mount of an update (kind and volume fixed, a path may change, a size may grow), or a 400 naming the rule. */
export function nextMounts(pod: PodRecord, m: Mounts | undefined): Mounts {
  if (m === undefined || (m.persistent === undefined && m.network === undefined)) return pod.mounts;
  if (m.persistent && m.network) throw problem(400, ONE_MOUNT_KIND);
  if (m.network) {
    if (m.network.length === 0) {
      throw problem(400, "mounts.network: clearing the network mount is unsupported (network: [] is not allowed)");
    }
    const current = pod.mounts.network?.[0];
    if (!current) {
      throw problem(400, "mounts.network: the kind of mount is fixed at creation; this pod was created without a network mount");
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
  if (pod.cpu) throw problem(400, CPU_NO_PERSISTENT);
  if (!pod.mounts.persistent) {
    throw problem(
      400,
      "mounts.persistent: the kind of mount is fixed at creation; this pod was created without a persistent mount",
    );
  }
  // It may grow (the container restarts), never shrink.
  if (persistent.size < pod.mounts.persistent.size) {
    throw problem(
      400,
      `mounts.persistent.size: a persistent mount only grows (it is ${pod.mounts.persistent.size} GB, asked ${persistent.size} GB)`,
    );
  }
  return { persistent: { size: persistent.size, path: persistent.path } };
}

/** Global networking asked in an update: the pod's GPU and data center must support it. */
export function checkGlobalNetworkingUpdate(pod: PodRecord): void {
  checkGlobalNetworkingGpu(pod.gpu);
  if (!findDataCenter(pod.dataCenterId)?.globalNetwork) {
    throw problem(400, `globalNetworking: the pod's data center ${pod.dataCenterId} does not support global networking`);
  }
}

// The maximums of integer fields. The contract bounds most integers only from below (disk >= 1,
// a persistent mount >= 10 GB); with no top, one create of `disk: 1e20` or `gpu.count: 5e7`
// was stored, and rendering it took the emulator down. These are limits the platform could
// honour (docs/emulator.md, "Limits"); past them the answer is 400 naming the field and the
// limit. A GPU pod's count is bounded by its type's `maxCount` for the cloud (the catalog),
// a CPU pod's vCPUs by its flavor's `vcpu.max` (../pods/rules.ts).

import { findGpu } from "./data";
import { problem } from "../core/problem";

/** Largest container disk, in GB (pods and templates). */
export const MAX_DISK_GB = 4096;
/** Largest persistent mount, in GB: the size of the largest network volume. */
export const MAX_PERSISTENT_GB = 4096;

/** `value` at `field` within `max`, else a 400 naming both. */
function atMost(field: string, value: number | undefined, max: number): void {
  if (value !== undefined && value > max) throw problem(400, `${field}: must be <= ${max}, got ${value}`);
}

/** The container fields of a pod or template body (create or update) within their maximums. */
export function checkContainerLimits(b: { disk?: number; mounts?: { persistent?: { size: number } } }): void {
  atMost("disk", b.disk, MAX_DISK_GB);
  atMost("mounts.persistent.size", b.mounts?.persistent?.size, MAX_PERSISTENT_GB);
}

/** A GPU pod's count within its type's `maxCount` for the cloud (a known type). */
export function checkGpuCount(gpu: { id: string; count?: number }, cloud: "SECURE" | "COMMUNITY"): void {
  const type = findGpu(gpu.id);
  if (!type) return;
  const count = gpu.count ?? 1;
  const max = cloud === "COMMUNITY" ? type.maxCount.community : type.maxCount.secure;
  if (count > max) {
    throw problem(400, `gpu.count: ${count} is more than GPU type '${type.id}' allows (maxCount ${max} on ${cloud})`);
  }
}

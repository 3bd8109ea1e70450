// The emulator's catalog, as the contract's GpuType, CpuType and DataCenter records.
// Prices are the emulator's own; a pod's `cost`
// and billing are computed from them.

export type VolumeTier = "STANDARD" | "HIGH_PERFORMANCE";

export interface GpuType {
  id: string;
  name: string;
  /** The serverless GPU tier the type belongs to; null when none. */
  pool: string | null;
  manufacturer: "NVIDIA" | "AMD" | "UNKNOWN";
  /** VRAM in GB. */
  memory: number;
  secure: boolean;
  community: boolean;
  /** USD per GPU per hour. */
  price: { secure: number; community: number };
  maxCount: { secure: number; community: number };
}

export interface CpuFlavor {
  id: string;
  name: string;
  group: string;
  vcpu: { min: number; max: number };
  ramGbPerVcpu: number;
  /** USD per vCPU per hour. */
  price: { securePerVcpu: number; serverlessPerVcpu: number };
}

export type Region = "NORTH_AMERICA" | "EUROPE";

export interface DataCenter {
  id: string;
  name: string;
  region: Region;
  globalNetwork: boolean;
  /** Storage tiers for network volumes; the first is the default of a create without `type`. */
  networkVolumeTypes: VolumeTier[];
  compliance: string[];
}

const cpu = (id: string, name: string, max: number, ramGbPerVcpu: number, group = "Gen 3"): CpuFlavor => ({
  id,
  name,
  group,
  vcpu: { min: 2, max },
  ramGbPerVcpu,
  price: { securePerVcpu: 0.03, serverlessPerVcpu: 0.025 },
});

export const CPU_FLAVORS: readonly CpuFlavor[] = [
  cpu("cpu3c", "Compute-Optimized", 32, 2),
  cpu("cpu3g", "General Purpose", 64, 4),
  cpu("cpu3m", "Memory-Optimized", 32, 8),
  // A fractional multiplier, so the "rounded down, at least 1" memory rule is visible.
  cpu("cpu1e", "Economy", 8, 0.375, "Gen 1"),
];

/** Community hosts are 20% cheaper; the type is offered there when `community` holds. */
const gpu = (
  id: string,
  name: string,
  pool: string | null,
  manufacturer: GpuType["manufacturer"],
  memory: number,
  secure: number,
  community = true,
): GpuType => ({
  id,
  name,
  pool,
  manufacturer,
  memory,
  secure: true,
  community,
  price: { secure, community: Math.round(secure * 0.8 * 1000) / 1000 },
  maxCount: { secure: 8, community: community ? 4 : 0 },
});

export const GPU_TYPES: readonly GpuType[] = [
  gpu("NVIDIA A100 80GB PCIe", "A100 PCIe", "AMPERE_80", "NVIDIA", 80, 1.64),
  gpu("NVIDIA A100-SXM4-80GB", "A100 SXM", "AMPERE_80", "NVIDIA", 80, 1.89),
  gpu("NVIDIA H100 80GB HBM3", "H100 SXM", "ADA_80_PRO", "NVIDIA", 80, 2.99),
  gpu("NVIDIA GeForce RTX 4090", "RTX 4090", "ADA_24", "NVIDIA", 24, 0.69),
  gpu("NVIDIA RTX A6000", "RTX A6000", "AMPERE_48", "NVIDIA", 48, 0.76),
  gpu("NVIDIA L40S", "L40S", "ADA_48_PRO", "NVIDIA", 48, 0.86),
  gpu("AMD Instinct MI300X", "MI300X", null, "AMD", 192, 2.49, false),
];

const EU = ["GDPR", "ISO_IEC_27001"];
const US = ["SOC_2_TYPE_2", "ISO_IEC_27001"];

export const DATA_CENTERS: readonly DataCenter[] = [
  { id: "US-TX-3", name: "United States (Texas 3)", region: "NORTH_AMERICA", globalNetwork: true, networkVolumeTypes: ["HIGH_PERFORMANCE", "STANDARD"], compliance: US },
  { id: "US-KS-2", name: "United States (Kansas 2)", region: "NORTH_AMERICA", globalNetwork: true, networkVolumeTypes: ["STANDARD", "HIGH_PERFORMANCE"], compliance: US },
  { id: "EU-RO-1", name: "Europe (Romania 1)", region: "EUROPE", globalNetwork: true, networkVolumeTypes: ["STANDARD", "HIGH_PERFORMANCE"], compliance: [...EU, "RENEWABLE"] },
  { id: "EU-CZ-1", name: "Europe (Czechia 1)", region: "EUROPE", globalNetwork: false, networkVolumeTypes: ["STANDARD"], compliance: EU },
  { id: "CA-MTL-1", name: "Canada (Montreal 1)", region: "NORTH_AMERICA", globalNetwork: false, networkVolumeTypes: ["STANDARD"], compliance: ["RENEWABLE"] },
  { id: "US-GA-1", name: "United States (Georgia 1)", region: "NORTH_AMERICA", globalNetwork: false, networkVolumeTypes: ["HIGH_PERFORMANCE"], compliance: [] },
];

export const findCpu = (id: string) => CPU_FLAVORS.find((c) => c.id === id);
export const findGpu = (id: string) => GPU_TYPES.find((g) => g.id === id);
export const findDataCenter = (id: string) => DATA_CENTERS.find((d) => d.id === id);

/** USD per hour while the pod holds its hardware: the catalog price of its compute for its cloud. */
export function pricePerHour(
  compute: { gpuId: string; count: number } | { cpuId: string; vcpuCount: number },
  cloud: "SECURE" | "COMMUNITY",
): number {
  let price = 0;
  if ("gpuId" in compute) {
    const g = findGpu(compute.gpuId);
    price = g ? (cloud === "COMMUNITY" ? g.price.community : g.price.secure) * compute.count : 0;
  } else {
    price = (findCpu(compute.cpuId)?.price.securePerVcpu ?? 0) * compute.vcpuCount;
  }
  return Math.round(price * 1000) / 1000;
}

/** The platform's rule: memory = vcpuCount × ramGbPerVcpu, rounded down, at least 1. */
export function cpuMemoryGb(flavor: CpuFlavor, vcpuCount: number): number {
  return Math.max(1, Math.floor(vcpuCount * flavor.ramGbPerVcpu));
}

/** USD per GB and 30-day month of network volume storage, by tier. */
export const VOLUME_PRICE_PER_GB_MONTH = { STANDARD: 0.07, HIGH_PERFORMANCE: 0.14 } as const;

/** USD per hosted-model call (runsync), what GET /v2/billing/endpoints bills. */
export const MODEL_CALL_PRICE = 0.002;

/**
 * USD per hour one GPU of a serverless worker on `tier` costs: the highest secure price among the
 * tier's GPU types (what the stack's cost ledger prices an endpoint at); 0 for a tier no type is in.
 */
export function serverlessTierPrice(tier: string): number {
  const prices = GPU_TYPES.filter((g) => g.pool === tier).map((g) => g.price.secure);
  return prices.length > 0 ? Math.max(...prices) : 0;
}

/** USD per hour a volume of `size` GB in tier `type` costs. */
export function volumePricePerHour(size: number, type: VolumeTier): number {
  return (size * VOLUME_PRICE_PER_GB_MONTH[type]) / (30 * 24);
}

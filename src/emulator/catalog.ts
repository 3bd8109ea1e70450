// The emulator's catalog. Record fields follow open-parts "Catalog and network volumes".
// Prices are the emulator's own (the spec only says `cost` is USD per hour).

export interface CpuFlavor {
  id: string;
  name: string;
  vcpu: { min: number; max: number };
  ramGbPerVcpu: number;
}

export interface GpuType {
  id: string;
  name: string;
  manufacturer: "NVIDIA" | "AMD";
  memoryGb: number;
}

export interface DataCenter {
  id: string;
  name: string;
  globalNetwork: boolean;
  /** Storage tiers for network volumes; the first is the default of a create without `type`. */
  networkVolumeTypes: ("STANDARD" | "HIGH_PERFORMANCE")[];
}

export const CPU_FLAVORS: readonly CpuFlavor[] = [
  { id: "cpu3c", name: "Compute-Optimized", vcpu: { min: 2, max: 32 }, ramGbPerVcpu: 2 },
  { id: "cpu3g", name: "General Purpose", vcpu: { min: 2, max: 64 }, ramGbPerVcpu: 4 },
  { id: "cpu3m", name: "Memory-Optimized", vcpu: { min: 2, max: 32 }, ramGbPerVcpu: 8 },
  // A fractional multiplier, so the "rounded down, at least 1" memory rule is visible.
  { id: "cpu1e", name: "Economy", vcpu: { min: 2, max: 8 }, ramGbPerVcpu: 0.375 },
];

export const GPU_TYPES: readonly GpuType[] = [
  { id: "NVIDIA A100 80GB PCIe", name: "A100 PCIe", manufacturer: "NVIDIA", memoryGb: 80 },
  { id: "NVIDIA A100-SXM4-80GB", name: "A100 SXM", manufacturer: "NVIDIA", memoryGb: 80 },
  { id: "NVIDIA H100 80GB HBM3", name: "H100 SXM", manufacturer: "NVIDIA", memoryGb: 80 },
  { id: "NVIDIA GeForce RTX 4090", name: "RTX 4090", manufacturer: "NVIDIA", memoryGb: 24 },
  { id: "NVIDIA RTX A6000", name: "RTX A6000", manufacturer: "NVIDIA", memoryGb: 48 },
  { id: "NVIDIA L40S", name: "L40S", manufacturer: "NVIDIA", memoryGb: 48 },
  { id: "AMD Instinct MI300X", name: "MI300X", manufacturer: "AMD", memoryGb: 192 },
];

export const DATA_CENTERS: readonly DataCenter[] = [
  { id: "US-TX-3", name: "United States (Texas 3)", globalNetwork: true, networkVolumeTypes: ["HIGH_PERFORMANCE", "STANDARD"] },
  { id: "US-KS-2", name: "United States (Kansas 2)", globalNetwork: true, networkVolumeTypes: ["STANDARD", "HIGH_PERFORMANCE"] },
  { id: "EU-RO-1", name: "Europe (Romania 1)", globalNetwork: true, networkVolumeTypes: ["STANDARD", "HIGH_PERFORMANCE"] },
  { id: "EU-CZ-1", name: "Europe (Czechia 1)", globalNetwork: false, networkVolumeTypes: ["STANDARD"] },
  { id: "CA-MTL-1", name: "Canada (Montreal 1)", globalNetwork: false, networkVolumeTypes: ["STANDARD"] },
  { id: "US-GA-1", name: "United States (Georgia 1)", globalNetwork: false, networkVolumeTypes: ["HIGH_PERFORMANCE"] },
];

const GPU_PRICE_PER_HOUR: Record<string, number> = {
  "NVIDIA A100 80GB PCIe": 1.64,
  "NVIDIA A100-SXM4-80GB": 1.89,
  "NVIDIA H100 80GB HBM3": 2.99,
  "NVIDIA GeForce RTX 4090": 0.69,
  "NVIDIA RTX A6000": 0.76,
  "NVIDIA L40S": 0.86,
  "AMD Instinct MI300X": 2.49,
};

const CPU_PRICE_PER_VCPU_HOUR = 0.03;

export const findCpu = (id: string) => CPU_FLAVORS.find((c) => c.id === id);
export const findGpu = (id: string) => GPU_TYPES.find((g) => g.id === id);
export const findDataCenter = (id: string) => DATA_CENTERS.find((d) => d.id === id);

/** USD per hour while the pod holds its hardware; community hosts are cheaper. */
export function pricePerHour(
  compute: { gpuId: string; count: number } | { cpuVcpus: number },
  cloud: "SECURE" | "COMMUNITY",
): number {
  const base =
    "gpuId" in compute
      ? (GPU_PRICE_PER_HOUR[compute.gpuId] ?? 1) * compute.count
      : CPU_PRICE_PER_VCPU_HOUR * compute.cpuVcpus;
  const price = cloud === "COMMUNITY" ? base * 0.8 : base;
  return Math.round(price * 1000) / 1000;
}

/** open-parts: memory = vcpuCount × ramGbPerVcpu, rounded down, at least 1. */
export function cpuMemoryGb(flavor: CpuFlavor, vcpuCount: number): number {
  return Math.max(1, Math.floor(vcpuCount * flavor.ramGbPerVcpu));
}

/** USD per GB and 30-day month of network volume storage, by tier. */
export const VOLUME_PRICE_PER_GB_MONTH = { STANDARD: 0.07, HIGH_PERFORMANCE: 0.14 } as const;

/** USD per hosted-model call (runsync), what GET /v2/billing/endpoints bills. */
export const MODEL_CALL_PRICE = 0.002;

/** USD per hour a volume of `size` GB in tier `type` costs. */
export function volumePricePerHour(size: number, type: keyof typeof VOLUME_PRICE_PER_GB_MONTH): number {
  return (size * VOLUME_PRICE_PER_GB_MONTH[type]) / (30 * 24);
}

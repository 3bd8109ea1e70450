/*
 * Catalog look-ups for Pulumi programs: plain async functions a program awaits, or wraps with
 * `pulumi.output(...)`, to pick a data center or a CPU flavor instead of hard-coding one.
 *
 *   getCpuFlavors()        GET /v2/catalog/cpus
 *   getGpuTypes(filter?)   GET /v2/catalog/gpus
 *   getDataCenters(filter?) GET /v2/catalog/datacenters
 *
 * They run in the program process, where the provider's configure() never runs, so the
 * credentials come from the stack config (`computeplatform:apiKey`, `apiUrl`,
 * `serverlessUrl`) read here, then the environment. The key stays inside the client: the
 * results hold catalog data only, so nothing secret can reach state through them.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ComputePlatform, CpuFlavor, DataCenter, GpuType } from "../client";
import { platform, setPlatformSettings } from "./engine/settings";

export type { CpuFlavor, DataCenter, GpuType };

/** Options shared by the catalog functions. */
export interface CatalogOptions {
  /**
   * The client to ask.
   * @default the process-wide client, configured from stack config then the environment
   */
  client?: ComputePlatform;
}

/** Narrows {@link getDataCenters}. Every field given must match. */
export interface DataCenterFilter {
  /**
   * Only data centers that do (`true`) or do not (`false`) support global networking.
   * @default no filter
   */
  globalNetwork?: boolean;
}

/** Narrows {@link getGpuTypes}. Every field given must match. */
export interface GpuTypeFilter {
  /**
   * Only GPUs of this manufacturer (global networking needs NVIDIA).
   * @default no filter
   */
  manufacturer?: "NVIDIA" | "AMD";
  /**
   * Only GPUs with at least this much memory, in GB.
   * @default no filter
   */
  minMemoryGb?: number;
}

/**
 * The client for look-ups. Inside a Pulumi program the stack config is visible through
 * `pulumi.Config`; outside one it is empty and the process-wide client keeps its settings
 * (the environment, or what a provider's configure() set). One client per process, so the
 * look-ups share the resources' rate-limit budget.
 */
function catalogClient(options?: CatalogOptions): ComputePlatform {
  if (options?.client) return options.client;
  const config = new pulumi.Config("computeplatform");
  const fromStack = {
    apiKey: config.get("apiKey") || undefined,
    apiUrl: config.get("apiUrl") || undefined,
    serverlessUrl: config.get("serverlessUrl") || undefined,
  };
  // An empty stack config must not wipe settings made another way (environment, a test).
  // The same settings again keep the shared client and its pacing (see setPlatformSettings).
  if (fromStack.apiKey || fromStack.apiUrl || fromStack.serverlessUrl) setPlatformSettings(fromStack);
  return platform();
}

/** The CPU flavors pods can use, with their vCPU range and RAM per vCPU. */
export async function getCpuFlavors(options?: CatalogOptions): Promise<CpuFlavor[]> {
  return catalogClient(options).catalog.cpus();
}

/** The GPU types pods can use, optionally narrowed by manufacturer and memory. */
export async function getGpuTypes(filter: GpuTypeFilter = {}, options?: CatalogOptions): Promise<GpuType[]> {
  const gpus = await catalogClient(options).catalog.gpus();
  return gpus.filter(
    (g) =>
      (filter.manufacturer === undefined || g.manufacturer === filter.manufacturer) &&
      (filter.minMemoryGb === undefined || g.memory >= filter.minMemoryGb),
  );
}

/** The data centers, optionally only those with (or without) global networking. */
export async function getDataCenters(filter: DataCenterFilter = {}, options?: CatalogOptions): Promise<DataCenter[]> {
  const dataCenters = await catalogClient(options).catalog.dataCenters();
  return dataCenters.filter((dc) => filter.globalNetwork === undefined || dc.globalNetwork === filter.globalNetwork);
}

/**
 * The `vcpuCount` values a CPU pod of this flavor accepts: powers of two, at least 2, within
 * the flavor's `vcpu.min..vcpu.max`, smallest first. Empty when the range holds none.
 */
export function validVcpuCounts(flavor: Pick<CpuFlavor, "vcpu">): number[] {
  const { min, max } = flavor.vcpu;
  const counts: number[] = [];
  // 2^30 vCPUs is far beyond any machine; the cap keeps a bogus `max` from looping long.
  for (let n = 2; n <= max && n <= 2 ** 30; n *= 2) if (n >= min) counts.push(n);
  return counts;
}

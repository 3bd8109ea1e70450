/*
 * Catalog look-ups for Pulumi programs: plain async functions a program awaits, or wraps with
 * `pulumi.output(...)`, to pick a data center or a CPU flavor instead of hard-coding one.
 *
 *   getCpuFlavors()          GET /v2/catalog/cpus
 *   getCpuFlavor(id)         GET /v2/catalog/cpus/{id}
 *   getGpuTypes(filter?)     GET /v2/catalog/gpus
 *   getGpuType(id)           GET /v2/catalog/gpus/{id}
 *   getDataCenters(filter?)  GET /v2/catalog/datacenters
 *   getDataCenter(id)        GET /v2/catalog/datacenters/{id}
 *   getBilling(query?)       GET /v2/billing | /v2/billing/pods | /networkvolumes | /endpoints
 *
 * The records are the platform's own (`GpuType`, `CpuType`, `DataCenter` of its public
 * contract), prices included: `price.secure` / `price.community` per GPU-hour, a CPU flavor's
 * price per vCPU-hour.
 *
 * They run in the program process, where the provider's configure() never runs, so the
 * credentials come from the stack config (`computeplatform:apiKey`, `apiUrl`,
 * `serverlessUrl`) read here, then the environment. The key stays inside the client: the
 * results hold catalog data only, so nothing secret can reach state through them.
 */
import * as pulumi from "@pulumi/pulumi";
import type {
  BillingBucketSize,
  BillingResponse,
  ComputePlatform,
  CpuFlavor,
  DataCenter,
  EndpointBillingResponse,
  GpuType,
  NetworkVolumeBillingResponse,
  PodBillingResponse,
} from "../../client";
import { platform, setPlatformSettings } from "../engine/settings";

export type { BillingBucketSize, BillingResponse, CpuFlavor, DataCenter, EndpointBillingResponse, GpuType, NetworkVolumeBillingResponse, PodBillingResponse };

/**
 * Options shared by the catalog functions.
 *
 * @group Catalog and billing
 */
export interface CatalogOptions {
  /**
   * The client to ask.
   * @default the process-wide client, configured from stack config then the environment
   */
  client?: ComputePlatform;
}

/**
 * Narrows {@link getDataCenters}. Every field given must match.
 *
 * @group Catalog and billing
 */
export interface DataCenterFilter {
  /**
   * Only data centers that do (`true`) or do not (`false`) support global networking.
   * @default no filter
   */
  globalNetwork?: boolean;
}

/**
 * Narrows {@link getGpuTypes}. Every field given must match.
 *
 * @group Catalog and billing
 */
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

/**
 * The CPU flavors pods can use, with their vCPU range and RAM per vCPU.
 *
 * @group Catalog and billing
 */
export async function getCpuFlavors(options?: CatalogOptions): Promise<CpuFlavor[]> {
  return catalogClient(options).catalog.cpus();
}

/**
 * The GPU types pods can use, optionally narrowed by manufacturer and memory.
 *
 * @group Catalog and billing
 */
export async function getGpuTypes(filter: GpuTypeFilter = {}, options?: CatalogOptions): Promise<GpuType[]> {
  const gpus = await catalogClient(options).catalog.gpus();
  return gpus.filter(
    (g) =>
      (filter.manufacturer === undefined || g.manufacturer === filter.manufacturer) &&
      (filter.minMemoryGb === undefined || g.memory >= filter.minMemoryGb),
  );
}

/**
 * The data centers, optionally only those with (or without) global networking.
 *
 * @group Catalog and billing
 */
export async function getDataCenters(filter: DataCenterFilter = {}, options?: CatalogOptions): Promise<DataCenter[]> {
  const dataCenters = await catalogClient(options).catalog.dataCenters();
  return dataCenters.filter((dc) => filter.globalNetwork === undefined || dc.globalNetwork === filter.globalNetwork);
}

/**
 * One CPU flavor by its ID (e.g. `cpu3c`), with its vCPU range and price. 404 → `NotFoundError`.
 *
 * @group Catalog and billing
 */
export async function getCpuFlavor(id: string, options?: CatalogOptions): Promise<CpuFlavor> {
  return catalogClient(options).catalog.cpu(id);
}

/**
 * One GPU type by its ID (e.g. `NVIDIA L40S`), with its prices. 404 → `NotFoundError`.
 *
 * @group Catalog and billing
 */
export async function getGpuType(id: string, options?: CatalogOptions): Promise<GpuType> {
  return catalogClient(options).catalog.gpu(id);
}

/**
 * One data center by its ID (e.g. `EU-RO-1`), with its volume types. 404 → `NotFoundError`.
 *
 * @group Catalog and billing
 */
export async function getDataCenter(id: string, options?: CatalogOptions): Promise<DataCenter> {
  return catalogClient(options).catalog.dataCenter(id);
}

/**
 * What {@link getBilling} asks for. The window is a time range or the last N buckets.
 *
 * @group Catalog and billing
 */
export interface BillingQuery {
  /**
   * Which spend: the account's total, or per pod, per network volume, per public endpoint.
   * @default "total"
   */
  of?: "total" | "pods" | "networkVolumes" | "endpoints";
  /**
   * Start of the window (inclusive): a `Date` or an RFC 3339 date-time with offset.
   * @default 30 days ago (the platform's)
   */
  startTime?: Date | string;
  /**
   * End of the window (exclusive).
   * @default now
   */
  endTime?: Date | string;
  /** The last N buckets, the current one included; not with `startTime`/`endTime`. */
  lastN?: number;
  /**
   * Length of each bucket.
   * @default "day"
   */
  bucketSize?: BillingBucketSize;
  /** Only this pod (with `of: "pods"`), e.g. a `Pod`'s `id`. */
  podId?: string;
  /** Only this volume (with `of: "networkVolumes"`), e.g. a `NetworkVolume`'s `id`. */
  networkVolumeId?: string;
}

/**
 * What the account spent, per bucket, from what actually ran: the records and the totals, as
 * the platform's billing paths answer them. The answer type follows `of`.
 *
 * @group Catalog and billing
 */
export async function getBilling(query?: BillingQuery & { of?: "total" }, options?: CatalogOptions): Promise<BillingResponse>;
export async function getBilling(query: BillingQuery & { of: "pods" }, options?: CatalogOptions): Promise<PodBillingResponse>;
export async function getBilling(
  query: BillingQuery & { of: "networkVolumes" },
  options?: CatalogOptions,
): Promise<NetworkVolumeBillingResponse>;
export async function getBilling(query: BillingQuery & { of: "endpoints" }, options?: CatalogOptions): Promise<EndpointBillingResponse>;
export async function getBilling(
  query: BillingQuery = {},
  options?: CatalogOptions,
): Promise<BillingResponse | PodBillingResponse | NetworkVolumeBillingResponse | EndpointBillingResponse> {
  const { of = "total", podId, networkVolumeId, ...window } = query;
  if (podId !== undefined && of !== "pods") throw new Error(`getBilling: podId filters only of: "pods" (of is "${of}")`);
  if (networkVolumeId !== undefined && of !== "networkVolumes") {
    throw new Error(`getBilling: networkVolumeId filters only of: "networkVolumes" (of is "${of}")`);
  }
  const billing = catalogClient(options).billing;
  switch (of) {
    case "total":
      return billing.summary(window);
    case "pods":
      return billing.pods({ ...window, ...(podId !== undefined ? { podId } : {}) });
    case "networkVolumes":
      return billing.networkVolumes({ ...window, ...(networkVolumeId !== undefined ? { networkVolumeId } : {}) });
    case "endpoints":
      return billing.endpoints(window);
    default:
      throw new Error(`getBilling: of must be one of total, pods, networkVolumes, endpoints (got "${String(of)}")`);
  }
}

/**
 * The `vcpuCount` values a CPU pod of this flavor accepts: powers of two, at least 2, within
 * the flavor's `vcpu.min..vcpu.max`, smallest first. Empty when the range holds none.
 *
 * @group Catalog and billing
 */
export function validVcpuCounts(flavor: Pick<CpuFlavor, "vcpu">): number[] {
  const { min, max } = flavor.vcpu;
  const counts: number[] = [];
  // 2^30 vCPUs is far beyond any machine; the cap keeps a bogus `max` from looping long.
  for (let n = 2; n <= max && n <= 2 ** 30; n *= 2) if (n >= min) counts.push(n);
  return counts;
}

/*
 * The `…Output` forms, as the registry's providers have them: each takes `Input`s and returns an
 * `Output`, so a look-up can follow a resource's output or a config value, and an input marked
 * secret leaves its answer secret (an `apply` keeps the mark). The options stay plain: a client is
 * not a value of the program's graph.
 */

/**
 * `look` once the input is known. The cast only drops `Unwrap`'s rewriting of the records' types:
 * they are open objects (an index signature), which `Unwrap` cannot map back to themselves.
 */
function lifted<I, R>(input: pulumi.Input<I>, look: (value: I) => Promise<R>): pulumi.Output<R> {
  return pulumi.output(input).apply((value) => look(value as I)) as unknown as pulumi.Output<R>;
}

/**
 * An object whose fields may each be an `Input` (a `Pod`'s `id`, a config value).
 *
 * @group Catalog and billing
 */
export type InputFields<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/** {@link getCpuFlavors} as an `Output`. @group Catalog and billing */
export function getCpuFlavorsOutput(options?: CatalogOptions): pulumi.Output<CpuFlavor[]> {
  return lifted(undefined, () => getCpuFlavors(options));
}

/** {@link getCpuFlavor} over an `Input` id; secret when the id is. @group Catalog and billing */
export function getCpuFlavorOutput(id: pulumi.Input<string>, options?: CatalogOptions): pulumi.Output<CpuFlavor> {
  return lifted(id, (i) => getCpuFlavor(i, options));
}

/** {@link getGpuTypes} over an `Input` filter; secret when any of it is. @group Catalog and billing */
export function getGpuTypesOutput(filter?: pulumi.Input<InputFields<GpuTypeFilter>>, options?: CatalogOptions): pulumi.Output<GpuType[]> {
  // No filter is the plain form's default, {}.
  return lifted(filter, (f) => getGpuTypes(f as GpuTypeFilter | undefined, options));
}

/** {@link getGpuType} over an `Input` id; secret when the id is. @group Catalog and billing */
export function getGpuTypeOutput(id: pulumi.Input<string>, options?: CatalogOptions): pulumi.Output<GpuType> {
  return lifted(id, (i) => getGpuType(i, options));
}

/** {@link getDataCenters} over an `Input` filter; secret when any of it is. @group Catalog and billing */
export function getDataCentersOutput(filter?: pulumi.Input<InputFields<DataCenterFilter>>, options?: CatalogOptions): pulumi.Output<DataCenter[]> {
  return lifted(filter, (f) => getDataCenters(f as DataCenterFilter | undefined, options));
}

/** {@link getDataCenter} over an `Input` id; secret when the id is. @group Catalog and billing */
export function getDataCenterOutput(id: pulumi.Input<string>, options?: CatalogOptions): pulumi.Output<DataCenter> {
  return lifted(id, (i) => getDataCenter(i, options));
}

/**
 * {@link getBilling} over an `Input` query (a `Pod`'s `id` as `podId`, say); secret when any of it
 * is. The answer is the union of {@link getBilling}'s: narrow it by `of` in an `apply`.
 *
 * @group Catalog and billing
 */
export function getBillingOutput(
  query?: InputFields<BillingQuery>,
  options?: CatalogOptions,
): pulumi.Output<BillingResponse | PodBillingResponse | NetworkVolumeBillingResponse | EndpointBillingResponse> {
  // `pulumi.output` unwraps objects field by field, which would leave a `Date` an empty object:
  // the window goes as the RFC 3339 text the platform reads anyway.
  const q: InputFields<BillingQuery> = { ...query };
  for (const k of ["startTime", "endTime"] as const) {
    const t = q[k];
    if (t instanceof Date) q[k] = t.toISOString();
  }
  return lifted(q, (v) => getBilling(v as BillingQuery & { of?: "total" }, options));
}

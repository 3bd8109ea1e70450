/*
 * Prices: the catalog read once per client (one plugin process serves one deployment, so
 * once per deployment), and the hourly cost of a pod or an endpoint from it, pure.
 *
 *   GET /v2/catalog/gpus   the first time a GPU price is needed
 *   GET /v2/catalog/cpus   the first time a CPU price is needed
 *
 * A pod's cost is its compute's catalog price for its cloud (`price.secure` or
 * `price.community` per GPU times `count`; a CPU flavor's per-vCPU price times `vcpuCount`),
 * what the platform bills while it runs. An endpoint's is a range: `workersMin` to
 * `workersMax` workers of `gpuCount` GPUs each at the price of its first GPU tier, a tier's price being the highest
 * secure price among the catalog's GPU types of that pool (a worker may land on any of them).
 */
import { type ComputePlatform, ConfigurationError, type CpuType, type GpuType } from "../../client";

/** USD per hour, rounded to a tenth of a cent as the platform's `cost` is. */
export const usd = (n: number): number => Math.round(n * 1000) / 1000;

/** `$3.58/h`. */
export const perHour = (n: number): string => `$${n.toFixed(2)}/h`;

/** `$3.58/h`, or `$0.86-$3.44/h` for a range. */
export function range(r: HourlyRange): string {
  return r.min === r.max ? perHour(r.max) : `$${r.min.toFixed(2)}-$${r.max.toFixed(2)}/h`;
}

/** The catalog lists prices come from; each read at most once per client. */
export class PriceBook {
  private gpuList: Promise<GpuType[]> | undefined;
  private cpuList: Promise<CpuType[]> | undefined;

  constructor(private readonly client: () => Pick<ComputePlatform, "catalog">) {}

  /** The GPU types, read once (a failed read is tried again by the next caller). */
  gpus(): Promise<GpuType[]> {
    this.gpuList ??= this.client().catalog.gpus();
    this.gpuList.catch(() => (this.gpuList = undefined));
    return this.gpuList;
  }

  /** The CPU flavors, read once. */
  cpus(): Promise<CpuType[]> {
    this.cpuList ??= this.client().catalog.cpus();
    this.cpuList.catch(() => (this.cpuList = undefined));
    return this.cpuList;
  }

  /**
   * The lists a pod's compute is checked against (GPU types for `gpu`, CPU flavors for `cpu`);
   * undefined when the catalog cannot be read (up decides then). A missing key or address throws.
   */
  async lists(compute: { gpu?: unknown; cpu?: unknown }): Promise<{ gpus?: GpuType[]; cpus?: CpuType[] } | undefined> {
    try {
      const [gpus, cpus] = await Promise.all([compute.gpu ? this.gpus() : undefined, compute.cpu ? this.cpus() : undefined]);
      return { gpus, cpus };
    } catch (err) {
      if (err instanceof ConfigurationError) throw err;
      return undefined;
    }
  }

  /** The hourly price of a pod's compute; undefined for an id the catalog does not list. */
  async pod(compute: PodCompute): Promise<number | undefined> {
    if (compute.gpu) return podGpuPrice(await this.gpus(), compute.gpu, compute.cloud);
    if (compute.cpu) return podCpuPrice(await this.cpus(), compute.cpu);
    return undefined;
  }

  /** The hourly price range of an endpoint; undefined when its first tier has no priced GPU type. */
  async endpoint(e: EndpointCompute): Promise<HourlyRange | undefined> {
    return endpointPrice(await this.gpus(), e);
  }
}

/** One `T` per client, made on its first need: what every provider of a process shares. */
export function perClient<C extends object, T>(make: (client: () => C) => T): (client: () => C) => T {
  const made = new WeakMap<object, T>();
  return (client) => {
    const c = client();
    let t = made.get(c);
    if (!t) {
      t = make(() => c);
      made.set(c, t);
    }
    return t;
  };
}

/** The one price book of a client: every resource of a deployment reads the catalog through it. */
export const priceBook: (client: () => Pick<ComputePlatform, "catalog">) => PriceBook = perClient((c) => new PriceBook(c));

/** What prices a pod: its compute and cloud. */
export interface PodCompute {
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number };
  cloud: "SECURE" | "COMMUNITY";
}

/** What prices an endpoint: its GPU tiers (the first counts), GPUs per worker and its worker range. */
export interface EndpointCompute {
  gpuIds: string;
  /** GPUs per worker. @default 1 */
  gpuCount?: number;
  workersMin: number;
  workersMax: number;
}

/**
 * USD per hour at the fewest and at the most workers.
 *
 * @group Providers and checks
 */
export interface HourlyRange {
  min: number;
  max: number;
}

export function podGpuPrice(gpus: readonly GpuType[], gpu: { id: string; count: number }, cloud: PodCompute["cloud"]): number | undefined {
  const type = gpus.find((g) => g.id === gpu.id);
  if (!type) return undefined;
  return usd((cloud === "COMMUNITY" ? type.price.community : type.price.secure) * gpu.count);
}

export function podCpuPrice(cpus: readonly CpuType[], cpu: { id: string; vcpuCount: number }): number | undefined {
  const flavor = cpus.find((c) => c.id === cpu.id);
  return flavor ? usd(flavor.price.securePerVcpu * cpu.vcpuCount) : undefined;
}

/** The price of one worker of `tier`: the highest secure price among its GPU types. */
export function tierPrice(gpus: readonly GpuType[], tier: string): number | undefined {
  const prices = gpus.filter((g) => g.pool === tier).map((g) => g.price.secure);
  return prices.length > 0 ? Math.max(...prices) : undefined;
}

export function endpointPrice(gpus: readonly GpuType[], e: EndpointCompute): HourlyRange | undefined {
  const first = e.gpuIds.split(",")[0]!.trim();
  const gpu = tierPrice(gpus, first);
  if (gpu === undefined) return undefined;
  // A worker of gpuCount GPUs costs that many.
  const worker = gpu * (e.gpuCount ?? 1);
  return { min: usd(worker * e.workersMin), max: usd(worker * e.workersMax) };
}

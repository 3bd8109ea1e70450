// REST group Catalog: GPU types, CPU flavors and data centers (the contract's GpuType,
// CpuType, DataCenter), each list with its by-id path (ids percent-encoded: "NVIDIA A100
// 80GB PCIe" travels as NVIDIA%20A100%2080GB%20PCIe), the optional availability expansions
// and the data-center filters. Availability follows capacity (the `noCapacity` fault).

import { CPU_FLAVORS, type CpuFlavor, DATA_CENTERS, type DataCenter, GPU_TYPES, type GpuType } from "./data";
import { type Group, ok } from "../core/http/types";
import { HttpError, problem } from "../core/problem";

type Level = "NONE" | "HIGH";

/** Comma-separated enum values of a query parameter (style form, explode false). */
function list(q: URLSearchParams, name: string, allowed: readonly string[], errors: string[]): string[] {
  const raw = q.get(name);
  if (raw === null) return [];
  const items = raw.split(",");
  for (const item of items) {
    if (!allowed.includes(item)) {
      errors.push(`query.${name}: value must be one of ${allowed.map((a) => `'${a}'`).join(", ")}, but got '${item}'`);
    }
  }
  return items;
}

function fail(errors: string[]): void {
  if (errors.length > 0) {
    throw new HttpError(422, "Unprocessable Entity", `query does not match the contract: ${errors.join("; ")}`, errors);
  }
}

function positiveInt(q: URLSearchParams, name: string, min: number, errors: string[]): number | undefined {
  const raw = q.get(name);
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) errors.push(`query.${name}: must be an integer >= ${min}, but got '${raw}'`);
  return Number(raw);
}

/** `include=AVAILABILITY` and the parameters valid only with it. */
function availabilityQuery(q: URLSearchParams, extra: string[], products: readonly string[]) {
  const errors: string[] = [];
  const include = list(q, "include", ["AVAILABILITY"], errors);
  if (include.length > 1) errors.push(`query.include: must have at most 1 items, but found ${include.length}`);
  list(q, "product", products, errors);
  fail(errors);
  const on = include.includes("AVAILABILITY");
  const without = ["product", ...extra].filter((p) => q.has(p));
  if (!on && without.length > 0) throw problem(400, `${without.join(", ")}: valid only with include=AVAILABILITY`);
  return on;
}

export function catalogRoutes(hasCapacity: (gpuId: string, dataCenterId: string) => boolean): Group {
  const dcLevel = (ok: boolean): Level => (ok ? "HIGH" : "NONE");

  function gpuView(g: GpuType, q: URLSearchParams): GpuType & Record<string, unknown> {
    const errors: string[] = [];
    const count = positiveInt(q, "count", 1, errors) ?? 1;
    const cloud = q.get("cloud") ?? "SECURE";
    if (!["SECURE", "COMMUNITY"].includes(cloud)) errors.push(`query.cloud: value must be one of 'SECURE', 'COMMUNITY', but got '${cloud}'`);
    const cuda = q.get("minCudaVersion");
    if (cuda !== null && !/^\d+(\.\d+)?$/.test(cuda)) errors.push(`query.minCudaVersion: '${cuda}' is not a major or major.minor version`);
    fail(errors);
    const out = structuredClone(g) as GpuType & Record<string, unknown>;
    if (!availabilityQuery(q, ["count", "cloud", "minCudaVersion"], ["POD", "CLUSTER", "SERVERLESS"])) return out;
    const offered = cloud === "COMMUNITY" ? g.community && count <= g.maxCount.community : count <= g.maxCount.secure;
    // AMD types run no CUDA at all.
    const cudaOk = cuda === null || g.manufacturer === "NVIDIA";
    const dataCenters = DATA_CENTERS.map((d) => ({
      id: d.id,
      name: d.name,
      availability: dcLevel(offered && cudaOk && hasCapacity(g.id, d.id)),
    }));
    out.availability = dataCenters.some((d) => d.availability === "HIGH") ? "HIGH" : "NONE";
    out.dataCenters = dataCenters;
    return out;
  }

  function cpuView(c: CpuFlavor, q: URLSearchParams): CpuFlavor & Record<string, unknown> {
    const errors: string[] = [];
    const vcpuCount = positiveInt(q, "vcpuCount", 2, errors);
    fail(errors);
    const out = structuredClone(c) as CpuFlavor & Record<string, unknown>;
    if (!availabilityQuery(q, ["vcpuCount"], ["POD", "SERVERLESS"])) return out;
    const fits = vcpuCount === undefined || (vcpuCount >= c.vcpu.min && vcpuCount <= c.vcpu.max);
    out.availability = dcLevel(fits);
    out.dataCenters = DATA_CENTERS.map((d) => ({ id: d.id, name: d.name, availability: dcLevel(fits) }));
    return out;
  }

  function dataCenterView(d: DataCenter, include: string[]): DataCenter & Record<string, unknown> {
    const out = structuredClone(d) as DataCenter & Record<string, unknown>;
    if (include.includes("GPU_AVAILABILITY")) {
      out.gpuAvailability = GPU_TYPES.map((g) => ({ id: g.id, name: g.name, availability: dcLevel(hasCapacity(g.id, d.id)) }));
    }
    if (include.includes("CPU_AVAILABILITY")) {
      out.cpuAvailability = CPU_FLAVORS.map((c) => ({ id: c.id, name: c.name, availability: "HIGH" }));
    }
    return out;
  }

  const dcInclude = (q: URLSearchParams, errors: string[]) =>
    list(q, "include", ["GPU_AVAILABILITY", "CPU_AVAILABILITY"], errors);

  function dataCenters(q: URLSearchParams) {
    const errors: string[] = [];
    const include = dcInclude(q, errors);
    const regions = list(q, "regions", ["NORTH_AMERICA", "SOUTH_AMERICA", "EUROPE", "ASIA", "MIDDLE_EAST", "AFRICA", "OCEANIA", "ANTARCTICA", "UNKNOWN"], errors);
    const tiers = list(q, "networkVolumeTypes", ["STANDARD", "HIGH_PERFORMANCE"], errors);
    const compliance = list(q, "compliance", ["GDPR", "ISO_IEC_27001", "ISO_14001", "PCI_DSS", "HITRUST", "SOC_1_TYPE_2", "SOC_2_TYPE_2", "SOC_3_TYPE_2", "ITAR", "FISMA_HIGH", "HIPAA", "RENEWABLE"], errors);
    const global = q.get("globalNetwork");
    if (global !== null && global !== "true" && global !== "false") errors.push(`query.globalNetwork: expected boolean, but got '${global}'`);
    fail(errors);
    // Within a filter regions are OR, tiers and compliance AND; filters combine with AND.
    return DATA_CENTERS.filter(
      (d) =>
        (regions.length === 0 || regions.includes(d.region)) &&
        tiers.every((t) => d.networkVolumeTypes.includes(t as DataCenter["networkVolumeTypes"][number])) &&
        compliance.every((c) => d.compliance.includes(c)) &&
        (global === null || String(d.globalNetwork) === global),
    ).map((d) => dataCenterView(d, include));
  }

  function byId<T extends { id: string }>(items: readonly T[], id: string, what: string, path: string): T {
    const found = items.find((x) => x.id === id);
    if (!found) throw problem(404, `${what} '${id}' not found (see GET ${path})`);
    return found;
  }

  return {
    routes: [
      { method: "GET", path: "/v2/catalog/gpus", op: "listGpus", run: ({ query }) => ok(200, { gpus: GPU_TYPES.map((g) => gpuView(g, query)) }) },
      {
        method: "GET",
        path: "/v2/catalog/gpus/{id}",
        op: "getGpuType",
        run: ({ params, query }) => ok(200, gpuView(byId(GPU_TYPES, params.id, "GPU type", "/v2/catalog/gpus"), query)),
      },
      { method: "GET", path: "/v2/catalog/cpus", op: "listCpus", run: ({ query }) => ok(200, { cpus: CPU_FLAVORS.map((c) => cpuView(c, query)) }) },
      {
        method: "GET",
        path: "/v2/catalog/cpus/{id}",
        op: "getCpuType",
        run: ({ params, query }) => ok(200, cpuView(byId(CPU_FLAVORS, params.id, "CPU flavor", "/v2/catalog/cpus"), query)),
      },
      { method: "GET", path: "/v2/catalog/datacenters", op: "listDataCenters", run: ({ query }) => ok(200, { dataCenters: dataCenters(query) }) },
      {
        method: "GET",
        path: "/v2/catalog/datacenters/{id}",
        op: "getDataCenter",
        run: ({ params, query }) => {
          const errors: string[] = [];
          const include = dcInclude(query, errors);
          fail(errors);
          return ok(200, dataCenterView(byId(DATA_CENTERS, params.id, "data center", "/v2/catalog/datacenters"), include));
        },
      },
    ],
  };
}

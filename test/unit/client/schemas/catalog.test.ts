// The catalog schemas (schemas/catalog.ts): the contract's rule that the availability filters
// need the AVAILABILITY expansion, the look-ups' other options, and the GpuType, CpuType and
// DataCenter records read from the contract's examples, their expansions optional.
import type { z } from "zod";
import { schemas } from "../../../../src/client";
import { contractExample } from "../../../helpers/contract";

const problems = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};
const AVAILABILITY_ONLY = 'is valid only with include: ["AVAILABILITY"]';

describe("an availability filter needs include: [\"AVAILABILITY\"]", () => {
  const FILTERS: [string, z.ZodType, Record<string, unknown>][] = [
    ["gpus", schemas.GpuCatalogQuerySchema, { product: ["SERVERLESS"], count: 2, cloud: "COMMUNITY", minCudaVersion: "12.1" }],
    ["cpus", schemas.CpuCatalogQuerySchema, { product: ["POD"], vcpuCount: 4 }],
  ];

  test.each(FILTERS)("%s: each filter without it is refused by name; with it, all pass", (_what, schema, filters) => {
    expect(problems(schema, filters).sort()).toEqual(Object.keys(filters).map((name) => `${name}: ${AVAILABILITY_ONLY}`).sort());
    for (const [name, value] of Object.entries(filters)) {
      expect(problems(schema, { [name]: value })).toEqual([`${name}: ${AVAILABILITY_ONLY}`]);
      expect(problems(schema, { include: ["AVAILABILITY"], [name]: value })).toEqual([]);
    }
    expect(problems(schema, { include: ["AVAILABILITY"] })).toEqual([]);
    expect(problems(schema, {})).toEqual([]);
  });

  test.each(FILTERS)("%s: include names the expansion once, and nothing else", (_what, schema) => {
    expect(problems(schema, { include: ["AVAILABILITY", "AVAILABILITY"] })).toEqual([expect.stringMatching(/^include: /)]);
    expect(problems(schema, { include: ["GPU_AVAILABILITY"] })).toEqual([expect.stringMatching(/^include.0: /)]);
    expect(problems(schema, { include: ["AVAILABILITY"], product: [] })).toEqual([expect.stringMatching(/^product: /)]);
  });
});

test("a GPU look-up's count is at least 1, its CUDA version a number such as 12 or 12.1, its product the GPU's", () => {
  const q = (over: Record<string, unknown>) => problems(schemas.GpuCatalogQuerySchema, { include: ["AVAILABILITY"], ...over });
  expect(q({ count: 1, minCudaVersion: "12" })).toEqual([]);
  expect(q({ count: 0 })).toEqual([expect.stringMatching(/^count: /)]);
  for (const minCudaVersion of ["twelve", "12.1.1", "v12", ""]) {
    expect(q({ minCudaVersion })).toEqual(["minCudaVersion: must be a CUDA version such as 12 or 12.1"]);
  }
  expect(q({ product: ["POD", "CLUSTER", "SERVERLESS"] })).toEqual([]);
  // A CPU is never part of a cluster.
  expect(problems(schemas.CpuCatalogQuerySchema, { include: ["AVAILABILITY"], product: ["CLUSTER"] })).toEqual([expect.stringMatching(/^product.0: /)]);
});

test("the data centers' list filters each take at least one of the contract's values; one data center's look-up takes only include", () => {
  const list = (over: Record<string, unknown>) => problems(schemas.DataCenterCatalogQuerySchema, over);
  expect(list({ include: ["GPU_AVAILABILITY", "CPU_AVAILABILITY"], regions: ["EUROPE"], networkVolumeTypes: ["STANDARD"], compliance: ["GDPR"], globalNetwork: false })).toEqual([]);
  for (const name of ["regions", "networkVolumeTypes", "compliance"]) expect(list({ [name]: [] })).toEqual([expect.stringMatching(new RegExp(`^${name}: `))]);
  expect(list({ regions: ["MARS"] })).toEqual([expect.stringMatching(/^regions.0: /)]);
  expect(list({ include: ["AVAILABILITY"] })).toEqual([expect.stringMatching(/^include.0: /)]);
  expect(problems(schemas.DataCenterLookupQuerySchema, { include: ["GPU_AVAILABILITY"] })).toEqual([]);
  expect(problems(schemas.DataCenterLookupQuerySchema, { regions: ["EUROPE"] })).toEqual([expect.stringMatching(/regions/)]);
});

describe("the records", () => {
  const RECORDS: [string, string, z.ZodType, string[]][] = [
    ["getGpuType", "gpu", schemas.GpuTypeSchema, ["availability", "dataCenters"]],
    ["getCpuType", "cpu", schemas.CpuTypeSchema, ["availability", "dataCenters"]],
    ["getDataCenter", "dataCenter", schemas.DataCenterSchema, ["gpuAvailability", "cpuAvailability"]],
  ];

  test.each(RECORDS)("%s: the contract's example reads with its expansions and without them", (op, name, schema, expansions) => {
    const record = contractExample(op, "200", name);
    expect(problems(schema, record)).toEqual([]);
    for (const field of expansions) delete record[field];
    expect(problems(schema, record)).toEqual([]);
  });

  test("a GPU's pool may be null (no serverless tier); its memory and prices are required", () => {
    const gpu = contractExample("getGpuType", "200", "gpu");
    expect(problems(schemas.GpuTypeSchema, { ...gpu, pool: null })).toEqual([]);
    const { memory: _m, price: _p, ...old } = gpu;
    expect(problems(schemas.GpuTypeSchema, { ...old, memoryGb: 24 }).map((p) => p.split(":")[0]).sort()).toEqual(["memory", "price"]);
    expect(problems(schemas.GpuTypeSchema, { ...gpu, manufacturer: "INTEL" })).toEqual([expect.stringMatching(/^manufacturer: /)]);
  });

  test("an availability is one of the contract's levels, and a data center's tiers and certifications are its enums", () => {
    const dc = contractExample("getDataCenter", "200", "dataCenter");
    expect(problems(schemas.DataCenterSchema, { ...dc, gpuAvailability: [{ id: "x", name: "x", availability: "PLENTY" }] })).toEqual([
      expect.stringMatching(/^gpuAvailability.0.availability: /),
    ]);
    expect(problems(schemas.DataCenterSchema, { ...dc, networkVolumeTypes: ["FAST"] })).toEqual([expect.stringMatching(/^networkVolumeTypes.0: /)]);
    expect(problems(schemas.DataCenterSchema, { ...dc, compliance: ["SOC_9"] })).toEqual([expect.stringMatching(/^compliance.0: /)]);
    expect(problems(schemas.DataCenterSchema, { ...dc, region: "ATLANTIS" })).toEqual([expect.stringMatching(/^region: /)]);
  });
});

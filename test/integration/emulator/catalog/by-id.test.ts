// The catalog as the contract writes it: by-id
// paths with percent-encoded ids, the availability expansions, the data-center filters, and
// the prices a pod's cost comes from.
import type { Emulator } from "../../../../src/emulator";
import { client, RTX4090, start } from "../../../helpers/emulator-rest";

let emu: Emulator;
const api = client(() => emu);

beforeAll(async () => {
  emu = await start({ faults: { noCapacity: [{ gpuId: RTX4090, dataCenterId: "US-TX-3" }] } });
});

afterAll(async () => {
  await emu?.close();
});

test("by-id paths take percent-encoded ids (spaces, '/') and answer the list's record; unknown -> 404", async () => {
  const list = (await api.get("/v2/catalog/gpus")).body.gpus;
  const one = await api.get(`/v2/catalog/gpus/${encodeURIComponent(RTX4090)}`);
  expect(one.status).toBe(200);
  expect(one.body).toEqual(list.find((g: any) => g.id === RTX4090));
  expect((await api.get("/v2/catalog/cpus/cpu3c")).body).toMatchObject({ id: "cpu3c", group: "Gen 3" });
  expect((await api.get("/v2/catalog/datacenters/EU-RO-1")).body).toMatchObject({ region: "EUROPE", compliance: expect.arrayContaining(["GDPR"]) });
  const missing = await api.get(`/v2/catalog/gpus/${encodeURIComponent("NVIDIA/none 1")}`);
  expect(missing.status).toBe(404);
  expect(missing.body.detail).toBe("GPU type 'NVIDIA/none 1' not found (see GET /v2/catalog/gpus)");
});

test("include=AVAILABILITY adds availability per data center, following capacity; its parameters need it", async () => {
  const r = await api.get(`/v2/catalog/gpus/${encodeURIComponent(RTX4090)}?include=AVAILABILITY`);
  expect(r.body.availability).toBe("HIGH");
  expect(r.body.dataCenters.find((d: any) => d.id === "US-TX-3").availability).toBe("NONE");
  expect(r.body.dataCenters.find((d: any) => d.id === "EU-RO-1").availability).toBe("HIGH");
  const amd = await api.get(`/v2/catalog/gpus/${encodeURIComponent("AMD Instinct MI300X")}?include=AVAILABILITY&cloud=COMMUNITY`);
  expect(amd.body.availability).toBe("NONE"); // not offered on the community cloud
  expect((await api.get("/v2/catalog/gpus")).body.gpus[0].availability).toBeUndefined();
  const without = await api.get("/v2/catalog/gpus?count=2");
  expect(without.status).toBe(400);
  expect(without.body.detail).toBe("count: valid only with include=AVAILABILITY");
  const bad = await api.get("/v2/catalog/gpus?include=EVERYTHING");
  expect(bad.status).toBe(422);
  expect(bad.body.errors).toEqual(["query.include: value must be one of 'AVAILABILITY', but got 'EVERYTHING'"]);
});

test("data centers filter by regions (any), networkVolumeTypes and compliance (all), globalNetwork", async () => {
  const ids = async (q: string) => (await api.get(`/v2/catalog/datacenters?${q}`)).body.dataCenters.map((d: any) => d.id);
  expect(await ids("regions=EUROPE")).toEqual(["EU-RO-1", "EU-CZ-1"]);
  expect(await ids("networkVolumeTypes=STANDARD,HIGH_PERFORMANCE")).toEqual(["US-TX-3", "US-KS-2", "EU-RO-1"]);
  expect(await ids("compliance=GDPR,RENEWABLE")).toEqual(["EU-RO-1"]);
  expect(await ids("globalNetwork=false&regions=NORTH_AMERICA")).toEqual(["CA-MTL-1", "US-GA-1"]);
  const expanded = (await api.get("/v2/catalog/datacenters/US-TX-3?include=GPU_AVAILABILITY")).body;
  expect(expanded.gpuAvailability.find((g: any) => g.id === RTX4090)).toEqual({ id: RTX4090, name: "RTX 4090", availability: "NONE" });
  expect(expanded.cpuAvailability).toBeUndefined();
});

test("a pod's cost is the catalog price for its cloud × count; a CPU pod's per-vCPU price × vcpuCount", async () => {
  const g = (await api.get(`/v2/catalog/gpus/${encodeURIComponent("NVIDIA L40S")}`)).body;
  const secure = await api.createPod({ gpu: { id: g.id, count: 2 } });
  expect(secure.cost).toBeCloseTo(g.price.secure * 2, 6);
  const community = await api.createPod({ gpu: { id: g.id }, cloud: "COMMUNITY" });
  expect(community.cost).toBeCloseTo(g.price.community, 6);
  const c = (await api.get("/v2/catalog/cpus/cpu3g")).body;
  const cpuPod = await api.createPod({ cpu: { id: "cpu3g", vcpuCount: 8 } });
  expect(cpuPod.cost).toBeCloseTo(c.price.securePerVcpu * 8, 6);
  expect(cpuPod.cpu.memory).toBe(Math.floor(8 * c.ramGbPerVcpu));
});

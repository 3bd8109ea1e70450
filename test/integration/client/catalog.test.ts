import { ComputePlatform, NotFoundError, PacingRegistry, RequestValidationError, ResponseValidationError } from "../../../src/client";
import { FakeClock } from "../../helpers/fake-clock";
import { type Handler, startLoopback, wireGpuType } from "../../helpers/loopback";

// The catalog's list and by-id look-ups and the network volume's `type`, against a scripted
// loopback server speaking the contract's records.

const servers: { close(): Promise<void> }[] = [];
const clients: ComputePlatform[] = [];

async function setup(handler: Handler) {
  const srv = await startLoopback(handler);
  servers.push(srv);
  const cp = new ComputePlatform({ apiKey: "cp_test_catalog_0013", apiUrl: srv.url, clock: new FakeClock(), pacing: new PacingRegistry(), env: {} });
  clients.push(cp);
  return { srv, cp };
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const gpu = wireGpuType();
const cpu = { id: "cpu3c", name: "Compute-Optimized", group: "Gen 3", vcpu: { min: 2, max: 32 }, ramGbPerVcpu: 2, price: { securePerVcpu: 0.03, serverlessPerVcpu: 0.04 } };
const dataCenter = { id: "EU-RO-1", name: "Romania 1", region: "EUROPE", globalNetwork: true, networkVolumeTypes: ["STANDARD"], compliance: ["GDPR"] };

const byPath: Record<string, unknown> = {
  "/v2/catalog/gpus": { gpus: [gpu, { ...gpu, id: "AMD Instinct MI300X", manufacturer: "AMD", pool: null, memory: 192 }] },
  "/v2/catalog/gpus/NVIDIA%20GeForce%20RTX%204090": { ...gpu, availability: "HIGH", dataCenters: [{ id: "EU-RO-1", name: "Romania 1", availability: "LOW" }] },
  "/v2/catalog/cpus": { cpus: [cpu] },
  "/v2/catalog/cpus/cpu3c": cpu,
  "/v2/catalog/datacenters": { dataCenters: [dataCenter] },
  "/v2/catalog/datacenters/EU-RO-1": { ...dataCenter, gpuAvailability: [{ id: gpu.id, name: gpu.name, availability: "MEDIUM" }] },
};
const catalog: Handler = (r) => (r.path in byPath ? { status: 200, body: byPath[r.path] } : { status: 404, body: { title: "Not Found", status: 404, detail: "no such catalog entry" } });

describe("catalog", () => {
  test("lists answer the contract's records, with prices and the memory field", async () => {
    const { cp } = await setup(catalog);
    const gpus = await cp.catalog.gpus();
    expect(gpus.map((g) => [g.id, g.memory, g.pool])).toEqual([
      ["NVIDIA GeForce RTX 4090", 24, "ADA_24"],
      ["AMD Instinct MI300X", 192, null],
    ]);
    expect(gpus[0].price.secure).toBe(0.69);
    await expect(cp.catalog.cpus()).resolves.toEqual([cpu]);
    await expect(cp.catalog.dataCenters()).resolves.toEqual([dataCenter]);
  });

  test("by-id look-ups GET /{id} with the id percent-encoded, expansions kept", async () => {
    const { srv, cp } = await setup(catalog);
    const one = await cp.catalog.gpu("NVIDIA GeForce RTX 4090");
    expect(one).toMatchObject({ memory: 24, availability: "HIGH", dataCenters: [{ availability: "LOW" }] });
    await expect(cp.catalog.cpu("cpu3c")).resolves.toMatchObject({ price: { securePerVcpu: 0.03 } });
    await expect(cp.catalog.dataCenter("EU-RO-1")).resolves.toMatchObject({ region: "EUROPE", gpuAvailability: [{ availability: "MEDIUM" }] });
    await expect(cp.catalog.gpu("a/b?c")).rejects.toBeInstanceOf(NotFoundError);
    expect(srv.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /v2/catalog/gpus/NVIDIA%20GeForce%20RTX%204090",
      "GET /v2/catalog/cpus/cpu3c",
      "GET /v2/catalog/datacenters/EU-RO-1",
      "GET /v2/catalog/gpus/a%2Fb%3Fc",
    ]);
  });

  test("options go as the contract's query parameters, lists comma-separated", async () => {
    const { srv, cp } = await setup((r) => ({ status: 200, body: byPath[r.path] }));
    await cp.catalog.gpus({ include: ["AVAILABILITY"], product: ["POD", "SERVERLESS"], count: 2, cloud: "COMMUNITY", minCudaVersion: "12.1" });
    await cp.catalog.cpu("cpu3c", { include: ["AVAILABILITY"], vcpuCount: 8 });
    await cp.catalog.dataCenters({ regions: ["EUROPE", "ASIA"], networkVolumeTypes: ["STANDARD"], compliance: ["GDPR"], globalNetwork: false });
    await cp.catalog.dataCenter("EU-RO-1", { include: ["GPU_AVAILABILITY", "CPU_AVAILABILITY"] });
    await cp.catalog.cpus();
    expect(srv.seen.map((r) => r.url)).toEqual([
      "/v2/catalog/gpus?include=AVAILABILITY&product=POD%2CSERVERLESS&count=2&cloud=COMMUNITY&minCudaVersion=12.1",
      "/v2/catalog/cpus/cpu3c?include=AVAILABILITY&vcpuCount=8",
      "/v2/catalog/datacenters?regions=EUROPE%2CASIA&networkVolumeTypes=STANDARD&compliance=GDPR&globalNetwork=false",
      "/v2/catalog/datacenters/EU-RO-1?include=GPU_AVAILABILITY%2CCPU_AVAILABILITY",
      "/v2/catalog/cpus",
    ]);
  });

  test("options the contract refuses fail before anything is sent, naming the rule", async () => {
    const { srv, cp } = await setup(catalog);
    const cases: [() => Promise<unknown>, string][] = [
      [() => cp.catalog.gpus({ count: 2 }), 'count is valid only with include: ["AVAILABILITY"]'],
      [() => cp.catalog.gpu("x", { include: ["AVAILABILITY"], minCudaVersion: "twelve" }), "minCudaVersion is invalid (must be a CUDA version such as 12 or 12.1)"],
      [() => cp.catalog.cpus({ include: ["AVAILABILITY"], vcpuCount: 6 }), "vcpuCount must be a power of two"],
      [() => cp.catalog.dataCenters({ regions: ["MARS" as never] }), "regions[0] must be one of"],
      [() => cp.catalog.dataCenter("EU-RO-1", { regions: ["EUROPE"] } as never), "regions is not an allowed property"],
    ];
    for (const [call, message] of cases) {
      const err = await call().then(() => new Error("expected a rejection"), (e: Error) => e);
      expect(err).toBeInstanceOf(RequestValidationError);
      expect(err.message).toContain(message);
    }
    expect(srv.seen).toHaveLength(0);
  });

  test("an empty id fails before anything is sent", async () => {
    const { srv, cp } = await setup(catalog);
    await expect(cp.catalog.dataCenter("")).rejects.toBeInstanceOf(RequestValidationError);
    expect(srv.seen).toHaveLength(0);
  });

  test("a record in the old invented shape (memoryGb, no prices) is refused naming the fields", async () => {
    const old = { id: "x", name: "x", manufacturer: "NVIDIA", memoryGb: 24 };
    const { cp } = await setup((r) => ({ status: 200, body: r.path === "/v2/catalog/gpus" ? { gpus: [old, gpu] } : old }));
    // In a list, the others still read; the odd one is named with the fields it breaks.
    const gpus = await cp.catalog.gpus();
    expect(gpus.map((g) => g.id)).toEqual([gpu.id]);
    expect(gpus.unreadable[0].issues).toEqual(
      expect.arrayContaining([
        { path: "memory", message: "is required" },
        { path: "price", message: "is required" },
      ]),
    );
    // Read by itself, it is refused.
    const err = await cp.catalog.gpu("x").catch((e) => e);
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.message).toContain("memory is required");
    expect(err.message).toContain("price is required");
  });
});

describe("network volumes carry their storage type", () => {
  const volume = { id: "vol-1", name: "data", size: 50, dataCenter: "EU-RO-1", type: "HIGH_PERFORMANCE" };

  test("create sends type when given and reads it back; left out, it is not sent", async () => {
    const { srv, cp } = await setup(() => ({ status: 201, body: volume }));
    await expect(cp.networkVolumes.create({ name: "data", size: 50, dataCenter: "EU-RO-1", type: "HIGH_PERFORMANCE" })).resolves.toEqual(volume);
    await cp.networkVolumes.create({ name: "data", size: 50, dataCenter: "EU-RO-1" });
    expect(srv.seen.map((r) => JSON.parse(r.body))).toEqual([
      { name: "data", size: 50, dataCenter: "EU-RO-1", type: "HIGH_PERFORMANCE" },
      { name: "data", size: 50, dataCenter: "EU-RO-1" },
    ]);
  });

  test("an unknown type, a type change or an empty update fail before anything is sent", async () => {
    const { srv, cp } = await setup(() => ({ status: 200, body: volume }));
    const bad = await cp.networkVolumes.create({ name: "d", size: 50, dataCenter: "EU-RO-1", type: "FAST" as never }).catch((e) => e);
    expect(bad.message).toContain("type must be one of");
    const change = await Promise.resolve()
      .then(() => cp.networkVolumes.update("vol-1", { type: "STANDARD" } as never))
      .catch((e) => e);
    expect(change.message).toContain("type is not an allowed property");
    const empty = await Promise.resolve()
      .then(() => cp.networkVolumes.update("vol-1", {}))
      .catch((e) => e);
    expect(empty.message).toContain("must set name or size");
    expect(srv.seen).toHaveLength(0);
  });

  test("a volume answer without type breaks the contract", async () => {
    const { cp } = await setup(() => ({ status: 200, body: { ...volume, type: undefined } }));
    await expect(cp.networkVolumes.get("vol-1")).rejects.toThrow("type is required");
  });
});

// The emulator's catalog over real HTTP.
import { expectProblem, sharedEmulator } from "../../../helpers/emulator-rest";

const { api } = sharedEmulator();

describe("catalog", () => {
  test("GET /v2/catalog/cpus -> { cpus: [CpuType] } with group and per-vCPU prices", async () => {
    const r = await api.get("/v2/catalog/cpus");
    expect(r.status).toBe(200);
    expect(r.body.cpus.length).toBeGreaterThanOrEqual(2);
    for (const c of r.body.cpus) {
      expect(c).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        group: expect.any(String),
        vcpu: { min: expect.any(Number), max: expect.any(Number) },
        ramGbPerVcpu: expect.any(Number),
        price: { securePerVcpu: expect.any(Number), serverlessPerVcpu: expect.any(Number) },
      });
      expect(c.vcpu.min).toBeGreaterThanOrEqual(2);
    }
  });

  test("GET /v2/catalog/gpus -> { gpus: [GpuType] } with NVIDIA and AMD types, memory and prices", async () => {
    const r = await api.get("/v2/catalog/gpus");
    expect(r.status).toBe(200);
    for (const g of r.body.gpus) {
      expect(g).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        pool: g.manufacturer === "AMD" ? null : expect.any(String),
        manufacturer: expect.stringMatching(/^(NVIDIA|AMD)$/),
        memory: expect.any(Number),
        secure: true,
        community: expect.any(Boolean),
        price: { secure: expect.any(Number), community: expect.any(Number) },
        maxCount: { secure: expect.any(Number), community: expect.any(Number) },
      });
    }
    const ids = r.body.gpus.map((g: any) => g.id);
    expect(ids).toEqual(expect.arrayContaining(["NVIDIA A100 80GB PCIe", "NVIDIA GeForce RTX 4090", "AMD Instinct MI300X"]));
  });

  test("4.2: GET /v2/catalog/datacenters -> { dataCenters: [DataCenter] }, some flagged globalNetwork", async () => {
    const r = await api.get("/v2/catalog/datacenters");
    expect(r.status).toBe(200);
    for (const d of r.body.dataCenters) {
      expect(d).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        region: expect.stringMatching(/^(NORTH_AMERICA|EUROPE)$/),
        globalNetwork: expect.any(Boolean),
        networkVolumeTypes: expect.arrayContaining([expect.stringMatching(/^(STANDARD|HIGH_PERFORMANCE)$/)]),
        compliance: expect.any(Array),
      });
    }
    const flags = r.body.dataCenters.map((d: any) => d.globalNetwork);
    expect(flags).toContain(true);
    expect(flags).toContain(false);
  });

  test("catalog calls need auth like every /v2 call", async () => {
    expectProblem(await api.get("/v2/catalog/gpus", { key: null }), 401);
  });
});

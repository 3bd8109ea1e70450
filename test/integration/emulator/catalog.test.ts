// The emulator's catalog (open-parts) over real HTTP.
import { expectProblem, sharedEmulator } from "../../helpers/emulator-rest";

const { api } = sharedEmulator();

describe("catalog (open-parts)", () => {
  test("GET /v2/catalog/cpus -> { cpus: [{ id, name, vcpu: { min, max }, ramGbPerVcpu }] }", async () => {
    const r = await api.get("/v2/catalog/cpus");
    expect(r.status).toBe(200);
    expect(r.body.cpus.length).toBeGreaterThanOrEqual(2);
    for (const c of r.body.cpus) {
      expect(c).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        vcpu: { min: expect.any(Number), max: expect.any(Number) },
        ramGbPerVcpu: expect.any(Number),
      });
      expect(c.vcpu.min).toBeGreaterThanOrEqual(2);
    }
  });

  test("GET /v2/catalog/gpus -> { gpus: [{ id, name, manufacturer, memoryGb }] } with NVIDIA and AMD types", async () => {
    const r = await api.get("/v2/catalog/gpus");
    expect(r.status).toBe(200);
    for (const g of r.body.gpus) {
      expect(g).toEqual({ id: expect.any(String), name: expect.any(String), manufacturer: expect.stringMatching(/^(NVIDIA|AMD)$/), memoryGb: expect.any(Number) });
    }
    const ids = r.body.gpus.map((g: any) => g.id);
    expect(ids).toEqual(expect.arrayContaining(["NVIDIA A100 80GB PCIe", "NVIDIA GeForce RTX 4090", "AMD Instinct MI300X"]));
  });

  test("4.2: GET /v2/catalog/datacenters -> { dataCenters: [{ id, name, globalNetwork }] }, some flagged", async () => {
    const r = await api.get("/v2/catalog/datacenters");
    expect(r.status).toBe(200);
    for (const d of r.body.dataCenters) {
      expect(d).toEqual({ id: expect.any(String), name: expect.any(String), globalNetwork: expect.any(Boolean) });
    }
    const flags = r.body.dataCenters.map((d: any) => d.globalNetwork);
    expect(flags).toContain(true);
    expect(flags).toContain(false);
  });

  test("catalog calls need auth like every /v2 call", async () => {
    expectProblem(await api.get("/v2/catalog/gpus", { key: null }), 401);
  });
});

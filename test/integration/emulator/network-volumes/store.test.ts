// The emulator's network volumes over real HTTP.
import { expectProblem, RTX4090, sharedEmulator } from "../../../helpers/emulator-rest";

const { api } = sharedEmulator();

describe("network volumes", () => {
  test("POST /v2/network-volumes -> 201 { id, name, size, dataCenter, type }; type defaults to the data center's first tier", async () => {
    const r = await api.post("/v2/network-volumes", { name: "data", size: 50, dataCenter: "EU-RO-1" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.any(String), name: "data", size: 50, dataCenter: "EU-RO-1", type: "STANDARD" });
    const fast = await api.post("/v2/network-volumes", { name: "d", size: 10, dataCenter: "US-TX-3" });
    expect(fast.body.type).toBe("HIGH_PERFORMANCE");
    const asked = await api.post("/v2/network-volumes", { name: "d", size: 10, dataCenter: "US-TX-3", type: "STANDARD" });
    expect(asked.body.type).toBe("STANDARD");
  });

  test("a type the data center does not offer -> 400; a type outside the enum -> 422; type is fixed -> 422", async () => {
    const r = await api.post("/v2/network-volumes", { name: "d", size: 10, dataCenter: "EU-CZ-1", type: "HIGH_PERFORMANCE" });
    expectProblem(r, 400);
    expect(r.body.detail).toMatch(/EU-CZ-1 offers STANDARD network volumes, not HIGH_PERFORMANCE/);
    const bad = await api.post("/v2/network-volumes", { name: "d", size: 10, dataCenter: "EU-CZ-1", type: "fast" });
    expectProblem(bad, 422);
    expect(bad.body.errors).toEqual(["$.type: value must be one of 'STANDARD', 'HIGH_PERFORMANCE', but got 'fast'"]);
    const vol = await api.createVolume();
    const patch = await api.patch(`/v2/network-volumes/${vol.id}`, { type: "STANDARD" });
    expectProblem(patch, 422);
    expect(patch.body.errors).toEqual(["$: additional properties 'type' not allowed"]);
  });

  test("PATCH with an empty body -> 422 (the contract's minProperties 1)", async () => {
    const vol = await api.createVolume();
    const r = await api.patch(`/v2/network-volumes/${vol.id}`, {});
    expectProblem(r, 422);
    expect(r.body.errors).toEqual(["$: must have at least 1 properties, but found 0"]);
  });

  test("size must be 10..4096 -> 422", async () => {
    for (const [size, error] of [
      [9, "$.size: must be >= 10 but found 9"],
      [4097, "$.size: must be <= 4096 but found 4097"],
    ] as const) {
      const r = await api.post("/v2/network-volumes", { name: "v", size, dataCenter: "US-TX-3" });
      expectProblem(r, 422);
      expect(r.body.errors).toEqual([error]);
    }
  });

  test("name, size and dataCenter are required; nothing unknown is accepted -> 422", async () => {
    const r = await api.post("/v2/network-volumes", { bogus: "fast" });
    expectProblem(r, 422);
    expect(r.body.errors).toEqual([
      "$: additional properties 'bogus' not allowed",
      "$: missing property 'name'",
      "$: missing property 'size'",
      "$: missing property 'dataCenter'",
    ]);
  });

  test("an unknown dataCenter -> 400", async () => {
    const r = await api.post("/v2/network-volumes", { name: "v", size: 10, dataCenter: "MARS-1" });
    expectProblem(r, 400);
    expect(r.body.detail).toMatch(/unknown data center 'MARS-1'/);
  });

  test("GET one and GET the list { networkVolumes: [...] }", async () => {
    const vol = await api.createVolume("US-KS-2", 30);
    expect((await api.get(`/v2/network-volumes/${vol.id}`)).body).toEqual(vol);
    const list = await api.get("/v2/network-volumes");
    expect(list.status).toBe(200);
    expect(list.body.networkVolumes).toContainEqual(vol);
  });

  test("an unknown volume id -> 404 for get, patch and delete", async () => {
    expectProblem(await api.get("/v2/network-volumes/nv-none"), 404);
    expectProblem(await api.patch("/v2/network-volumes/nv-none", { name: "x" }), 404);
    expectProblem(await api.del("/v2/network-volumes/nv-none"), 404);
  });

  test("PATCH { name?, size? } -> 200; the volume grows", async () => {
    const vol = await api.createVolume("US-TX-3", 10);
    const r = await api.patch(`/v2/network-volumes/${vol.id}`, { name: "renamed", size: 100 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...vol, name: "renamed", size: 100 });
  });

  test("PATCH with a smaller size -> 400 (volumes only grow)", async () => {
    const vol = await api.createVolume("US-TX-3", 40);
    const r = await api.patch(`/v2/network-volumes/${vol.id}`, { size: 20 });
    expectProblem(r, 400);
    expect(r.body.detail).toMatch(/only grows/);
  });

  test("PATCH of dataCenter -> 422 (the data center is fixed)", async () => {
    const vol = await api.createVolume();
    const r = await api.patch(`/v2/network-volumes/${vol.id}`, { dataCenter: "EU-RO-1" });
    expectProblem(r, 422);
    expect(r.body.errors).toEqual(["$: additional properties 'dataCenter' not allowed"]);
  });

  test("DELETE -> 204, then 404", async () => {
    const vol = await api.createVolume();
    const r = await api.del(`/v2/network-volumes/${vol.id}`);
    expect(r.status).toBe(204);
    expectProblem(await api.get(`/v2/network-volumes/${vol.id}`), 404);
  });

  test("DELETE while a pod that is not TERMINATED mounts it -> 409; after terminate -> 204", async () => {
    const vol = await api.createVolume("US-TX-3");
    const pod = await api.createPod({ gpu: { id: RTX4090 }, mounts: { network: [{ volumeId: vol.id, path: "/d" }] } });
    await api.waitFor(pod.id, "RUNNING");
    await api.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    const r = await api.del(`/v2/network-volumes/${vol.id}`);
    expectProblem(r, 409);
    expect(r.body.detail).toBe(`network volume '${vol.id}' is in use by pod '${pod.id}'; remove that first`);
    await api.del(`/v2/pods/${pod.id}`);
    expect((await api.del(`/v2/network-volumes/${vol.id}`)).status).toBe(204);
  });
});

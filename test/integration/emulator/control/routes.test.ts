// The control plane (/emulator) over real HTTP (docs/emulator.md, "The control plane"): the
// faults set, patched, read and cleared, each field checked by name; outside events; exempt from
// its own faults; a read-only key's 403. Its patterns' linear matching is patterns.test.ts beside it.
import { A100, FULL, READ_ONLY, RTX4090, sharedEmulator } from "../../../helpers/emulator-rest";

// One emulator for the file: each test leaves no fault in force.
const { emu, api } = sharedEmulator();

afterEach(async () => {
  await api.del("/emulator/faults");
});

describe("the control plane (/emulator)", () => {
  test("faults: set, patch, read, clear; each field checked by name", async () => {
    const set = await api.post("/emulator/faults", { rate5xx: 0.25, noCapacity: [{ gpuId: A100, dataCenterId: "US-TX-3" }], errorImages: [":broken$"] });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ rate5xx: 0.25, rate429: 0, noCapacity: [{ gpuId: A100, dataCenterId: "US-TX-3" }], errorImages: [":broken$"] });
    const patched = await api.patch("/emulator/faults", { slowMs: 5 });
    expect(patched.body).toMatchObject({ rate5xx: 0.25, slowMs: 5, errorImages: [":broken$"] });
    expect((await api.get("/emulator/faults")).body).toEqual(patched.body);

    const bad = await api.post("/emulator/faults", { rate429: 2, noCapacity: [{ gpuId: "H200" }], errorImages: ["("], colour: 1 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatch(/rate429/);
    expect(bad.body.detail).toMatch(/noCapacity\.0\.gpuId/);
    expect(bad.body.detail).toMatch(/errorImages\.0: is not a valid regular expression/);
    expect(bad.body.detail).toMatch(/unknown field\(s\) 'colour'/);

    const cleared = await api.del("/emulator/faults");
    expect(cleared.body).toMatchObject({ rate5xx: 0, slowMs: 0, noCapacity: [], errorImages: [] });
  });

  test("no-capacity set through the control plane places the next pod in another data center", async () => {
    const first = await api.createPod({ gpu: { id: RTX4090 } });
    expect((await api.post("/emulator/faults", { noCapacity: [{ gpuId: RTX4090, dataCenterId: first.dataCenterId }] })).status).toBe(200);
    const next = await api.createPod({ gpu: { id: RTX4090 } });
    expect(next.dataCenterId).not.toBe(first.dataCenterId);
  });

  test("the control plane is exempt from its own faults: a 100 % 5xx rate can be cleared", async () => {
    await api.post("/emulator/faults", { rate5xx: 1, rate429: 0 });
    expect((await api.get("/v2/pods")).status).toBeGreaterThanOrEqual(500);
    expect((await api.del("/emulator/faults")).status).toBe(200);
    expect((await api.get("/v2/pods")).status).toBe(200);
    const marked = emu().requestLog().filter((e) => e.fault === "rate5xx");
    expect(marked.map((e) => e.op)).toEqual(["listPods"]);
  });

  test("outside events: a locked pod stopped by its host reads EXITED and stops billing; terminate; endpoint delete", async () => {
    const pod = await api.createPod({ gpu: { id: RTX4090 } });
    await api.waitFor(pod.id, "RUNNING");
    expect((await api.patch(`/v2/pods/${pod.id}`, { locked: true })).status).toBe(200);
    const stopped = await api.post("/emulator/events", { type: "stopPod", podId: pod.id });
    expect(stopped).toMatchObject({ status: 200, body: { type: "stopPod", podId: pod.id, status: "EXITED" } });
    expect((await api.get(`/v2/pods/${pod.id}`)).body).toMatchObject({ status: "EXITED", cost: 0 });
    expect((await api.post("/emulator/events", { type: "stopPod", podId: pod.id })).status).toBe(409);
    expect((await api.post("/emulator/events", { type: "terminatePod", podId: pod.id })).body.status).toBe("TERMINATED");
    expect((await api.post("/emulator/events", { type: "terminatePod", podId: "nope" })).status).toBe(404);

    const tpl = await api.post("/v2/templates", { name: "w", image: "img:1", serverless: true });
    const save = await api.post(`/graphql?api_key=${FULL}`, {
      query: `mutation { saveEndpoint(input: { name: "e", gpuIds: "ADA_24", templateId: "${tpl.body.id}", workersMin: 1 }) { id } }`,
    });
    const endpointId = save.body.data.saveEndpoint.id;
    expect((await api.post("/emulator/events", { type: "deleteEndpoint", endpointId })).status).toBe(200);
    expect(emu().state().endpoints).toEqual([]);
    expect((await api.post("/emulator/events", { type: "deleteEndpoint", endpointId })).status).toBe(404);
    expect((await api.post("/emulator/events", { type: "explode", podId: pod.id })).status).toBe(422);
  });

  test("a read-only key reads the faults and changes nothing, with the API's 403", async () => {
    expect((await api.get("/emulator/faults", { key: READ_ONLY })).status).toBe(200);
    const refused = await api.post("/emulator/faults", { rate5xx: 1 }, { key: READ_ONLY });
    const apiRefusal = await api.post("/v2/pods", { name: "p", image: "i", gpu: { id: RTX4090 } }, { key: READ_ONLY });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("setFaults needs a key with the 'write' scope; this key is read-only");
    expect(apiRefusal.body.detail).toBe("createPod needs a key with the 'write' scope; this key is read-only");
    expect((await api.get("/emulator/faults")).body.rate5xx).toBe(0);
    expect((await api.post("/emulator/faults", {}, { key: null })).status).toBe(401);
  });
});

// Pod defects an outside review found (issue 14): each test failed before its fix.
import { expectProblem, RTX4090, sharedEmulator } from "../../../helpers/emulator-rest";

const { api } = sharedEmulator();

describe("issue 14 #13: a locked pod's container cannot be restarted by a PATCH either", () => {
  test("PATCH image on a locked RUNNING pod -> 409 naming the lock; the pod keeps running the old image", async () => {
    const pod = await api.createPod({ gpu: { id: RTX4090 } });
    await api.waitFor(pod.id, "RUNNING");
    expect((await api.patch(`/v2/pods/${pod.id}`, { locked: true })).status).toBe(200);
    const r = await api.patch(`/v2/pods/${pod.id}`, { image: "img:2" });
    expectProblem(r, 409);
    expect(r.body.detail).toMatch(/locked/);
    const after = (await api.get(`/v2/pods/${pod.id}`)).body;
    expect(after).toMatchObject({ image: "img:1", status: "RUNNING" });
    // What does not restart the container still applies on a locked pod.
    expect((await api.patch(`/v2/pods/${pod.id}`, { name: "renamed" })).body).toMatchObject({ name: "renamed", status: "RUNNING" });
    // A stopped locked pod has no container to restart: the change waits for its next start.
    await api.patch(`/v2/pods/${pod.id}`, { locked: false });
    await api.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    await api.patch(`/v2/pods/${pod.id}`, { locked: true });
    expect((await api.patch(`/v2/pods/${pod.id}`, { image: "img:3" })).body).toMatchObject({ image: "img:3", status: "EXITED" });
  });
});

describe("issue 14 #14: empty strings are refused where a value is required", () => {
  test.each([
    ["image", { image: "" }, "$.image: length must be >= 1, but got 0"],
    ["persistent mount path", { mounts: { persistent: { size: 20, path: "" } } }, "$.mounts.persistent.path: length must be >= 1, but got 0"],
  ])("create with an empty %s -> 422 naming it", async (_what, body, error) => {
    const r = await api.post("/v2/pods", { name: "p", image: "img:1", gpu: { id: RTX4090 }, ...body });
    expectProblem(r, 422);
    expect(r.body.errors).toContain(error);
  });

  test("a network mount path of '' -> 422, on create and on update", async () => {
    const vol = await api.createVolume();
    const bad = await api.post("/v2/pods", {
      name: "p",
      image: "img:1",
      gpu: { id: RTX4090 },
      mounts: { network: [{ volumeId: vol.id, path: "" }] },
    });
    expectProblem(bad, 422);
    expect(bad.body.errors).toContain("$.mounts.network[0].path: length must be >= 1, but got 0");
    const pod = await api.createPod({ gpu: { id: RTX4090 }, mounts: { network: [{ volumeId: vol.id, path: "/data" }] } });
    const upd = await api.patch(`/v2/pods/${pod.id}`, { image: "", mounts: { network: [{ volumeId: vol.id, path: "" }] } });
    expectProblem(upd, 422);
    expect(upd.body.errors).toEqual(
      expect.arrayContaining(["$.image: length must be >= 1, but got 0", "$.mounts.network[0].path: length must be >= 1, but got 0"]),
    );
  });

  test("a template with an empty image -> 422", async () => {
    const r = await api.post("/v2/templates", { name: "t", image: "" });
    expectProblem(r, 422);
    expect(r.body.errors).toContain("$.image: length must be >= 1, but got 0");
  });
});

describe("issue 14 #18: deleting a pod is idempotent", () => {
  test("a second DELETE of a terminated pod -> 204, and it still reads TERMINATED", async () => {
    const pod = await api.createPod({ gpu: { id: RTX4090 } });
    expect((await api.del(`/v2/pods/${pod.id}`)).status).toBe(204);
    expect((await api.del(`/v2/pods/${pod.id}`)).status).toBe(204);
    expect((await api.get(`/v2/pods/${pod.id}`)).body.status).toBe("TERMINATED");
    // The action stays what the platform's table of actions says: TERMINATED has no actions.
    expectProblem(await api.post(`/v2/pods/${pod.id}/action`, { action: "terminate" }), 409);
    expectProblem(await api.del("/v2/pods/p-none"), 404);
  });
});

describe("issue 14 #5: vcpuCount must be a power of two, however large", () => {
  test.each([4294967298, 2 ** 33 + 4, 3 * 2 ** 40])("vcpuCount %p -> 400 'must be a power of two', not a range error", async (n) => {
    const r = await api.post("/v2/pods", { name: "p", image: "img:1", cpu: { id: "cpu3c", vcpuCount: n } });
    expectProblem(r, 400);
    expect(r.body.detail).toBe(`cpu.vcpuCount: must be a power of two, got ${n}`);
  });

  test("a large power of two is a range error of the flavor", async () => {
    const r = await api.post("/v2/pods", { name: "p", image: "img:1", cpu: { id: "cpu3c", vcpuCount: 2 ** 40 } });
    expectProblem(r, 400);
    expect(r.body.detail).toMatch(/^cpu\.vcpuCount: flavor 'cpu3c' allows \d+ to \d+ vCPUs, got 1099511627776$/);
  });
});

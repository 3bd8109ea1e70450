// Hostile input never takes the emulator down, over real HTTP: the platform's own limits
// (a GPU type's maxCount, the documented maximum of every integer field) answered 400 naming
// the field and the limit; lists that keep answering 200 for every key whatever was sent.
import { expectProblem, RTX4090, sharedEmulator } from "../../../helpers/emulator-rest";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";

const { emu, api } = sharedEmulator();

const LISTS = ["/v2/pods", "/v2/templates", "/v2/network-volumes", "/v2/registries", "/v2/catalog/gpus", "/v2/catalog/cpus", "/v2/catalog/datacenters"];

async function everyListAnswers(): Promise<void> {
  for (const path of LISTS) expect([path, (await api.get(path)).status]).toEqual([path, 200]);
}

describe("gpu.count above the type's maxCount", () => {
  test.each([9, 50_000_000, 4_294_967_296])("gpu.count %d -> 400 naming the count and the type's maxCount; lists still answer", async (count) => {
    const r = await api.post("/v2/pods", { name: "greedy", image: "img:1", gpu: { id: RTX4090, count } });
    expectProblem(r, 400);
    expect(r.body.detail).toContain(`gpu.count`);
    expect(r.body.detail).toContain(String(count));
    expect(r.body.detail).toContain("maxCount 8");
    expect(r.body.detail).toContain(RTX4090);
    await everyListAnswers();
  });

  test("the community cloud has its own maxCount", async () => {
    const gpus = (await api.get("/v2/catalog/gpus")).body.gpus as { id: string; maxCount: { community: number } }[];
    const t = gpus.find((g) => g.maxCount.community > 0)!;
    const r = await api.post("/v2/pods", { name: "c", image: "img:1", cloud: "COMMUNITY", gpu: { id: t.id, count: t.maxCount.community + 1 } });
    expectProblem(r, 400);
    expect(r.body.detail).toContain(`maxCount ${t.maxCount.community} on COMMUNITY`);
  });

  test("gpu.count at maxCount is accepted and its pod reads, runs and lists", async () => {
    const pod = await api.createPod({ name: "full", gpu: { id: RTX4090, count: 8 } });
    const running = await api.waitFor(pod.id, "RUNNING");
    expect(running.runtime.gpus).toHaveLength(8);
    expect((await api.get("/v2/pods")).body.pods.map((p: { id: string }) => p.id)).toContain(pod.id);
    await api.del(`/v2/pods/${pod.id}`);
  });
});

describe("every integer field has a documented maximum: 400 past it, naming the field and the limit", () => {
  const cases: [string, string, string, unknown, string][] = [
    ["pod disk", "POST", "/v2/pods", { name: "d", image: "img:1", gpu: { id: RTX4090 }, disk: 1e20 }, "disk"],
    ["pod disk", "POST", "/v2/pods", { name: "d", image: "img:1", gpu: { id: RTX4090 }, disk: 4097 }, "disk"],
    ["pod persistent mount", "POST", "/v2/pods", { name: "m", image: "img:1", gpu: { id: RTX4090 }, mounts: { persistent: { size: 4097, path: "/w" } } }, "mounts.persistent.size"],
    ["pod vcpuCount", "POST", "/v2/pods", { name: "c", image: "img:1", cpu: { id: "cpu3c", vcpuCount: 2 ** 40 } }, "cpu.vcpuCount"],
    ["template disk", "POST", "/v2/templates", { name: "t", image: "img:1", disk: 1e20 }, "disk"],
    ["template persistent mount", "POST", "/v2/templates", { name: "t", image: "img:1", mounts: { persistent: { size: 1e12, path: "/w" } } }, "mounts.persistent.size"],
  ];
  test.each(cases)("%s: %s %s -> 400", async (_what, method, path, body, field) => {
    const r = await api.call(method, path, body);
    expectProblem(r, 400);
    expect(r.body.detail).toContain(field);
    expect(r.body.detail).toMatch(/<= \d+|allows \d+ to \d+/);
    await everyListAnswers();
  });

  test("the maximum itself is accepted (disk and mount 4096 GB)", async () => {
    const pod = await api.createPod({ name: "max", gpu: { id: RTX4090 }, disk: 4096, mounts: { persistent: { size: 4096, path: "/w" } } });
    expect(pod.disk).toBe(4096);
    await api.del(`/v2/pods/${pod.id}`);
  });

  test("an update past a maximum -> 400, and the pod is as it was", async () => {
    const pod = await api.createPod({ name: "upd", gpu: { id: RTX4090 }, mounts: { persistent: { size: 20, path: "/w" } } });
    for (const body of [{ disk: 1e20 }, { mounts: { persistent: { size: 4097, path: "/w" } } }]) {
      const r = await api.patch(`/v2/pods/${pod.id}`, body);
      expectProblem(r, 400);
    }
    const tpl = (await api.post("/v2/templates", { name: "tu", image: "img:1" })).body;
    expectProblem(await api.patch(`/v2/templates/${tpl.id}`, { disk: 4097 }), 400);
    const now = (await api.get(`/v2/pods/${pod.id}`)).body;
    expect([now.disk, now.mounts.persistent.size]).toEqual([pod.disk, 20]);
    await api.del(`/v2/pods/${pod.id}`);
    await api.del(`/v2/templates/${tpl.id}`);
  });

  test("endpoint integers past their maximum are refused naming the field", async () => {
    const tpl = await createServerlessTemplate(emu().url, "cp_test_full_rest_0123456789");
    const save = async (extra: string) => {
      const res = await fetch(`${emu().url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer cp_test_full_rest_0123456789" },
        body: JSON.stringify({ query: `mutation { saveEndpoint(input: { name: "ep", gpuIds: "ADA_24", templateId: "${tpl}", ${extra} }) { id } }` }),
      });
      return (await res.json()) as { data?: unknown; errors?: { message: string }[] };
    };
    for (const [field, value] of [
      ["idleTimeout", 3601],
      ["scalerValue", 1001],
      ["gpuCount", 9],
      ["executionTimeoutMs", 604_800_001],
    ] as const) {
      const r = await save(`${field}: ${value}`);
      expect(r.errors?.map((e) => e.message).join(" ")).toContain(`input.${field} must be <=`);
    }
    expect((await save("idleTimeout: 3600, scalerValue: 1000, gpuCount: 8, executionTimeoutMs: 604800000")).errors).toBeUndefined();
  });
});

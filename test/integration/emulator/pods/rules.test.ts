// Conformance of the emulator's pod operations, one test per rule of the platform (objects,
// lifecycle, operations, errors, limits), over real HTTP with millisecond timings.
import type { Emulator } from "../../../../src/emulator";
import { createRegistry } from "../../../helpers/emulator-fixtures";
import { A100, client, FULL, MI300X, RTX4090, seen, sharedEmulator, start, TIMINGS } from "../../../helpers/emulator-rest";

// Which updates restart a container is checked with the restart beginning at once (the
// answer says STARTING); its asynchronous start is checked on the manual clock below.
const { api, emu } = sharedEmulator({ timings: { ...TIMINGS, restartDelayMs: 0 } });
/** A registry credential of the owner (a pod's `registry` must name one). */
let REG: string;

beforeAll(async () => {
  REG = await createRegistry(emu().url, FULL);
});

const gpuPod = (more: Record<string, unknown> = {}) => ({ gpu: { id: RTX4090 }, ...more });
const cpuPod = (more: Record<string, unknown> = {}) => ({ cpu: { id: "cpu3c", vcpuCount: 4 }, ...more });

async function create422(body: Record<string, unknown>): Promise<string[]> {
  const r = await api.post("/v2/pods", { name: "p", image: "img:1", ...body });
  expect(r.status).toBe(422);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.body).toMatchObject({ title: expect.any(String), status: 422, detail: expect.any(String) });
  for (const e of r.body.errors) expect(e).toMatch(/^\$/);
  return r.body.errors;
}

async function create400(body: Record<string, unknown>, detail: RegExp): Promise<void> {
  const r = await api.post("/v2/pods", { name: "p", image: "img:1", ...body });
  expect(r.status).toBe(400);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.body.status).toBe(400);
  expect(r.body.detail).toMatch(detail);
}

describe("createPod: contract violations -> 422 with $-paths", () => {
  test("4.1: an unknown top-level property -> 422 `$: additional properties 'bogus' not allowed`", async () => {
    expect(await create422(gpuPod({ bogus: 1 }))).toContain("$: additional properties 'bogus' not allowed");
  });

  test("2.4 rule 3: a network mount without path -> 422 `$.mounts.network[0]: missing property 'path'`", async () => {
    const vol = await api.createVolume();
    const errors = await create422(gpuPod({ mounts: { network: [{ volumeId: vol.id }] } }));
    expect(errors).toEqual(["$.mounts.network[0]: missing property 'path'"]);
  });

  test("2.4 rule 3: a network mount without volumeId -> 422", async () => {
    expect(await create422(gpuPod({ mounts: { network: [{ path: "/data" }] } }))).toEqual([
      "$.mounts.network[0]: missing property 'volumeId'",
    ]);
  });

  test("2.4 rule 3: a network mount with another property -> 422", async () => {
    const errors = await create422(gpuPod({ mounts: { network: [{ volumeId: "v", path: "/d", size: 10 }] } }));
    expect(errors).toEqual(["$.mounts.network[0]: additional properties 'size' not allowed"]);
  });

  test("4.1: name is required -> 422", async () => {
    const r = await api.post("/v2/pods", { image: "img:1", gpu: { id: RTX4090 } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual(["$: missing property 'name'"]);
  });

  test("4.1/8: name shorter than 1 character -> 422", async () => {
    expect(await create422(gpuPod({ name: "" }))).toEqual([expect.stringMatching(/^\$\.name: length must be >= 1/)]);
  });

  test("4.1: image is required -> 422", async () => {
    const r = await api.post("/v2/pods", { name: "p", gpu: { id: RTX4090 } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual(["$: missing property 'image'"]);
  });

  test("2.1/8: disk below 1 -> 422", async () => {
    expect(await create422(gpuPod({ disk: 0 }))).toEqual(["$.disk: must be >= 1 but found 0"]);
  });

  test("2.1: disk of the wrong type -> 422", async () => {
    expect(await create422(gpuPod({ disk: "20" }))).toEqual(["$.disk: expected integer, but got string"]);
  });

  test("2.1: disk must be an integer -> 422", async () => {
    expect(await create422(gpuPod({ disk: 1.5 }))).toEqual(["$.disk: expected integer, but got number"]);
  });

  test("2.1: ports not formatted <port>/<protocol> -> 422", async () => {
    const errors = await create422(gpuPod({ ports: ["8888/http", "22", "70000/tcp"] }));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^\$\.ports\[1\]: /);
    expect(errors[1]).toMatch(/^\$\.ports\[2\]: port must be <= 65535/);
  });

  test("2.1: env values must be strings -> 422", async () => {
    expect(await create422(gpuPod({ env: { A: "1", B: 2 } }))).toEqual(["$.env.B: expected string, but got integer"]);
  });

  test("2.1: registry may be null or a string, nothing else -> 422", async () => {
    await api.createPod(gpuPod({ registry: null }));
    await api.createPod(gpuPod({ registry: REG }));
    expect(await create422(gpuPod({ registry: 5 }))).toEqual(["$.registry: expected string, but got integer"]);
  });

  test("registry must name one of the owner's registries -> 400 on create and update", async () => {
    await create400(gpuPod({ registry: "reg_none" }), /registry: registry 'reg_none' does not exist/);
    const pod = await api.createPod(gpuPod());
    const r = await api.patch(`/v2/pods/${pod.id}`, { registry: "reg_none" });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/registry 'reg_none' does not exist/);
    expect((await api.patch(`/v2/pods/${pod.id}`, { registry: REG })).body.registry).toBe(REG);
  });

  test("2.3/8: gpu.count below 1 -> 422", async () => {
    expect(await create422({ gpu: { id: RTX4090, count: 0 } })).toEqual(["$.gpu.count: must be >= 1 but found 0"]);
  });

  test("2.3: gpu.id is required -> 422", async () => {
    expect(await create422({ gpu: { count: 1 } })).toEqual(["$.gpu: missing property 'id'"]);
  });

  test("2.3: gpu accepts no other properties -> 422", async () => {
    expect(await create422({ gpu: { id: RTX4090, memory: 24 } })).toEqual([
      "$.gpu: additional properties 'memory' not allowed",
    ]);
  });

  test("2.3: cpu.id and cpu.vcpuCount are required -> 422", async () => {
    expect(await create422({ cpu: {} })).toEqual(["$.cpu: missing property 'id'", "$.cpu: missing property 'vcpuCount'"]);
  });

  test("2.3: cpu.id has minimum length 1 -> 422", async () => {
    expect(await create422({ cpu: { id: "", vcpuCount: 2 } })).toEqual([
      expect.stringMatching(/^\$\.cpu\.id: length must be >= 1/),
    ]);
  });

  test("2.3/8: cpu.vcpuCount below 2 -> 422", async () => {
    expect(await create422({ cpu: { id: "cpu3c", vcpuCount: 1 } })).toEqual(["$.cpu.vcpuCount: must be >= 2 but found 1"]);
  });

  test("2.3: cpu accepts no other properties (memory is derived) -> 422", async () => {
    expect(await create422({ cpu: { id: "cpu3c", vcpuCount: 2, memory: 4 } })).toEqual([
      "$.cpu: additional properties 'memory' not allowed",
    ]);
  });

  test("2.4: mounts accepts only persistent and network -> 422", async () => {
    expect(await create422(gpuPod({ mounts: { local: {} } }))).toEqual([
      "$.mounts: additional properties 'local' not allowed",
    ]);
  });

  test("2.4 rule 2/8: persistent size below 10 -> 422", async () => {
    expect(await create422(gpuPod({ mounts: { persistent: { size: 9, path: "/w" } } }))).toEqual([
      "$.mounts.persistent.size: must be >= 10 but found 9",
    ]);
  });

  test("2.4 rule 2: persistent requires size and path, nothing else -> 422", async () => {
    expect(await create422(gpuPod({ mounts: { persistent: { size: 10, volumeId: "x" } } }))).toEqual([
      "$.mounts.persistent: additional properties 'volumeId' not allowed",
      "$.mounts.persistent: missing property 'path'",
    ]);
  });

  test("2.4/8: at most one network mount -> 422", async () => {
    const m = { volumeId: "v", path: "/d" };
    expect(await create422(gpuPod({ mounts: { network: [m, m] } }))).toEqual([
      "$.mounts.network: must have at most 1 items, but found 2",
    ]);
  });

  test("2.2: cloud is SECURE or COMMUNITY -> 422", async () => {
    expect(await create422(gpuPod({ cloud: "PRIVATE" }))).toEqual([expect.stringMatching(/^\$\.cloud: value must be one of/)]);
  });

  test("4.1: dataCenterIds is an array of strings -> 422", async () => {
    expect(await create422(gpuPod({ dataCenterIds: "US-TX-3" }))).toEqual(["$.dataCenterIds: expected array, but got string"]);
  });

  test("4.1: globalNetworking is a boolean -> 422", async () => {
    expect(await create422(gpuPod({ globalNetworking: "yes" }))).toEqual([
      "$.globalNetworking: expected boolean, but got string",
    ]);
  });

  test("4.1: the body must be an object -> 422 at `$`", async () => {
    const r = await api.post("/v2/pods", [1, 2]);
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual(["$: expected object, but got array"]);
  });

  test("7: every violation is listed, not only the first", async () => {
    const errors = await create422({ gpu: { id: RTX4090, count: 0 }, disk: 0, bogus: true });
    expect(errors).toHaveLength(3);
  });
});

describe("createPod: cross-field rules -> 400 with a detail naming the rule", () => {
  test("4.1: neither gpu nor cpu -> 400", async () => {
    await create400({}, /exactly one of gpu or cpu/);
  });

  test("4.1: both gpu and cpu -> 400", async () => {
    await create400({ gpu: { id: RTX4090 }, cpu: { id: "cpu3c", vcpuCount: 2 } }, /exactly one of gpu or cpu/);
  });

  test("4.1/2.4 rule 2: mounts.persistent with cpu -> 400", async () => {
    await create400(cpuPod({ mounts: { persistent: { size: 10, path: "/w" } } }), /mounts\.persistent is invalid on a CPU pod/);
  });

  test("2.4 rule 1: both persistent and network mounts -> 400", async () => {
    const vol = await api.createVolume();
    await create400(
      gpuPod({ mounts: { persistent: { size: 10, path: "/w" }, network: [{ volumeId: vol.id, path: "/d" }] } }),
      /at most one of persistent or network/,
    );
  });

  test("network: [] on create -> 400", async () => {
    await create400(gpuPod({ mounts: { network: [] } }), /mounts\.network: an empty list/);
  });

  test("2.3/8: vcpuCount not a power of two -> 400", async () => {
    await create400({ cpu: { id: "cpu3c", vcpuCount: 6 } }, /power of two/);
  });

  test("2.3/8: vcpuCount outside the flavor's range -> 400", async () => {
    // cpu1e allows 2..8 vCPUs.
    await create400({ cpu: { id: "cpu1e", vcpuCount: 16 } }, /allows 2 to 8 vCPUs/);
  });

  test("2.3: an unknown CPU flavor -> 400", async () => {
    await create400({ cpu: { id: "cpu9z", vcpuCount: 2 } }, /unknown CPU flavor 'cpu9z'/);
  });

  test("2.3: an unknown GPU type -> 400", async () => {
    await create400({ gpu: { id: "NVIDIA Imaginary 1" } }, /unknown GPU type/);
  });

  test("2.4 rule 3: a network volume that does not exist -> 400", async () => {
    await create400(gpuPod({ mounts: { network: [{ volumeId: "nv-missing", path: "/d" }] } }), /does not exist/);
  });

  test("a network volume in another data center than dataCenterIds -> 400", async () => {
    const vol = await api.createVolume("EU-RO-1");
    await create400(
      gpuPod({ dataCenterIds: ["US-TX-3"], mounts: { network: [{ volumeId: vol.id, path: "/d" }] } }),
      /network volume .* is in data center EU-RO-1, which is not among dataCenterIds/,
    );
  });

  test("4.1: an unknown data center in dataCenterIds -> 400", async () => {
    await create400(gpuPod({ dataCenterIds: ["MARS-1"] }), /unknown data center 'MARS-1'/);
  });

  test("4.1: globalNetworking on a CPU pod -> 400", async () => {
    await create400(cpuPod({ globalNetworking: true }), /globalNetworking requires an NVIDIA GPU/);
  });

  test("4.1: globalNetworking on a non-NVIDIA GPU -> 400", async () => {
    await create400({ gpu: { id: MI300X }, globalNetworking: true }, /globalNetworking requires an NVIDIA GPU; 'AMD/);
  });

  test("4.1: globalNetworking with no eligible data center among dataCenterIds -> 400", async () => {
    await create400(gpuPod({ globalNetworking: true, dataCenterIds: ["EU-CZ-1", "CA-MTL-1"] }), /no data center that supports global networking/);
  });

  test("no capacity for the GPU type in the allowed data centers -> 400 'no capacity'", async () => {
    emu().setFaults({ noCapacity: [{ gpuId: A100 }] });
    try {
      await create400({ gpu: { id: A100 } }, /no capacity/);
    } finally {
      emu().setFaults({});
    }
  });

  test("no capacity in one data center -> the scheduler places the pod in the next allowed one", async () => {
    emu().setFaults({ noCapacity: [{ gpuId: A100, dataCenterId: "US-TX-3" }] });
    try {
      const pod = await api.createPod({ gpu: { id: A100 }, dataCenterIds: ["US-TX-3", "US-KS-2"] });
      expect(pod.dataCenterId).toBe("US-KS-2");
      await create400({ gpu: { id: A100 }, dataCenterIds: ["US-TX-3"] }, /no capacity/);
    } finally {
      emu().setFaults({});
    }
  });
});

describe("createPod: the Pod it answers", () => {
  test("3.2: create -> 201, PROVISIONING, startedAt null, runtime null, actions [start, terminate]", async () => {
    const r = await api.post("/v2/pods", { name: "fresh", image: "img:1", gpu: { id: RTX4090 } });
    expect(r.status).toBe(201);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({ status: "PROVISIONING", startedAt: null, runtime: null, actions: ["start", "terminate"] });
  });

  test("2.2: every required Pod field is present", async () => {
    const pod = await api.createPod(gpuPod());
    for (const field of [
      "id", "name", "status", "actions", "image", "args", "disk", "mounts", "ports", "env", "registry", "cloud",
      "dataCenterId", "template", "cost", "locked", "runtime", "createdAt", "startedAt", "globalNetworking",
    ]) {
      expect(pod).toHaveProperty(field);
    }
    expect(new Date(pod.createdAt).toISOString()).toBe(pod.createdAt);
  });

  test("2.2/2.3: a GPU pod has gpu (count default 1) and no cpu", async () => {
    const pod = await api.createPod(gpuPod());
    expect(pod.gpu).toEqual({ id: RTX4090, count: 1 });
    expect(pod).not.toHaveProperty("cpu");
  });

  test("a CPU pod has cpu with memory = floor(vcpuCount × ramGbPerVcpu), no gpu", async () => {
    const flavors = (await api.get("/v2/catalog/cpus")).body.cpus;
    const cpu3c = flavors.find((f: any) => f.id === "cpu3c");
    const pod = await api.createPod({ cpu: { id: "cpu3c", vcpuCount: 4 } });
    expect(pod.cpu).toEqual({ id: "cpu3c", vcpuCount: 4, memory: Math.floor(4 * cpu3c.ramGbPerVcpu) });
    expect(pod).not.toHaveProperty("gpu");
  });

  test("CPU memory is rounded down and at least 1", async () => {
    // cpu1e: 0.375 GB per vCPU -> 2 vCPUs = 0.75 -> 1; 8 vCPUs = 3.
    expect((await api.createPod({ cpu: { id: "cpu1e", vcpuCount: 2 } })).cpu.memory).toBe(1);
    expect((await api.createPod({ cpu: { id: "cpu1e", vcpuCount: 8 } })).cpu.memory).toBe(3);
  });

  test("4.1: cloud defaults to SECURE; COMMUNITY is kept", async () => {
    expect((await api.createPod(gpuPod())).cloud).toBe("SECURE");
    expect((await api.createPod(gpuPod({ cloud: "COMMUNITY" }))).cloud).toBe("COMMUNITY");
  });

  test("2.2: container fields are echoed; template is null", async () => {
    const pod = await api.createPod(
      gpuPod({ args: "--serve", disk: 40, ports: ["8888/http", "22/tcp"], env: { A: "1" }, registry: REG }),
    );
    expect(pod).toMatchObject({ args: "--serve", disk: 40, ports: ["8888/http", "22/tcp"], registry: REG, template: null });
    expect(pod.env.A).toBe("1");
  });

  test("2.2: the platform adds an env key of its own (COMPUTEPLATFORM_POD_ID)", async () => {
    const pod = await api.createPod(gpuPod({ env: { A: "1" } }));
    expect(pod.env).toEqual({ A: "1", COMPUTEPLATFORM_POD_ID: pod.id });
  });

  test("globalNetworking false -> { enabled: false } with ip and internalDns absent", async () => {
    const pod = await api.createPod(gpuPod());
    expect(pod.globalNetworking).toEqual({ enabled: false });
  });

  test("globalNetworking true -> enabled, ip and internalDns `<pod_id>.<domain>` from creation on", async () => {
    const pod = await api.createPod(gpuPod({ globalNetworking: true }));
    expect(pod.status).toBe("PROVISIONING");
    expect(pod.globalNetworking.enabled).toBe(true);
    expect(pod.globalNetworking.ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(pod.globalNetworking.internalDns).toMatch(new RegExp(`^${pod.id}\\.[a-z0-9.-]+$`));
  });

  test("4.1: a pod with globalNetworking lands in a data center flagged globalNetwork", async () => {
    const dcs = (await api.get("/v2/catalog/datacenters")).body.dataCenters;
    const pod = await api.createPod(gpuPod({ globalNetworking: true, dataCenterIds: ["EU-CZ-1", "EU-RO-1"] }));
    expect(pod.dataCenterId).toBe("EU-RO-1");
    expect(dcs.find((d: any) => d.id === pod.dataCenterId).globalNetwork).toBe(true);
  });

  test("4.1: dataCenterIds omitted or empty lets the scheduler choose", async () => {
    const dcs = (await api.get("/v2/catalog/datacenters")).body.dataCenters.map((d: any) => d.id);
    expect(dcs).toContain((await api.createPod(gpuPod())).dataCenterId);
    expect(dcs).toContain((await api.createPod(gpuPod({ dataCenterIds: [] }))).dataCenterId);
  });

  test("2.2: the scheduler picks dataCenterId from dataCenterIds", async () => {
    expect((await api.createPod(gpuPod({ dataCenterIds: ["CA-MTL-1"] }))).dataCenterId).toBe("CA-MTL-1");
  });

  test("a pod with a network mount and no dataCenterIds is placed in the volume's data center", async () => {
    const vol = await api.createVolume("EU-CZ-1");
    const pod = await api.createPod(cpuPod({ mounts: { network: [{ volumeId: vol.id, path: "/data" }] } }));
    expect(pod.dataCenterId).toBe("EU-CZ-1");
    expect(pod.mounts).toEqual({ network: [{ volumeId: vol.id, path: "/data" }] });
  });

  test("2.4 rule 2: a GPU pod keeps its persistent mount", async () => {
    const pod = await api.createPod(gpuPod({ mounts: { persistent: { size: 20, path: "/workspace" } } }));
    expect(pod.mounts).toEqual({ persistent: { size: 20, path: "/workspace" } });
  });

  test("2.2: cost is a positive price per hour while the pod holds hardware", async () => {
    const pod = await api.createPod(gpuPod({ gpu: { id: RTX4090, count: 2 } }));
    const one = await api.createPod(gpuPod());
    expect(pod.cost).toBeGreaterThan(0);
    expect(pod.cost).toBeCloseTo(one.cost * 2, 5);
  });
});

describe("pod life on timers", () => {
  test("2.7: runtime utilizations are integers from 0 to 100", async () => {
    const pod = await api.createPod(gpuPod());
    const running = await api.waitFor(pod.id, "RUNNING");
    for (const v of [running.runtime.cpu.util, running.runtime.memory.util, running.runtime.gpus[0].util]) {
      expect(Number.isInteger(v) && v >= 0 && v <= 100).toBe(true);
    }
  });

  test("stop on RUNNING -> EXITED, cost 0.0, runtime null, actions [start, terminate]", async () => {
    const pod = await api.createPod(gpuPod());
    await api.waitFor(pod.id, "RUNNING");
    const r = await api.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "EXITED", cost: 0, runtime: null, actions: ["start", "terminate"] });
  });

  test("start on EXITED -> STARTING -> RUNNING", async () => {
    const pod = await api.createPod(gpuPod());
    await api.waitFor(pod.id, "RUNNING");
    await api.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    const r = await api.post(`/v2/pods/${pod.id}/action`, { action: "start" });
    expect(r.body.status).toBe("STARTING");
    await api.waitFor(pod.id, "RUNNING");
  });

  test("restart on RUNNING -> STARTING -> RUNNING", async () => {
    const pod = await api.createPod(gpuPod());
    const first = await api.waitFor(pod.id, "RUNNING");
    const r = await api.post(`/v2/pods/${pod.id}/action`, { action: "restart" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "STARTING", runtime: null });
    const again = await api.waitFor(pod.id, "RUNNING");
    expect(Date.parse(again.startedAt)).toBeGreaterThan(Date.parse(first.startedAt));
  });

  test("stop and restart on a locked pod -> 409; terminate still works", async () => {
    const pod = await api.createPod(gpuPod());
    await api.patch(`/v2/pods/${pod.id}`, { locked: true });
    await api.waitFor(pod.id, "RUNNING");
    for (const action of ["stop", "restart"]) {
      const r = await api.post(`/v2/pods/${pod.id}/action`, { action });
      expect(r.status).toBe(409);
      expect(r.body.detail).toMatch(/locked/);
    }
    expect((await api.post(`/v2/pods/${pod.id}/action`, { action: "terminate" })).status).toBe(204);
  });

  test("terminate -> 204; the pod reads TERMINATED with cost 0.0, no actions, and leaves the list", async () => {
    const pod = await api.createPod(gpuPod());
    const r = await api.post(`/v2/pods/${pod.id}/action`, { action: "terminate" });
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    const after = await api.get(`/v2/pods/${pod.id}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ status: "TERMINATED", cost: 0, actions: [], runtime: null });
    const list = await api.get("/v2/pods");
    expect(list.body.pods.map((p: any) => p.id)).not.toContain(pod.id);
  });

  test("terminate works from every other status (EXITED, ERROR, STARTING)", async () => {
    emu().setFaults({ errorImages: [/^broken/] });
    try {
      const a = await api.createPod(gpuPod({ image: "broken:1" }));
      const b = await api.createPod(gpuPod());
      const c = await api.createPod(gpuPod());
      await api.waitFor(a.id, "ERROR");
      await api.waitFor(b.id, "RUNNING");
      await api.post(`/v2/pods/${b.id}/action`, { action: "stop" });
      await api.waitFor(c.id, "RUNNING");
      expect((await api.post(`/v2/pods/${c.id}/action`, { action: "restart" })).body.status).toBe("STARTING");
      for (const id of [a.id, b.id, c.id]) {
        expect((await api.post(`/v2/pods/${id}/action`, { action: "terminate" })).status).toBe(204);
      }
    } finally {
      emu().setFaults({});
    }
  });

  test("deletePod -> 204, same as terminate", async () => {
    const pod = await api.createPod(gpuPod());
    expect((await api.del(`/v2/pods/${pod.id}`)).status).toBe(204);
    expect((await api.get(`/v2/pods/${pod.id}`)).body.status).toBe("TERMINATED");
  });

  test("an action on a TERMINATED pod -> 409 (actions is empty)", async () => {
    const pod = await api.createPod(gpuPod());
    await api.del(`/v2/pods/${pod.id}`);
    expect((await api.post(`/v2/pods/${pod.id}/action`, { action: "start" })).status).toBe(409);
  });

  test("the action body is { action } with one of the four values -> else 422", async () => {
    const pod = await api.createPod(gpuPod());
    const bad = await api.post(`/v2/pods/${pod.id}/action`, { action: "pause" });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatch(/^\$\.action: value must be one of/);
    const extra = await api.post(`/v2/pods/${pod.id}/action`, { action: "start", force: true });
    expect(extra.status).toBe(422);
    expect(extra.body.errors).toEqual(["$: additional properties 'force' not allowed"]);
  });

  test("an image the platform cannot start ends in ERROR; start retries and fails again", async () => {
    emu().setFaults({ errorImages: ["^crashloop:"] });
    try {
      const pod = await api.createPod(gpuPod({ image: "crashloop:1" }));
      const failed = await api.waitFor(pod.id, "ERROR");
      expect(seen(failed)).not.toContain("RUNNING");
      expect(failed).toMatchObject({ actions: ["start", "terminate"], runtime: null });
      expect(failed.cost).toBeGreaterThan(0);
      const r = await api.post(`/v2/pods/${pod.id}/action`, { action: "start" });
      expect(r.body.status).toBe("STARTING");
      await api.waitFor(pod.id, "ERROR");
    } finally {
      emu().setFaults({});
    }
  });

  test("ERROR -> start -> RUNNING once the image is fixed by an update", async () => {
    emu().setFaults({ errorImages: ["^crashloop:"] });
    try {
      const pod = await api.createPod(gpuPod({ image: "crashloop:1" }));
      await api.waitFor(pod.id, "ERROR");
      const patched = await api.patch(`/v2/pods/${pod.id}`, { image: "fixed:2" });
      expect(patched.body.status).toBe("ERROR");
      await api.post(`/v2/pods/${pod.id}/action`, { action: "start" });
      await api.waitFor(pod.id, "RUNNING");
    } finally {
      emu().setFaults({});
    }
  });

  test("an unknown pod id -> 404 for get, update, action and delete", async () => {
    for (const r of [
      await api.get("/v2/pods/nope"),
      await api.patch("/v2/pods/nope", { name: "x" }),
      await api.post("/v2/pods/nope/action", { action: "start" }),
      await api.del("/v2/pods/nope"),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ status: 404, title: "Not Found", detail: expect.stringContaining("nope") });
    }
  });

  test("listPods -> { pods: Pod[] }", async () => {
    const pod = await api.createPod(gpuPod({ name: "listed" }));
    const r = await api.get("/v2/pods");
    expect(r.status).toBe(200);
    expect(r.body.pods.find((p: any) => p.id === pod.id)).toMatchObject({ name: "listed" });
  });
});

describe("updatePod", () => {
  test("name applies at once and does not restart a RUNNING pod", async () => {
    const pod = await api.createPod(gpuPod());
    await api.waitFor(pod.id, "RUNNING");
    const r = await api.patch(`/v2/pods/${pod.id}`, { name: "renamed" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: "renamed", status: "RUNNING" });
  });

  test("locked applies at once and does not restart", async () => {
    const pod = await api.createPod(gpuPod());
    await api.waitFor(pod.id, "RUNNING");
    const r = await api.patch(`/v2/pods/${pod.id}`, { locked: true });
    expect(r.body).toMatchObject({ locked: true, status: "RUNNING" });
  });

  test("any other field restarts a RUNNING pod: STARTING, then RUNNING", async () => {
    for (const change of [{ image: "img:2" }, { env: { B: "2" } }, { disk: 50 }, { ports: ["9000/http"] }, { args: "-v" }]) {
      const pod = await api.createPod(gpuPod());
      await api.waitFor(pod.id, "RUNNING");
      const r = await api.patch(`/v2/pods/${pod.id}`, change);
      expect(r.status).toBe(200);
      expect(r.body.status).toBe("STARTING");
      expect(r.body).toMatchObject(change.env ? {} : change);
      await api.waitFor(pod.id, "RUNNING");
    }
  });

  test("an update that changes nothing does not restart", async () => {
    const pod = await api.createPod(gpuPod({ image: "same:1" }));
    await api.waitFor(pod.id, "RUNNING");
    expect((await api.patch(`/v2/pods/${pod.id}`, { image: "same:1", mounts: {} })).body.status).toBe("RUNNING");
  });

  test("an update to an EXITED pod keeps it EXITED; the change applies at the next start", async () => {
    const pod = await api.createPod(gpuPod());
    await api.waitFor(pod.id, "RUNNING");
    await api.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    const r = await api.patch(`/v2/pods/${pod.id}`, { image: "img:3" });
    expect(r.body).toMatchObject({ status: "EXITED", image: "img:3" });
  });

  test("globalNetworking applies at the next start or restart, not at once", async () => {
    const pod = await api.createPod(gpuPod({ dataCenterIds: ["US-TX-3"] }));
    await api.waitFor(pod.id, "RUNNING");
    const r = await api.patch(`/v2/pods/${pod.id}`, { globalNetworking: true });
    expect(r.body.status).toBe("RUNNING");
    expect(r.body.globalNetworking).toEqual({ enabled: false });
    await api.post(`/v2/pods/${pod.id}/action`, { action: "restart" });
    const running = await api.waitFor(pod.id, "RUNNING");
    expect(running.globalNetworking).toMatchObject({ enabled: true, internalDns: expect.stringMatching(new RegExp(`^${pod.id}\\.`)) });
    await api.patch(`/v2/pods/${pod.id}`, { globalNetworking: false });
    await api.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    await api.post(`/v2/pods/${pod.id}/action`, { action: "start" });
    expect((await api.waitFor(pod.id, "RUNNING")).globalNetworking).toEqual({ enabled: false });
  });

  test("globalNetworking on update is checked: CPU pod, non-NVIDIA GPU, ineligible data center -> 400", async () => {
    const cpu = await api.createPod(cpuPod());
    const amd = await api.createPod({ gpu: { id: MI300X } });
    const cz = await api.createPod(gpuPod({ dataCenterIds: ["EU-CZ-1"] }));
    for (const [id, detail] of [
      [cpu.id, /NVIDIA GPU/],
      [amd.id, /NVIDIA GPU/],
      [cz.id, /EU-CZ-1 does not support global networking/],
    ] as const) {
      const r = await api.patch(`/v2/pods/${id}`, { globalNetworking: true });
      expect(r.status).toBe(400);
      expect(r.body.detail).toMatch(detail);
    }
  });

  test("updatePod accepts only its listed fields -> 422 for gpu, cloud, dataCenterIds, unknown", async () => {
    const pod = await api.createPod(gpuPod());
    const r = await api.patch(`/v2/pods/${pod.id}`, { gpu: { id: A100 }, cloud: "COMMUNITY", dataCenterIds: [], bogus: 1 });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual(["$: additional properties 'gpu', 'cloud', 'dataCenterIds', 'bogus' not allowed"]);
  });

  test("updatePod field types are checked like create -> 422", async () => {
    const pod = await api.createPod(gpuPod());
    const r = await api.patch(`/v2/pods/${pod.id}`, { disk: 0, locked: "yes", name: "" });
    expect(r.status).toBe(422);
    expect(r.body.errors).toHaveLength(3);
  });

  test("2.4 rule 4: omitting mounts or sending {} leaves the mount unchanged", async () => {
    const vol = await api.createVolume();
    const pod = await api.createPod(gpuPod({ mounts: { network: [{ volumeId: vol.id, path: "/d" }] } }));
    expect((await api.patch(`/v2/pods/${pod.id}`, { name: "n" })).body.mounts).toEqual(pod.mounts);
    expect((await api.patch(`/v2/pods/${pod.id}`, { mounts: {} })).body.mounts).toEqual(pod.mounts);
  });

  test("2.4 rule 4: network: [] on update -> 400 (clearing is unsupported)", async () => {
    const vol = await api.createVolume();
    const pod = await api.createPod(gpuPod({ mounts: { network: [{ volumeId: vol.id, path: "/d" }] } }));
    const r = await api.patch(`/v2/pods/${pod.id}`, { mounts: { network: [] } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/clearing the network mount is unsupported/);
  });

  test("2.4 rule 4: persistent on a network pod -> 400 (mount kind fixed at creation)", async () => {
    const vol = await api.createVolume();
    const pod = await api.createPod(gpuPod({ mounts: { network: [{ volumeId: vol.id, path: "/d" }] } }));
    const r = await api.patch(`/v2/pods/${pod.id}`, { mounts: { persistent: { size: 10, path: "/w" } } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/kind of mount is fixed at creation/);
  });

  test("2.4 rule 4: network on a persistent pod -> 400 (mount kind fixed at creation)", async () => {
    const vol = await api.createVolume();
    const pod = await api.createPod(gpuPod({ mounts: { persistent: { size: 10, path: "/w" } } }));
    const r = await api.patch(`/v2/pods/${pod.id}`, { mounts: { network: [{ volumeId: vol.id, path: "/d" }] } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/kind of mount is fixed at creation/);
  });

  test("2.4 rule 4: any mount on a pod created without one -> 400", async () => {
    const vol = await api.createVolume();
    const pod = await api.createPod(gpuPod());
    for (const mounts of [{ persistent: { size: 10, path: "/w" } }, { network: [{ volumeId: vol.id, path: "/d" }] }]) {
      const r = await api.patch(`/v2/pods/${pod.id}`, { mounts });
      expect(r.status).toBe(400);
      expect(r.body.detail).toMatch(/fixed at creation/);
    }
  });

  test("2.4 rule 4: both mount kinds on update -> 400", async () => {
    const vol = await api.createVolume();
    const pod = await api.createPod(gpuPod({ mounts: { persistent: { size: 10, path: "/w" } } }));
    const r = await api.patch(`/v2/pods/${pod.id}`, {
      mounts: { persistent: { size: 10, path: "/w" }, network: [{ volumeId: vol.id, path: "/d" }] },
    });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/at most one of persistent or network/);
  });

  test("2.4 rule 4: a different volumeId -> 400", async () => {
    const a = await api.createVolume();
    const b = await api.createVolume();
    const pod = await api.createPod(gpuPod({ mounts: { network: [{ volumeId: a.id, path: "/d" }] } }));
    const r = await api.patch(`/v2/pods/${pod.id}`, { mounts: { network: [{ volumeId: b.id, path: "/d" }] } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/network volume of a pod cannot change/);
  });

  test("2.4 rule 4: the network mount path may change (and restarts a RUNNING pod)", async () => {
    const vol = await api.createVolume();
    const pod = await api.createPod(cpuPod({ mounts: { network: [{ volumeId: vol.id, path: "/d" }] } }));
    await api.waitFor(pod.id, "RUNNING");
    const r = await api.patch(`/v2/pods/${pod.id}`, { mounts: { network: [{ volumeId: vol.id, path: "/data2" }] } });
    expect(r.status).toBe(200);
    expect(r.body.mounts).toEqual({ network: [{ volumeId: vol.id, path: "/data2" }] });
    expect(r.body.status).toBe("STARTING");
  });

  test("the persistent mount path may change", async () => {
    const pod = await api.createPod(gpuPod({ mounts: { persistent: { size: 10, path: "/w" } } }));
    const r = await api.patch(`/v2/pods/${pod.id}`, { mounts: { persistent: { size: 10, path: "/workspace" } } });
    expect(r.status).toBe(200);
    expect(r.body.mounts).toEqual({ persistent: { size: 10, path: "/workspace" } });
  });

  test("a persistent mount's size may grow (the container restarts); a smaller one -> 400", async () => {
    const pod = await api.createPod(gpuPod({ mounts: { persistent: { size: 20, path: "/w" } } }));
    await api.waitFor(pod.id, "RUNNING");
    const grown = await api.patch(`/v2/pods/${pod.id}`, { mounts: { persistent: { size: 40, path: "/w" } } });
    expect(grown.status).toBe(200);
    expect(grown.body).toMatchObject({ status: "STARTING", mounts: { persistent: { size: 40, path: "/w" } } });
    const r = await api.patch(`/v2/pods/${pod.id}`, { mounts: { persistent: { size: 30, path: "/w" } } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe("mounts.persistent.size: a persistent mount only grows (it is 40 GB, asked 30 GB)");
  });

  test("2.4 rule 4: a partial mount entry (missing required field) -> 422", async () => {
    const vol = await api.createVolume();
    const pod = await api.createPod(gpuPod({ mounts: { network: [{ volumeId: vol.id, path: "/d" }] } }));
    const r = await api.patch(`/v2/pods/${pod.id}`, { mounts: { network: [{ path: "/e" }] } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual(["$.mounts.network[0]: missing property 'volumeId'"]);
    const p = await api.createPod(gpuPod({ mounts: { persistent: { size: 10, path: "/w" } } }));
    const q = await api.patch(`/v2/pods/${p.id}`, { mounts: { persistent: { path: "/x" } } });
    expect(q.status).toBe(422);
    expect(q.body.errors).toEqual(["$.mounts.persistent: missing property 'size'"]);
  });

  test("2.2: env on update replaces the user's env; the platform key stays", async () => {
    const pod = await api.createPod(gpuPod({ env: { A: "1" } }));
    const r = await api.patch(`/v2/pods/${pod.id}`, { env: { B: "2" } });
    expect(r.body.env).toEqual({ B: "2", COMPUTEPLATFORM_POD_ID: pod.id });
  });

  test("updating a TERMINATED pod -> 409", async () => {
    const pod = await api.createPod(gpuPod());
    await api.del(`/v2/pods/${pod.id}`);
    expect((await api.patch(`/v2/pods/${pod.id}`, { name: "late" })).status).toBe(409);
  });
});

describe("pod life on a manual clock: transitions at exactly the configured times", () => {
  let now = Date.parse("2026-01-01T00:00:00Z");
  let clocked: Emulator;
  const capi = client(() => clocked);
  const status = async (id: string) => (await capi.get(`/v2/pods/${id}`)).body;

  beforeAll(async () => {
    clocked = await start({ clock: { now: () => now }, timings: { provisioningMs: 1000, startingMs: 2000 } });
  });

  afterAll(async () => {
    await clocked?.close();
  });

  test("3.2: PROVISIONING -> STARTING -> RUNNING after provisioningMs and startingMs; runtime and startedAt when RUNNING", async () => {
    const created = await capi.createPod(gpuPod({ ports: ["8888/http", "22/tcp"], gpu: { id: RTX4090, count: 2 } }));
    now += 999;
    expect((await status(created.id)).status).toBe("PROVISIONING");
    now += 1;
    const starting = await status(created.id);
    expect(starting).toMatchObject({ status: "STARTING", runtime: null, startedAt: null, actions: ["stop", "terminate"] });
    now += 1999;
    expect((await status(created.id)).status).toBe("STARTING");
    now += 1;
    const running = await status(created.id);
    expect(running.status).toBe("RUNNING");
    expect(running.actions).toEqual(["stop", "restart", "terminate"]);
    expect(running.startedAt).toBe(new Date(now).toISOString());
    expect(running.runtime).toMatchObject({ uptime: 0, cpu: { util: expect.any(Number) }, memory: { util: expect.any(Number) } });
    expect(running.runtime.gpus).toHaveLength(2);
    expect(running.runtime.ports).toEqual([
      { private: 8888, public: expect.any(Number), type: "http", ip: expect.any(String) },
      { private: 22, public: expect.any(Number), type: "tcp", ip: expect.any(String) },
    ]);
    expect(running.cost).toBeGreaterThan(0);
    now += 90_000;
    expect((await status(created.id)).runtime.uptime).toBe(90);
  });

  test("3.2: a pod read long after creation has passed through every state (no reader needed in between)", async () => {
    const created = await capi.createPod(gpuPod());
    now += 3000;
    const pod = await status(created.id);
    expect(pod.status).toBe("RUNNING");
    expect(Date.parse(pod.startedAt)).toBe(Date.parse(created.createdAt) + 3000);
  });

  test("restart -> STARTING for startingMs, then RUNNING with a new startedAt", async () => {
    const created = await capi.createPod(gpuPod());
    now += 3000;
    const restarted = await capi.post(`/v2/pods/${created.id}/action`, { action: "restart" });
    expect(restarted.body.status).toBe("STARTING");
    now += 2000;
    const pod = await status(created.id);
    expect(pod.status).toBe("RUNNING");
    expect(pod.startedAt).toBe(new Date(now).toISOString());
  });

  // These hold a pod in PROVISIONING or STARTING across several requests: with real
  // millisecond timings a slow machine would let the pod move on between them.
  test("start on PROVISIONING -> 200, no change", async () => {
    const pod = await capi.createPod(gpuPod());
    const r = await capi.post(`/v2/pods/${pod.id}/action`, { action: "start" });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("PROVISIONING");
  });

  test("stop on STARTING -> EXITED", async () => {
    const pod = await capi.createPod(gpuPod());
    now += 3000;
    expect((await capi.post(`/v2/pods/${pod.id}/action`, { action: "restart" })).body.status).toBe("STARTING");
    const r = await capi.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    expect(r.body.status).toBe("EXITED");
  });

  test("an action not in the pod's actions -> 409", async () => {
    const pod = await capi.createPod(gpuPod());
    for (const action of ["stop", "restart"]) {
      const r = await capi.post(`/v2/pods/${pod.id}/action`, { action });
      expect(r.status).toBe(409);
      expect(r.body.detail).toMatch(/not valid while the pod is PROVISIONING/);
    }
    now += 3000;
    expect((await status(pod.id)).status).toBe("RUNNING");
    await capi.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    expect((await capi.post(`/v2/pods/${pod.id}/action`, { action: "restart" })).status).toBe(409);
    expect((await capi.post(`/v2/pods/${pod.id}/action`, { action: "stop" })).status).toBe(409);
  });

  test("issue 14 #4: an update restart is asynchronous: RUNNING for restartDelayMs (the answer says so), STARTING for startingMs, then RUNNING", async () => {
    const created = await capi.createPod(gpuPod());
    now += 3000;
    const first = (await status(created.id)).startedAt;
    const answer = (await capi.patch(`/v2/pods/${created.id}`, { image: "img:9" })).body;
    // Honest: the restart has not begun when the PATCH answers.
    expect(answer).toMatchObject({ status: "RUNNING", image: "img:9" });
    now += 999;
    expect((await status(created.id)).status).toBe("RUNNING");
    now += 1;
    expect((await status(created.id)).status).toBe("STARTING");
    now += 1999;
    expect((await status(created.id)).status).toBe("STARTING");
    now += 1;
    const after = await status(created.id);
    expect(after.status).toBe("RUNNING");
    expect(after.startedAt).not.toBe(first);
  });

  test("issue 14 #4: an update to an image that fails goes RUNNING, STARTING, then ERROR; a stop before the restart cancels it", async () => {
    clocked.setFaults({ errorImages: ["^broken:"] });
    try {
      const created = await capi.createPod(gpuPod());
      now += 3000;
      expect((await capi.patch(`/v2/pods/${created.id}`, { image: "broken:1" })).body.status).toBe("RUNNING");
      now += 1000;
      expect((await status(created.id)).status).toBe("STARTING");
      now += 2000;
      expect((await status(created.id)).status).toBe("ERROR");

      const other = await capi.createPod(gpuPod());
      now += 3000;
      await capi.patch(`/v2/pods/${other.id}`, { image: "img:2" });
      expect((await capi.post(`/v2/pods/${other.id}/action`, { action: "stop" })).body.status).toBe("EXITED");
      now += 5000;
      expect((await status(other.id)).status).toBe("EXITED");
    } finally {
      clocked.setFaults({});
    }
  });
});

describe("timeScale shrinks pod timers", () => {
  test("timeScale 10: provisioningMs 1000 passes in 100 real ms", async () => {
    let now = 0;
    const fast = await start({ clock: { now: () => now }, timeScale: 10, timings: { provisioningMs: 1000, startingMs: 1000 } });
    try {
      const capi = client(() => fast);
      const pod = await capi.createPod(gpuPod());
      now += 99;
      expect((await capi.get(`/v2/pods/${pod.id}`)).body.status).toBe("PROVISIONING");
      now += 1;
      expect((await capi.get(`/v2/pods/${pod.id}`)).body.status).toBe("STARTING");
      now += 100;
      expect((await capi.get(`/v2/pods/${pod.id}`)).body.status).toBe("RUNNING");
    } finally {
      await fast.close();
    }
  });
});

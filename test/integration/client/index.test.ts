import {
  AuthenticationError,
  BadRequestError,
  ComputePlatform,
  type ComputePlatformOptions,
  ConflictError,
  NotFoundError,
  PacingRegistry,
  PermissionDeniedError,
  type Pod,
} from "../../../src/client";
import { type Emulator, startEmulator } from "../../../src/emulator";
import { FakeClock } from "../../helpers/fake-clock";
import { createServerlessTemplate } from "../../helpers/emulator-fixtures";

// The client against the emulator (a second, independent reading of the platform's API) over real HTTP.

const TIMINGS = { provisioningMs: 20, startingMs: 30, drainMs: 30 };
const READ_ONLY = "cp_emu_read_only_key_000000000000";
let emu: Emulator;
const clients: ComputePlatform[] = [];

function client(opts: Partial<ComputePlatformOptions> = {}): ComputePlatform {
  const cp = new ComputePlatform({
    apiKey: emu.apiKey,
    apiUrl: emu.url,
    serverlessUrl: emu.url,
    pacing: new PacingRegistry(),
    clock: new FakeClock(),
    env: {},
    ...opts,
  });
  clients.push(cp);
  return cp;
}

/** Emulator op counts since `before`. */
function delta(before: Record<string, number>): Record<string, number> {
  const now = emu.counts();
  const out: Record<string, number> = {};
  for (const [op, n] of Object.entries(now)) if (n !== (before[op] ?? 0)) out[op] = n - (before[op] ?? 0);
  return out;
}

/** Poll (really, in ms) until the pod reaches `status`; bounded. */
async function until(cp: ComputePlatform, id: string, status: Pod["status"]): Promise<Pod> {
  for (let i = 0; i < 200; i++) {
    const pod = await cp.pods.get(id);
    if (pod.status === status) return pod;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`pod ${id} never reached ${status}`);
}

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    timings: TIMINGS,
    quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 },
    keys: [
      { key: "cp_emu_full_key_0000000000000000000", scopes: ["read", "write"] },
      { key: READ_ONLY, scopes: ["read"] },
    ],
  });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emu.close();
});

test("pods: create, get, list, update, actions, delete, with one request per call", async () => {
  const cp = client();
  let before = emu.counts();
  const pod = await cp.pods.create({ name: "lifecycle", image: "busybox:1", gpu: { id: "NVIDIA GeForce RTX 4090" }, ports: ["8888/http"], env: { A: "1" } });
  expect(pod).toMatchObject({ name: "lifecycle", status: "PROVISIONING", actions: ["start", "terminate"], startedAt: null, runtime: null });
  expect(delta(before)).toEqual({ createPod: 1 });

  await until(cp, pod.id, "RUNNING");
  before = emu.counts();
  expect((await cp.pods.list()).map((p) => p.id)).toContain(pod.id);
  const renamed = await cp.pods.update(pod.id, { name: "lifecycle-2", locked: false });
  expect(renamed.name).toBe("lifecycle-2");
  const stopped = await cp.pods.action(pod.id, "stop");
  expect(stopped?.status).toBe("EXITED");
  expect(stopped?.cost).toBe(0);
  await expect(cp.pods.action(pod.id, "stop")).rejects.toBeInstanceOf(ConflictError);
  expect(delta(before)).toEqual({ listPods: 1, updatePod: 1, podAction: 2 });

  before = emu.counts();
  await cp.pods.delete(pod.id);
  expect((await cp.pods.get(pod.id)).status).toBe("TERMINATED");
  expect((await cp.pods.list()).map((p) => p.id)).not.toContain(pod.id);
  expect(await cp.pods.findByName("lifecycle-2")).toBeUndefined();
  expect(delta(before)).toEqual({ deletePod: 1, getPod: 1, listPods: 2 });
  await expect(cp.pods.get("no-such-pod")).rejects.toBeInstanceOf(NotFoundError);
});

test("terminate through action answers 204 and resolves to undefined", async () => {
  const cp = client();
  const pod = await cp.pods.create({ name: "term", image: "busybox:1", gpu: { id: "NVIDIA L40S" } });
  await expect(cp.pods.action(pod.id, "terminate")).resolves.toBeUndefined();
  expect(emu.state().pods.find((p) => p.id === pod.id)).toMatchObject({ status: "TERMINATED" });
});

test("catalog, network volumes and a CPU pod mounting one", async () => {
  const cp = client();
  const before = emu.counts();
  const [cpus, gpus, dcs] = await Promise.all([cp.catalog.cpus(), cp.catalog.gpus(), cp.catalog.dataCenters()]);
  expect(delta(before)).toEqual({ listCpus: 1, listGpus: 1, listDataCenters: 1 });
  expect(gpus.some((g) => g.manufacturer === "AMD")).toBe(true);
  const dc = dcs.find((d) => d.networkVolumeTypes.length > 0)!;
  const flavor = cpus[0];
  // By id, as the contract's records, the id percent-encoded (GPU ids hold spaces).
  const gpu = gpus.find((g) => g.id.includes(" "))!;
  await expect(cp.catalog.gpu(gpu.id)).resolves.toMatchObject({ id: gpu.id, memory: gpu.memory, price: gpu.price });
  await expect(cp.catalog.cpu(flavor.id)).resolves.toMatchObject({ id: flavor.id, price: flavor.price });
  await expect(cp.catalog.dataCenter(dc.id)).resolves.toMatchObject({ id: dc.id, region: dc.region });
  await expect(cp.catalog.gpu("no such gpu")).rejects.toBeInstanceOf(NotFoundError);

  const vol = await cp.networkVolumes.create({ name: "data", size: 20, dataCenter: dc.id });
  // No type asked for: the data center's first tier.
  expect(vol).toMatchObject({ name: "data", size: 20, dataCenter: dc.id, type: dc.networkVolumeTypes[0] });
  expect(await cp.networkVolumes.get(vol.id)).toEqual(vol);
  expect((await cp.networkVolumes.list()).map((v) => v.id)).toContain(vol.id);
  await expect(cp.networkVolumes.update(vol.id, { size: 30 })).resolves.toMatchObject({ size: 30 });
  await expect(cp.networkVolumes.update(vol.id, { size: 25 })).rejects.toBeInstanceOf(BadRequestError);

  const pod = await cp.pods.create({
    name: "cpu-with-volume",
    image: "busybox:1",
    cpu: { id: flavor.id, vcpuCount: 4 },
    mounts: { network: [{ volumeId: vol.id, path: "/data" }] },
  });
  expect(pod.cpu).toEqual({ id: flavor.id, vcpuCount: 4, memory: Math.max(1, Math.floor(4 * flavor.ramGbPerVcpu)) });
  expect(pod.dataCenterId).toBe(dc.id);
  await expect(cp.networkVolumes.delete(vol.id)).rejects.toBeInstanceOf(ConflictError);
  await cp.pods.delete(pod.id);
  await cp.networkVolumes.delete(vol.id);
  await expect(cp.networkVolumes.get(vol.id)).rejects.toBeInstanceOf(NotFoundError);
});

test("rules only the server can check come back as a BadRequestError naming them", async () => {
  const cp = client();
  const err = await cp.pods.create({ name: "x", image: "i", cpu: { id: "no-such-flavor", vcpuCount: 2 } }).catch((e) => e);
  expect(err).toBeInstanceOf(BadRequestError);
  expect(err.status).toBe(400);
  expect(err.message).toMatch(/no-such-flavor/);
  emu.setFaults({ noCapacity: [{ gpuId: "NVIDIA H100 80GB HBM3" }] });
  try {
    const full = await cp.pods.create({ name: "y", image: "i", gpu: { id: "NVIDIA H100 80GB HBM3" } }).catch((e) => e);
    expect(full).toBeInstanceOf(BadRequestError);
    expect(full.message).toMatch(/no capacity/);
  } finally {
    emu.setFaults({});
  }
});

test("endpoints: a hostile name round-trips through save, list, get; delete needs zero workers", async () => {
  const cp = client();
  const name = 'we"ird} name\\ with\nnewline { and "quotes"';
  // The platform checks that the template exists and is serverless.
  const tpl = await createServerlessTemplate(emu.url, emu.apiKey);
  const before = emu.counts();
  const created = await cp.endpoints.save({
    name,
    gpuIds: "AMPERE_24",
    templateId: tpl,
    workersMin: 0,
    workersMax: 2,
    flashBootType: "FLASHBOOT",
    scalerType: "QUEUE_DELAY",
    scalerValue: 4,
    idleTimeout: 5,
  });
  expect(created).toMatchObject({ name, templateId: tpl, flashBootType: "FLASHBOOT", workersMax: 2 });
  expect((await cp.endpoints.list()).find((e) => e.id === created.id)?.name).toBe(name);
  const got = await cp.endpoints.get(created.id);
  expect(got.name).toBe(name);
  expect(got.pods).toEqual([]);

  await expect(cp.endpoints.delete(created.id)).rejects.toBeInstanceOf(ConflictError);
  const scaled = await cp.endpoints.save({ id: created.id, name, gpuIds: "AMPERE_24", templateId: tpl, workersMin: 0, workersMax: 0 });
  expect(scaled.workersMax).toBe(0);
  await cp.endpoints.delete(created.id);
  await expect(cp.endpoints.get(created.id)).rejects.toBeInstanceOf(NotFoundError);
  await expect(cp.endpoints.delete(created.id)).rejects.toBeInstanceOf(NotFoundError);
  expect(delta(before)).toEqual({ saveEndpoint: 2, myself: 3, deleteEndpoint: 3 });
  const { serverlessDiscount } = await cp.endpoints.account();
  if (serverlessDiscount !== null) expect(serverlessDiscount).toEqual(expect.objectContaining({ discountFactor: expect.any(Number) }));
});

test("runsync: an image model answers with output.image_url; an unknown model is a NotFoundError", async () => {
  const cp = client();
  const before = emu.counts();
  const out = await cp.models.runSync("sdxl-turbo", { prompt: "a red cube", width: 64, height: 64 });
  expect(out.status).toBe("COMPLETED");
  expect(out.output.image_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  expect(delta(before)).toEqual({ runSync: 1 });
  await expect(cp.models.runSync("no-such-model", { prompt: "x", width: 64, height: 64 })).rejects.toBeInstanceOf(NotFoundError);
});

test("401 for a wrong key and 403 for a read-only key, on REST and GraphQL alike, none retried", async () => {
  const wrong = client({ apiKey: "cp_emu_wrong_key_00000000000000" });
  const before = emu.counts();
  await expect(wrong.pods.list()).rejects.toBeInstanceOf(AuthenticationError);
  await expect(wrong.endpoints.list()).rejects.toBeInstanceOf(AuthenticationError);
  await expect(wrong.models.runSync("sdxl-turbo", { prompt: "x", width: 64, height: 64 })).rejects.toBeInstanceOf(AuthenticationError);

  const reader = client({ apiKey: READ_ONLY });
  await expect(reader.pods.list()).resolves.toEqual(expect.any(Array));
  await expect(reader.pods.create({ name: "ro", image: "i", gpu: { id: "NVIDIA L40S" } })).rejects.toBeInstanceOf(PermissionDeniedError);
  await expect(reader.endpoints.save({ name: "ro", gpuIds: "AMPERE_16", templateId: "t" })).rejects.toBeInstanceOf(PermissionDeniedError);
  const counted = delta(before);
  expect(counted.createPod ?? 0).toBe(1);
  expect(counted.listPods).toBe(2);
});

test("under random 5xx, 429 and dropped-after-processing faults, one create call makes at most one pod", async () => {
  const cp = client({ maxRetries: 8, random: () => 0.5 });
  const before = emu.counts();
  emu.setFaults({ seed: 7, rate5xx: 0.25, rate429: 0.1, dropAfterProcessRate: 0.25 });
  const names = Array.from({ length: 8 }, (_, i) => `chaos-${i}`);
  const results = await Promise.allSettled(names.map((name) => cp.pods.create({ name, image: "busybox:1", gpu: { id: "NVIDIA L40S" } })));
  emu.setFaults({});
  const pods = emu.state().pods;
  const faulted = emu.requestLog().filter((e) => e.op === "createPod" && (e.dropped || e.status >= 500)).length;
  expect(faulted).toBeGreaterThan(0); // the faults really hit creates
  expect(delta(before).listPods).toBeGreaterThan(0); // and the client looked before creating again
  results.forEach((r, i) => {
    const mine = pods.filter((p) => p.name === names[i]);
    if (r.status === "fulfilled") {
      expect(mine.map((p) => p.id)).toEqual([r.value.id]);
    } else {
      expect(mine.length).toBeLessThanOrEqual(1);
    }
  });
  expect(results.filter((r) => r.status === "fulfilled").length).toBeGreaterThanOrEqual(6);
});

test("pacing against the emulator's own windows: r=0 makes the next request wait instead of earning a 429", async () => {
  // A separate emulator whose minute lasts 1/60 of a real minute: the wait is about a second.
  const small = await startEmulator({ port: 0, quotas: { minute: 2 }, timeScale: 60 });
  const paced = new ComputePlatform({ apiKey: small.apiKey, apiUrl: small.url, pacing: new PacingRegistry(), env: {}, maxRetries: 2 });
  try {
    for (let i = 0; i < 3; i++) await paced.catalog.cpus();
    const statuses = small.requestLog().map((e) => e.status);
    expect(statuses).toEqual([200, 200, 200]);
    expect(small.counts().listCpus).toBe(3);
  } finally {
    await paced.close();
    await small.close();
  }
});

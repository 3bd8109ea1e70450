// The account sweep (`computeplatform-account`) against the emulator over real HTTP: an account
// holding two stacks' objects (pods made through the Pod provider, so they carry its owner mark,
// and the stacks' exported states), the orphan of a create that never finished, stopped pods, and
// hand-made objects of every kind. Each object is listed once with its owner (or why it cannot be
// told), one list per kind; its cost per hour equals what the emulator then bills for a full hour.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readStates } from "../../../src/account/owners";
import { readAccount, sweepOf } from "../../../src/account/sweep";
import { ComputePlatform } from "../../../src/client";
import { type Emulator, startEmulator } from "../../../src/emulator";
import { LOGICAL_NAME_KEY } from "../../../src/resources/lifecycle/owner";
import { PodProvider } from "../../../src/resources/pod/provider";

const QUOTAS = { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 };
const L40S = "NVIDIA L40S";
const HOUR = 3_600_000;

let emu: Emulator;
let client: ComputePlatform;
let dir: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, quotas: QUOTAS, timings: { provisioningMs: 10, startingMs: 10, drainMs: 10, restartDelayMs: 10 } });
  client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false });
  dir = mkdtempSync(join(tmpdir(), "sweep-"));
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Until `done` holds for what `read` answers, a bounded number of times. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("not settled");
}

/** A pod made as a stack's Pod resource makes it: through the provider, with the stack's identity. */
async function stackPod(stack: string, logicalName: string): Promise<string> {
  const p = new PodProvider({ client: () => client, poll: { intervalMs: 10, maxIntervalMs: 20, backoff: 1.5 } });
  const checked = await p.check({}, { image: "train:1", gpu: { id: L40S }, [LOGICAL_NAME_KEY]: logicalName, __project: "ml", __stack: stack });
  return (await p.create(checked.inputs!)).id;
}

/** A stack's exported state (`pulumi stack export`) holding `ids`, as the sweep reads it. */
function stateFile(stack: string, held: [kind: string, name: string, id: string][]): string {
  const file = join(dir, `${stack}.json`);
  const resources = held.map(([kind, name, id]) => ({
    urn: `urn:pulumi:${stack}::ml::pulumi-nodejs:dynamic/computeplatform:${kind}::${name}`,
    type: `pulumi-nodejs:dynamic/computeplatform:${kind}`,
    id,
  }));
  writeFileSync(file, JSON.stringify({ version: 3, deployment: { resources: [{ urn: `urn:pulumi:${stack}::ml::pulumi:pulumi:Stack::ml-${stack}`, type: "pulumi:pulumi:Stack" }, ...resources] } }));
  return file;
}

test("every object once, with its owner or why it cannot be told, and a cost equal to the hour the emulator then bills", async () => {
  // Two stacks of one program: a trainer pod each, dev's volume.
  const devPod = await stackPod("dev", "trainer");
  const prodPod = await stackPod("prod", "trainer");
  const devVolume = await client.networkVolumes.create({ name: "dev-data", size: 100, dataCenter: "EU-RO-1", type: "HIGH_PERFORMANCE" });
  // The orphan of a create that never finished: the pending name and the owner mark a killed plugin leaves.
  const orphan = await client.pods.create({ name: "trainer-1a2b3c4~creating", image: "train:1", gpu: { id: L40S }, env: { COMPUTEPLATFORM_OWNER: "1a2b3c4d5e6f7a8b.deadbeef" } });
  // Stopped pods: one a stack made (still marked), one by hand; their disks are held, their compute not billed.
  const stoppedMarked = await stackPod("dev", "old-trainer");
  const stoppedByHand = await client.pods.create({ name: "scratch", image: "dev:1", gpu: { id: L40S }, disk: 50, mounts: { persistent: { size: 200, path: "/w" } } });
  // Hand-made: a running CPU pod, a volume, a template, a credential, an endpoint keeping one worker.
  const cpuPod = await client.pods.create({ name: "notebook", image: "nb:1", cpu: { id: "cpu3c", vcpuCount: 4 } });
  const volume = await client.networkVolumes.create({ name: "datasets", size: 500, dataCenter: "US-KS-2" });
  const template = await client.templates.create({ name: "sdxl", image: "sdxl:1", serverless: true });
  const credential = await client.registries.create({ name: "ghcr", username: "robot", password: "never-printed-9f2" });
  const endpoint = await client.endpoints.save({ name: "image-api", gpuIds: "ADA_24,AMPERE_24", templateId: template.id, workersMin: 1, workersMax: 1, gpuCount: 2 });
  for (const id of [stoppedMarked, stoppedByHand.id]) {
    await until(() => client.pods.get(id), (p) => p.status === "RUNNING");
    await client.pods.action(id, "stop");
  }
  for (const id of [devPod, prodPod, orphan.id, cpuPod.id]) await until(() => client.pods.get(id), (p) => p.status === "RUNNING");
  for (const id of [stoppedMarked, stoppedByHand.id]) await until(() => client.pods.get(id), (p) => p.status === "EXITED");
  await until(() => client.endpoints.get(endpoint.id), (e) => (e.pods ?? []).some((w) => w.desiredStatus === "RUNNING"));

  const states = [
    stateFile("dev", [["Pod", "trainer", devPod], ["NetworkVolume", "data", devVolume.id], ["Pod", "old-trainer", stoppedMarked]]),
    stateFile("prod", [["Pod", "trainer", prodPod]]),
  ];
  const from = emu.requestLog().length;
  const sweep = sweepOf(await readAccount(client), readStates(states));
  // One list per kind (and the GPU catalog for the workers' price), nothing else.
  expect(
    emu
      .requestLog()
      .slice(from)
      .map((e) => e.op)
      .sort(),
  ).toEqual(["listGpus", "listNetworkVolumes", "listPods", "listRegistries", "listTemplates", "myself"]);

  const by = (id: string) => sweep.objects.find((o) => o.id === id)!;
  expect(sweep.objects).toHaveLength(11);
  expect(by(devPod).owner).toMatchObject({ by: "state", stacks: ["ml/dev"], text: "stack ml/dev (Pod::trainer)" });
  expect(by(prodPod).owner).toMatchObject({ by: "state", stacks: ["ml/prod"] });
  expect(by(devVolume.id).owner).toMatchObject({ by: "state", text: "stack ml/dev (NetworkVolume::data)" });
  expect(by(orphan.id).owner).toMatchObject({ by: "unfinished" });
  expect(by(stoppedByHand.id)).toMatchObject({ state: "EXITED", perHour: 0, cost: "stopped: bills no compute; holds 250 GB of disk", owner: { by: "unmarked" } });
  expect(by(stoppedMarked)).toMatchObject({ state: "EXITED", perHour: 0, owner: { by: "state" } });
  for (const id of [volume.id, template.id, credential.id, endpoint.id]) expect(by(id).owner.by).toBe("unknown");
  expect(by(endpoint.id).state).toBe("1 worker (min 1, max 1) on ADA_24,AMPERE_24");
  expect(by(template.id).perHour).toBe(0);
  // Largest first.
  const rates = sweep.objects.map((o) => o.perHour);
  expect(rates).toEqual([...rates].sort((a, b) => b - a));
  // Without the states, the marks alone: a stack's pod says so, and cannot say which.
  const unnamed = sweepOf(await readAccount(client, ["Pod"]), new Map());
  expect(unnamed.objects.find((o) => o.id === prodPod)!.owner).toMatchObject({ by: "mark", stacks: ["ml/prod"], text: "stack ml/prod (its pod's stack mark)" });
  // The orphan a killed plugin left carries only the owner mark: it says so.
  expect(unnamed.objects.find((o) => o.id === orphan.id)!.owner.by).toBe("unfinished");

  // The figures are what the emulator bills: a whole hour bucket after the sweep, object by object.
  const now = emu.now();
  const hourStart = Math.ceil(now / HOUR) * HOUR;
  emu.advanceClock(hourStart + HOUR + 1000 - now);
  const window = { startTime: new Date(hourStart).toISOString(), endTime: new Date(hourStart + HOUR).toISOString(), bucketSize: "hour" as const };
  const pods = await client.billing.pods(window);
  for (const o of sweep.objects.filter((x) => x.kind === "Pod")) {
    const billed = pods.records.filter((r) => r.podId === o.id).reduce((s, r) => s + r.totalAmount, 0);
    expect({ id: o.id, billed }).toEqual({ id: o.id, billed: expect.closeTo(o.perHour, 4) });
  }
  const volumes = await client.billing.networkVolumes(window);
  for (const o of sweep.objects.filter((x) => x.kind === "NetworkVolume")) {
    const billed = volumes.records.filter((r) => r.networkVolumeId === o.id).reduce((s, r) => s + r.totalAmount, 0);
    expect({ id: o.id, billed }).toEqual({ id: o.id, billed: expect.closeTo(o.perHour, 4) });
  }
  const summary = await client.billing.summary(window);
  const serverless = summary.records.reduce((s, r) => s + ((r as Record<string, number>).serverlessGpuAmount ?? 0), 0);
  expect(serverless).toBeCloseTo(by(endpoint.id).perHour, 4);
  expect(summary.records.reduce((s, r) => s + r.totalAmount, 0)).toBeCloseTo(sweep.totals.perHour, 3);
  expect(sweep.totals.perMonth).toBeCloseTo(sweep.totals.perHour * 720, 6);
});

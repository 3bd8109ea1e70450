/**
 * The Pod provider's methods, called directly, against the emulator over real HTTP. Pod
 * timings are tens of milliseconds and the poller ticks every few, so waits are real but short.
 * Tests that count ticks, or whose seeded faults must hit the same requests every run, use
 * their own emulator on a stepped clock (steppedRig) instead.
 */
import { ComputePlatform, ConflictError, InternalServerError } from "../../../../src/client";
import { type Clock, systemClock } from "../../../../src/client/core/clock";
import { type Emulator, type Faults, startEmulator } from "../../../../src/emulator";
import { PodInitError } from "../../../../src/resources/pod/status";
import { type PodOutputs } from "../../../../src/resources/pod/outputs";
import { PodProvider } from "../../../../src/resources/pod/provider";
import { createBody, matchesCreate } from "../../../../src/resources/pod/wire";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { checkPod, type PodInputs } from "../../../../src/resources/pod/schema";
import { SteppedClock, trackedClient } from "../../../helpers/stepped-clock";

const QUOTAS = { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 };
const POLL = { intervalMs: 10, maxIntervalMs: 30, backoff: 1.5 };

let emu: Emulator;
let client: ComputePlatform;
let volumeId: string;
let otherVolumeId: string;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    quotas: QUOTAS,
    timings: { provisioningMs: 30, startingMs: 30, restartDelayMs: 20 },
    faults: { errorImages: [/^broken\//] },
  });
  client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, maxRetries: 4, baseDelayMs: 2, maxBackoffMs: 20 });
  const dcs = (await client.catalog.dataCenters()).map((d) => d.id);
  volumeId = (await client.networkVolumes.create({ name: "vol-a", size: 20, dataCenter: dcs[0] })).id;
  otherVolumeId = (await client.networkVolumes.create({ name: "vol-b", size: 20, dataCenter: dcs[0] })).id;
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

let gpuId: string;
beforeAll(async () => {
  gpuId = (await client.catalog.gpus()).find((g) => g.manufacturer === "NVIDIA")!.id;
});

function provider(over: ConstructorParameters<typeof PodProvider>[0] = {}) {
  return new PodProvider({ client: () => client, poll: POLL, ...over });
}

/** Checked inputs, as the engine hands them to create/update. */
async function inputs(p: PodProvider, news: Record<string, unknown>, olds?: Record<string, unknown>, logicalName = "web"): Promise<PodInputs> {
  const checked = await p.check(olds ?? {}, { image: "img/app:1", gpu: { id: gpuId }, [LOGICAL_NAME_KEY]: logicalName, ...news });
  expect(checked.failures ?? []).toEqual([]);
  return checked.inputs!;
}

function live(id: string): any {
  return emu.state().pods.find((p: any) => p.id === id);
}

/**
 * An emulator, a client and a provider (at its default poll pace) on one stepped clock, so
 * the ticks a wait takes and the order of every request follow from the code alone: a seed
 * then faults the same requests on every run. Every provider call goes through `clock.drive`.
 */
async function steppedRig(faults: Faults = {}) {
  const clock = new SteppedClock();
  const emu = await startEmulator({ port: 0, quotas: QUOTAS, timings: { provisioningMs: 3000, startingMs: 2000 }, faults, clock });
  const raw = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, maxRetries: 4, baseDelayMs: 2, maxBackoffMs: 20 });
  const client = trackedClient(clock, raw);
  const p = new PodProvider({ client: () => client, clock });
  const close = async () => {
    await raw.close();
    await emu.close();
  };
  return { clock, emu, p, close };
}

/** Operation counts since `before`. */
function delta(before: Record<string, number>, from: Emulator = emu): Record<string, number> {
  const now = from.counts();
  const out: Record<string, number> = {};
  for (const [op, n] of Object.entries(now)) if (n - (before[op] ?? 0) > 0) out[op] = n - (before[op] ?? 0);
  return out;
}

test("lifecycle: create waits for RUNNING, updates in place, plans a replace, stops and starts, refreshes drift, deletes", async () => {
  const p = provider();
  let c0 = emu.counts();
  const created = await p.create(
    await inputs(p, {
      name: "life",
      env: { MODEL: "llama" },
      ports: ["8888/http", "22/tcp"],
      mounts: { network: [{ volumeId, path: "/workspace" }] },
      waitFor: "PORTS",
    }),
  );
  const id = created.id;
  let outs: PodOutputs = created.outs!;
  expect(outs).toMatchObject({ id, name: "life", status: "RUNNING", desiredStatus: "RUNNING", waitFor: "PORTS" });
  expect(outs.env).toMatchObject({ MODEL: "llama", COMPUTEPLATFORM_POD_ID: id });
  expect(outs.runtime?.ports?.find((x) => x.private === 22)?.public).toEqual(expect.any(Number));
  // One POST, then the shared list; never a GET per pod.
  let d = delta(c0);
  expect(d.createPod).toBe(1);
  expect(d.getPod ?? 0).toBe(0);
  expect(d.listPods).toBeGreaterThanOrEqual(1);
  expect(JSON.stringify(outs)).not.toContain(emu.apiKey);

  // Update in place: image and env; the platform's env key is not a diff.
  let news = await inputs(p, { name: "life", env: { MODEL: "mistral" }, ports: ["8888/http", "22/tcp"], mounts: { network: [{ volumeId, path: "/workspace" }] }, waitFor: "PORTS", image: "img/app:2" }, { name: "life" });
  expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [] });
  c0 = emu.counts();
  outs = (await p.update(id, outs, news)).outs!;
  d = delta(c0);
  expect(d.updatePod).toBe(1);
  expect(d.createPod ?? 0).toBe(0);
  expect(outs).toMatchObject({ image: "img/app:2", status: "RUNNING", env: { MODEL: "mistral", COMPUTEPLATFORM_POD_ID: id } });
  expect(live(id).image).toBe("img/app:2");
  expect(await p.diff(id, outs, news)).toEqual({ changes: false, replaces: [] });

  // Replace decision: another network volume. No request is sent by diff.
  c0 = emu.counts();
  const moved = await inputs(p, { ...news, mounts: { network: [{ volumeId: otherVolumeId, path: "/workspace" }] } });
  expect(await p.diff(id, outs, moved)).toEqual({ changes: true, replaces: ["mounts"] });
  // And update refuses it rather than send the PATCH the platform answers with 400.
  await expect(p.update(id, outs, moved)).rejects.toThrow(/mounts cannot change in place/);
  expect(delta(c0)).toEqual({});

  // Stop through desiredStatus, then start again.
  news = { ...news, desiredStatus: "EXITED" };
  c0 = emu.counts();
  outs = (await p.update(id, outs, news)).outs!;
  expect(outs).toMatchObject({ status: "EXITED", cost: 0, desiredStatus: "EXITED" });
  expect(delta(c0)).toMatchObject({ podAction: 1 });
  expect(delta(c0).updatePod ?? 0).toBe(0);
  news = { ...news, desiredStatus: "RUNNING" };
  outs = (await p.update(id, outs, news)).outs!;
  expect(outs).toMatchObject({ status: "RUNNING", desiredStatus: "RUNNING" });
  expect(live(id).status).toBe("RUNNING");

  // Drift made outside Pulumi: refresh shows it, the next diff wants it back.
  await client.pods.update(id, { image: "img/app:hotfix", env: { MODEL: "mistral", EXTRA: "x" } });
  const refreshed = await p.read(id, outs);
  expect(refreshed.id).toBe(id);
  expect(refreshed.props).toMatchObject({ image: "img/app:hotfix" });
  expect(refreshed.inputs).toMatchObject({ image: "img/app:hotfix", env: { MODEL: "mistral" }, name: "life" });
  expect((refreshed.inputs as any).env).not.toHaveProperty("EXTRA");
  const afterRefresh = refreshed.props!;
  expect(await p.diff(id, afterRefresh, news)).toEqual({ changes: true, replaces: [] });
  outs = (await p.update(id, afterRefresh, news)).outs!;
  // Back to the declaration; the undeclared key stays.
  expect(outs).toMatchObject({ image: "img/app:2", env: { MODEL: "mistral", EXTRA: "x" } });
  await new Promise((r) => setTimeout(r, 100));
  expect((await p.read(id, outs)).props).toMatchObject({ status: "RUNNING" });

  // Delete: terminate, wait until gone; a second delete (404) is fine; read says gone.
  c0 = emu.counts();
  await p.delete(id, outs);
  expect(live(id).status).toBe("TERMINATED");
  expect(delta(c0).deletePod).toBe(1);
  await p.delete(id, outs);
  expect(await p.read(id, outs)).toEqual({ id: "" });
});

test("N pods waiting at once cost one listPods per tick, not one getPod per pod per tick", async () => {
  const rig = await steppedRig();
  try {
    /** Creates the pods at once; the listPods reads at each instant they were read at. */
    const wave = async (names: string[]) => {
      const from = rig.emu.requestLog().length;
      const c0 = rig.emu.counts();
      const made = await rig.clock.drive(Promise.all(names.map(async (name) => rig.p.create(await inputs(rig.p, { name })))));
      expect(made.map((r) => r.outs!.status)).toEqual(names.map(() => "RUNNING"));
      const perInstant = new Map<string, number>();
      for (const e of rig.emu.requestLog().slice(from)) if (e.op === "listPods") perInstant.set(e.at, (perInstant.get(e.at) ?? 0) + 1);
      const cost = delta(c0, rig.emu);
      await rig.clock.drive(Promise.all(made.map((r) => rig.p.delete(r.id, r.outs!))));
      return { made, cost, listsPerTick: [...perInstant.values()] };
    };
    const one = await wave(["solo"]);
    const five = await wave(["n1", "n2", "n3", "n4", "n5"]);
    console.log(`waiting for RUNNING: 1 pod cost ${JSON.stringify(one.cost)}; 5 pods at once cost ${JSON.stringify(five.cost)}`);
    expect(five.cost.createPod).toBe(5);
    expect(five.cost.getPod ?? 0).toBe(0);
    // The five waits share ticks: one list at every instant the poller reads at (five pods
    // polling alone would list five times at each), and no more instants than one pod needs
    // (the list before the creates, the ids seen before, is shared too: it may be one the
    // delete of the wave before sent).
    expect(one.listsPerTick.length).toBeGreaterThan(1);
    expect(one.listsPerTick).toEqual(one.listsPerTick.map(() => 1));
    expect(five.listsPerTick).toEqual(five.listsPerTick.map(() => 1));
    expect(five.listsPerTick.length).toBeLessThanOrEqual(one.listsPerTick.length);
  } finally {
    await rig.close();
  }
});

test("a pod that ends in ERROR fails with Pulumi's partial state: its id and outputs are kept", async () => {
  const p = provider();
  const bad = await inputs(p, { name: "broken", image: "broken/app:1" });
  const err = (await p.create(bad).catch((e: unknown) => e)) as PodInitError;
  expect(err).toBeInstanceOf(PodInitError);
  expect(err.id).toEqual(expect.any(String));
  expect(err.properties).toMatchObject({ id: err.id, status: "ERROR", name: "broken" });
  expect(err.reasons[0]).toMatch(/ERROR instead of RUNNING/);
  expect(live(err.id).status).toBe("ERROR");
  // The plugin marshals `properties` through a protobuf Struct: no undefined anywhere.
  expect(JSON.parse(JSON.stringify(err.properties))).toEqual(err.properties);

  // The next `pulumi up`: the pod is in ERROR, so the plan wants it running; a fixed image
  // is PATCHed and the pod started, the same pod.
  const fixed = { ...bad, image: "img/app:1" };
  expect(await p.diff(err.id, err.properties, fixed)).toEqual({ changes: true, replaces: [] });
  const outs = (await p.update(err.id, err.properties, fixed)).outs!;
  expect(outs).toMatchObject({ id: err.id, status: "RUNNING", image: "img/app:1" });
  expect(emu.state().pods.filter((x: any) => x.name === "broken")).toHaveLength(1);
  await p.delete(err.id, outs);
});

test("a wait that times out keeps the id too (time is injected: no real ten-minute wait)", async () => {
  const slowEmu = await startEmulator({ port: 0, quotas: QUOTAS, timings: { provisioningMs: 3_600_000, startingMs: 30 } });
  const slowClient = new ComputePlatform({ apiKey: slowEmu.apiKey, apiUrl: slowEmu.url, pacing: false });
  // A clock whose sleeps pass at once but advance its time: the 60 s deadline comes quickly.
  let offset = 0;
  const fast: Clock = {
    now: () => Date.now() + offset,
    sleep: async (ms) => {
      offset += ms;
      await new Promise((r) => setImmediate(r));
    },
  };
  try {
    const p = new PodProvider({ client: () => slowClient, clock: fast, poll: { intervalMs: 1000, maxIntervalMs: 10_000 } });
    const err = (await p.create(await inputs(p, { name: "slow", waitTimeoutSeconds: 60 })).catch((e: unknown) => e)) as PodInitError;
    expect(err).toBeInstanceOf(PodInitError);
    expect(err.message).toMatch(/did not become RUNNING within 60 s \(it is PROVISIONING\)/);
    expect(err.properties.status).toBe("PROVISIONING");
    // Backoff while PROVISIONING: a handful of lists over a minute, not sixty.
    expect(slowEmu.counts().listPods).toBeLessThanOrEqual(12);
    expect(slowEmu.state().pods.map((x: any) => x.id)).toEqual([err.id]);
  } finally {
    await slowClient.close();
    await slowEmu.close();
  }
});

test("a wait can be cancelled", async () => {
  const ac = new AbortController();
  // Cancelled as the wait first pauses between reads: after the create was answered, however
  // slow the machine (a timer could fire before the POST is answered, and abort that instead).
  const cancelling: Clock = {
    now: () => systemClock.now(),
    sleep: (ms, signal) => {
      ac.abort(new Error("deployment cancelled"));
      return systemClock.sleep(ms, signal);
    },
  };
  const p = provider({ signal: ac.signal, clock: cancelling });
  const pending = p.create(await inputs(p, { name: "cancelled" }));
  const err = (await pending.catch((e: unknown) => e)) as PodInitError;
  expect(err).toBeInstanceOf(PodInitError);
  expect(err.message).toMatch(/deployment cancelled/);
  await provider().delete(err.id, err.properties);
});

test("an ambiguous create (connection dropped after processing) never makes two pods", async () => {
  // Stepped: the requests come in the same order every run, so the seed drops the same ones.
  const rig = await steppedRig();
  const { p } = rig;
  const names = Array.from({ length: 12 }, (_, i) => `amb-${i}`);
  rig.emu.setFaults({ seed: 7, dropAfterProcessRate: 0.35 });
  const results: { name: string; id?: string }[] = [];
  try {
    for (const name of names) {
      try {
        results.push({ name, id: (await rig.clock.drive(p.create(await inputs(p, { name })))).id });
      } catch (err) {
        results.push({ name, id: (err as PodInitError).id });
      }
    }
    rig.emu.setFaults({});
    // The fault did hit creates whose pod was made: the case where a blind retry duplicates.
    const dropped = rig.emu.requestLog().filter((e) => e.op === "createPod" && e.dropped && e.status === 201).length;
    for (const r of results) {
      const pods = rig.emu.state().pods.filter((x: any) => x.name === r.name);
      expect({ name: r.name, pods: pods.length }).toEqual({ name: r.name, pods: r.id ? 1 : 0 });
      if (r.id) expect(pods[0].id).toBe(r.id);
    }
    expect(results.filter((r) => r.id).length).toBeGreaterThan(0);
    expect(dropped).toBeGreaterThan(0);
    await rig.clock.drive(Promise.all(results.filter((r) => r.id).map((r) => p.delete(r.id!, undefined as any))));
  } finally {
    await rig.close();
  }
});

test("a pod renamed outside the stack: refresh, once or more, keeps the name last applied in the inputs, so the next preview renames it back", async () => {
  const p = provider();
  const created = await inputs(p, { __logicalName: "web" });
  const { id, outs } = await p.create(created);
  await client.pods.update(id, { name: "renamed-in-console" });
  const first = await p.read(id, outs!);
  const second = await p.read(id, first.props!);
  expect(second.props!.name).toBe("renamed-in-console");
  expect([(first.inputs as any).name, (second.inputs as any).name]).toEqual([created.name, created.name]);
  const next = await inputs(p, { __logicalName: "web" }, second.inputs as any);
  expect(next.name).toBe(created.name);
  expect(await p.diff(id, second.props!, next)).toMatchObject({ changes: true, replaces: [] });
  await p.delete(id, outs!);
});

test("a read soon after a create sees the create's last write (a lock), not the list its wait read before it", async () => {
  const p = provider();
  const other = await p.create(await inputs(p, { __logicalName: "reader" }));
  // A refresh's run of reads has begun: a read in the next seconds takes the newest shared list.
  await p.read(other.id, other.outs!);
  const made = await p.create(await inputs(p, { __logicalName: "locked-after-wait", locked: true }));
  expect(live(made.id).locked).toBe(true);
  const read = await p.read(made.id, made.outs!);
  expect(read.props!.locked).toBe(true);
  await Promise.all([p.delete(made.id, made.outs!), p.delete(other.id, other.outs!)]);
});

test("a locked running pod: preview refuses what up could not do (a change that restarts its container, a stop), naming it", async () => {
  const p = provider();
  const news = await inputs(p, { name: "locked-preview", locked: true });
  const created = await p.create(news);
  const c0 = emu.counts();
  // The platform answers 409 to a PATCH that would restart a locked pod: diff says so first.
  await expect(p.diff(created.id, created.outs!, { ...news, args: "--serve" })).rejects.toThrow(/locked.*a change of args restarts its container/);
  await expect(p.diff(created.id, created.outs!, { ...news, image: "img:9", env: { A: "1" } })).rejects.toThrow(/a change of image, env restarts/);
  await expect(p.diff(created.id, created.outs!, { ...news, desiredStatus: "EXITED" })).rejects.toThrow(/locked, so it cannot be stopped/);
  // Unlocking in the same change, a rename: updates that up carries out.
  expect(await p.diff(created.id, created.outs!, { ...news, locked: false, args: "--serve" })).toMatchObject({ changes: true, replaces: [] });
  expect(await p.diff(created.id, created.outs!, { ...news, name: "renamed" })).toMatchObject({ changes: true, replaces: [] });
  expect(delta(c0)).toEqual({});
  await p.delete(created.id, created.outs!);
});

test("locked: set through the resource, the pod is unlocked before delete; stop on a locked pod is refused first", async () => {
  const p = provider();
  const news = await inputs(p, { name: "locked", locked: true });
  const created = await p.create(news);
  expect(created.outs).toMatchObject({ locked: true, status: "RUNNING" });
  const c0 = emu.counts();
  await expect(p.update(created.id, created.outs!, { ...news, desiredStatus: "EXITED" })).rejects.toThrow(/locked, so it cannot be stopped/);
  expect(delta(c0)).toEqual({});
  // Unlocking and stopping in one change works: the PATCH goes first.
  const stopped = (await p.update(created.id, created.outs!, { ...news, locked: false, desiredStatus: "EXITED" })).outs!;
  expect(stopped).toMatchObject({ locked: false, status: "EXITED" });
  // Locking and starting: the start comes first, the lock last.
  const relocked = (await p.update(created.id, stopped, { ...news, locked: true, desiredStatus: "RUNNING" })).outs!;
  expect(relocked).toMatchObject({ locked: true, status: "RUNNING" });
  const c1 = emu.counts();
  await p.delete(created.id, relocked);
  expect(delta(c1)).toMatchObject({ updatePod: 1, deletePod: 1 });
  expect(live(created.id)).toMatchObject({ status: "TERMINATED" });
});

test("globalNetworking applies at the next start: the update restarts a running pod", async () => {
  const dcs = await client.catalog.dataCenters();
  const dc = dcs.find((x) => x.globalNetwork)!.id;
  const p = provider();
  const news = await inputs(p, { name: "gn", dataCenterIds: [dc] });
  const created = await p.create(news);
  expect(created.outs!.globalNetworking).toEqual({ enabled: false });
  const c0 = emu.counts();
  const outs = (await p.update(created.id, created.outs!, { ...news, globalNetworking: true })).outs!;
  expect(delta(c0)).toMatchObject({ updatePod: 1, podAction: 1 });
  expect(outs.globalNetworking).toMatchObject({ enabled: true, ip: expect.any(String) });
  expect(outs.status).toBe("RUNNING");
  expect(await p.diff(created.id, outs, { ...news, globalNetworking: true })).toEqual({ changes: false, replaces: [] });
  await p.delete(created.id, outs);
});

test("adopt: an existing pod is taken over by PATCHing what differs; what cannot change is refused at check and at create", async () => {
  const existing = await client.pods.create({ name: "legacy", image: "img/app:1", gpu: { id: gpuId }, env: { A: "1" } });
  const p = provider();
  const refusal = async (news: Record<string, unknown>, logicalName = "web") =>
    (await p.check({}, { image: "img/app:1", gpu: { id: gpuId }, [LOGICAL_NAME_KEY]: logicalName, ...news })).failures;
  // At check (the preview), before any write: what cannot change, a missing pod, one of another kind.
  expect(await refusal({ name: "legacy", adopt: existing.id, cloud: "COMMUNITY" })).toEqual([
    { property: "adopt", reason: expect.stringMatching(/^adopt: pod .* differs from the declaration in cloud.*cloud: "SECURE".*remove adopt/) },
  ]);
  expect(await refusal({ adopt: "no-such-pod" })).toEqual([{ property: "adopt", reason: "adopt: there is no pod with ID no-such-pod" }]);
  const volume = await client.networkVolumes.create({ name: "not-a-pod", size: 10, dataCenter: "EU-RO-1" });
  expect(await refusal({ adopt: volume.id })).toEqual([
    { property: "adopt", reason: `adopt: there is no pod with ID ${volume.id}: ${volume.id} is a NetworkVolume's ID; declare it with that kind's resource` },
  ]);
  const c0 = emu.counts();
  const adopted = await p.create(await inputs(p, { name: "legacy", adopt: existing.id, env: { A: "2" } }));
  expect(adopted.id).toBe(existing.id);
  expect(delta(c0).createPod ?? 0).toBe(0);
  expect(adopted.outs).toMatchObject({ status: "RUNNING", env: { A: "2" } });
  // Another resource of this deployment adopting the same pod is refused.
  expect(await refusal({ name: "legacy", adopt: existing.id, env: { A: "2" } }, "other")).toEqual([
    { property: "adopt", reason: expect.stringContaining('is adopted by another resource of this deployment (Pod "web")') },
  ]);
  // create refuses the same way (the pod may have changed since the preview); old inputs skip the look at check.
  const later = await inputs(p, { name: "legacy", adopt: existing.id, cloud: "COMMUNITY" }, { name: "legacy" });
  await expect(p.create(later)).rejects.toThrow(/adopt: pod .* differs from the declaration in cloud/);
  // A replace while adopt names this pod would adopt it again and then delete it: refused at preview.
  const adoptedInputs = await inputs(p, { name: "legacy", adopt: existing.id, env: { A: "2" } });
  await expect(p.diff(existing.id, adopted.outs!, { ...adoptedInputs, cloud: "COMMUNITY" })).rejects.toThrow(
    /cloud cannot change on an adopted object while adopt is set/,
  );
  expect(await p.diff(existing.id, adopted.outs!, adoptedInputs)).toEqual({ changes: false, replaces: [] });
  await p.delete(existing.id, adopted.outs!);
  await client.networkVolumes.delete(volume.id);
});

test("adopt: a pod another resource made (its owner mark) is refused; its own maker may adopt it back", async () => {
  const p = provider();
  const made = await p.create(await inputs(p, { name: "kept" }, undefined, "maker"));
  expect(await p.check({}, { image: "img/app:1", gpu: { id: gpuId }, [LOGICAL_NAME_KEY]: "web", name: "kept", adopt: made.id })).toMatchObject({
    failures: [{ property: "adopt", reason: expect.stringMatching(/^adopt: pod .* was made by another Pulumi resource .*COMPUTEPLATFORM_OWNER/) }],
  });
  const back = await p.check({}, { image: "img/app:1", gpu: { id: gpuId }, [LOGICAL_NAME_KEY]: "maker", name: "kept", adopt: made.id });
  expect(back.failures ?? []).toEqual([]);
  await p.delete(made.id, made.outs!);
});

test("a pod deleted outside Pulumi reads as gone", async () => {
  const p = provider();
  const created = await p.create(await inputs(p, { name: "vanish" }));
  await client.pods.delete(created.id);
  expect(await p.read(created.id, created.outs)).toEqual({ id: "" });
  expect(await p.read("never-existed", created.outs)).toEqual({ id: "" });
});

test("an ambiguous create whose look-up fails too is settled by looking again: one pod, not two", async () => {
  // Every request is processed and then its connection dropped: the POST made a pod, and the
  // client's look-up by name could not tell. The provider's next look-up runs after the fault ends.
  emu.setFaults({ dropAfterProcessRate: 1, errorImages: [/^broken\//] });
  const healing: Clock = {
    now: () => Date.now(),
    sleep: async () => emu.setFaults({ errorImages: [/^broken\//] }),
  };
  const p = provider({ clock: healing });
  let created: Awaited<ReturnType<PodProvider["create"]>>;
  try {
    created = await p.create(await inputs(p, { name: "amb-lookup" }));
  } finally {
    emu.setFaults({ errorImages: [/^broken\//] });
  }
  const pods = emu.state().pods.filter((x: any) => x.name === "amb-lookup");
  expect(pods.map((x: any) => x.id)).toEqual([created.id]);
  expect(created.outs!.status).toBe("RUNNING");
  await p.delete(created.id, created.outs!);
});

test("when the outcome stays unknown, create says so and names the pod to look for", async () => {
  // Every request from the POST on is processed and its answer lost (the list before it is answered).
  const pods = Object.assign(Object.create(client.pods), {
    create: (...args: Parameters<typeof client.pods.create>) => {
      emu.setFaults({ dropAfterProcessRate: 1 });
      return client.pods.create(...args);
    },
  });
  const cut = Object.assign(Object.create(client), { pods });
  const p = provider({ client: () => cut, clock: { now: () => Date.now(), sleep: async () => {} } });
  try {
    await expect(p.create(await inputs(p, { name: "amb-unknown" }))).rejects.toThrow(
      // The name it has on the platform: the pending one, until a create finishes.
      /whether the pod exists is unknown.*look for a pod named "amb-unknown~creating"/,
    );
  } finally {
    emu.setFaults({ errorImages: [/^broken\//] });
  }
  const [pod] = emu.state().pods.filter((x: any) => x.name === "amb-unknown~creating");
  await client.pods.delete(pod.id);
});

test("the look-up after an ambiguous create does not take the pod being replaced for the new one", () => {
  const body = createBody(checkPod(undefined, { name: "same-name", image: "img/app:1", gpu: { id: "G", count: 2 } }).inputs!);
  const pod = {
    name: "same-name",
    image: "img/app:1",
    gpu: { id: "G", count: 1 },
    cloud: "SECURE",
    dataCenterId: "X",
    mounts: {},
  } as any;
  expect(matchesCreate(pod, body)).toBe(false);
  expect(matchesCreate({ ...pod, gpu: { id: "G", count: 2 } }, body)).toBe(true);
  expect(matchesCreate({ ...pod, gpu: { id: "G", count: 2 }, cloud: "COMMUNITY" }, body)).toBe(false);
});

test("Pod.get's read: state holds nothing but the provider, and the pod reads with its settings derived", async () => {
  const existing = await client.pods.create({ name: "read-only", image: "img/app:1", gpu: { id: gpuId } });
  const p = provider();
  const r = await p.read(existing.id, {});
  expect(r.id).toBe(existing.id);
  expect(r.props).toMatchObject({ id: existing.id, name: "read-only", desiredStatus: "RUNNING", waitFor: "RUNNING" });
  expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  await client.pods.delete(existing.id);
});

test("a pod created with desiredStatus EXITED is started, then stopped, and stays stopped", async () => {
  const p = provider();
  const news = await inputs(p, { name: "born-stopped", desiredStatus: "EXITED" });
  const created = await p.create(news);
  expect(created.outs).toMatchObject({ status: "EXITED", desiredStatus: "EXITED", cost: 0 });
  expect(live(created.id).status).toBe("EXITED");
  expect(await p.diff(created.id, created.outs!, news)).toEqual({ changes: false, replaces: [] });
  await p.delete(created.id, created.outs!);
});

test("a lock set outside Pulumi is not lifted by delete", async () => {
  const p = provider();
  const created = await p.create(await inputs(p, { name: "locked-elsewhere" }));
  await client.pods.update(created.id, { locked: true });
  const refreshed = (await p.read(created.id, created.outs)).props!;
  expect(refreshed.locked).toBe(true);
  const c0 = emu.counts();
  await p.delete(created.id, refreshed);
  expect(delta(c0).updatePod ?? 0).toBe(0);
  expect(delta(c0).deletePod).toBe(1);
  expect(live(created.id)).toMatchObject({ status: "TERMINATED", locked: true });
});

/** The test's client (or `base`), whose pod `call` (DELETE, GET) fails with `failure` instead of reaching the emulator. */
function failing(call: "delete" | "get", failure: Error, base: ComputePlatform = client): ComputePlatform {
  const pods = Object.create(base.pods) as ComputePlatform["pods"];
  pods[call] = async () => {
    throw failure;
  };
  return Object.assign(Object.create(base) as ComputePlatform, { pods });
}

/** The fields of a platform's error answer to `DELETE /v2/pods/{id}`. */
const deleteAnswer = (id: string, status: number, detail: string) => ({ status, title: "refused", detail, errors: [], method: "DELETE", url: `/v2/pods/${id}` });

test("a DELETE the platform refuses (409) fails naming the pod and what to do, the lock this resource set put back; another failure is the platform's own; a pod it no longer has is deleted already", async () => {
  const p = provider();
  const created = await p.create(await inputs(p, { name: "refused", locked: true }));
  const outs = created.outs!;
  const lines: string[] = [];
  const refusing = (failure: Error) => provider({ client: () => failing("delete", failure), print: (l) => lines.push(l) });

  let c0 = emu.counts();
  await expect(refusing(new ConflictError("409 Conflict", deleteAnswer(created.id, 409, "the pod cannot be terminated now"))).delete(created.id, outs)).rejects.toThrow(
    new Error(
      `pod ${created.id} could not be terminated: the pod cannot be terminated now. If it was locked outside Pulumi, unlock it ` +
        "(or declare locked: true here, so that this resource unlocks it before deleting).",
    ),
  );
  // Unlocked, refused, looked at (still there), locked again: state, which keeps the pod, says locked.
  expect(delta(c0)).toEqual({ updatePod: 2, getPod: 1 });
  expect(live(created.id)).toMatchObject({ status: "RUNNING", locked: true });

  // The look after the refusal fails too: the refusal stands, and the lock still goes back on.
  const unreadable = new InternalServerError("500 Internal Server Error", { status: 500, title: "failed", detail: "try again", errors: [], method: "GET", url: `/v2/pods/${created.id}` });
  const blind = provider({ client: () => failing("delete", new ConflictError("409 Conflict", deleteAnswer(created.id, 409, "not now")), failing("get", unreadable)) });
  c0 = emu.counts();
  await expect(blind.delete(created.id, outs)).rejects.toThrow(`pod ${created.id} could not be terminated: not now.`);
  expect(delta(c0)).toEqual({ updatePod: 2 });
  expect(live(created.id)).toMatchObject({ status: "RUNNING", locked: true });

  // A refusal without a detail is named by its message.
  await expect(refusing(new ConflictError("409 Conflict", deleteAnswer(created.id, 409, ""))).delete(created.id, outs)).rejects.toThrow(
    `pod ${created.id} could not be terminated: 409 Conflict. If it was locked outside Pulumi`,
  );

  // Any other failure is the platform's own, the lock put back as well.
  const failure = new InternalServerError("500 Internal Server Error", deleteAnswer(created.id, 500, "try again"));
  c0 = emu.counts();
  await expect(refusing(failure).delete(created.id, outs)).rejects.toBe(failure);
  expect(delta(c0)).toEqual({ updatePod: 2 });
  expect(live(created.id)).toMatchObject({ status: "RUNNING", locked: true });
  expect(lines).toEqual([]);

  await p.delete(created.id, outs);
  expect(live(created.id)).toMatchObject({ status: "TERMINATED" });
  // A pod the platform no longer has (404) is deleted already: no wait for it, and no line.
  const quiet = provider({ print: (l) => lines.push(l) });
  c0 = emu.counts();
  await quiet.delete("pod-never-made", { ...outs, locked: false });
  expect(delta(c0)).toEqual({ deletePod: 1 });
  expect(lines).toEqual([]);
});

test("a read whose GET fails for a reason other than 404 fails with it: the pod is never reported gone", async () => {
  const p = provider();
  const created = await p.create(await inputs(p, { name: "unreadable" }));
  const failure = new InternalServerError("500 Internal Server Error", { status: 500, title: "failed", detail: "try again", errors: [], method: "GET", url: `/v2/pods/${created.id}` });
  await expect(provider({ client: () => failing("get", failure) }).read(created.id, created.outs)).rejects.toBe(failure);
  await p.delete(created.id, created.outs!);
});

test("a provider driven without the resource's logical name owns nothing: the pod is POSTed under its own name with no owner mark, and, its answer lost, a pod of that name there before is never taken for it", async () => {
  const before = await client.pods.create({ name: "unowned", image: "img/app:1", gpu: { id: gpuId } });
  const p = provider();
  const checked = await p.check({}, { name: "unowned", image: "img/app:1", gpu: { id: gpuId } });
  expect(checked.failures ?? []).toEqual([]);
  const from = emu.requestLog().length;
  // The POST's answer is lost: the pod made is found again among those not listed before it.
  emu.setFaults({ aimed: [{ method: "POST", path: "/v2/pods", fault: "drop" }] });
  const created = await p.create(checked.inputs!).finally(() => emu.setFaults({ errorImages: [/^broken\//] }));
  expect(created.id).not.toBe(before.id);
  expect(created.outs).toMatchObject({ id: created.id, name: "unowned", status: "RUNNING" });
  const posts = emu.requestLog().slice(from).filter((e) => e.op === "createPod");
  expect(posts.map((e) => [e.status, e.dropped])).toEqual([[201, true]]);
  expect(live(created.id)).toMatchObject({ name: "unowned", env: {} });
  await p.delete(created.id, created.outs!);
  await client.pods.delete(before.id);
});

test("dataCenterIds: an edit that still allows the pod's data center is recorded without a request; one that does not replaces", async () => {
  const dcs = (await client.catalog.dataCenters()).map((d) => d.id);
  const p = provider();
  const news = await inputs(p, { name: "placed", dataCenterIds: [dcs[0]] });
  const created = await p.create(news);
  expect(created.outs!.dataCenterId).toBe(dcs[0]);
  const wider = { ...news, dataCenterIds: [dcs[0], dcs[1]] };
  expect(await p.diff(created.id, created.outs!, wider)).toEqual({ changes: true, replaces: [] });
  const c0 = emu.counts();
  const outs = (await p.update(created.id, created.outs!, wider)).outs!;
  expect(delta(c0)).toEqual({});
  expect(outs.dataCenterIds).toEqual([dcs[0], dcs[1]]);
  expect(await p.diff(created.id, outs, wider)).toEqual({ changes: false, replaces: [] });
  expect(await p.diff(created.id, outs, { ...news, dataCenterIds: [dcs[1]] })).toEqual({ changes: true, replaces: ["dataCenterIds"] });
  await p.delete(created.id, outs);
});

test("a persistent mount grows in place by PATCH (same pod); a smaller one plans a replace", async () => {
  const p = provider();
  const news = await inputs(p, { name: "growing", mounts: { persistent: { size: 20, path: "/data" } } });
  const created = await p.create(news);
  const grown = { ...news, mounts: { persistent: { size: 40, path: "/data" } } };
  expect(await p.diff(created.id, created.outs!, grown)).toEqual({ changes: true, replaces: [] });
  const c0 = emu.counts();
  const outs = (await p.update(created.id, created.outs!, grown)).outs!;
  expect(delta(c0)).toMatchObject({ updatePod: 1 });
  expect(live(created.id).mounts.persistent.size).toBe(40);
  expect(outs.mounts.persistent).toEqual({ size: 40, path: "/data" });
  expect(outs.status).toBe("RUNNING");
  const shrunk = { ...news, mounts: { persistent: { size: 10, path: "/data" } } };
  expect(await p.diff(created.id, outs, shrunk)).toEqual({ changes: true, replaces: ["mounts"] });
  await p.delete(created.id, outs);
});

describe("an update that restarts the container waits for the restart, whatever the PATCH answers (issue 14 #4)", () => {
  /** A client whose PATCH answers with the pod as it was before (the platform restarts asynchronously), or with `status`. */
  function answering(status?: "ERROR") {
    const pods = Object.assign(Object.create(client.pods), {
      update: async (id: string, body: any, opts?: any) => {
        const before = await client.pods.get(id);
        const after = await client.pods.update(id, body, opts);
        // The create's last PATCH (its name, its lock) restarts nothing: answered as it is.
        if (Object.keys(body).every((k) => k === "name" || k === "locked")) return after;
        return status ? { ...after, status } : { ...before, ...body, status: "RUNNING", startedAt: before.startedAt };
      },
    });
    return Object.assign(Object.create(client), { pods }) as ComputePlatform;
  }

  test("a PATCH answer still saying RUNNING: update returns once the pod is RUNNING again after the restart", async () => {
    const p = provider({ client: () => answering() });
    const news = await inputs(p, { name: "restart-async" });
    const created = await p.create(news);
    const outs = (await p.update(created.id, created.outs!, { ...news, image: "img/app:2" })).outs!;
    expect(outs.status).toBe("RUNNING");
    expect(outs.startedAt).not.toBe(created.outs!.startedAt);
    expect(live(created.id)).toMatchObject({ status: "RUNNING", image: "img/app:2" });
    await p.delete(created.id, outs);
  });

  test("a PATCH answer still saying RUNNING, new image ends in ERROR: fails with the pod's id kept", async () => {
    const p = provider({ client: () => answering() });
    const news = await inputs(p, { name: "restart-broken" });
    const created = await p.create(news);
    const err = await p.update(created.id, created.outs!, { ...news, image: "broken/app:2" }).catch((e) => e);
    expect(err).toBeInstanceOf(PodInitError);
    expect(err.id).toBe(created.id);
    expect(err.message).toMatch(/ERROR/);
    await p.delete(created.id, err.properties);
  });

  test("a PATCH answer saying ERROR fails at once, with the id kept, and starts nothing", async () => {
    const p = provider({ client: () => answering("ERROR") });
    const news = await inputs(p, { name: "restart-error" });
    const created = await p.create(news);
    const c0 = emu.counts();
    const err = await p.update(created.id, created.outs!, { ...news, image: "img/app:3" }).catch((e) => e);
    expect(err).toBeInstanceOf(PodInitError);
    expect(err.id).toBe(created.id);
    expect(delta(c0).podAction ?? 0).toBe(0);
    await p.delete(created.id, err.properties);
  });
});

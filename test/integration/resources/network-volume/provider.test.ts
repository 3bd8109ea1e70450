/**
 * The NetworkVolume provider's methods, called directly, against the emulator over real HTTP.
 * The delete wait runs on a fake clock: "wait up to N seconds" takes microseconds, and a
 * sleep hook lets a test terminate the mounting pod in the middle of the wait.
 */
import type { Clock } from "../../../../src/client/core/clock";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { NetworkVolumeProvider } from "../../../../src/resources/network-volume/provider";
import { type NetworkVolumeInputs, type NetworkVolumeOutputs } from "../../../../src/resources/network-volume/schema";
import { providerRigForFile } from "../../../../tools/engine/rig";

const rig = providerRigForFile();

/** A clock whose sleeps return at once and move time on; `onSleep` runs inside each sleep. */
function fakeClock(onSleep?: (n: number) => Promise<void> | void): Clock & { sleeps: number[] } {
  let t = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      t += ms;
      await onSleep?.(sleeps.length);
    },
  };
}

function provider(over: ConstructorParameters<typeof NetworkVolumeProvider>[0] = {}) {
  return new NetworkVolumeProvider({ client: () => rig.client, clock: fakeClock(), pollIntervalMs: 1000, ...over });
}

async function checked(p: NetworkVolumeProvider, news: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const result = await p.check(olds, { [LOGICAL_NAME_KEY]: "vol", ...news });
  expect(result.failures ?? []).toEqual([]);
  return result.inputs!;
}

function live(id: string) {
  return rig.emu.state().networkVolumes.find((v) => v.id === id);
}

/** A CPU pod mounting the volume, made with the rig.client as a pod outside the stack would be. */
async function mountingPod(volumeId: string, name: string) {
  return rig.client.pods.create({
    name,
    image: "busybox:latest",
    cpu: { id: "cpu3c", vcpuCount: 2 },
    mounts: { network: [{ volumeId, path: "/data" }] },
  });
}

async function createVolume(p: NetworkVolumeProvider, news: Record<string, unknown>) {
  const inputs = await checked(p, news);
  const created = await p.create(inputs);
  return { inputs, id: created.id, outs: created.outs as NetworkVolumeOutputs };
}

test("lifecycle: create, rename, grow, refused shrink, delete", async () => {
  const p = provider();
  const before = rig.emu.counts().createNetworkVolume ?? 0;
  const { inputs, id, outs } = await createVolume(p, { size: 20, dataCenter: "EU-RO-1" });
  expect(rig.emu.counts().createNetworkVolume).toBe(before + 1);
  expect(inputs.name).toMatch(/^vol-[0-9a-f]{7}$/);
  expect(outs).toEqual({ id, name: inputs.name, size: 20, dataCenter: "EU-RO-1", type: "STANDARD", deleteWaitSeconds: 120 });
  expect(live(id)).toEqual({ id, name: inputs.name, size: 20, dataCenter: "EU-RO-1", type: "STANDARD" });

  // Rename: one PATCH, the auto-name replaced by the given one, same volume.
  const renameInputs = await checked(p, { name: "datasets", size: 20, dataCenter: "EU-RO-1" }, inputs as any);
  expect(await p.diff(id, outs, renameInputs)).toMatchObject({ changes: true, replaces: [] });
  const patches = rig.emu.counts().updateNetworkVolume ?? 0;
  const renamed = (await p.update(id, outs, renameInputs)).outs as NetworkVolumeOutputs;
  expect(rig.emu.counts().updateNetworkVolume).toBe(patches + 1);
  expect(renamed).toMatchObject({ id, name: "datasets", size: 20 });
  expect(live(id)).toMatchObject({ name: "datasets", size: 20 });

  // Grow in place.
  const growInputs = await checked(p, { name: "datasets", size: 100, dataCenter: "EU-RO-1" }, renameInputs as any);
  expect(await p.diff(id, renamed, growInputs)).toMatchObject({ changes: true, replaces: [] });
  const grown = (await p.update(id, renamed, growInputs)).outs as NetworkVolumeOutputs;
  expect(grown).toMatchObject({ id, name: "datasets", size: 100 });
  expect(live(id)).toMatchObject({ size: 100 });

  // Shrink: a check failure naming size, and not one request reaches the platform.
  const countsBefore = rig.emu.counts();
  const logBefore = rig.emu.requestLog().length;
  const shrink = await p.check(growInputs, { name: "datasets", size: 50, dataCenter: "EU-RO-1", [LOGICAL_NAME_KEY]: "vol" });
  expect(shrink.failures).toEqual([{ property: "size", reason: expect.stringContaining("cannot shrink from 100 to 50 GB") }]);
  // Even if state says more than the inputs did (a refresh), diff refuses instead of replacing.
  await expect(p.diff(id, grown, { ...growInputs, size: 50 } as NetworkVolumeInputs)).rejects.toThrow(/only grow/);
  await expect(p.update(id, grown, { ...growInputs, size: 50 } as NetworkVolumeInputs)).rejects.toThrow(/only grow/);
  expect(rig.emu.counts()).toEqual(countsBefore);
  expect(rig.emu.requestLog().length).toBe(logBefore);
  expect(live(id)).toMatchObject({ size: 100 });

  // Moving data center is a replace, planned without a request.
  const moved = await checked(p, { name: "datasets", size: 100, dataCenter: "US-TX-3" }, growInputs as any);
  expect(await p.diff(id, grown, moved)).toMatchObject({ changes: true, replaces: ["dataCenter"] });

  // Read sees what the platform holds.
  expect(await p.read(id, grown)).toEqual({ id, props: grown });

  await p.delete(id, grown);
  expect(live(id)).toBeUndefined();
  // Gone is gone: delete again succeeds, read reports it missing.
  await p.delete(id, grown);
  expect(await p.read(id, grown)).toEqual({});
});

test("only deleteWaitSeconds changed: the update sends nothing", async () => {
  const p = provider();
  const { inputs, id, outs } = await createVolume(p, { name: "waits", size: 10, dataCenter: "US-KS-2" });
  const news = await checked(p, { name: "waits", size: 10, dataCenter: "US-KS-2", deleteWaitSeconds: 5 }, inputs as any);
  expect(await p.diff(id, outs, news)).toMatchObject({ changes: true, replaces: [] });
  const countsBefore = rig.emu.counts();
  const updated = await p.update(id, outs, news);
  expect(rig.emu.counts()).toEqual(countsBefore);
  expect(updated.outs).toEqual({ ...outs, deleteWaitSeconds: 5 });
  await p.delete(id, updated.outs as NetworkVolumeOutputs);
});

test("a pod mounting the volume without dataCenterIds lands in the volume's data center", async () => {
  const p = provider();
  for (const dataCenter of ["EU-CZ-1", "CA-MTL-1"]) {
    const { id, outs } = await createVolume(p, { size: 10, dataCenter });
    const pod = await mountingPod(id, `placed-${dataCenter}`);
    expect(pod.dataCenterId).toBe(dataCenter);
    expect(pod.mounts.network?.[0]).toEqual({ volumeId: id, path: "/data" });
    await rig.client.pods.delete(pod.id);
    await p.delete(id, outs);
  }
});

test("delete while mounted waits within the bound, then fails naming the pod; the volume stays", async () => {
  const clock = fakeClock();
  const p = provider({ clock, pollIntervalMs: 1000 });
  const { id, outs } = await createVolume(p, { name: "held", size: 10, dataCenter: "EU-RO-1", deleteWaitSeconds: 3 });
  const pod = await mountingPod(id, "holder-outside-stack");
  const deletes = rig.emu.counts().deleteNetworkVolume ?? 0;
  const lists = rig.emu.counts().listPods ?? 0;

  const failure = p.delete(id, outs);
  await expect(failure).rejects.toThrow(/network volume \S+ \("held"\) is still mounted by pod/);
  await expect(failure).rejects.toThrow(new RegExp(`${pod.id} \\("holder-outside-stack", (PROVISIONING|STARTING|RUNNING)\\)`));
  await expect(failure).rejects.toThrow(/after waiting 3 s/);

  // Waited the whole bound, in poll-sized steps, and no longer.
  expect(clock.sleeps).toEqual([1000, 1000, 1000]);
  // One DELETE (409); afterwards only listings while the pod is still there.
  expect(rig.emu.counts().deleteNetworkVolume).toBe(deletes + 1);
  expect(rig.emu.counts().listPods).toBe(lists + 3);
  expect(live(id)).toBeDefined();

  // With the pod terminated, the same delete succeeds at once.
  await rig.client.pods.delete(pod.id);
  const clock2 = fakeClock();
  await provider({ clock: clock2 }).delete(id, outs);
  expect(clock2.sleeps).toEqual([]);
  expect(live(id)).toBeUndefined();
});

test("delete waits for a pod that is terminated during the wait, then deletes", async () => {
  let podId = "";
  const clock = fakeClock(async (n) => {
    // The pod goes away while delete is waiting (its own stack, or a person, removed it).
    if (n === 2) await rig.client.pods.delete(podId);
  });
  const p = provider({ clock, pollIntervalMs: 5000 });
  const { id, outs } = await createVolume(p, { size: 10, dataCenter: "US-TX-3" });
  podId = (await mountingPod(id, "short-lived")).id;
  const deletes = rig.emu.counts().deleteNetworkVolume ?? 0;

  await p.delete(id, outs);
  expect(clock.sleeps).toEqual([5000, 5000]);
  // The 409, then the DELETE that worked once the listing showed no holder.
  expect(rig.emu.counts().deleteNetworkVolume).toBe(deletes + 2);
  expect(live(id)).toBeUndefined();
});

test("deleteWaitSeconds 0 fails at once, still naming every holder", async () => {
  const clock = fakeClock();
  const p = provider({ clock });
  const { id, outs } = await createVolume(p, { size: 10, dataCenter: "EU-RO-1", deleteWaitSeconds: 0 });
  const a = await mountingPod(id, "holder-a");
  const b = await mountingPod(id, "holder-b");
  const err: Error = await p.delete(id, outs).then(
    () => {
      throw new Error("delete should have failed");
    },
    (e) => e,
  );
  expect(err.message).toContain(`pods ${a.id} ("holder-a"`);
  expect(err.message).toContain(`${b.id} ("holder-b"`);
  expect(clock.sleeps).toEqual([]);
  // The key never reaches the message.
  expect(err.message).not.toContain(rig.emu.apiKey);
  await rig.client.pods.delete(a.id);
  await rig.client.pods.delete(b.id);
  await p.delete(id, outs);
  expect(live(id)).toBeUndefined();
});

test("an aborted signal cancels the wait", async () => {
  const controller = new AbortController();
  const clock = fakeClock((n) => {
    if (n === 1) controller.abort(new Error("deployment cancelled"));
  });
  const p = provider({ clock, signal: controller.signal });
  const { id, outs } = await createVolume(p, { size: 10, dataCenter: "EU-RO-1" });
  const pod = await mountingPod(id, "holder-cancel");
  const from = rig.emu.requestLog().length;
  await expect(p.delete(id, outs)).rejects.toThrow("deployment cancelled");
  expect(clock.sleeps).toEqual([1000]);
  // The look for the pods and endpoints that mount it, after the wait, is cancelled too.
  expect(requestsSince(from)).toEqual([`DELETE /v2/network-volumes/${id}`]);
  // The provider stays cancelled; a fresh one cleans up.
  await expect(p.delete(id, outs)).rejects.toThrow("deployment cancelled");
  await rig.client.pods.delete(pod.id);
  await provider().delete(id, outs);
  expect(live(id)).toBeUndefined();
});

test("create with an unknown data center fails with the platform's reason and leaves nothing", async () => {
  const p = provider();
  const inputs = await checked(p, { name: "nowhere", size: 10, dataCenter: "MARS-1" });
  await expect(p.create(inputs)).rejects.toThrow(/unknown data center 'MARS-1'/);
  expect(rig.emu.state().networkVolumes.find((v) => v.name === "nowhere")).toBeUndefined();
});

test("type: given, or the data center's first; get-style read of a volume made outside", async () => {
  const p = provider();
  const fast = await createVolume(p, { size: 10, dataCenter: "EU-RO-1", type: "HIGH_PERFORMANCE" });
  expect(fast.outs.type).toBe("HIGH_PERFORMANCE");
  expect(live(fast.id)?.type).toBe("HIGH_PERFORMANCE");
  // US-TX-3 lists HIGH_PERFORMANCE first: no type given, that is what the platform picks.
  const defaulted = await createVolume(p, { size: 10, dataCenter: "US-TX-3" });
  expect(defaulted.outs.type).toBe("HIGH_PERFORMANCE");
  // A data center without the tier refuses it with the platform's reason.
  const inputs = await checked(p, { size: 10, dataCenter: "EU-CZ-1", type: "HIGH_PERFORMANCE" });
  await expect(p.create(inputs)).rejects.toMatchObject({ status: 400 });

  // NetworkVolume.get reads with no inputs of its own: the outputs come from the platform.
  const outside = await rig.client.networkVolumes.create({ name: "made-outside", size: 20, dataCenter: "EU-RO-1" });
  expect(await p.read(outside.id)).toEqual({
    id: outside.id,
    props: { id: outside.id, name: "made-outside", size: 20, dataCenter: "EU-RO-1", type: "STANDARD", deleteWaitSeconds: 120 },
  });
  for (const v of [fast, defaulted]) await p.delete(v.id, v.outs);
  await rig.client.networkVolumes.delete(outside.id);
});

test("an endpoint that mounts the volume holds it too, and is named", async () => {
  const p = provider();
  const { id, outs } = await createVolume(p, { name: "endpoint-held", size: 10, dataCenter: "EU-RO-1", deleteWaitSeconds: 1 });
  const template = await rig.client.templates.create({ name: "sls", image: "worker:1", serverless: true });
  const endpoint = await rig.client.endpoints.save({ name: "uses-volume", gpuIds: "AMPERE_24", templateId: template.id, networkVolumeId: id, workersMin: 0, workersMax: 0 });
  await expect(p.delete(id, outs)).rejects.toThrow(
    new RegExp(`network volume \\S+ \\("endpoint-held"\\) is still mounted by endpoint ${endpoint.id} \\("uses-volume"\\) after waiting 1 s`),
  );
  await rig.client.endpoints.delete(endpoint.id);
  await rig.client.templates.delete(template.id);
  await p.delete(id, outs);
  expect(live(id)).toBeUndefined();
});

/** The requests the emulator answered since `from`, as `METHOD path`. */
const requestsSince = (from: number) =>
  rig.emu
    .requestLog()
    .slice(from)
    .map((e) => `${e.method} ${e.path}`);

test("diff sends nothing: a grow or a rename is in place with data center and type stable, a move replaces and says the data is lost; each step's line", async () => {
  const lines: string[] = [];
  const p = provider({ print: (l) => lines.push(l) });
  const { inputs, id, outs } = await createVolume(p, { name: "diffed", size: 10, dataCenter: "EU-RO-1" });
  const from = rig.emu.requestLog().length;

  expect(await p.diff(id, outs, inputs)).toEqual({ changes: false, replaces: [], stables: ["dataCenter", "type"] });
  expect(lines).toEqual([]);
  expect(await p.diff(id, outs, { ...inputs, size: 30 })).toEqual({ changes: true, replaces: [], stables: ["dataCenter", "type"] });
  expect(await p.diff(id, outs, { ...inputs, deleteWaitSeconds: 9 })).toEqual({ changes: true, replaces: [], stables: ["dataCenter", "type"] });
  expect(await p.diff(id, outs, { ...inputs, dataCenter: "US-TX-3" })).toEqual({ changes: true, replaces: ["dataCenter"], stables: [] });
  expect(lines).toEqual([
    'NetworkVolume "vol": updated in place (size)',
    'NetworkVolume "vol": no request (recorded in state only: deleteWaitSeconds)',
    'NetworkVolume "vol": replaced (dataCenter): a new one is made, then the old deleted; lost: its data (the new volume is empty; nothing is copied) [DESTROYS DATA]',
  ]);
  // A shrink against state (a refresh grew it) is refused by name, before any request.
  await expect(p.diff(id, outs, { ...inputs, size: 5 })).rejects.toThrow(/^NetworkVolume diffed: size cannot shrink from 10 to 5 GB: network volumes only grow/);
  await expect(p.update(id, outs, { ...inputs, size: 5 })).rejects.toThrow(/^NetworkVolume diffed: size cannot shrink from 10 to 5 GB: network volumes only grow/);
  expect(requestsSince(from)).toEqual([]);
  await p.delete(id, outs);
});

test("update: the delete wait alone is kept in state (120 s when left out); a rename is one PATCH, and a refresh in the same command reads the new name", async () => {
  const p = provider();
  const { inputs, id, outs } = await createVolume(p, { name: "before-rename", size: 10, dataCenter: "EU-RO-1", deleteWaitSeconds: 30 });
  let from = rig.emu.requestLog().length;
  expect(await p.update(id, outs, { ...inputs, deleteWaitSeconds: undefined })).toEqual({ outs: { ...outs, id, deleteWaitSeconds: 120 } });
  expect(requestsSince(from)).toEqual([]);

  expect(await p.read(id, outs)).toEqual({ id, props: outs });
  from = rig.emu.requestLog().length;
  const renamed = await p.update(id, outs, { ...inputs, name: "after-rename" });
  expect(renamed).toEqual({ outs: { ...outs, name: "after-rename" } });
  expect(requestsSince(from)).toEqual([`PATCH /v2/network-volumes/${id}`]);
  expect(await p.read(id, outs)).toEqual({ id, props: { ...outs, name: "after-rename" } });
  await p.delete(id, renamed.outs as NetworkVolumeOutputs);
});

test("adopt: an existing volume is taken and grown by one PATCH; another data center is refused at check naming adopt and what cannot change", async () => {
  const existing = await rig.client.networkVolumes.create({ name: "by-hand", size: 10, dataCenter: "EU-RO-1" });
  const p = provider();
  const refusal = async (news: Record<string, unknown>) => (await p.check({}, { [LOGICAL_NAME_KEY]: "adopter", ...news })).failures;
  expect(await refusal({ name: "by-hand", size: 10, dataCenter: "US-TX-3", adopt: existing.id })).toEqual([
    {
      property: "adopt",
      reason:
        `adopt: network volume ${existing.id} differs from the declaration in dataCenter, which cannot change on an existing network volume; ` +
        'declare it as the network volume has it (dataCenter: "EU-RO-1", type: "STANDARD"), or remove adopt to create a new volume as declared (and move the data yourself)',
    },
  ]);
  expect(await refusal({ name: "by-hand", size: 10, dataCenter: "EU-RO-1", adopt: "no-such-volume" })).toEqual([
    { property: "adopt", reason: "adopt: there is no network volume with ID no-such-volume" },
  ]);

  const inputs = await checked(p, { name: "by-hand", size: 40, dataCenter: "EU-RO-1", adopt: existing.id });
  const from = rig.emu.requestLog().length;
  const adopted = await p.create(inputs);
  expect(adopted).toEqual({ id: existing.id, outs: { id: existing.id, name: "by-hand", size: 40, dataCenter: "EU-RO-1", type: "STANDARD", deleteWaitSeconds: 120 } });
  expect(requestsSince(from)).toEqual([`GET /v2/network-volumes/${existing.id}`, `PATCH /v2/network-volumes/${existing.id}`]);
  expect(live(existing.id)).toMatchObject({ size: 40 });
  await p.delete(existing.id, adopted.outs!);
});

/** A clock whose first sleep (the pause before a create's look again) runs `meanwhile`. */
const clockDoing = (meanwhile: () => Promise<unknown>) => fakeClock((n) => (n === 1 ? meanwhile().then(() => undefined) : undefined));

/**
 * Makes the POST's answer lost and the client's own look-up fail (its list, twice), so the
 * provider looks again itself. A create made first in the same instant lists the volumes there
 * before both (one command's creates share that list): the faults hit only what follows.
 */
async function loseNextAnswer(p: NetworkVolumeProvider) {
  const first = await createVolume(p, { size: 10, dataCenter: "EU-RO-1" });
  rig.emu.setFaults({
    aimed: [
      { method: "POST", path: "/v2/network-volumes", fault: "drop" },
      { method: "GET", path: "/v2/network-volumes", fault: "5xx", times: 2 },
    ],
  });
  return first;
}

test("a create whose answer is lost is found again: the volume of its name, size, data center and type, not one differing in any made meanwhile", async () => {
  const others: string[] = [];
  const outside = (body: { size: number; dataCenter: string; type?: "STANDARD" | "HIGH_PERFORMANCE" }) =>
    rig.client.networkVolumes.create({ name: "lost-answer", ...body }).then((v) => others.push(v.id));
  const p = provider({
    clock: clockDoing(async () => {
      await outside({ size: 30, dataCenter: "US-TX-3", type: "HIGH_PERFORMANCE" });
      await outside({ size: 20, dataCenter: "EU-RO-1", type: "HIGH_PERFORMANCE" });
      await outside({ size: 20, dataCenter: "US-TX-3", type: "STANDARD" });
    }),
  });
  const first = await loseNextAnswer(p);
  try {
    const { id, outs } = await createVolume(p, { name: "lost-answer", size: 20, dataCenter: "US-TX-3", type: "HIGH_PERFORMANCE" });
    expect(others).toHaveLength(3);
    expect(others).not.toContain(id);
    expect(outs).toEqual({ id, name: "lost-answer", size: 20, dataCenter: "US-TX-3", type: "HIGH_PERFORMANCE", deleteWaitSeconds: 120 });
    await p.delete(id, outs);
  } finally {
    rig.emu.setFaults({});
    for (const other of others) await rig.client.networkVolumes.delete(other);
    await p.delete(first.id, first.outs);
  }
});

test("a lost answer and another such volume made meanwhile: the create fails naming the volume and what to do", async () => {
  let other: { id: string } | undefined;
  const p = provider({ clock: clockDoing(async () => (other = await rig.client.networkVolumes.create({ name: "unknowable", size: 10, dataCenter: "EU-RO-1" }))) });
  const inputs = await checked(p, { name: "unknowable", size: 10, dataCenter: "EU-RO-1" });
  const first = await loseNextAnswer(p);
  try {
    await expect(p.create(inputs)).rejects.toThrow(
      /^creating network volume "unknowable" failed and whether the network volume exists is unknown \(2 network volumes that match it appeared since it began .*look for a network volume named "unknowable" and delete it\.$/,
    );
  } finally {
    rig.emu.setFaults({});
    for (const v of await rig.client.networkVolumes.list()) if (v.name === "unknowable") await rig.client.networkVolumes.delete(v.id);
    await p.delete(first.id, first.outs);
  }
  expect(other).toBeDefined();
});

test("delete: the line says the data is lost, a held volume's error says what to do, and a refresh in the same command sees it gone", async () => {
  const lines: string[] = [];
  const p = provider({ print: (l) => lines.push(l) });
  const { id, outs } = await createVolume(p, { name: "short-lived", size: 10, dataCenter: "EU-RO-1", deleteWaitSeconds: 0 });
  const pod = await mountingPod(id, "holder-remedy");
  await expect(p.delete(id, outs)).rejects.toThrow("Terminate the pod(s) or delete the endpoint(s), or remove the mount");
  expect(lines).toEqual([]);
  await rig.client.pods.delete(pod.id);
  expect(await p.read(id, outs)).toEqual({ id, props: outs });
  await p.delete(id, outs);
  expect(lines).toEqual([`NetworkVolume ${id}: deleted; lost: its data [DESTROYS DATA]`]);
  expect(await p.read(id, outs)).toEqual({});
});

test("a cancelled deployment's signal reaches every request: a read, a create, adopt's look and a delete send nothing", async () => {
  const { id, outs } = await createVolume(provider(), { name: "cancelled", size: 10, dataCenter: "EU-RO-1" });
  const controller = new AbortController();
  controller.abort(new Error("deployment cancelled"));
  const p = provider({ signal: controller.signal });
  const from = rig.emu.requestLog().length;
  await expect(p.read(id, outs)).rejects.toThrow("deployment cancelled");
  await expect(p.create(await checked(provider(), { name: "never", size: 10, dataCenter: "EU-RO-1" }))).rejects.toThrow("deployment cancelled");
  await expect(p.check({}, { [LOGICAL_NAME_KEY]: "vol", name: "cancelled", size: 10, dataCenter: "EU-RO-1", adopt: id })).rejects.toThrow("deployment cancelled");
  await expect(p.delete(id, outs)).rejects.toThrow("deployment cancelled");
  expect(requestsSince(from)).toEqual([]);
  expect(live(id)).toBeDefined();
  await provider().delete(id, outs);
});

test("a replace of an adopted volume while adopt is set is refused at diff, naming the kind and what to do", async () => {
  const existing = await rig.client.networkVolumes.create({ name: "adopted-here", size: 10, dataCenter: "EU-RO-1" });
  const p = provider();
  const inputs = await checked(p, { name: "adopted-here", size: 10, dataCenter: "EU-RO-1", adopt: existing.id });
  const adopted = await p.create(inputs);
  await expect(p.diff(existing.id, adopted.outs!, { ...inputs, dataCenter: "US-TX-3" })).rejects.toThrow(
    `NetworkVolume adopted-here: dataCenter cannot change on an adopted object while adopt is set (a new one would adopt ${existing.id} again, then delete it).`,
  );
  await p.delete(existing.id, adopted.outs!);
});

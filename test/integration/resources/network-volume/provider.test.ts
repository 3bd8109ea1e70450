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
  await expect(p.delete(id, outs)).rejects.toThrow("deployment cancelled");
  expect(clock.sleeps).toEqual([1000]);
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

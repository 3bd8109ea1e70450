/**
 * The owner token against the emulator over real HTTP, in-process: earlier tries of a create
 * (what a killed plugin leaves) are taken over by a replacement, terminated after a new
 * resource's create, and never confused with pods this process made, another stack's, or
 * the one being replaced. The same through Pulumi's plugin: test/faults/interrupted.test.ts.
 */
import { ComputePlatform } from "../../../../src/client";
import { type Clock, systemClock } from "../../../../src/client/core/clock";
import type { Emulator } from "../../../../src/emulator";
import { baseOwnerToken, pendingName, replacementToken } from "../../../../src/resources/lifecycle/owner";
import { PodProvider } from "../../../../src/resources/pod/provider";
import { OWNER_ENV } from "../../../../src/resources/pod/schema";
import { ServerlessEndpointProvider } from "../../../../src/resources/serverless-endpoint/provider";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";
import { type ProviderRig, startProviderRig } from "../../../../tools/engine/rig";

let emu: Emulator;
let client: ComputePlatform;
let gpuId: string;

/** The serverless template the endpoints name (the platform checks that it exists). */
let TPL: string;

let rig: ProviderRig;

beforeAll(async () => {
  rig = await startProviderRig({ emulator: { quotas: { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 } }, client: { maxRetries: undefined } });
  ({ emu, client } = rig);
  TPL = await createServerlessTemplate(emu.url, emu.apiKey);
  gpuId = (await client.catalog.gpus()).find((g) => g.manufacturer === "NVIDIA")!.id;
});

afterAll(() => rig?.close());

const POLL = { intervalMs: 5, maxIntervalMs: 15, backoff: 1.5 };
/**
 * A clock a test moves on by hand: a list the owner look-ups shared a moment ago is reused
 * for two seconds, and a leftover made out of band (not by an earlier create of this process,
 * which would fence the list) is only seen by a list sent after it.
 */
function movable(): Clock & { skip(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, sleep: systemClock.sleep, skip: (ms) => void (offset += ms) };
}
const podProvider = (clock: Clock = systemClock) => new PodProvider({ client: () => client, poll: POLL, clock });
const scope = (stack: string, logical: string) => ({ __organization: "o", __project: "p", __stack: stack, __logicalName: logical });
const livePods = () => emu.state().pods.filter((p) => p.status !== "TERMINATED");

/** A pod an interrupted create left: made with the token, never handed to any engine. */
/** A killed create's pod: the owner mark, and the pending name it had not yet traded for its own. */
const leftover = (name: string, token: string, env: Record<string, string> = {}) =>
  client.pods.create({ name: pendingName(name), image: "img/app:1", gpu: { id: gpuId }, env: { ...env, [OWNER_ENV]: `${token}.deadbeef` } });

test("a fleet's creates share one list before them (the ids seen before, and the earlier tries among them)", async () => {
  const n = 8;
  const fleet = async (owned: boolean) => {
    const p = podProvider();
    const inputs = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        // Without a logical name there is no owner token: the create as it was before.
        const decl = owned ? { ...scope("dev", `w${i}`) } : {};
        return (await p.check({}, { ...decl, name: `w${i}`, image: "img/app:1", gpu: { id: gpuId } })).inputs!;
      }),
    );
    const from = emu.requestLog().length;
    const made = await Promise.all(inputs.map((i) => p.create(i)));
    const log = emu.requestLog().slice(from);
    await Promise.all(made.map((m) => p.delete(m.id, m.outs!)));
    const count = (op: string) => log.filter((e) => e.op === op).length;
    return { createPod: count("createPod"), listPods: count("listPods"), getPod: count("getPod"), first: log[0].op };
  };
  const plain = await fleet(false);
  const owned = await fleet(true);
  console.log(`create of ${n} pods: without owner tokens ${JSON.stringify(plain)}; with ${JSON.stringify(owned)}`);
  // One list first, whatever the fleet's size: the creates share it (lifecycle/find-again.ts).
  expect(plain).toMatchObject({ createPod: n, getPod: 0, first: "listPods" });
  expect(owned).toMatchObject({ createPod: n, getPod: 0, first: "listPods" });
  // One look-up per pod would add eight lists; the poller's pace alone may vary by a tick.
  expect(owned.listPods).toBeLessThanOrEqual(plain.listPods + 1);
});

test("a new resource's earlier try is terminated once its pod exists; pods of other stacks and of this process are left alone", async () => {
  const p = podProvider();
  const mine = await p.check({}, { ...scope("dev", "solo"), name: "solo", image: "img/app:1", gpu: { id: gpuId } });
  const base = baseOwnerToken("Pod", mine.inputs as any, "solo");
  const earlier = await leftover("solo", base);
  const prods = await leftover("solo", baseOwnerToken("Pod", { ...scope("prod", "solo") }, "solo"));
  // A pod of this token whose create finished (it has its own name): handed to a stack once, it
  // left it (retainOnDelete): the user's, never an earlier try.
  const kept = await client.pods.create({ name: "solo", image: "img/app:1", gpu: { id: gpuId }, env: { [OWNER_ENV]: `${base}.0ddba11` } });
  const made = await p.create(mine.inputs!);
  expect(made.id).not.toBe(earlier.id);
  expect(made.outs!.name).toBe("solo");
  expect(livePods().map((x) => x.id).sort()).toEqual([made.id, prods.id, kept.id].sort());
  await client.pods.delete(kept.id);
  // The same declaration created again in this process (a test, not a stack): the first is
  // in the engine's state, so it is no earlier try.
  const again = await p.create((await p.check({}, { ...scope("dev", "solo"), name: "solo", image: "img/app:1", gpu: { id: gpuId } })).inputs!);
  expect(livePods().map((x) => x.id).sort()).toEqual([made.id, prods.id, again.id].sort());
  await p.delete(made.id, made.outs!);
  await p.delete(again.id, again.outs!);
  await client.pods.delete(prods.id);
});

test("a replacement's earlier try is taken over (PATCHed to the declaration), never the pod being replaced", async () => {
  const clock = movable();
  const p = podProvider(clock);
  const decl = { ...scope("dev", "big"), image: "img/app:1", gpu: { id: gpuId }, env: { MODEL: "large" } };
  const old = await p.create((await p.check({}, decl)).inputs!);
  const changed = { ...decl, gpu: { id: gpuId, count: 2 } };
  const first = await p.check(old.outs as any, changed);
  expect((await p.diff(old.id, old.outs!, first.inputs!)).replaces).toEqual(["gpu"]);
  const second = (await p.check({}, changed)).inputs!;
  const token = replacementToken(baseOwnerToken("Pod", second as any, "big"), old.id);
  expect(second.__ownerToken).toBe(token);
  // The earlier try: made for this replacement, with an env value since changed.
  const earlier = await client.pods.create({
    name: pendingName(second.name), image: "img/app:1", gpu: { id: gpuId, count: 2 }, env: { MODEL: "small", [OWNER_ENV]: `${token}.deadbeef` },
  });
  const posts = emu.counts().createPod;
  clock.skip(5000);
  const made = await p.create(second);
  expect(made.id).toBe(earlier.id);
  expect(emu.counts().createPod).toBe(posts);
  expect(made.outs).toMatchObject({ status: "RUNNING", env: { MODEL: "large" } });
  expect(livePods().map((x) => x.id).sort()).toEqual([old.id, earlier.id].sort());
  await p.delete(old.id, old.outs!);
  await p.delete(made.id, made.outs!);
  expect(livePods()).toEqual([]);
});

test("endpoints: an auto-named earlier try of a replacement is taken over; of a new one, deleted; a user-given name is never touched", async () => {
  const clock = movable();
  const p = new ServerlessEndpointProvider({ client: () => client, pollIntervalMs: 5, maxPollIntervalMs: 15, clock });
  const decl = { ...scope("dev", "api"), gpuIds: "AMPERE_24", templateId: TPL, workersMin: 0, workersMax: 1 };
  const liveEps = () => emu.state().endpoints as { id: string; name: string; workersMax: number }[];

  // New resource: an endpoint with the token's name exists already (a killed create's).
  const fresh = (await p.check({}, decl)).inputs!;
  const stray = await client.endpoints.save({ name: pendingName(fresh.name), gpuIds: "AMPERE_24", templateId: TPL, type: "QB", workersMin: 0, workersMax: 1 });
  const other = await client.endpoints.save({ name: "shared-name", gpuIds: "AMPERE_24", templateId: TPL, type: "QB", workersMin: 0, workersMax: 1 });
  clock.skip(5000);
  const made = await p.create(fresh);
  expect(made.id).not.toBe(stray.id);
  expect(liveEps().map((e) => e.id).sort()).toEqual([made.id, other.id].sort());

  // A replacement diffed here (type changes): its earlier try is taken over and updated.
  const lb = { ...decl, type: "LB", workersMax: 2 };
  const first = (await p.check(fresh, lb)).inputs!;
  expect((await p.diff(made.id, made.outs!, first)).replaces).toEqual(["type"]);
  const second = (await p.check({}, lb)).inputs!;
  expect(second.name).not.toBe(fresh.name);
  const earlier = await client.endpoints.save({ name: pendingName(second.name), gpuIds: "AMPERE_24", templateId: TPL, type: "LB", workersMin: 0, workersMax: 1 });
  const saves = emu.counts().saveEndpoint;
  clock.skip(5000);
  const replacement = await p.create(second);
  expect(replacement.id).toBe(earlier.id);
  expect(emu.counts().saveEndpoint).toBe(saves + 1); // the update to workersMax 2, no create
  expect(liveEps().find((e) => e.id === earlier.id)!.workersMax).toBe(2);

  // A user-given name: the one already there may be another stack's, so it stays.
  clock.skip(5000);
  const named = await p.create((await p.check({}, { ...decl, __logicalName: "named", name: "shared-name" })).inputs!);
  expect(named.id).not.toBe(other.id);
  expect(liveEps().map((e) => e.id).sort()).toEqual([made.id, earlier.id, other.id, named.id].sort());
  for (const id of [made.id, earlier.id, other.id, named.id]) await p.delete(id, { drainTimeoutSeconds: 5 });
  expect(liveEps()).toEqual([]);
});

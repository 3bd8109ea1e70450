/**
 * Endpoints waited on together share their reads: one `myself` per poll tick answers every
 * endpoint of the process, for the wait for workers on create and for the drain on delete; and
 * endpoints updated together with nothing of their own to save (their Template's change that
 * rolls their workers: a promotion) share one read of where they stand, and the ticks of the
 * waits for their rollouts.
 * Against the emulator over real HTTP. The provider, its shared poller and the emulator run on
 * one stepped clock that moves only while no request is in flight, so the ticks a wait takes
 * and the reads at each tick follow from the code, not from how loaded the machine is.
 */
import { ComputePlatform } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { templateRolls } from "../../../../src/resources/inputs/template-ref";
import { ServerlessEndpointProvider } from "../../../../src/resources/serverless-endpoint/provider";
import { SteppedClock, tracked } from "../../../helpers/stepped-clock";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";

let emu: Emulator;
/** The serverless template the endpoints name (the platform checks that it exists). */
let TPL: string;
let client: ComputePlatform;
const clock = new SteppedClock();
// Stepped time costs nothing: the platform's own pace (workers start and drain in seconds).
const STARTING_MS = 3000;
const DRAIN_MS = 3000;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 },
    timings: { provisioningMs: 10, startingMs: STARTING_MS, drainMs: DRAIN_MS },
    clock,
  });
  TPL = await createServerlessTemplate(emu.url, emu.apiKey);
  client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, maxRetries: 1 });
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

/** The emulator's `myself` reads in log entries [from, to), counted by the (stepped) instant they arrived at. */
function readsByInstant(from: number, to?: number): number[] {
  const perInstant = new Map<string, number>();
  for (const e of emu.requestLog().slice(from, to)) {
    if (e.op === "myself") perInstant.set(e.at, (perInstant.get(e.at) ?? 0) + 1);
  }
  return [...perInstant.values()];
}

/** `count` endpoints created at once, then deleted at once, with the provider's default poll pace. */
async function fleet(count: number) {
  // One client object, as the process-wide client is: the poller is shared per client.
  const tracking = { endpoints: tracked(clock, client.endpoints) };
  const p = new ServerlessEndpointProvider({ client: () => tracking, clock });
  const inputs = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const r = await p.check({}, { gpuIds: "AMPERE_24", templateId: TPL, workersMin: 1, workersMax: 1, __logicalName: `ep${i}` });
      expect(r.failures ?? []).toEqual([]);
      return r.inputs!;
    }),
  );
  const log0 = emu.requestLog().length;
  const made = await clock.drive(Promise.all(inputs.map((i) => p.create(i))));
  for (const m of made) expect(m.outs!.pods).toEqual([{ desiredStatus: "RUNNING" }]);
  const log1 = emu.requestLog().length;
  await clock.drive(Promise.all(made.map((m) => p.delete(m.id, m.outs!))));
  for (const m of made) expect(emu.state().endpoints.find((e: any) => e.id === m.id)).toBeUndefined();
  return { up: readsByInstant(log0, log1), down: readsByInstant(log1) };
}

test("six endpoints created and deleted at once read once per tick, as one endpoint does", async () => {
  const one = await fleet(1);
  const six = await fleet(6);
  console.log(`myself reads per tick: one endpoint ${JSON.stringify(one)}, six at once ${JSON.stringify(six)}`);
  expect(one.up.length).toBeGreaterThan(1);
  // Delete reads once (then saves 0/0 and deletes: no wait for draining workers).
  expect(one.down).toEqual([1]);
  // One read at every instant the waits read at, however many endpoints it answers (six
  // endpoints each polling alone would read six times at each), and as many instants for six
  // as for one: their workers start on the same schedule.
  const oncePerTick = { up: one.up.map(() => 1), down: one.down.map(() => 1) };
  expect(one).toEqual(oncePerTick);
  expect(six).toEqual(oncePerTick);
});

test("six endpoints whose shared Template's image changed are updated at once: one myself read between them, then one per tick for all their rollouts, and each endpoint's releases once", async () => {
  const tpl = await createServerlessTemplate(emu.url, emu.apiKey, { image: "promoted:1" });
  const tracking = { endpoints: tracked(clock, client.endpoints), serverless: tracked(clock, client.serverless) };
  const p = new ServerlessEndpointProvider({ client: () => tracking, clock });
  // What the program's Template declares: the endpoint's hidden input `template`.
  const rolls = (image: string) => templateRolls({ image, args: "", ports: [], env: {}, registry: null });
  const inputs = await Promise.all(
    Array.from({ length: 6 }, async (_, i) => {
      const r = await p.check({}, { gpuIds: "AMPERE_24", templateId: tpl, workersMin: 1, workersMax: 1, __logicalName: `promoted${i}`, template: rolls("promoted:1") });
      expect(r.failures ?? []).toEqual([]);
      return r.inputs!;
    }),
  );
  const made = await clock.drive(Promise.all(inputs.map((i) => p.create(i))));
  // The Template's update (its own resource) reaches the platform first, then the endpoints' updates.
  await clock.drive(tracked(clock, client.templates).update(tpl, { image: "promoted:2" }));
  const from = emu.requestLog().length;
  const updated = await clock.drive(Promise.all(made.map((m, i) => p.update(m.id, m.outs!, { ...inputs[i]!, template: rolls("promoted:2") } as typeof inputs[number]))));
  const ops = emu.requestLog().slice(from).map((e) => e.op);
  // Nothing saved; one list of the account's endpoints answers the six (six lone reads before).
  // Then the six rollouts share the poller's ticks, one myself each (after 1, 2.5 and 4.75 s:
  // the new workers start in 3), until the list shows each endpoint's workers RUNNING; each
  // endpoint's releases then confirm its end. No endpoint read its own workers (six reads a
  // tick before): the first look for a held rollout is due after 30 s.
  expect(ops).toEqual(["myself", "myself", "myself", "myself", ...made.map(() => "listEndpointReleases")]);
  expect(readsByInstant(from)).toEqual([1, 1, 1, 1]);
  for (const u of updated) expect(u.outs).toMatchObject({ rollout: { inProgress: false, workersOnLatest: 1, workersTotal: 1 } });
  for (const m of made) {
    const { workers } = await client.serverless.workers(m.id);
    expect(workers.map((w) => [w.image, w.isStale])).toEqual([["promoted:2", false]]);
  }
  await clock.drive(Promise.all(made.map((m, i) => p.delete(m.id, updated[i]!.outs!))));
});

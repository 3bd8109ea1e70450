import type { EndpointReleases, EndpointWorkerRecord, EndpointWorkers } from "../../../../src/client";
import { Poller, type StatusRead } from "../../../../src/resources/lifecycle/poller";
import { describeRelease, describeWorkers, type ListedEndpoint, RolloutNotOverError, settleRollout } from "../../../../src/resources/serverless-endpoint/rollout";
import { FakeClock } from "../../../helpers/fake-clock";
import { SteppedClock } from "../../../helpers/stepped-clock";

// The rollout wait against a scripted platform. Without the shared poller each tick reads the
// endpoint's workers, the releases confirm the end; a held rollout fails at once, one out of
// time fails naming the same. With it, one list per tick answers every endpoint that waits.

const worker = (status: string, version: number, isStale: boolean, image = `worker:${version}`): EndpointWorkerRecord => ({ id: `w-${status}-${version}-${Math.random()}`, status, isStale, version, image, gpuCount: 1 });

/** Each workers read takes the next list of the script (the last one stays); the releases agree with the list last read. */
function platform(script: EndpointWorkerRecord[][], version = 4) {
  const calls: string[] = [];
  let tick = 0;
  let listed = script[0]!;
  const releases = (): EndpointReleases => {
    const onLatest = listed.filter((w) => !w.isStale && (w.status === "IDLE" || w.status === "RUNNING")).length;
    return {
      endpointVersion: version,
      rollout: {
        inProgress: listed.some((w) => w.isStale || w.status === "INITIALIZING" || w.status === "UNHEALTHY"),
        workersOnLatest: onLatest,
        workersTotal: listed.length,
        percentOnLatest: listed.length === 0 ? 100 : Math.round((100 * onLatest) / listed.length),
      },
      releases: [{ id: "r4", version, source: "MANUAL", createdAt: "2026-01-01T00:00:00Z", workerCount: onLatest, diff: [{ field: "template.image", old: "worker:3", new: "worker:4" }] }],
    };
  };
  const client = {
    serverless: {
      workers: async (_id: string, opts: { yieldToWork?: boolean }): Promise<EndpointWorkers> => {
        calls.push(`workers${opts.yieldToWork ? " (yields)" : ""}`);
        listed = script[Math.min(tick++, script.length - 1)]!;
        return { endpointVersion: version, workers: listed as EndpointWorkers["workers"], summary: { running: 0, idle: 0, initializing: 0, throttled: 0, unhealthy: 0, total: listed.length } };
      },
      releases: async (): Promise<EndpointReleases> => {
        calls.push("releases");
        return releases();
      },
    },
  };
  return { client: client as never, calls };
}

const options = (client: never, clock: FakeClock, over: Partial<Parameters<typeof settleRollout>[0]> = {}) => ({
  client,
  id: "ep-1",
  clock,
  reasons: ["template.image"],
  wait: true,
  timeoutSeconds: 60,
  pollIntervalMs: 1000,
  maxPollIntervalMs: 4000,
  ...over,
});

test("no rollout expected, or the program does not wait: one releases read for the outputs", async () => {
  for (const over of [{ reasons: [] }, { wait: false }]) {
    const { client, calls } = platform([[worker("IDLE", 3, true)]]);
    const clock = new FakeClock();
    const state = await settleRollout(options(client, clock, over));
    expect(calls).toEqual(["releases"]);
    expect(state).toEqual({ version: 4, rollout: { inProgress: true, workersOnLatest: 0, workersTotal: 1, percentOnLatest: 0 } });
    expect(clock.sleeps).toEqual([]);
  }
});

test("waits while workers are stale or starting, one workers read per tick, then the releases confirm", async () => {
  const { client, calls } = platform([
    [worker("IDLE", 3, true), worker("IDLE", 3, true)],
    [worker("IDLE", 3, true), worker("IDLE", 3, true), worker("INITIALIZING", 4, false)],
    [worker("IDLE", 3, true), worker("IDLE", 4, false), worker("INITIALIZING", 4, false)],
    [worker("IDLE", 4, false), worker("RUNNING", 4, false)],
  ]);
  const clock = new FakeClock();
  const state = await settleRollout(options(client, clock));
  expect(calls).toEqual(["workers (yields)", "workers (yields)", "workers (yields)", "workers (yields)", "releases"]);
  expect(clock.sleeps).toEqual([1000, 1500, 2250]);
  expect(state).toEqual({ version: 4, rollout: { inProgress: false, workersOnLatest: 2, workersTotal: 2, percentOnLatest: 100, serving: [4] } });
});

test("an endpoint with no worker finishes at once", async () => {
  const { client, calls } = platform([[]]);
  const state = await settleRollout(options(client, new FakeClock()));
  expect(calls).toEqual(["workers (yields)", "releases"]);
  expect(state.rollout).toMatchObject({ inProgress: false, percentOnLatest: 100 });
});

test("held: every new worker UNHEALTHY while the stale ones serve fails at once, naming the release, the workers and what to do", async () => {
  const { client } = platform([[worker("IDLE", 3, true), worker("IDLE", 3, true), worker("UNHEALTHY", 4, false, "worker:broken")]]);
  const clock = new FakeClock();
  const err: RolloutNotOverError = await settleRollout(options(client, clock)).catch((e) => e);
  expect(err).toBeInstanceOf(RolloutNotOverError);
  expect(err.message).toBe(
    'the rollout of endpoint ep-1 is held: the new workers of release 4 (template.image "worker:3" -> "worker:4") cannot start ' +
      '(workers: 2 IDLE stale (version 3, image "worker:3"), 1 UNHEALTHY new (version 4, image "worker:broken")). ' +
      "The 2 stale workers of the earlier release keep serving. Fix the image or configuration of that release (the Template's or the endpoint's), " +
      "then run `pulumi up` again; the endpoint is kept in state at version 4 with its rollout in progress",
  );
  expect(err.state).toEqual({ version: 4, rollout: { inProgress: true, workersOnLatest: 0, workersTotal: 3, percentOnLatest: 0, serving: [3] } });
  expect(clock.sleeps).toEqual([]);
});

test("out of time: fails after rolloutTimeoutSeconds on the clock, saying the next up waits again", async () => {
  const { client, calls } = platform([[worker("IDLE", 3, true), worker("INITIALIZING", 4, false)]]);
  const clock = new FakeClock();
  const start = clock.now();
  const err: RolloutNotOverError = await settleRollout(options(client, clock, { timeoutSeconds: 10 })).catch((e) => e);
  expect(err).toBeInstanceOf(RolloutNotOverError);
  expect(err.message).toMatch(/^the rollout of endpoint ep-1 to release 4 \(template.image .*\) was not over after 10 s \(0 of 2 workers on the latest version; workers: 1 IDLE stale .*1 INITIALIZING new .*\); it is kept in state and the next `pulumi up` waits again \(raise rolloutTimeoutSeconds, or set waitForRollout: false\)$/);
  expect(clock.now() - start).toBe(10_000);
  // Bounded: the pause grows by half up to its ceiling, and no read goes past the deadline.
  expect(clock.sleeps).toEqual([1000, 1500, 2250, 3375, 1875]);
  expect(calls.filter((c) => c === "releases")).toHaveLength(1);
});

test("held with no stale worker serving: the message says no worker serves", async () => {
  const { client } = platform([[worker("UNHEALTHY", 4, false), worker("UNHEALTHY", 4, false), worker("INITIALIZING", 3, true)]]);
  const err: RolloutNotOverError = await settleRollout(options(client, new FakeClock())).catch((e) => e);
  expect(err.message).toContain("(workers: 2 UNHEALTHY new (version 4, image \"worker:4\"), 1 INITIALIZING stale (version 3, image \"worker:3\")). No worker serves. Fix the image");
  expect(err.name).toBe("RolloutNotOverError");
});

test("the versions ready workers serve: each once, ascending as numbers; a worker starting or of no known version serves none", async () => {
  const unversioned = { ...worker("IDLE", 0, false), version: undefined } as unknown as EndpointWorkerRecord;
  const { client } = platform([[worker("IDLE", 10, false), worker("RUNNING", 9, true), worker("IDLE", 10, false), worker("INITIALIZING", 11, false), unversioned]]);
  const err: RolloutNotOverError = await settleRollout(options(client, new FakeClock(), { timeoutSeconds: 1 })).catch((e) => e);
  expect(err.state.rollout.serving).toEqual([9, 10]);
});

test("the version: the endpoint's, else its latest release's, else none", async () => {
  const rollout = { inProgress: false, workersOnLatest: 0, workersTotal: 0, percentOnLatest: 100 };
  const answering = (r: Partial<EndpointReleases>) => ({ serverless: { releases: async () => ({ rollout, releases: [], ...r }) } }) as never;
  const once = (client: never) => settleRollout(options(client, new FakeClock(), { wait: false }));
  expect((await once(answering({ releases: [{ version: 7 } as never] }))).version).toBe(7);
  expect((await once(answering({ endpointVersion: 8, releases: [{ version: 7 } as never] }))).version).toBe(8);
  expect((await once(answering({}))).version).toBeNull();
});

test("a clock that does not move cannot make the wait loop for ever", async () => {
  const { client, calls } = platform([[worker("INITIALIZING", 4, false)]]);
  await expect(settleRollout(options(client, new FakeClock(), { pollIntervalMs: 0 }))).rejects.toThrow("endpoint ep-1: its rollout was read 10000 times");
  expect(calls).toHaveLength(10_000);
});

test("describeWorkers and describeRelease: counts by status, age, version and image; the release's changes as the platform gives them", () => {
  expect(describeWorkers([])).toBe("no workers");
  const bare = { ...worker("IDLE", 0, false), version: undefined, image: undefined } as unknown as EndpointWorkerRecord;
  expect(describeWorkers([bare, bare, worker("IDLE", 3, true)])).toBe('2 IDLE new (version unknown), 1 IDLE stale (version 3, image "worker:3")');
  expect(describeRelease(undefined, null)).toBe("release ?");
  expect(describeRelease({ version: 5, diff: [] }, undefined)).toBe("release 5");
  expect(describeRelease({ version: 5, diff: [{ field: "gpu.count", old: 1, new: 2 }, { field: "template.image", old: "a", new: "b" }] as never }, 6)).toBe(
    'release 6 (gpu.count 1 -> 2, template.image "a" -> "b")',
  );
});

// ---- with the shared poller: one list per tick for every endpoint that waits ----

/** Where one endpoint's rollout stands at a time: from `readyAt` on, its new worker serves; a held one never does. */
interface Rollout {
  readyAt: number;
  held?: boolean;
  /** Until this time the shared list shows the rollout over while its releases do not (a list that runs ahead). */
  listAheadUntil?: number;
  /** Not in the shared list (an endpoint the platform's GraphQL leaves out). */
  unlisted?: boolean;
}

/**
 * A platform of endpoints with one worker each, replaced by a rollout: the shared list (GraphQL's
 * `pods`), each endpoint's workers and its releases, all read from the clock. Counts each read.
 */
function account(clock: SteppedClock, rollouts: Record<string, Rollout>, opts: { listFails?: Error } = {}) {
  const reads: string[] = [];
  /** When each endpoint's own workers were read. */
  const looks: number[] = [];
  /** When each endpoint's releases were read. */
  const confirms: number[] = [];
  const started = clock.now();
  const over = (id: string) => !rollouts[id]!.held && clock.now() >= rollouts[id]!.readyAt;
  const workersOf = (id: string): EndpointWorkerRecord[] => {
    const r = rollouts[id]!;
    if (over(id)) return [worker("IDLE", 4, false)];
    // A worker that cannot start reads INITIALIZING for its start, then UNHEALTHY.
    const fresh = r.held && clock.now() - started >= START_MS ? "UNHEALTHY" : "INITIALIZING";
    return [worker("IDLE", 3, true), worker(fresh, 4, false, r.held ? "worker:broken" : "worker:4")];
  };
  const list = async (how: StatusRead): Promise<ListedEndpoint[]> => {
    reads.push("list");
    how.onSend();
    if (opts.listFails) throw opts.listFails;
    return Object.entries(rollouts)
      .filter(([, r]) => !r.unlisted)
      .map(([id, r]) => ({
        id,
        workersMin: 1,
        // GraphQL shows a worker that cannot start as STARTING, like one starting.
        pods: over(id) || clock.now() < (r.listAheadUntil ?? 0) ? [{ desiredStatus: "RUNNING" }] : [{ desiredStatus: "RUNNING" }, { desiredStatus: "STARTING" }],
      }));
  };
  const client = {
    serverless: {
      workers: async (id: string, o: { yieldToWork?: boolean }): Promise<EndpointWorkers> => {
        reads.push(`workers ${id}${o.yieldToWork ? "" : " (does not yield)"}`);
        looks.push(clock.now());
        const workers = workersOf(id);
        return { endpointVersion: 4, workers: workers as EndpointWorkers["workers"], summary: { running: 0, idle: 0, initializing: 0, throttled: 0, unhealthy: 0, total: workers.length } };
      },
      releases: async (id: string, o: { yieldToWork?: boolean }): Promise<EndpointReleases> => {
        reads.push(`releases ${id}${o.yieldToWork ? "" : " (does not yield)"}`);
        confirms.push(clock.now());
        const workers = workersOf(id);
        const onLatest = workers.filter((w) => !w.isStale && w.status === "IDLE").length;
        return {
          endpointVersion: 4,
          rollout: { inProgress: !over(id), workersOnLatest: onLatest, workersTotal: workers.length, percentOnLatest: Math.round((100 * onLatest) / workers.length) },
          releases: [{ id: "r4", version: 4, source: "MANUAL", createdAt: "2026-01-01T00:00:00Z", workerCount: onLatest, diff: [{ field: "template.image", old: "worker:3", new: "worker:4" }] }],
        };
      },
    },
  };
  const poller = new Poller<ListedEndpoint>(list, clock, { intervalMs: 1000, maxIntervalMs: 4000, backoff: 1.5, noun: "endpoint", slow: () => true });
  return { client: client as never, poller, reads, looks, confirms };
}

/** A worker's start on this platform, in ms. */
const START_MS = 6000;

const sharedOptions = (client: never, clock: SteppedClock, poller: Poller<ListedEndpoint>, id: string, over: Partial<Parameters<typeof settleRollout>[0]> = {}) =>
  ({ ...options(client, clock as never, { id, shared: poller }), ...over }) as Parameters<typeof settleRollout>[0];

test("shared: endpoints that wait together read one list per tick between them, no workers of their own, and each its releases once", async () => {
  const ticks: Record<number, number> = {};
  for (const n of [1, 10]) {
    const clock = new SteppedClock(0);
    const rollouts = Object.fromEntries(Array.from({ length: n }, (_, i) => [`ep-${i}`, { readyAt: START_MS }]));
    const { client, poller, reads } = account(clock, rollouts);
    const states = await clock.drive(Promise.all(Object.keys(rollouts).map((id) => settleRollout(sharedOptions(client, clock, poller, id)))));
    for (const s of states) expect(s).toEqual({ version: 4, rollout: { inProgress: false, workersOnLatest: 1, workersTotal: 1, percentOnLatest: 100, serving: [4] } });
    ticks[n] = reads.filter((r) => r === "list").length;
    expect(reads.filter((r) => r !== "list").sort()).toEqual(Object.keys(rollouts).map((id) => `releases ${id}`).sort());
  }
  // After 1, 2.5, 4.75 and 8.125 s: the workers start in 6. Ten endpoints cost what one does.
  expect(ticks).toEqual({ 1: 4, 10: 4 });
});

test("shared: a held rollout fails at the first look at the endpoint's own workers, while the others finish on the shared ticks", async () => {
  const clock = new SteppedClock(0);
  const { client, poller, reads } = account(clock, { "ep-ok": { readyAt: START_MS }, "ep-held": { readyAt: START_MS, held: true } });
  const o = { maxPollIntervalMs: 4000 };
  const [ok, held] = await clock.drive(
    Promise.all([settleRollout(sharedOptions(client, clock, poller, "ep-ok", o)), settleRollout(sharedOptions(client, clock, poller, "ep-held", o)).catch((e) => e)]),
  );
  expect(ok.rollout).toMatchObject({ inProgress: false });
  expect(held).toBeInstanceOf(RolloutNotOverError);
  expect(held.message).toMatch(/^the rollout of endpoint ep-held is held: the new workers of release 4 .* \(workers: 1 IDLE stale \(version 3, image "worker:3"\), 1 UNHEALTHY new \(version 4, image "worker:broken"\)\)\. The 1 stale worker of the earlier release keep serving/);
  expect(held.state.rollout).toMatchObject({ inProgress: true, serving: [3] });
  // Its first look is due at twice the poll ceiling (8 s), found at the tick after it (8.125 s).
  expect(clock.now()).toBe(8125);
  expect(reads.filter((r) => r !== "list")).toEqual(["releases ep-ok", "workers ep-held", "releases ep-held"]);
});

test("shared: the looks for a held rollout come at twice the ceiling, then each twice as long, up to four times it; the deadline reads where it stands", async () => {
  const clock = new SteppedClock(0);
  const { client, poller, reads, looks } = account(clock, { "ep-1": { readyAt: Number.POSITIVE_INFINITY } });
  const err: RolloutNotOverError = await clock.drive(settleRollout(sharedOptions(client, clock, poller, "ep-1", { timeoutSeconds: 60 })).catch((e) => e));
  expect(err).toBeInstanceOf(RolloutNotOverError);
  expect(err.message).toMatch(/^the rollout of endpoint ep-1 to release 4 .* was not over after 60 s \(0 of 2 workers on the latest version; /);
  expect(clock.now()).toBe(60_000);
  // Due at 8 s, then 16 s after each look (twice 8, capped at four times the 4 s ceiling), each
  // found at the next tick, and at the deadline; the releases only then, for the message.
  expect(looks).toEqual([8125, 24_250, 40_375, 56_500, 60_000]);
  expect(reads.filter((r) => r.startsWith("releases"))).toEqual(["releases ep-1"]);
  // The list's ticks: their pause grows by half up to the 4 s ceiling, from 1 s again after each look.
  expect(reads.filter((r) => r === "list")).toHaveLength(25);
});

test("shared: a list that shows the rollout over before the releases do is confirmed again after a pause that grows by half", async () => {
  const clock = new SteppedClock(0);
  const { client, poller, reads, confirms } = account(clock, { "ep-1": { readyAt: START_MS, listAheadUntil: START_MS } });
  const state = await clock.drive(settleRollout(sharedOptions(client, clock, poller, "ep-1")));
  expect(state.rollout).toMatchObject({ inProgress: false, serving: [4] });
  // At the first tick (1 s), then at the first tick at least 1 s later (2 s), 1.5 s later (3.5 s: the
  // tick of 4.5 s), 2.25 s later (6.75 s: the tick of 7 s), when the workers have started (at 6 s).
  expect(reads.filter((r) => r !== "list")).toEqual(confirms.map(() => "releases ep-1"));
  expect(confirms).toEqual([1000, 2000, 4500, 7000]);
});

test("shared: an endpoint the list leaves out is looked at by its own workers only, at the slow cadence", async () => {
  const clock = new SteppedClock(0);
  const { client, poller, reads, looks } = account(clock, { "ep-1": { readyAt: START_MS, unlisted: true } });
  const state = await clock.drive(settleRollout(sharedOptions(client, clock, poller, "ep-1")));
  expect(state.rollout).toMatchObject({ inProgress: false, serving: [4] });
  expect(reads.filter((r) => r !== "list")).toEqual(["workers ep-1", "releases ep-1"]);
  expect(looks).toEqual([8125]);
});

test("shared: a list that fails for good (GraphQL refused) leaves each endpoint to read its own workers per tick", async () => {
  const clock = new SteppedClock(0);
  const gone = Object.assign(new Error("GraphQL is not served"), { status: 404 });
  const { client, poller, reads } = account(clock, { "ep-1": { readyAt: START_MS } }, { listFails: gone });
  const state = await clock.drive(settleRollout(sharedOptions(client, clock, poller, "ep-1")));
  expect(state.rollout).toMatchObject({ inProgress: false, serving: [4] });
  // One failed list at 1 s; then the workers at 1, 2, 3.5, 5.75 and 9.125 s, the releases once.
  expect(reads).toEqual(["list", "workers ep-1", "workers ep-1", "workers ep-1", "workers ep-1", "workers ep-1", "releases ep-1"]);
});

test("shared: every read a wait sends is a status read that yields to work, and an abort ends the wait", async () => {
  const clock = new SteppedClock(0);
  const { client, poller, reads } = account(clock, { "ep-1": { readyAt: Number.POSITIVE_INFINITY } });
  const stop = new AbortController();
  const waiting = settleRollout(sharedOptions(client, clock, poller, "ep-1", { signal: stop.signal })).catch((e) => e);
  await clock.drive(clock.sleep(20_000));
  stop.abort(new Error("cancelled"));
  expect((await waiting).message).toBe("cancelled");
  expect(reads.some((r) => r.startsWith("workers"))).toBe(true);
  expect(reads.filter((r) => r.includes("does not yield"))).toEqual([]);
});

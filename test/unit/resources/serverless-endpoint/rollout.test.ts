import type { EndpointReleases, EndpointWorkerRecord, EndpointWorkers } from "../../../../src/client";
import { RolloutNotOverError, settleRollout } from "../../../../src/resources/serverless-endpoint/rollout";
import { FakeClock } from "../../../helpers/fake-clock";

// The rollout wait against a scripted platform: each tick reads the workers, the releases
// confirm the end; a held rollout fails at once, one out of time fails naming the same.

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

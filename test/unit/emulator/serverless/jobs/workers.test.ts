// The scaling rules of an account's endpoint driven directly on clock times (docs/emulator.md, "Jobs on
// the account's own endpoints", Workers and scaling): QUEUE_DELAY adds one worker when the oldest
// queued job has waited more than scalerValue seconds, REQUEST_COUNT keeps ceil((inQueue + inProgress) /
// scalerValue), never above workersMax; a worker above workersMin leaves after idleTimeout
// seconds with no job; and the next event the replay must stop at. A rollout's replacements are
// extra workers that none of these count. No queue, no server: the rules alone, at chosen times.
import { ENDPOINT_DEFAULTS } from "../../../../../src/emulator/serverless/endpoints/rules";
import { type EndpointRecord, EndpointStore } from "../../../../../src/emulator/serverless/endpoints/store";
import type { Job, Queue } from "../../../../../src/emulator/serverless/jobs/job";
import { WaitingJobs } from "../../../../../src/emulator/serverless/jobs/waiting";
import { leaveIdle, nextEvent, scaleUp, serving, workerStates, type WorkerOptions } from "../../../../../src/emulator/serverless/jobs/workers";

const STARTING_MS = 1_000;

function setup(ep: Partial<EndpointRecord> = {}, timeScale = 1) {
  const store = new EndpointStore({ startingMs: STARTING_MS, drainMs: 0 }, () => 0.5);
  const o: WorkerOptions = { store, timeScale };
  const record: EndpointRecord = {
    id: "ep",
    name: "ep",
    gpuIds: "AMPERE_16",
    templateId: "tpl",
    ...ENDPOINT_DEFAULTS,
    executionTimeoutMs: 0,
    dataCenterIds: [],
    createdAt: 0,
    workers: [],
    version: 1,
    image: "img:1",
    releases: [],
    ...ep,
  };
  const q: Queue = {
    jobs: new Map(),
    active: new Set(),
    waiting: new WaitingJobs<Job>(),
    running: new Set(),
    activeBytes: 0,
    webhooks: 0,
    lastTick: 0,
    counters: { completed: 0, failed: 0, retried: 0 },
  };
  let seq = 0;
  const job = (status: "IN_QUEUE" | "IN_PROGRESS", submittedAt: number, more: Partial<Job> = {}): Job => {
    seq += 1;
    const j: Job = { id: `j${seq}`, endpointId: "ep", input: {}, policy: {}, seq, submittedAt, ttlEnd: submittedAt + 86_400_000, status, chunkTimes: [], streamRead: 0, bytes: 2, ...more };
    q.jobs.set(j.id, j);
    if (status === "IN_QUEUE") q.waiting.add(j);
    else q.running.add(j);
    return j;
  };
  return { o, ep: record, q, job, store };
}

describe("scaleUp", () => {
  test("no queued job adds nothing, whatever is running", () => {
    const { o, ep, q, job } = setup({ scalerType: "REQUEST_COUNT", scalerValue: 1 });
    job("IN_PROGRESS", 0);
    expect(scaleUp(o, ep, q, 100_000)).toBe(false);
    expect(ep.workers).toHaveLength(0);
  });

  test("a queued job on an endpoint with no worker wakes one at once, but workersMax 0 keeps it queued", () => {
    const { o, ep, q, job } = setup();
    job("IN_QUEUE", 0);
    expect(scaleUp(o, ep, q, 0)).toBe(true);
    expect(ep.workers).toMatchObject([{ createdAt: 0, readyAt: STARTING_MS, version: 1, image: "img:1", drainingSince: null }]);
    const none = setup({ workersMax: 0 });
    none.job("IN_QUEUE", 0);
    expect(scaleUp(none.o, none.ep, none.q, 1_000_000)).toBe(false);
    expect(none.ep.workers).toHaveLength(0);
  });

  test("QUEUE_DELAY adds one when the oldest queued job has waited more than scalerValue seconds: not at the threshold itself", () => {
    const { o, ep, q, job, store } = setup({ scalerValue: 4 });
    store.addWorker(ep, 0);
    job("IN_QUEUE", 2_000);
    job("IN_QUEUE", 3_000);
    expect(scaleUp(o, ep, q, 6_000)).toBe(false);
    expect(ep.workers).toHaveLength(1);
    expect(scaleUp(o, ep, q, 6_001)).toBe(true);
    expect(ep.workers).toHaveLength(2);
    expect(ep.workers[1].createdAt).toBe(6_001);
  });

  test("QUEUE_DELAY adds one at a time: none while a worker is still starting", () => {
    const { o, ep, q, job, store } = setup({ scalerValue: 1, workersMax: 3 });
    store.addWorker(ep, 0);
    job("IN_QUEUE", 0);
    expect(scaleUp(o, ep, q, 999)).toBe(false); // the first is starting (ready at 1000)
    expect(scaleUp(o, ep, q, 1_001)).toBe(true);
    expect(ep.workers).toHaveLength(2);
    expect(scaleUp(o, ep, q, 1_500)).toBe(false); // the second is starting
    expect(scaleUp(o, ep, q, 2_001)).toBe(true);
    expect(ep.workers).toHaveLength(3);
    // workersMax reached.
    expect(scaleUp(o, ep, q, 100_000)).toBe(false);
    expect(ep.workers).toHaveLength(3);
  });

  test("QUEUE_DELAY's seconds are emulated: with timeScale 10, 4 s is 400 clock ms", () => {
    const { o, ep, q, job, store } = setup({ scalerValue: 4 }, 10);
    store.addWorker(ep, 0);
    job("IN_QUEUE", 1_000);
    expect(scaleUp(o, ep, q, 1_400)).toBe(false);
    expect(scaleUp(o, ep, q, 1_400.1)).toBe(true); // one emulated ms past the threshold
  });

  test("REQUEST_COUNT keeps ceil((inQueue + inProgress) / scalerValue), at once, never above workersMax", () => {
    const { o, ep, q, job, store } = setup({ scalerType: "REQUEST_COUNT", scalerValue: 2, workersMax: 10 });
    store.addWorker(ep, 0);
    job("IN_PROGRESS", 0);
    job("IN_QUEUE", 0);
    expect(scaleUp(o, ep, q, 0)).toBe(false); // ceil(2 / 2) = 1, which it has
    job("IN_QUEUE", 0);
    expect(scaleUp(o, ep, q, 0)).toBe(true); // ceil(3 / 2) = 2
    expect(ep.workers).toHaveLength(2);
    for (let i = 0; i < 30; i++) job("IN_QUEUE", 0);
    expect(scaleUp(o, ep, q, 0)).toBe(true);
    expect(ep.workers).toHaveLength(10);
  });

  test("REQUEST_COUNT with scalerValue 0 counts as 0.5: two workers per job, not a division by zero", () => {
    const { o, ep, q, job } = setup({ scalerType: "REQUEST_COUNT", scalerValue: 0, workersMax: 5 });
    job("IN_QUEUE", 0);
    expect(scaleUp(o, ep, q, 0)).toBe(true);
    expect(ep.workers).toHaveLength(2);
  });

  test("a rollout's replacements are not counted: the endpoint may still scale to workersMax beside them", () => {
    const { o, ep, q, job, store } = setup({ scalerType: "REQUEST_COUNT", scalerValue: 1, workersMax: 2 });
    store.addWorker(ep, 0);
    store.addWorker(ep, 0, { replacing: true });
    store.addWorker(ep, 0, { replacing: true });
    job("IN_QUEUE", 0);
    job("IN_QUEUE", 0);
    expect(scaleUp(o, ep, q, 0)).toBe(true);
    expect(ep.workers.filter((w) => !w.replacing)).toHaveLength(2);
    // A drained worker is not counted either.
    store.drainWorker(ep, ep.workers[0], 0);
    expect(scaleUp(o, ep, q, 0)).toBe(true);
    expect(ep.workers.filter((w) => !w.replacing && w.drainingSince === null)).toHaveLength(2);
  });
});

describe("leaveIdle", () => {
  test("a worker above workersMin leaves idleTimeout seconds after it was ready, not a millisecond before", () => {
    const { o, ep, store } = setup({ idleTimeout: 5 });
    const w = store.addWorker(ep, 0);
    expect(leaveIdle(o, ep, 5_999)).toBe(false);
    expect(leaveIdle(o, ep, 6_000)).toBe(true);
    // It leaves at the time the timeout passed, not when it was looked at.
    const late = setup({ idleTimeout: 5 });
    const lw = late.store.addWorker(late.ep, 0);
    expect(leaveIdle(late.o, late.ep, 60_000)).toBe(true);
    expect(lw.drainingSince).toBe(6_000);
    expect(w.drainingSince).toBe(6_000);
  });

  test("the timeout counts from the worker's last job when that is later than its start", () => {
    const { o, ep, store } = setup({ idleTimeout: 5 });
    const w = store.addWorker(ep, 0);
    w.idleSince = 10_000;
    expect(leaveIdle(o, ep, 14_999)).toBe(false);
    expect(leaveIdle(o, ep, 15_000)).toBe(true);
    expect(w.drainingSince).toBe(15_000);
  });

  test("idleTimeout is emulated seconds: timeScale 10 makes 5 s 500 clock ms", () => {
    const { o, ep, store } = setup({ idleTimeout: 5 }, 10);
    store.addWorker(ep, 0);
    expect(leaveIdle(o, ep, 1_499)).toBe(false);
    expect(leaveIdle(o, ep, 1_500)).toBe(true);
  });

  test("workersMin stay; the first to time out leave first; a busy, starting or unable worker stays", () => {
    const { o, ep, store } = setup({ idleTimeout: 5, workersMin: 1, workersMax: 6 });
    const a = store.addWorker(ep, 0);
    const b = store.addWorker(ep, 0);
    const busy = store.addWorker(ep, 0);
    busy.jobId = "j1";
    const broken = store.addWorker(ep, 0);
    broken.cannotStart = true;
    a.idleSince = 3_000;
    b.idleSince = 2_000;
    // Four kept, workersMin 1: b (leave at 7000) then a (8000) may go; busy and broken stay, so count stays 2.
    expect(leaveIdle(o, ep, 100_000)).toBe(true);
    expect(b.drainingSince).toBe(7_000);
    expect(a.drainingSince).toBe(8_000);
    expect(busy.drainingSince).toBeNull();
    expect(broken.drainingSince).toBeNull();
  });

  test("no more leave than down to workersMin, the latest to time out staying", () => {
    const { o, ep, store } = setup({ idleTimeout: 5, workersMin: 2 });
    const ws = [store.addWorker(ep, 0), store.addWorker(ep, 0), store.addWorker(ep, 0)];
    ws[0].idleSince = 3_000;
    ws[1].idleSince = 1_000;
    ws[2].idleSince = 2_000;
    expect(leaveIdle(o, ep, 100_000)).toBe(true);
    expect(ws.map((w) => w.drainingSince)).toEqual([null, 6_000, null]);
    expect(leaveIdle(o, ep, 200_000)).toBe(false);
  });

  test("a still-starting worker is not idle yet, and a rollout's replacement is not one the endpoint keeps", () => {
    const { o, ep, store } = setup({ idleTimeout: 0 });
    const starting = store.addWorker(ep, 5_000);
    expect(leaveIdle(o, ep, 5_999)).toBe(false);
    expect(starting.drainingSince).toBeNull();
    const r = setup({ idleTimeout: 0 });
    const replacement = r.store.addWorker(r.ep, 0, { replacing: true });
    expect(leaveIdle(r.o, r.ep, 100_000)).toBe(false);
    expect(replacement.drainingSince).toBeNull();
  });
});

describe("serving and workerStates", () => {
  test("a worker serves from its ready time on, unless it cannot start", () => {
    const { o, ep, store } = setup();
    const w = store.addWorker(ep, 0);
    expect(serving(o, ep, w, 999)).toBe(false);
    expect(serving(o, ep, w, 1_000)).toBe(true);
    w.cannotStart = true;
    expect(serving(o, ep, w, 1_000)).toBe(false);
  });

  test("the states list the live workers only: INITIALIZING, IDLE, RUNNING, UNHEALTHY", () => {
    const { o, ep, store } = setup();
    const idle = store.addWorker(ep, 0);
    const running = store.addWorker(ep, 0);
    running.jobId = "j";
    const broken = store.addWorker(ep, 0);
    broken.cannotStart = true;
    const starting = store.addWorker(ep, 500);
    const gone = store.addWorker(ep, 0);
    store.drainWorker(ep, gone, 1_000);
    expect(workerStates(o, ep, 1_000).map((s) => [s.worker.id, s.state])).toEqual([
      [idle.id, "IDLE"],
      [running.id, "RUNNING"],
      [broken.id, "UNHEALTHY"],
      [starting.id, "INITIALIZING"],
    ]);
  });
});

describe("nextEvent", () => {
  test("nothing to wait for: undefined", () => {
    const { o, ep, q } = setup();
    expect(nextEvent(o, ep, q, 0)).toBeUndefined();
  });

  test("the earliest of: a worker ready, an idle leave, a job's end or deadline, a ttl, the QUEUE_DELAY threshold", () => {
    const { o, ep, q, job, store } = setup({ scalerValue: 4, idleTimeout: 5 }, 1);
    store.addWorker(ep, 0); // ready at 1000, leaves at 6000
    expect(nextEvent(o, ep, q, 0)).toBe(1_000);
    expect(nextEvent(o, ep, q, 1_000)).toBe(6_000);
    job("IN_PROGRESS", 0, { endsAt: 5_200, deadline: 9_000 });
    expect(nextEvent(o, ep, q, 1_000)).toBe(5_200);
    expect(nextEvent(o, ep, q, 5_200)).toBe(6_000);
    job("IN_QUEUE", 1_000, { ttlEnd: 5_500 });
    expect(nextEvent(o, ep, q, 1_000)).toBe(5_001); // one ms past the threshold 1000 + 4000
    expect(nextEvent(o, ep, q, 5_001)).toBe(5_200); // the job's end
    expect(nextEvent(o, ep, q, 5_200)).toBe(5_500); // the ttl
    expect(nextEvent(o, ep, q, 6_000)).toBe(9_000); // the deadline
    expect(nextEvent(o, ep, q, 9_000)).toBeUndefined(); // only times after t count
  });

  test("the threshold is in emulated seconds: timeScale 10 makes 4 s 400 clock ms, and one emulated ms past it a tenth", () => {
    const { o, ep, q, job } = setup({ scalerValue: 4 }, 10);
    job("IN_QUEUE", 1_000, { ttlEnd: 50_000 });
    expect(nextEvent(o, ep, q, 1_000)).toBe(1_400.1);
  });

  test("REQUEST_COUNT has no threshold to wait for; workersMin workers and busy or unable ones have no idle leave", () => {
    const { o, ep, q, job, store } = setup({ scalerType: "REQUEST_COUNT", workersMin: 1, idleTimeout: 5 });
    store.addWorker(ep, 0);
    job("IN_QUEUE", 0, { ttlEnd: 50_000 });
    expect(nextEvent(o, ep, q, 1_000)).toBe(50_000);
    const busy = setup({ idleTimeout: 5 });
    busy.store.addWorker(busy.ep, 0).jobId = "j";
    busy.store.addWorker(busy.ep, 0).cannotStart = true;
    expect(nextEvent(busy.o, busy.ep, busy.q, 1_000)).toBeUndefined();
  });

  test("a drained worker's ready time is no event", () => {
    const { o, ep, store } = setup({ workersMin: 5 });
    store.drainWorker(ep, store.addWorker(ep, 0), 0);
    const q = setup().q;
    expect(nextEvent(o, ep, q, 0)).toBeUndefined();
  });
});

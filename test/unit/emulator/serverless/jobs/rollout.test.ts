// A rollout's rules driven directly at chosen clock times (docs/emulator.md, "Releases and rollouts",
// Rolling): one replacement per stale worker, at most max(1, ceil(kept / 4)) starting at once;
// each ready replacement retires one stale worker (one not serving first, then an idle one, the
// oldest version and age first), which drains at once or after its job; a superseded rollout's
// replacement leaves if still starting and serves as stale if started; one that cannot start
// retires no one; and a stale worker takes a job only while no worker of the latest version is
// ready. The HTTP tests reach 4 and 8 workers through a server; these reach each boundary.
import { type EndpointRecord, EndpointStore, type WorkerRecord } from "../../../../../src/emulator/serverless/endpoints/store";
import { latestReady, roll, takesJobs } from "../../../../../src/emulator/serverless/jobs/rollout";
import type { WorkerOptions } from "../../../../../src/emulator/serverless/jobs/workers";

const STARTING_MS = 1_000;

function setup(workers: number, version = 2) {
  const store = new EndpointStore({ startingMs: STARTING_MS, drainMs: 0 }, () => 0.5);
  const o: WorkerOptions = { store, timeScale: 1 };
  const ep = {
    id: "ep",
    flashBootType: "OFF",
    workersMin: workers,
    workersMax: workers,
    workers: [] as WorkerRecord[],
    version: 1,
    image: "img:1",
  } as EndpointRecord;
  for (let i = 0; i < workers; i++) store.addWorker(ep, 0);
  // The release: workers of version 1 are stale now.
  ep.version = version;
  ep.image = "img:2";
  return { o, ep, store };
}

const replacements = (ep: EndpointRecord) => ep.workers.filter((w) => w.replacing && w.drainingSince === null);
const live = (ep: EndpointRecord) => ep.workers.filter((w) => w.drainingSince === null);

test("no stale worker: nothing to do", () => {
  const { o, ep } = setup(3, 1);
  expect(roll(o, ep, 5_000)).toBe(false);
  expect(ep.workers).toHaveLength(3);
});

test("an endpoint with no worker has nothing to replace", () => {
  const { o, ep } = setup(0);
  expect(roll(o, ep, 0)).toBe(false);
  expect(ep.workers).toHaveLength(0);
});

test.each([
  [1, 1],
  [4, 1],
  [5, 2],
  [8, 2],
  [9, 3],
])("%i stale workers: %i replacements start at once, of the latest version and image", (kept, surge) => {
  const { o, ep } = setup(kept);
  expect(roll(o, ep, 2_000)).toBe(true);
  const started = replacements(ep);
  expect(started).toHaveLength(surge);
  for (const w of started) expect(w).toMatchObject({ version: 2, image: "img:2", createdAt: 2_000 });
  // No more start while those are starting.
  expect(roll(o, ep, 2_500)).toBe(false);
  expect(replacements(ep)).toHaveLength(surge);
});

test("a ready replacement retires one idle stale worker at once, and the next replacement starts", () => {
  const { o, ep } = setup(2);
  const [a, b] = ep.workers;
  roll(o, ep, 2_000);
  const r1 = replacements(ep)[0];
  expect(roll(o, ep, 2_999)).toBe(false);
  expect(roll(o, ep, 3_000)).toBe(true);
  expect(r1.replacing).toBeUndefined(); // a worker the endpoint keeps now
  expect(a.drainingSince).toBe(3_000); // the older of two alike
  expect(b.drainingSince).toBeNull();
  const r2 = replacements(ep);
  expect(r2).toHaveLength(1);
  expect(r2[0].createdAt).toBe(3_000);
  roll(o, ep, 4_000);
  expect(b.drainingSince).toBe(4_000);
  expect(live(ep).every((w) => w.version === 2 && !w.replacing)).toBe(true);
  expect(roll(o, ep, 10_000)).toBe(false);
});

test("the stale worker retired first: one not serving, then an idle one, then the older version", () => {
  const { o, ep, store } = setup(3, 3);
  const [busy, idle, unable] = ep.workers;
  busy.jobId = "j";
  unable.cannotStart = true;
  const older = store.addWorker(ep, 0);
  older.version = 0;
  older.jobId = "j2";
  ep.workersMin = ep.workersMax = 4;
  roll(o, ep, 2_000);
  roll(o, ep, 3_000);
  expect(unable.drainingSince).toBe(3_000);
  expect([busy, idle, older].map((w) => w.drainingSince)).toEqual([null, null, null]);
  roll(o, ep, 4_000);
  expect(idle.drainingSince).toBe(4_000);
  roll(o, ep, 5_000);
  // Both hold a job: the older version retires first, and finishes its job before it drains.
  expect(older.retiring).toBe(true);
  expect(older.drainingSince).toBeNull();
  expect(busy.retiring).toBeUndefined();
});

test("a stale worker holding a job is retiring: it drains once its job is done, and no second replacement claims it", () => {
  const { o, ep } = setup(1);
  const [stale] = ep.workers;
  stale.jobId = "j";
  roll(o, ep, 0);
  roll(o, ep, 1_000);
  expect(stale.retiring).toBe(true);
  expect(stale.drainingSince).toBeNull();
  expect(replacements(ep)).toHaveLength(0);
  expect(roll(o, ep, 1_500)).toBe(false);
  stale.jobId = null;
  expect(roll(o, ep, 2_000)).toBe(true);
  expect(stale.drainingSince).toBe(2_000);
  expect(stale.retiring).toBeUndefined();
});

test("a replacement that cannot start retires no one; the stale workers keep serving", () => {
  const { o, ep } = setup(1);
  roll(o, ep, 0);
  const [r] = replacements(ep);
  r.cannotStart = true;
  expect(roll(o, ep, 100_000)).toBe(false);
  expect(ep.workers[0].drainingSince).toBeNull();
  expect(r.replacing).toBe(true);
});

test("a release during a rollout: the earlier one's replacement still starting leaves; one started serves as stale and is replaced", () => {
  const { o, ep } = setup(5); // surge 2
  roll(o, ep, 0);
  const [r1, r2] = replacements(ep);
  r2.createdAt = 500;
  r2.readyAt = 1_500;
  roll(o, ep, 1_000); // r1 ready: it retires a stale worker
  expect(r1.replacing).toBeUndefined();
  ep.version = 3;
  ep.image = "img:3";
  expect(roll(o, ep, 1_200)).toBe(true);
  expect(r2.drainingSince).toBe(1_200); // still starting: it leaves
  expect(r1.drainingSince).toBeNull(); // started: a stale worker of version 2 now
  const now = replacements(ep);
  expect(now).toHaveLength(2);
  for (const w of now) expect(w).toMatchObject({ version: 3, image: "img:3" });
});

test("a superseded replacement already serving stays, no longer a replacement, and counts among the stale", () => {
  const { o, ep } = setup(1);
  roll(o, ep, 0);
  const [r] = replacements(ep);
  ep.version = 3;
  // At 1000 it is ready, but of version 2: it stays as a kept stale worker.
  expect(roll(o, ep, 1_000)).toBe(true);
  expect(r.drainingSince).toBeNull();
  expect(r.replacing).toBeUndefined();
  // Two kept stale workers now (the first and r): surge max(1, ceil(2/4)) = 1.
  expect(replacements(ep)).toHaveLength(1);
  expect(replacements(ep)[0].version).toBe(3);
});

test("jobs: a stale worker takes one only while no worker of the latest version is ready", () => {
  const { o, ep } = setup(1);
  const [stale] = ep.workers;
  roll(o, ep, 2_000);
  const [r] = replacements(ep);
  expect(latestReady(o, ep, 2_999)).toBe(false);
  expect(takesJobs(o, ep, stale, 2_999, latestReady(o, ep, 2_999))).toBe(true);
  expect(takesJobs(o, ep, r, 2_999, false)).toBe(false); // still starting
  expect(latestReady(o, ep, 3_000)).toBe(true);
  expect(takesJobs(o, ep, stale, 3_000, true)).toBe(false);
  expect(takesJobs(o, ep, r, 3_000, true)).toBe(true);
  // A latest worker that cannot start is not ready.
  r.cannotStart = true;
  expect(latestReady(o, ep, 3_000)).toBe(false);
  expect(takesJobs(o, ep, r, 3_000, false)).toBe(false);
});

test("no job goes to a worker that holds one, is retiring, or has drained", () => {
  const { o, ep, store } = setup(3, 1);
  const [holding, retiring, drained] = ep.workers;
  holding.jobId = "j";
  retiring.retiring = true;
  store.drainWorker(ep, drained, 1_000);
  expect(takesJobs(o, ep, holding, 2_000, false)).toBe(false);
  expect(takesJobs(o, ep, retiring, 2_000, false)).toBe(false);
  expect(latestReady(o, ep, 2_000)).toBe(true);
  ep.workers = [drained];
  expect(latestReady(o, ep, 2_000)).toBe(false);
});

test("of two stale workers alike, the one made first retires first, wherever it stands in the list", () => {
  const { o, ep, store } = setup(0);
  ep.version = 1;
  const newer = store.addWorker(ep, 10);
  const older = store.addWorker(ep, 0);
  ep.version = 2;
  roll(o, ep, 2_000);
  roll(o, ep, 3_000);
  expect(older.drainingSince).toBe(3_000);
  expect(newer.drainingSince).toBeNull();
});

test("a replacement whose stale worker left meanwhile (an idle timeout) retires no one and starts no other", () => {
  const { o, ep, store } = setup(1);
  const [stale] = ep.workers;
  roll(o, ep, 0);
  const [r] = replacements(ep);
  store.drainWorker(ep, stale, 500);
  // Ready at 1000: it becomes a kept worker, nothing else changes, and the change is reported.
  expect(roll(o, ep, 1_000)).toBe(true);
  expect(r.replacing).toBeUndefined();
  expect(live(ep)).toEqual([r]);
  expect(roll(o, ep, 2_000)).toBe(false);
});

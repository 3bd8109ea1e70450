// An endpoint's queue record driven directly: the jobs not ended counted once each with their
// bytes and webhooks (what the queue's limits read), the retention pass (a finished job kept
// its time, then dropped; at the cap the oldest finished first, never one not ended), a job's
// answer with its delay and execution times in emulated ms, and the health counts by state.
import { addActive, answerOf, healthOf, newQueue, prune, removeActive } from "../../../../../src/emulator/serverless/jobs/active";
import { type Job, MAX_JOBS_PER_ENDPOINT } from "../../../../../src/emulator/serverless/jobs/job";

let seq = 0;
function job(more: Partial<Job> = {}): Job {
  seq += 1;
  return { id: `j${seq}`, endpointId: "ep", input: {}, policy: {}, seq, submittedAt: 0, ttlEnd: 1e9, status: "IN_QUEUE", chunkTimes: [], streamRead: 0, bytes: 10, ...more };
}

test("a new queue is empty, its replay at the time given", () => {
  const q = newQueue(1_234);
  expect(q).toMatchObject({ activeBytes: 0, webhooks: 0, lastTick: 1_234, counters: { completed: 0, failed: 0, retried: 0 } });
  expect([q.jobs.size, q.active.size, q.running.size, q.waiting.size]).toEqual([0, 0, 0, 0]);
});

test("a job not ended counts once, its bytes and its webhook with it; ending it gives them back once", () => {
  const q = newQueue(0);
  const a = job({ bytes: 7, webhook: "http://127.0.0.1/h" });
  const b = job({ bytes: 5 });
  addActive(q, a);
  addActive(q, a);
  addActive(q, b);
  expect([q.active.size, q.activeBytes, q.webhooks]).toEqual([2, 12, 1]);
  removeActive(q, a);
  removeActive(q, a);
  expect([q.active.size, q.activeBytes, q.webhooks]).toEqual([1, 5, 0]);
  removeActive(q, b);
  expect([q.active.size, q.activeBytes, q.webhooks]).toEqual([0, 0, 0]);
});

test("a finished job is kept its retention time, to the millisecond, and a job not ended is never dropped", () => {
  const q = newQueue(0);
  const done = job({ status: "COMPLETED", finishedAt: 1_000 });
  const queued = job();
  q.jobs.set(done.id, done);
  q.jobs.set(queued.id, queued);
  prune(q, 1_999, 1_000);
  expect([...q.jobs.keys()]).toEqual([done.id, queued.id]);
  prune(q, 2_000, 1_000);
  expect([...q.jobs.keys()]).toEqual([queued.id]);
  prune(q, 1e12, 1_000);
  expect([...q.jobs.keys()]).toEqual([queued.id]);
});

test("at the cap, the oldest finished jobs go until one place is free; the jobs not ended stay", () => {
  const q = newQueue(0);
  const open = job();
  q.jobs.set(open.id, open);
  const finished: Job[] = [];
  for (let i = 0; i < MAX_JOBS_PER_ENDPOINT + 1; i++) {
    const j = job({ status: "COMPLETED", finishedAt: 5_000 });
    finished.push(j);
    q.jobs.set(j.id, j);
  }
  prune(q, 5_000, 60_000);
  expect(q.jobs.size).toBe(MAX_JOBS_PER_ENDPOINT - 1);
  expect(q.jobs.has(open.id)).toBe(true);
  // 10002 held: the first three finished (in the order they were made) go.
  expect(finished.slice(0, 4).map((j) => q.jobs.has(j.id))).toEqual([false, false, false, true]);
  // Below the cap nothing more goes.
  prune(q, 5_000, 60_000);
  expect(q.jobs.size).toBe(MAX_JOBS_PER_ENDPOINT - 1);
});

test("a job's answer: queued has no times; started has its delay and its execution so far; the times in emulated ms", () => {
  // No worker yet: the answer has no workerId field at all.
  expect(answerOf(job({ id: "q" }), 5_000, 1)).toStrictEqual({ id: "q", status: "IN_QUEUE" });
  const running = job({ id: "r", status: "IN_PROGRESS", submittedAt: 1_000, startedAt: 1_500, workerId: "w1" });
  expect(answerOf(running, 2_000, 1)).toEqual({ id: "r", status: "IN_PROGRESS", workerId: "w1", delayTime: 500, executionTime: 500 });
  expect(answerOf(running, 2_000, 10)).toEqual({ id: "r", status: "IN_PROGRESS", workerId: "w1", delayTime: 5_000, executionTime: 5_000 });
  // Rounded to whole ms.
  expect(answerOf(running, 1_500.6, 1).executionTime).toBe(1);
  const done = { ...running, status: "COMPLETED" as const, finishedAt: 1_800, outcome: { output: { ok: 1 } } };
  expect(answerOf(done, 9_999, 1)).toEqual({ id: "r", status: "COMPLETED", workerId: "w1", delayTime: 500, executionTime: 300, output: { ok: 1 } });
  const failed = { ...done, status: "FAILED" as const, outcome: { error: "boom" } };
  expect(answerOf(failed, 9_999, 1)).toEqual({ id: "r", status: "FAILED", workerId: "w1", delayTime: 500, executionTime: 300, error: "boom" });
});

test("a job that ended without starting (cancelled, or its ttl in the queue) has its delay only", () => {
  const j = job({ id: "c", status: "TIMED_OUT", submittedAt: 1_000, finishedAt: 4_000 });
  expect(answerOf(j, 9_000, 2)).toEqual({ id: "c", status: "TIMED_OUT", delayTime: 6_000 });
});

test("health: jobs not ended by status, the counters, and the workers by state (ready = idle + running)", () => {
  const q = newQueue(0);
  for (const status of ["IN_QUEUE", "IN_QUEUE", "IN_PROGRESS"] as const) addActive(q, job({ status }));
  q.counters = { completed: 4, failed: 2, retried: 1 };
  const workers = (["IDLE", "IDLE", "RUNNING", "INITIALIZING", "UNHEALTHY", "UNHEALTHY"] as const).map((state) => ({ state }));
  expect(healthOf(q, workers)).toEqual({
    jobs: { completed: 4, failed: 2, inProgress: 1, inQueue: 2, retried: 1 },
    workers: { idle: 2, initializing: 1, ready: 3, running: 1, throttled: 0, unhealthy: 2 },
  });
});

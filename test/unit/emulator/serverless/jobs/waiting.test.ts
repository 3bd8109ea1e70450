// An endpoint's IN_QUEUE jobs driven directly: the next a free worker takes (low-priority jobs
// after the rest, oldest first), the first ttl to pass and the oldest submission, each kept right
// as jobs start, end, are purged or queued again, and the stale entries compacted away without
// losing a live one. The queue's HTTP tests see only the order jobs end in; these see each heap.
import { type QueuedJob, WaitingJobs } from "../../../../../src/emulator/serverless/jobs/waiting";

type J = QueuedJob & { id: string };

let seq = 0;
function job(submittedAt: number, ttlEnd: number, lowPriority = false): J {
  seq += 1;
  return { id: `j${seq}`, seq, submittedAt, ttlEnd, status: "IN_QUEUE", policy: { lowPriority } };
}

/** A queue of two jobs, a before b in every order. */
function two() {
  const w = new WaitingJobs<J>();
  const a = job(0, 100);
  const b = job(1, 200);
  w.add(a);
  w.add(b);
  return { w, a, b };
}

const ids = (w: WaitingJobs<J>) => [w.next()?.id, w.firstTtl()?.id, w.oldest()?.id];

test("empty: nothing next, no ttl, no oldest, size 0", () => {
  const w = new WaitingJobs<J>();
  expect(ids(w)).toEqual([undefined, undefined, undefined]);
  expect(w.size).toBe(0);
});

test("a worker takes the oldest job first, every low-priority job after the rest", () => {
  const w = new WaitingJobs<J>();
  const low1 = job(0, 100, true);
  const a = job(10, 900);
  const low2 = job(5, 50, true);
  const b = job(20, 800);
  for (const j of [low1, a, low2, b]) w.add(j);
  expect(w.size).toBe(4);
  const order: string[] = [];
  for (let i = 0; i < 4; i++) {
    const n = w.next()!;
    order.push(n.id);
    n.status = "IN_PROGRESS";
    w.remove(n);
  }
  expect(order).toEqual([a.id, b.id, low1.id, low2.id]);
  expect(w.size).toBe(0);
  expect(w.next()).toBeUndefined();
});

test("the first ttl and the oldest submission are each their own order, priority aside", () => {
  const w = new WaitingJobs<J>();
  const a = job(30, 500);
  const b = job(10, 700, true);
  const c = job(20, 300);
  for (const j of [a, b, c]) w.add(j);
  expect(ids(w)).toEqual([a.id, c.id, b.id]);
  c.status = "TIMED_OUT";
  w.remove(c);
  expect(ids(w)).toEqual([a.id, a.id, b.id]);
});

test("a job no longer IN_QUEUE is passed over even before remove is called", () => {
  const { w, a, b } = two();
  a.status = "CANCELLED";
  expect(ids(w)).toEqual([b.id, b.id, b.id]);
});

test("a job queued again (retried) counts once, in its new place; its old entries are stale", () => {
  const { w, a, b } = two();
  w.remove(a);
  expect(w.size).toBe(1);
  a.status = "IN_QUEUE";
  a.submittedAt = 50;
  a.ttlEnd = 1_000;
  w.add(a);
  expect(w.size).toBe(2);
  // Its seq is unchanged, so it is still next; its ttl and submission moved.
  expect(ids(w)).toEqual([a.id, b.id, b.id]);
  // Removing twice counts once.
  w.remove(b);
  w.remove(b);
  expect(w.size).toBe(1);
  expect(ids(w)).toEqual([a.id, a.id, a.id]);
});

test("many jobs come and go: stale entries are compacted and every live job is still found, in order", () => {
  const w = new WaitingJobs<J>();
  const live: J[] = [];
  for (let i = 0; i < 1_000; i++) {
    const j = job(i, 10_000 - i);
    w.add(j);
    if (i % 10 === 0) live.push(j);
    else {
      j.status = "IN_PROGRESS";
      w.remove(j);
    }
  }
  expect(w.size).toBe(100);
  expect(w.firstTtl()?.id).toBe(live[99].id);
  expect(w.oldest()?.id).toBe(live[0].id);
  const order: string[] = [];
  for (let n = w.next(); n; n = w.next()) {
    order.push(n.id);
    n.status = "IN_PROGRESS";
    w.remove(n);
  }
  expect(order).toEqual(live.map((j) => j.id));
});

test("jobs queued in any order come off each heap in order: ttls passing first, the oldest, the next to take", () => {
  const w = new WaitingJobs<J>();
  // 101 is prime, so i * 37 % 101 visits every number below 101 once, out of order.
  const jobs = Array.from({ length: 101 }, (_, i) => job((i * 37) % 101, (i * 53) % 101));
  for (const j of jobs) w.add(j);
  const drain = (first: () => J | undefined) => {
    const out: J[] = [];
    for (let j = first(); j; j = first()) {
      out.push(j);
      j.status = "IN_PROGRESS";
      w.remove(j);
    }
    for (const j of out) {
      j.status = "IN_QUEUE";
      w.add(j);
    }
    return out;
  };
  expect(drain(() => w.firstTtl()).map((j) => j.ttlEnd)).toEqual(Array.from({ length: 101 }, (_, i) => i));
  expect(drain(() => w.oldest()).map((j) => j.submittedAt)).toEqual(Array.from({ length: 101 }, (_, i) => i));
  expect(drain(() => w.next()).map((j) => j.seq)).toEqual(jobs.map((j) => j.seq).sort((a, b) => a - b));
});

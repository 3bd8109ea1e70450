// Calls held open on jobs driven directly: the account's bound (`heldCalls`, 503 with
// Retry-After past it), a hosted model's calls counted against the same bound and ended once,
// each call woken by its job's end or purge, by its deadline on the emulator's clock or in real
// time, and the delay until the first deadline. No timers and no sleeps: the times are given.
import { HeldCalls } from "../../../../../src/emulator/serverless/jobs/held";
import type { Job } from "../../../../../src/emulator/serverless/jobs/job";

const job = (id: string, endpointId = "ep"): Job => ({ id, endpointId } as Job);

/** Holds a call and records how it ended (`gone`, or not yet). */
function hold(h: HeldCalls, j: Job, waitEnd: number, until: number) {
  const seen: { gone?: boolean } = {};
  void h.hold(j, waitEnd, until).then((gone) => (seen.gone = gone));
  return seen;
}

const settle = () => new Promise((r) => setImmediate(r));

test("past the limit: canHold says no, and the answer is 503 with Retry-After 1", () => {
  const h = new HeldCalls(2);
  hold(h, job("a"), 10, 10);
  expect(h.canHold()).toBe(true);
  hold(h, job("a"), 10, 10);
  expect(h.canHold()).toBe(false);
  expect(h.tooMany()).toEqual({
    status: 503,
    body: { title: "Service Unavailable", status: 503, detail: "2 calls are held open on jobs already, the emulator's limit: retry, or submit with run and read status" },
    headers: { "content-type": "application/problem+json", "retry-after": "1" },
  });
});

test("a hosted model's held call counts against the same limit, and ending it twice gives back one", () => {
  const h = new HeldCalls(2);
  const end = h.holdOther()!;
  expect(h.holdOther()).toBeDefined();
  expect(h.holdOther()).toBeUndefined();
  expect(h.canHold()).toBe(false);
  end();
  expect(h.canHold()).toBe(true);
  end();
  expect(h.holdOther()).toBeDefined();
  expect(h.holdOther()).toBeUndefined();
});

test("a job's end wakes every call held on it, and only those; the room comes back", async () => {
  const h = new HeldCalls(3);
  const a = job("a");
  const x = hold(h, a, 100, 100);
  const y = hold(h, a, 100, 100);
  const z = hold(h, job("b"), 100, 100);
  expect(h.canHold()).toBe(false);
  h.release(a, false);
  await settle();
  expect([x.gone, y.gone, z.gone]).toEqual([false, false, undefined]);
  expect(h.canHold()).toBe(true);
  // Released again, nothing happens.
  h.release(a, true);
  await settle();
  expect(x.gone).toBe(false);
});

test("a deleted endpoint's calls end as gone, the others stay held", async () => {
  const h = new HeldCalls(10);
  const x = hold(h, job("a", "ep1"), 100, 100);
  const y = hold(h, job("b", "ep2"), 100, 100);
  expect([...h.endpoints()].sort()).toEqual(["ep1", "ep2"]);
  h.releaseEndpoint("ep1");
  await settle();
  expect([x.gone, y.gone]).toEqual([true, undefined]);
  expect([...h.endpoints()]).toEqual(["ep2"]);
});

test("a call ends at its deadline on the emulator's clock or in real time, whichever comes first", async () => {
  const h = new HeldCalls(10);
  const a = job("a");
  const byClock = hold(h, a, 100, 1_000);
  const byReal = hold(h, a, 1_000, 100);
  const later = hold(h, a, 1_000, 1_000);
  h.releaseDue(99, 99);
  await settle();
  expect([byClock.gone, byReal.gone, later.gone]).toEqual([undefined, undefined, undefined]);
  h.releaseDue(100, 50);
  await settle();
  expect([byClock.gone, byReal.gone, later.gone]).toEqual([false, undefined, undefined]);
  h.releaseDue(50, 100);
  await settle();
  expect([byReal.gone, later.gone]).toEqual([false, undefined]);
  h.releaseAll();
  await settle();
  expect(later.gone).toBe(false);
  expect(h.endpoints().size).toBe(0);
});

test("the delay until the first deadline: the nearest on either clock, plus 1, never negative, capped", () => {
  const h = new HeldCalls(10);
  expect(h.untilFirstDeadline(0, 0, 500)).toBe(500);
  hold(h, job("a"), 300, 1_000);
  hold(h, job("b"), 1_000, 200);
  expect(h.untilFirstDeadline(0, 0, 500)).toBe(201);
  expect(h.untilFirstDeadline(0, 150, 500)).toBe(51);
  expect(h.untilFirstDeadline(150, 0, 500)).toBe(151);
  expect(h.untilFirstDeadline(0, 400, 500)).toBe(1); // overdue: at once
  expect(h.untilFirstDeadline(0, 0, 100)).toBe(100);
  // A call held elsewhere has no deadline here.
  const other = new HeldCalls(10);
  other.holdOther();
  expect(other.untilFirstDeadline(0, 0, 500)).toBe(500);
});

// Status reads yield to work (issue 37): a request that only looks (`yields`, a poller's list)
// goes after the requests of its key that wait for the budget and after their answers, so a
// binding quota is spent on changes first and the read's one answer sees them; where nothing
// waits, it goes at once. Step by step with explicit times, as pacing.test.ts.
import { Pacer, type PacingDecision, PacingRegistry, type PacingTicket, PATIENCE_MS } from "../../../../src/client/core/pacing";
import { ManualClock } from "../../../helpers/manual-clock";

// A wait that never ends (a broken pacer) fails in seconds, not after the suite's limit.
jest.setTimeout(5000);

const KEY = "k";
const headers = (r: number, t: number, q = 60, w = 60) => ({
  ratelimit: `"minute";r=${r};t=${t}`,
  "ratelimit-policy": `"minute";q=${q};w=${w}`,
});
const go = (d: PacingDecision): PacingTicket => {
  if (!("go" in d)) throw new Error(`expected go, got ${JSON.stringify(d)}`);
  return d.go;
};

test("with nothing waiting for the budget, a status read goes at once", () => {
  const reg = new PacingRegistry();
  reg.settle(go(reg.reserve(KEY, 0)), headers(50, 60), 0);
  go(reg.reserve(KEY, 0, { yields: true }));
});

test("a status read waits while work waits for the budget, and while the work held back is out", () => {
  const reg = new PacingRegistry();
  reg.settle(go(reg.reserve(KEY, 0)), headers(2, 60), 0);
  // The window is spent (two kept for a neighbour): a DELETE waits for the reset.
  expect(reg.reserve(KEY, 10)).toEqual({ waitMs: 59_990 });
  reg.waiting(KEY, 1);
  // At the reset the read is asked first, but the DELETE waits: the read waits behind it.
  expect(reg.reserve(KEY, 60_000, { yields: true })).toEqual({ waitForAnswer: true, maxWaitMs: PATIENCE_MS });
  const del = go(reg.reserve(KEY, 60_000, { waited: true }));
  reg.waiting(KEY, -1);
  // The DELETE is out: the read waits for its answer, so the list it sends sees the DELETE.
  expect(reg.reserve(KEY, 60_001, { yields: true })).toEqual({ waitForAnswer: true, maxWaitMs: PATIENCE_MS - 1 });
  reg.settle(del, headers(58, 60), 60_005);
  go(reg.reserve(KEY, 60_005, { yields: true }));
});

test("work that went without waiting does not hold a status read back", () => {
  const reg = new PacingRegistry();
  reg.settle(go(reg.reserve(KEY, 0)), headers(50, 60), 0);
  go(reg.reserve(KEY, 0));
  go(reg.reserve(KEY, 0, { yields: true }));
});

test("through the pacer: a list asked for before the DELETEs' turn goes after every one of them is answered", async () => {
  const reg = new PacingRegistry();
  const clock = new ManualClock();
  const pacer = new Pacer(reg, KEY, clock);
  // One request spent the window but for the two kept for a neighbour.
  pacer.settle(await pacer.acquire(undefined, 120_000), headers(2, 60));
  const order: string[] = [];
  const settled: Promise<void>[] = [];
  const send = (name: string, yields: boolean) =>
    pacer.acquire(undefined, 120_000, yields).then((ticket) => {
      order.push(name);
      return ticket;
    });
  // The poller's list is asked for first, the DELETEs after; all wait for the reset.
  await clock.advance(5000);
  const list = send("list", true);
  const deletes = ["d1", "d2", "d3"].map((d) => send(d, false));
  await clock.advance(6000);
  expect(order).toEqual([]);
  await clock.advance(60_000);
  // The new window's first request goes alone; its answer lets the others go.
  expect(order).toEqual(["d1"]);
  let r = 60;
  const answer = async (t: Promise<PacingTicket>) => {
    pacer.settle(await t, headers(--r, 60));
    for (let i = 0; i < 20; i++) await new Promise((x) => setImmediate(x));
  };
  settled.push(answer(deletes[0]));
  await settled[0];
  expect(order).toEqual(["d1", "d2", "d3"]);
  await answer(deletes[1]);
  expect(order).toEqual(["d1", "d2", "d3"]);
  await answer(deletes[2]);
  expect(order).toEqual(["d1", "d2", "d3", "list"]);
  pacer.settle(await list, headers(--r, 60));
});

test("a status read yields for one window at most: behind work that never stops waiting, it goes after the window's length", async () => {
  const reg = new PacingRegistry();
  const clock = new ManualClock();
  const pacer = new Pacer(reg, KEY, clock);
  // A window of 10 s with plenty left; some work waits for the budget all along (a long queue).
  pacer.settle(await pacer.acquire(undefined, 120_000), headers(50, 10, 60, 10));
  expect(reg.yieldLimitMs(KEY)).toBe(10_000);
  reg.waiting(KEY, 1);
  let went: number | undefined;
  const read = pacer.acquire(undefined, 120_000, true).then((t) => {
    went = clock.now();
    return t;
  });
  for (let t = 2000; t <= 8000; t += 2000) await clock.advance(t);
  expect(went).toBeUndefined();
  await clock.advance(10_000);
  expect(went).toBe(10_000);
  pacer.settle(await read, headers(49, 1, 60, 10));
  reg.waiting(KEY, -1);
});

test("with no window named yet, a status read yields for a minute at most", () => {
  expect(new PacingRegistry().yieldLimitMs(KEY)).toBe(60_000);
});

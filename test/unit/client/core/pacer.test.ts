// The pacer (pacing.ts): one key's requests wait here for what the registry grants, on an
// injected clock, so each wait is exact and takes no time. The registry's policy has its own
// tests (pacing.test.ts, pacing-yield.test.ts); these hold the waiting itself: on which key,
// how long and how often, against which answer, and how a wait ends when it is cancelled.
import type { Clock } from "../../../../src/client/core/clock";
import { Pacer, PacingRegistry, type PacingTicket, PATIENCE_MS } from "../../../../src/client/core/pacing";
import { Line } from "../../../../src/client/core/pacing-registry";
import { FakeClock } from "../../../helpers/fake-clock";
import { ManualClock } from "../../../helpers/manual-clock";

const KEY = "k";
const START = 1_000_000;
const headers = (r: number, t: number, q = 60) => ({ ratelimit: `"minute";r=${r};t=${t}`, "ratelimit-policy": `"minute";q=${q};w=60` });

// A wait that never ends (a broken pacer) fails in seconds, not after the suite's limit.
jest.setTimeout(5000);

/** A clock whose sleeps last until the test ends them, each recorded with its signal. */
class HeldClock implements Clock {
  t = START;
  readonly sleeps: { ms: number; signal?: AbortSignal; end: () => void }[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      this.sleeps.push({ ms, signal, end: resolve });
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }
}

/** Let every continuation that can run, run. */
const settleDown = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

function fake() {
  const clock = new FakeClock(START);
  const registry = new PacingRegistry();
  return { clock, registry, pacer: new Pacer(registry, KEY, clock) };
}

function held() {
  const clock = new HeldClock();
  const registry = new PacingRegistry();
  return { clock, registry, pacer: new Pacer(registry, KEY, clock) };
}

describe("a hold", () => {
  test("hold counts from the clock's now, pendingMs is what is left of it, and only the pacer's own key is held", () => {
    const { clock, registry, pacer } = fake();
    expect(pacer.pendingMs()).toBe(0);
    pacer.hold(5000);
    expect(pacer.pendingMs()).toBe(5000);
    expect(registry.waitMs(KEY, START)).toBe(5000);
    clock.current += 2000;
    expect(pacer.pendingMs()).toBe(3000);
    expect(new Pacer(registry, "another key", clock).pendingMs()).toBe(0);
  });

  test("wait returns at once when nothing holds the key, and waits out a hold in sleeps of at most maxWaitMs", async () => {
    const { clock, pacer } = fake();
    await pacer.wait(undefined, 2000);
    expect(clock.sleeps).toEqual([]);
    pacer.hold(5000);
    await pacer.wait(undefined, 2000);
    expect(clock.sleeps).toEqual([2000, 2000, 1000]);
    expect(pacer.pendingMs()).toBe(0);
  });

  test("wait is bounded: eight sleeps at most, however long the hold", async () => {
    const { clock, pacer } = fake();
    pacer.hold(100_000);
    await pacer.wait(undefined, 1000);
    expect(clock.sleeps).toEqual(Array(8).fill(1000));
    expect(pacer.pendingMs()).toBe(92_000);
  });

  test("a wait is cancelled by its signal, with the signal's reason", async () => {
    const { pacer } = fake();
    pacer.hold(5000);
    const ac = new AbortController();
    ac.abort(new Error("cancelled by the caller"));
    await expect(pacer.wait(ac.signal, 1000)).rejects.toThrow("cancelled by the caller");
  });
});

describe("acquire", () => {
  test("goes at once when the budget lets it, with a ticket of the pacer's key sent at the clock's now", async () => {
    const { clock, pacer } = fake();
    expect(await pacer.acquire(undefined, 1000)).toEqual({ keyId: KEY, sentAt: START, seq: 1 });
    expect(clock.sleeps).toEqual([]);
  });

  test("waits out a hold in sleeps of at most maxWaitMs, then goes", async () => {
    const { clock, pacer } = fake();
    pacer.hold(3000);
    const ticket = await pacer.acquire(undefined, 1000);
    expect(clock.sleeps).toEqual([1000, 1000, 1000]);
    expect(ticket.sentAt).toBe(START + 3000);
  });

  test("settle hands the answer over at the clock's now: a spent window's reset counts from the answer", async () => {
    const { clock, pacer } = fake();
    const ticket = await pacer.acquire(undefined, 1000);
    clock.current += 5000;
    // A quota of one, spent: the next request waits for the reset, a minute after the answer.
    pacer.settle(ticket, headers(0, 60, 1));
    expect(pacer.pendingMs()).toBe(60_000);
  });

  test("a request behind one out waits for that answer, goes when it comes, and cancels the timer it raced", async () => {
    const { clock, pacer } = held();
    const probe = await pacer.acquire(undefined, 60_000);
    let next: PacingTicket | undefined;
    const behind = pacer.acquire(undefined, 60_000).then((t) => (next = t));
    await settleDown();
    expect(next).toBeUndefined();
    expect(clock.sleeps.map((s) => s.ms)).toEqual([PATIENCE_MS]);
    pacer.settle(probe, headers(50, 60));
    await behind;
    expect(next).toMatchObject({ keyId: KEY, seq: 2 });
    expect(clock.sleeps[0].signal?.aborted).toBe(true);
  });

  test("a request behind one out that never answers goes when the patience ends", async () => {
    const { clock, pacer } = held();
    await pacer.acquire(undefined, 60_000);
    let next: PacingTicket | undefined;
    const behind = pacer.acquire(undefined, 60_000).then((t) => (next = t));
    await settleDown();
    clock.t += PATIENCE_MS;
    clock.sleeps[0].end();
    await behind;
    expect(next).toMatchObject({ seq: 2, sentAt: START + PATIENCE_MS });
  });

  test("an acquire cancelled before it waits for an answer rejects with the signal's reason, and sends nothing", async () => {
    const { pacer } = held();
    const probe = await pacer.acquire(undefined, 60_000);
    const ac = new AbortController();
    ac.abort(new Error("cancelled by the caller"));
    await expect(pacer.acquire(ac.signal, 60_000)).rejects.toThrow("cancelled by the caller");
    pacer.settle(probe, headers(50, 60));
    // The cancelled request took no ticket: the next one is the second.
    expect(await pacer.acquire(undefined, 60_000)).toMatchObject({ seq: 2 });
  });

  test("an acquire cancelled while it waits for an answer rejects with the signal's reason, and no longer counts as work waiting", async () => {
    const { clock, registry, pacer } = held();
    const probe = await pacer.acquire(undefined, 60_000);
    const ac = new AbortController();
    const cancelled = pacer.acquire(ac.signal, 60_000);
    await settleDown();
    ac.abort(new Error("cancelled by the caller"));
    await expect(cancelled).rejects.toThrow("cancelled by the caller");
    pacer.settle(probe, headers(50, 60));
    // No work waits any more: a status read goes at once.
    expect(registry.reserve(KEY, clock.t, { yields: true })).toHaveProperty("go");
  });

  test("work that waited counts as waiting once, however many sleeps it took, and not after it went", async () => {
    const { clock, registry, pacer } = fake();
    pacer.settle(await pacer.acquire(undefined, 1000), headers(50, 60));
    pacer.hold(3000);
    pacer.settle(await pacer.acquire(undefined, 1000), headers(49, 60));
    expect(clock.sleeps).toEqual([1000, 1000, 1000]);
    // It went and was answered: nothing holds a status read back.
    expect(registry.reserve(KEY, clock.now(), { yields: true })).toHaveProperty("go");
  });

  test("a status read that waited out a hold does not count as work waiting: the next status read goes at once", async () => {
    const { clock, registry, pacer } = fake();
    pacer.settle(await pacer.acquire(undefined, 1000), headers(50, 60));
    pacer.hold(2000);
    pacer.settle(await pacer.acquire(undefined, 1000, true), headers(49, 60));
    expect(clock.sleeps).toEqual([1000, 1000]);
    expect(registry.reserve(KEY, clock.now(), { yields: true })).toHaveProperty("go");
  });

  test("a status read leaves the count of work waiting as it found it: work still waiting keeps the next status read behind it", async () => {
    const { clock, registry, pacer } = fake();
    pacer.settle(await pacer.acquire(undefined, 1000), headers(50, 60));
    registry.waiting(KEY, 1);
    // Behind the work, the read yields for the window (a minute), then goes.
    const read = await pacer.acquire(undefined, 120_000, true);
    expect(read.sentAt).toBe(START + 60_000);
    pacer.settle(read, headers(49, 60));
    expect(registry.reserve(KEY, clock.now(), { yields: true })).toEqual({ waitForAnswer: true, maxWaitMs: PATIENCE_MS });
  });

  test("a finished wait leaves no listener on the caller's signal (one signal may serve many requests)", async () => {
    const { pacer } = held();
    const ac = new AbortController();
    const added = jest.spyOn(ac.signal, "addEventListener");
    const removed = jest.spyOn(ac.signal, "removeEventListener");
    const probe = await pacer.acquire(ac.signal, 60_000);
    const behind = pacer.acquire(ac.signal, 60_000);
    await settleDown();
    pacer.settle(probe, headers(50, 60));
    await behind;
    expect(added).toHaveBeenCalledTimes(1);
    expect(removed.mock.calls).toEqual(added.mock.calls.map(([type, listener]) => [type, listener]));
  });

  test("a request that goes at once holds no status read back: only work the budget held back does", async () => {
    const { registry, pacer } = held();
    pacer.settle(await pacer.acquire(undefined, 60_000), headers(50, 60));
    await pacer.acquire(undefined, 60_000);
    expect(registry.reserve(KEY, START, { yields: true })).toHaveProperty("go");
  });

  test("a request asked for without saying is work: while it waits, status reads wait behind it", async () => {
    const { clock, registry, pacer } = held();
    pacer.hold(3000);
    const work = pacer.acquire(undefined, 60_000);
    await settleDown();
    clock.t += 3000;
    expect(registry.reserve(KEY, clock.t, { yields: true })).toEqual({ waitForAnswer: true, maxWaitMs: PATIENCE_MS });
    clock.sleeps[0].end();
    expect(await work).toMatchObject({ seq: 1, sentAt: START + 3000 });
  });

  test("work woken by an answer asks again at once, ahead of a request started after it", async () => {
    const { pacer } = held();
    const probe = await pacer.acquire(undefined, 60_000);
    const behind = pacer.acquire(undefined, 60_000);
    await settleDown();
    pacer.settle(probe, headers(50, 60));
    await new Promise((r) => setImmediate(r));
    const later = await pacer.acquire(undefined, 60_000);
    expect([(await behind).seq, later.seq]).toEqual([2, 3]);
  });

  test("a status read woken by an answer looks again once the code awaiting that answer has run: what that code starts goes first", async () => {
    const { clock, pacer } = held();
    pacer.settle(await pacer.acquire(undefined, 60_000), headers(50, 60));
    // Work held back (by a hold) and out; a status read waits for its answer.
    pacer.hold(1000);
    const work = pacer.acquire(undefined, 60_000);
    await settleDown();
    clock.t += 1000;
    clock.sleeps[0].end();
    const first = await work;
    const read = pacer.acquire(undefined, 60_000, true);
    await settleDown();
    // The work's caller reads the answer (a few awaits), then starts its next request.
    const caller = (async () => {
      pacer.settle(first, headers(49, 60));
      for (let i = 0; i < 10; i++) await Promise.resolve();
      return pacer.acquire(undefined, 60_000);
    })();
    expect([(await caller).seq, (await read).seq]).toEqual([3, 4]);
  });

  test("gives up after 100,000 waits on a budget that never lets the request go, rather than waiting forever", async () => {
    let reserves = 0;
    const never = {
      yieldLimitMs: () => 60_000,
      reserve: () => {
        reserves++;
        return { waitMs: 1 };
      },
      waiting: () => undefined,
      line: () => new Line(),
    } as unknown as PacingRegistry;
    const instant: Clock = { now: () => 0, sleep: async () => undefined };
    await expect(new Pacer(never, KEY, instant).acquire(undefined, 1000)).rejects.toThrow("rate-limit pacing gave up after 100000 waits");
    expect(reserves).toBe(100_000);
  });
});

describe("the line: many requests waiting on one key", () => {
  /**
   * `n` requests asked for at once against a server of `quota` requests a minute (fixed windows,
   * each opened by the first request after a reset, as the emulator counts them), each answered
   * as soon as it goes. Returns the budget's `reserve` calls and the order the requests went in.
   */
  async function drain(n: number, quota: number): Promise<{ reserves: number; order: number[]; minutes: number }> {
    const clock = new ManualClock();
    const registry = new PacingRegistry();
    const pacer = new Pacer(registry, KEY, clock);
    const reserve = jest.spyOn(registry, "reserve");
    let count = 0;
    let resetAt = Number.NEGATIVE_INFINITY;
    let windows = 0;
    const answer = () => {
      if (clock.t >= resetAt) {
        count = 0;
        resetAt = clock.t + 60_000;
        windows++;
      }
      count++;
      return headers(Math.max(0, quota - count), Math.max(1, Math.ceil((resetAt - clock.t) / 1000)), quota);
    };
    const order: number[] = [];
    const out: PacingTicket[] = [];
    const all = Array.from({ length: n }, (_, i) =>
      pacer.acquire(undefined, 120_000).then((ticket) => {
        order.push(i);
        out.push(ticket);
      }),
    );
    for (let step = 0; order.length < n && step < 100 * n; step++) {
      await settleDown();
      if (out.length > 0) for (const ticket of out.splice(0)) pacer.settle(ticket, answer());
      else await clock.advance(clock.next());
    }
    await Promise.all(all);
    for (const ticket of out) pacer.settle(ticket, answer());
    return { reserves: reserve.mock.calls.length, order, minutes: windows };
  }

  test("the first in line asks the budget for all of them: a few asks per request, however many wait (not one per waiter at each answer)", async () => {
    const few = await drain(20, 10);
    const many = await drain(200, 10);
    // Every request went, at the quota's pace less the two a window keeps for a neighbour.
    expect(many.minutes).toBe(Math.ceil(200 / 8));
    expect(few.reserves / 20).toBeLessThan(3);
    expect(many.reserves / 200).toBeLessThan(3);
  });

  test("requests go in the order they asked for the budget", async () => {
    const { order } = await drain(50, 10);
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  test("work waiting in line counts as work waiting, once, from when it joins until it goes; a status read in line does not", async () => {
    const { clock, registry, pacer } = held();
    const waiting = jest.spyOn(registry, "waiting");
    pacer.hold(1000);
    const first = pacer.acquire(undefined, 60_000);
    const behind = pacer.acquire(undefined, 60_000);
    await settleDown();
    // The first waits out the hold; the one behind it waits too, and so status reads wait behind both.
    expect(waiting.mock.calls).toEqual([
      [KEY, 1],
      [KEY, 1],
    ]);
    // Status reads in line are no work waiting.
    const reads = [pacer.acquire(undefined, 60_000, true), pacer.acquire(undefined, 60_000, true)];
    await settleDown();
    expect(waiting).toHaveBeenCalledTimes(2);
    clock.t += 1000;
    // The hold is over for the first request and for the first status read.
    for (const sleep of clock.sleeps) sleep.end();
    // The first request learns the budget: the one behind goes on its answer.
    pacer.settle(await first, headers(50, 60));
    pacer.settle(await behind, headers(49, 60));
    expect(waiting.mock.calls.map(([, delta]) => delta).sort()).toEqual([-1, -1, 1, 1]);
    for (const read of reads) pacer.settle(await read, headers(48, 60));
    // Every wait counted is over: nothing holds a status read back.
    expect(registry.reserve(KEY, clock.t, { yields: true })).toHaveProperty("go");
  });

  test("a status read yielding to work holds back no work asked for after it: reads and work wait in lines of their own", async () => {
    const { registry, pacer } = held();
    pacer.settle(await pacer.acquire(undefined, 60_000), headers(50, 60));
    // Work of another client waits for the budget: the read yields to it.
    registry.waiting(KEY, 1);
    let read: PacingTicket | undefined;
    const reading = pacer.acquire(undefined, 60_000, true).then((t) => (read = t));
    await settleDown();
    expect(read).toBeUndefined();
    expect(await pacer.acquire(undefined, 60_000)).toMatchObject({ seq: 2 });
    registry.waiting(KEY, -1);
    expect(await reading).toMatchObject({ seq: 3 });
  });

  test("a request whose signal is already aborted rejects at once, behind others too, and leaves the line", async () => {
    const { clock, pacer } = held();
    pacer.hold(1000);
    const first = pacer.acquire(undefined, 60_000);
    const ac = new AbortController();
    ac.abort(new Error("cancelled by the caller"));
    let outcome: unknown;
    pacer.acquire(ac.signal, 60_000).catch((e: unknown) => (outcome = e));
    const last = pacer.acquire(undefined, 60_000);
    await settleDown();
    // Rejected while the first still waits out the hold.
    expect(outcome).toEqual(new Error("cancelled by the caller"));
    clock.t += 1000;
    clock.sleeps[0].end();
    const ticket = await first;
    pacer.settle(ticket, headers(50, 60));
    expect([ticket.seq, (await last).seq]).toEqual([1, 2]);
  });

  test("a request that waited in line with a signal leaves no listener on it", async () => {
    const { clock, pacer } = held();
    const ac = new AbortController();
    const added = jest.spyOn(ac.signal, "addEventListener");
    const removed = jest.spyOn(ac.signal, "removeEventListener");
    pacer.hold(1000);
    const first = pacer.acquire(undefined, 60_000);
    const behind = pacer.acquire(ac.signal, 60_000);
    await settleDown();
    clock.t += 1000;
    clock.sleeps[0].end();
    pacer.settle(await first, headers(50, 60));
    await behind;
    expect(added).toHaveBeenCalled();
    expect(removed.mock.calls).toEqual(added.mock.calls.map(([type, listener]) => [type, listener]));
  });

  test("a request cancelled in the line leaves it: the ones behind it go, and it takes no ticket", async () => {
    const { clock, pacer } = held();
    const probe = await pacer.acquire(undefined, 60_000);
    const ac = new AbortController();
    const first = pacer.acquire(undefined, 60_000);
    const cancelled = pacer.acquire(ac.signal, 60_000);
    const last = pacer.acquire(undefined, 60_000);
    await settleDown();
    // Only the first in line waits for the probe's answer (its patience on the clock).
    expect(clock.sleeps.map((s) => s.ms)).toEqual([PATIENCE_MS]);
    ac.abort(new Error("cancelled by the caller"));
    await expect(cancelled).rejects.toThrow("cancelled by the caller");
    pacer.settle(probe, headers(50, 60));
    expect([(await first).seq, (await last).seq]).toEqual([2, 3]);
  });
});

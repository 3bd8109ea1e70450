// The registry's policy (pacing-registry.ts) one rule at a time, with explicit times: what a
// hold is, which answers count against which window, what a lost answer spends, when a count
// is old news, which policy a window takes, what a window's reset keeps. pacing.test.ts holds
// the budget's course through bursts and simulates processes sharing a key; pacing-yield.test.ts
// holds the status reads; pacer.test.ts the waiting on a clock.
import { type PacingDecision, PacingRegistry, type PacingTicket, PATIENCE_MS, STALE_MS } from "../../../../src/client/core/pacing";

const KEY = "k";
const answer = (ratelimit: string, policy?: string) => ({ ratelimit, ...(policy === undefined ? {} : { "ratelimit-policy": policy }) });
const go = (d: PacingDecision): PacingTicket => {
  if (!("go" in d)) throw new Error(`expected go, got ${JSON.stringify(d)}`);
  return d.go;
};
/** How many requests the budget lets go at `now`, one after the other. */
function goesNow(reg: PacingRegistry, now: number): number {
  let n = 0;
  while ("go" in reg.reserve(KEY, now)) if (++n > 1000) throw new Error("the budget let more than 1000 requests go at once");
  return n;
}

test("clear forgets every hold and budget: the key starts again from nothing known", () => {
  const reg = new PacingRegistry();
  reg.holdUntil(KEY, 5000);
  reg.settle(go(reg.reserve(KEY, 5000)), answer(`"minute";r=50;t=60`), 5000);
  go(reg.reserve(KEY, 5000));
  reg.clear();
  expect(reg.waitMs(KEY, 0)).toBe(0);
  go(reg.reserve(KEY, 0));
  expect(reg.reserve(KEY, 0)).toEqual({ waitForAnswer: true, maxWaitMs: PATIENCE_MS });
});

describe("holds", () => {
  test("a key's id is the first 16 hex digits of its SHA-256: the registry never holds the key", () => {
    expect(PacingRegistry.keyId("sk-live-0123456789")).toBe("74978375b3a48712");
  });

  test("a hold makes the key wait until its time, the later of two holds wins, and a hold that has passed waits 0 ms", () => {
    const reg = new PacingRegistry();
    expect(reg.waitMs(KEY, 0)).toBe(0);
    reg.holdUntil(KEY, 5000);
    expect(reg.waitMs(KEY, 1000)).toBe(4000);
    reg.holdUntil(KEY, 3000);
    expect(reg.waitMs(KEY, 1000)).toBe(4000);
    reg.holdUntil(KEY, 8000);
    expect(reg.reserve(KEY, 1000)).toEqual({ waitMs: 7000 });
    expect(reg.waitMs(KEY, 9000)).toBe(0);
    expect(reg.waitMs("another key", 1000)).toBe(0);
  });
});

describe("what an answer tells", () => {
  test("a probe that got no answer says nothing of how the server counts: the next request goes alone too", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), undefined, 5);
    go(reg.reserve(KEY, 5));
    expect(reg.reserve(KEY, 5)).toEqual({ waitForAnswer: true, maxWaitMs: PATIENCE_MS });
  });

  test("a window an answer names without a count is not tracked: its reset makes no request ask first", () => {
    const reg = new PacingRegistry();
    const named = (r: number) => answer(`"burst";t=1, "minute";r=${r};t=60`, `"burst";q=10;w=1, "minute";q=60;w=60`);
    reg.settle(go(reg.reserve(KEY, 950)), named(50), 960);
    reg.settle(go(reg.reserve(KEY, 1900)), named(49), 1910);
    // At 1970 the minute's count is 70 ms old, and "burst", were it tracked, would have just reset.
    expect(goesNow(reg, 1970)).toBe(15);
  });

  test("an answer without counts to a key already counted (a path the server does not limit) leaves a spent window spent", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"minute";r=8;t=60`), 0);
    const [a, b] = [go(reg.reserve(KEY, 0)), go(reg.reserve(KEY, 0))];
    reg.settle(a, answer(`"minute";r=2;t=60`), 10);
    reg.settle(b, {}, 20);
    expect(reg.waitMs(KEY, 30)).toBe(59_970);
  });

  test("each window takes the policy of its own name, in whatever order the policy lists them", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"minute";r=50;t=60, "day";r=5000;t=86400`, `"day";q=10000;w=86400, "minute";q=60;w=60`), 0);
    expect(reg.yieldLimitMs(KEY)).toBe(60_000);
  });

  test("a status read yields for the shortest window whose length an answer named; a window of unknown length does not count", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"minute";r=50;t=60, "hour";r=500;t=3600`, `"hour";q=1000;w=3600`), 0);
    expect(reg.yieldLimitMs(KEY)).toBe(3_600_000);
  });

  test("a later answer without `t` keeps the reset an earlier answer named", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"minute";r=5;t=60`), 0);
    reg.settle(go(reg.reserve(KEY, 10)), answer(`"minute";r=2`), 20);
    expect(reg.waitMs(KEY, 30)).toBe(59_970);
  });

  test("a later answer's policy sets its window's length; a later answer without a policy keeps it", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"minute";r=50;t=60`), 0);
    reg.settle(go(reg.reserve(KEY, 10)), answer(`"minute";r=49;t=60`, `"minute";q=60;w=10`), 20);
    expect(reg.yieldLimitMs(KEY)).toBe(10_000);
    reg.settle(go(reg.reserve(KEY, 30)), answer(`"minute";r=48;t=60`), 40);
    expect(reg.yieldLimitMs(KEY)).toBe(10_000);
  });
});

describe("lost answers", () => {
  test("a request lost in a window counts against it as if answered: three lost spend a window that had five left", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"minute";r=5;t=60`), 0);
    // One may be out at a time (five left, two kept for a neighbour); each is lost.
    for (let i = 0; i < 3; i++) reg.settle(go(reg.reserve(KEY, 0)), undefined, 5);
    expect(reg.waitMs(KEY, 10)).toBe(59_990);
  });

  test("a request sent before a window's reset and lost after it does not count against the new window", () => {
    const reg = new PacingRegistry();
    const second = (r: number) => answer(`"second";r=${r};t=1`, `"second";q=5;w=1`);
    reg.settle(go(reg.reserve(KEY, 0)), second(4), 0);
    const before = go(reg.reserve(KEY, 900));
    reg.settle(go(reg.reserve(KEY, 1000)), second(3), 1010);
    reg.settle(before, undefined, 1020);
    // Three left of the new window, two kept for a neighbour: one may go.
    go(reg.reserve(KEY, 1020));
  });

  test("with no reset time named, a window is spent when what is left, less the lost, is down to the two kept: requests out are waited for, else a whole window from its start", () => {
    const two = new PacingRegistry();
    two.settle(go(two.reserve(KEY, 0)), answer(`"minute";r=2`), 10);
    expect(two.reserve(KEY, 20)).toEqual({ waitMs: 980 });
    const three = new PacingRegistry();
    three.settle(go(three.reserve(KEY, 0)), answer(`"minute";r=3`), 10);
    const out = go(three.reserve(KEY, 20));
    expect(three.reserve(KEY, 30)).toEqual({ waitForAnswer: true, maxWaitMs: PATIENCE_MS - 10 });
    three.settle(out, undefined, 40);
    expect(three.reserve(KEY, 50)).toEqual({ waitMs: 950 });
  });

  test("a spent window whose reset no answer named holds no wait of its own (a number, not NaN) until a request assumes a whole window", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"minute";r=0`), 100);
    expect(reg.waitMs(KEY, 200)).toBe(0);
    expect(reg.reserve(KEY, 200)).toEqual({ waitMs: 800 });
    expect(reg.waitMs(KEY, 300)).toBe(700);
  });
});

describe("old news", () => {
  test("a count is old news only when the request it answered went more than STALE_MS ago", () => {
    const fresh = new PacingRegistry();
    fresh.settle(go(fresh.reserve(KEY, 0)), answer(`"minute";r=50;t=60`), 10);
    expect(goesNow(fresh, STALE_MS)).toBe(16);
    const old = new PacingRegistry();
    old.settle(go(old.reserve(KEY, 0)), answer(`"minute";r=50;t=60`), 10);
    expect(goesNow(old, STALE_MS + 1)).toBe(1);
  });

  test("an old count matters only while 1000 or fewer are left, lost requests deducted: a day's quota is not asked about again", () => {
    const counted = (r: number) => {
      const reg = new PacingRegistry();
      reg.settle(go(reg.reserve(KEY, 0)), answer(`"day";r=${r};t=86400`), 0);
      return reg;
    };
    expect(goesNow(counted(1001), 10_000)).toBe(333);
    expect(goesNow(counted(1000), 10_000)).toBe(1);
    const lost = counted(1001);
    lost.settle(go(lost.reserve(KEY, 10)), undefined, 20);
    expect(goesNow(lost, 10_000)).toBe(1);
  });

  test("when two windows are old news, a request out since the older one's start asks for both: no other goes", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"second";r=9;t=1, "minute";r=99;t=60`, `"second";q=10;w=1, "minute";q=100;w=60`), 0);
    // It asks: both counts are old news by then; it is still out when the second resets.
    go(reg.reserve(KEY, 500));
    expect(reg.reserve(KEY, 1000)).toEqual({ waitForAnswer: true, maxWaitMs: PATIENCE_MS - 500 });
  });
});

describe("a window's reset", () => {
  test("at a window's reset one request asks first, however recently the old window was heard of", () => {
    const reg = new PacingRegistry();
    const second = (r: number) => answer(`"second";r=${r};t=1`, `"second";q=30;w=1`);
    reg.settle(go(reg.reserve(KEY, 0)), second(29), 0);
    reg.settle(go(reg.reserve(KEY, 950)), second(28), 960);
    expect(goesNow(reg, 1000)).toBe(1);
  });

  test("until an answer of the new window says what is left, one request asks at a time, whatever the requests lost since may have spent", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"second";r=2;t=1`, `"second";q=3;w=1`), 0);
    expect(reg.reserve(KEY, 10)).toEqual({ waitMs: 990 });
    // The new window's first request is lost; the next asks again rather than wait a window.
    reg.settle(go(reg.reserve(KEY, 1000)), undefined, 1010);
    go(reg.reserve(KEY, 1010));
  });

  test("a window's quota, learned from any answer and kept through answers without a policy, carries the window across its reset", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"second";r=20;t=1`), 0);
    reg.settle(go(reg.reserve(KEY, 10)), answer(`"second";r=19;t=1`, `"second";q=30;w=1`), 20);
    reg.settle(go(reg.reserve(KEY, 30)), answer(`"second";r=18;t=1`), 40);
    go(reg.reserve(KEY, 900));
    // The new window starts from its quota; the request out went before it, so one asks now.
    go(reg.reserve(KEY, 1000));
    expect(reg.reserve(KEY, 1000)).toEqual({ waitForAnswer: true, maxWaitMs: PATIENCE_MS });
  });

  test("a window without a quota is forgotten at its reset: the key learns again, one request at a time, the requests still out included", () => {
    const reg = new PacingRegistry();
    reg.settle(go(reg.reserve(KEY, 0)), answer(`"second";r=20;t=1`), 0);
    go(reg.reserve(KEY, 900));
    expect(reg.reserve(KEY, 1000)).toEqual({ waitForAnswer: true, maxWaitMs: PATIENCE_MS - 100 });
  });
});

describe("waiting for an answer", () => {
  test("the status reads waiting on work look again when the last work stops waiting, not before", async () => {
    const reg = new PacingRegistry();
    reg.waiting(KEY, 1);
    reg.waiting(KEY, 1);
    let woke = false;
    void reg.nextAnswer(KEY).then(() => (woke = true));
    reg.waiting(KEY, -1);
    await new Promise((r) => setImmediate(r));
    expect(woke).toBe(false);
    reg.waiting(KEY, -1);
    await new Promise((r) => setImmediate(r));
    expect(woke).toBe(true);
  });

  test("a wait for an answer with a signal already aborted rejects with its reason, even if an answer comes", async () => {
    const reg = new PacingRegistry();
    const probe = go(reg.reserve(KEY, 0));
    const ac = new AbortController();
    ac.abort(new Error("cancelled by the caller"));
    const waiting = reg.nextAnswer(KEY, ac.signal);
    reg.settle(probe, {}, 1);
    await expect(waiting).rejects.toThrow("cancelled by the caller");
  });

  test("a wait for an answer leaves no listener on its signal once answered", async () => {
    const reg = new PacingRegistry();
    const ac = new AbortController();
    const added = jest.spyOn(ac.signal, "addEventListener");
    const removed = jest.spyOn(ac.signal, "removeEventListener");
    const waiting = reg.nextAnswer(KEY, ac.signal);
    reg.settle(go(reg.reserve(KEY, 0)), {}, 1);
    await waiting;
    expect(added).toHaveBeenCalledTimes(1);
    expect(removed.mock.calls).toEqual(added.mock.calls.map(([type, listener]) => [type, listener]));
  });
});

describe("a neighbour seen spending the window", () => {
  // One process on a key of 60 a minute, its answers without `t`.
  const MINUTE = `"minute";q=60;w=60`;
  /** One request, sent at `at` and answered 10 ms later with `r` left (and `policy`; null: none). */
  const exchange = (reg: PacingRegistry, at: number, r: number, policy: string | null = MINUTE) =>
    reg.settle(go(reg.reserve(KEY, at)), answer(`"minute";r=${r}`, policy ?? undefined), at + 10);
  /** Answers at 10, 20 and 40: the first explained by this process's own request, the next two not (60 - 30 > 2, 60 - r > 3). */
  function seenAt30(lastLeft: number, policy = MINUTE): PacingRegistry {
    const reg = new PacingRegistry();
    exchange(reg, 0, 59, policy);
    exchange(reg, 10, 30, policy);
    exchange(reg, 30, lastLeft, policy);
    return reg;
  }

  test("answers that count exactly the requests this process sent show no neighbour: the window is spent down to its reserve as when alone", () => {
    const reg = new PacingRegistry();
    for (let k = 0; k < 40; k++) exchange(reg, k * 10, 59 - k);
    // 20 left, 2 kept: a third of the 18 may be out at once.
    expect(goesNow(reg, 400)).toBe(6);
  });

  test("beyond the two kept, the window keeps a third of the highest count the neighbour was seen at, less one: 8 at a count of 30", () => {
    expect(seenAt30(11).reserve(KEY, 50)).toHaveProperty("go");
    // 10 left is 2 + 8: spent for this process until the patience after the last sighting (at 40) has passed.
    expect(seenAt30(10).reserve(KEY, 50)).toEqual({ waitMs: 40 + PATIENCE_MS - 50 });
  });

  test("the share is kept for the patience after the neighbour was last seen, and not from then on", () => {
    const reg = seenAt30(10);
    expect(reg.reserve(KEY, 40 + PATIENCE_MS - 1)).toEqual({ waitMs: 1 });
    expect(reg.reserve(KEY, 40 + PATIENCE_MS)).toHaveProperty("go");
  });

  test("a window down to its reserve waits for its reset, a neighbour seen or not: the patience would not bring a request back", () => {
    // No window length named either: a whole window is assumed from its start (0), 1 s.
    expect(seenAt30(2, `"minute";q=60`).reserve(KEY, 50)).toEqual({ waitMs: 1000 - 50 });
  });

  test("the highest count is kept within the patience of the last sighting; a sighting at or after it starts again from its own count", () => {
    const within = new PacingRegistry();
    exchange(within, 0, 59);
    exchange(within, 10, 30); // seen at 20, at 30
    exchange(within, 2009, 10); // seen at 2019: still 30
    expect(within.reserve(KEY, 2029)).toEqual({ waitMs: 2019 + PATIENCE_MS - 2029 });
    const after = new PacingRegistry();
    exchange(after, 0, 59);
    exchange(after, 10, 30);
    exchange(after, 2010, 10); // seen at 2020 = 20 + the patience: 10, whose share is 1
    expect(after.reserve(KEY, 2030)).toHaveProperty("go");
  });

  test("a quota first named by the answer that shows the neighbour is enough to see it", () => {
    const reg = new PacingRegistry();
    exchange(reg, 0, 59, null);
    exchange(reg, 10, 30); // the first policy: 60 - 30 > 2
    exchange(reg, 30, 10);
    expect(reg.reserve(KEY, 50)).toEqual({ waitMs: 40 + PATIENCE_MS - 50 });
  });
});

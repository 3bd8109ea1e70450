// The per-key budget of PacingRegistry, step by step with explicit times: requests are counted
// when they go, not when `r=0` comes back, so concurrent requests never outrun a window.
import { type PacingDecision, PacingRegistry, type PacingTicket } from "../../../../src/client/core/pacing";

const KEY = "k";
const headers = (r: number, t: number, q = 3, w = 60) => ({
  ratelimit: `"minute";r=${r};t=${t}`,
  "ratelimit-policy": `"minute";q=${q};w=${w}`,
});
const go = (d: PacingDecision): PacingTicket => {
  if (!("go" in d)) throw new Error(`expected go, got ${JSON.stringify(d)}`);
  return d.go;
};

test("before any answer one request goes; the others wait for its answer", () => {
  const reg = new PacingRegistry();
  const probe = go(reg.reserve(KEY, 0));
  expect(reg.reserve(KEY, 0)).toEqual({ waitForAnswer: true });
  reg.settle(probe, headers(2, 60), 10);
  go(reg.reserve(KEY, 10));
  go(reg.reserve(KEY, 10));
  // Three sent in a window of three: the fourth waits for the reset the first answer named.
  expect(reg.reserve(KEY, 10)).toEqual({ waitMs: 60_000 });
  expect(reg.waitMs(KEY, 20)).toBe(59_990);
});

test("after the reset the quota starts over; the new window's first answer dates its end", () => {
  const reg = new PacingRegistry();
  reg.settle(go(reg.reserve(KEY, 0)), headers(0, 5), 0);
  expect(reg.reserve(KEY, 1000)).toEqual({ waitMs: 4000 });
  const first = go(reg.reserve(KEY, 5000));
  go(reg.reserve(KEY, 5000));
  go(reg.reserve(KEY, 5000));
  // The whole window is out and none has answered: when it ends is not known yet.
  expect(reg.reserve(KEY, 5001)).toEqual({ waitForAnswer: true });
  reg.settle(first, headers(2, 60), 5010);
  expect(reg.reserve(KEY, 5020)).toEqual({ waitMs: 59_990 });
});

test("an answer to a request sent before the reset does not count against the new window", () => {
  const reg = new PacingRegistry();
  reg.settle(go(reg.reserve(KEY, 0)), headers(1, 2), 0);
  const late = go(reg.reserve(KEY, 100));
  go(reg.reserve(KEY, 2000)); // a new window: three left, one spent
  reg.settle(late, headers(0, 1), 2100); // the old window's r=0, answered late
  go(reg.reserve(KEY, 2100));
  go(reg.reserve(KEY, 2100));
});

test("fewer left than counted (another process uses the key): the answer wins", () => {
  const reg = new PacingRegistry();
  const probe = go(reg.reserve(KEY, 0));
  reg.settle(probe, headers(1, 30, 100), 0);
  go(reg.reserve(KEY, 0));
  expect(reg.reserve(KEY, 0)).toEqual({ waitMs: 30_000 });
});

test("a server that sends no RateLimit is not gated after its first answer", () => {
  const reg = new PacingRegistry();
  reg.settle(go(reg.reserve(KEY, 0)), {}, 0);
  for (let i = 0; i < 50; i++) go(reg.reserve(KEY, 0));
});

test("an answer without counts (a path the server does not limit) gives its unit back; a lost answer does not", () => {
  const reg = new PacingRegistry();
  reg.settle(go(reg.reserve(KEY, 0)), headers(2, 60), 0);
  const unlimited = go(reg.reserve(KEY, 0));
  const lost = go(reg.reserve(KEY, 0));
  expect(reg.reserve(KEY, 0)).toEqual({ waitMs: 60_000 });
  reg.settle(unlimited, {}, 5);
  reg.settle(lost, undefined, 5);
  go(reg.reserve(KEY, 5));
  expect(reg.reserve(KEY, 5)).toEqual({ waitMs: 59_995 });
});

test("a probe that got no answer lets the next request probe", () => {
  const reg = new PacingRegistry();
  const probe = go(reg.reserve(KEY, 0));
  reg.settle(probe, undefined, 5);
  go(reg.reserve(KEY, 5));
});

test("a new window whose requests all failed unanswered is assumed to last its policy length", () => {
  const reg = new PacingRegistry();
  reg.settle(go(reg.reserve(KEY, 0)), headers(0, 1, 2, 10), 0);
  const a = go(reg.reserve(KEY, 1000));
  const b = go(reg.reserve(KEY, 1000));
  reg.settle(a, undefined, 1100);
  reg.settle(b, undefined, 1100);
  expect(reg.reserve(KEY, 1200)).toEqual({ waitMs: 9800 });
});

test("nextAnswer resolves at the next settle and rejects on abort", async () => {
  const reg = new PacingRegistry();
  const probe = go(reg.reserve(KEY, 0));
  const waiting = reg.nextAnswer(KEY);
  reg.settle(probe, headers(2, 60), 1);
  await expect(waiting).resolves.toBeUndefined();
  const ac = new AbortController();
  const aborted = reg.nextAnswer(KEY, ac.signal);
  ac.abort(new Error("stop"));
  await expect(aborted).rejects.toThrow("stop");
});

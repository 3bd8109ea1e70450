// The emulator's rate limits driven directly, on a manual clock (docs/emulator.md, "Limits"): fixed
// windows per key over minute, hour and day, the exact RateLimit headers, which window refuses,
// a batch of requests counted whole or not at all, refunds, and the storm fault's headers. The
// HTTP tests (test/integration/emulator/core/rate-limit.test.ts) hold the headers on the wire; these
// reach the counts, seconds and windows to the millisecond, which real time cannot.
import { DEFAULT_QUOTAS, RateLimiter } from "../../../../src/emulator/core/rate-limit";

const T0 = 1_700_000_000_000;

function limiter(quotas = DEFAULT_QUOTAS, timeScale = 1, perKey = new Map()) {
  const clock = { t: T0 };
  return { clock, rl: new RateLimiter(quotas, timeScale, () => clock.t, perKey) };
}

test("the defaults are the public interface's: minute 60, hour 3000, day 50000", () => {
  expect(DEFAULT_QUOTAS).toEqual({ minute: 60, hour: 3000, day: 50000 });
});

test("the headers, exactly: what remains and the seconds to each window's end, and the policy", () => {
  const { clock, rl } = limiter();
  expect(rl.take("k").headers).toEqual({
    ratelimit: '"minute";r=59;t=60, "hour";r=2999;t=3600, "day";r=49999;t=86400',
    "ratelimit-policy": '"minute";q=60;w=60, "hour";q=3000;w=3600, "day";q=50000;w=86400',
  });
  // t rounds up: 12.001 s left reads 13, 0.5 s left reads 1 (never 0 while the window is open).
  clock.t = T0 + 47_999;
  expect(rl.take("k").headers.ratelimit).toBe('"minute";r=58;t=13, "hour";r=2998;t=3553, "day";r=49998;t=86353');
  clock.t = T0 + 59_500;
  expect(rl.take("k").headers.ratelimit).toMatch(/^"minute";r=57;t=1, /);
});

test("a window resets at its end exactly, not a millisecond before; the others keep counting", () => {
  const { clock, rl } = limiter();
  rl.take("k");
  clock.t = T0 + 59_999;
  expect(rl.take("k").headers.ratelimit).toMatch(/^"minute";r=58;t=1, "hour";r=2998;/);
  clock.t = T0 + 60_000;
  expect(rl.take("k").headers.ratelimit).toBe('"minute";r=59;t=60, "hour";r=2997;t=3540, "day";r=49997;t=86340');
});

test("the quota's last request passes; the next is refused with the window, Retry-After and nothing counted", () => {
  const { clock, rl } = limiter({ minute: 2, hour: 100, day: 1000 });
  expect(rl.take("k").exceeded).toBeUndefined();
  const last = rl.take("k");
  expect(last.exceeded).toBeUndefined();
  expect(last.headers["retry-after"]).toBeUndefined();
  expect(last.headers.ratelimit).toMatch(/^"minute";r=0;t=60, "hour";r=98;/);
  clock.t = T0 + 20_250;
  const refused = rl.take("k");
  expect(refused).toEqual({
    exceeded: "minute",
    retryAfterSec: 40,
    headers: {
      ratelimit: '"minute";r=0;t=40, "hour";r=98;t=3580, "day";r=998;t=86380',
      "ratelimit-policy": '"minute";q=2;w=60, "hour";q=100;w=3600, "day";q=1000;w=86400',
      "retry-after": "40",
    },
  });
});

test("the widest window that cannot take the requests decides the wait", () => {
  const { clock, rl } = limiter({ minute: 1, hour: 1, day: 1 });
  rl.take("k");
  clock.t = T0 + 1_000;
  const refused = rl.take("k");
  expect(refused.exceeded).toBe("day");
  expect(refused.retryAfterSec).toBe(86_399);
  // Past the minute and the hour, the day alone still refuses.
  clock.t = T0 + 3_600_000;
  expect(rl.take("k")).toMatchObject({ exceeded: "day", retryAfterSec: 82_800 });
  const h = limiter({ minute: 5, hour: 1, day: 10 });
  h.rl.take("k");
  expect(h.rl.take("k")).toMatchObject({ exceeded: "hour", retryAfterSec: 3600 });
});

test("a batch (a GraphQL document's mutations) is counted whole or not at all", () => {
  const { rl } = limiter({ minute: 5, hour: 100, day: 1000 });
  expect(rl.take("k", 3).headers.ratelimit).toMatch(/^"minute";r=2;t=60, "hour";r=97;/);
  const refused = rl.take("k", 3);
  expect(refused.exceeded).toBe("minute");
  expect(refused.headers.ratelimit).toMatch(/^"minute";r=2;t=60, "hour";r=97;/);
  // Exactly what remains passes.
  const fits = rl.take("k", 2);
  expect(fits.exceeded).toBeUndefined();
  expect(fits.headers.ratelimit).toMatch(/^"minute";r=0;t=60, "hour";r=95;/);
});

test("a refund gives back what was counted, in every window, and never below zero", () => {
  const { rl } = limiter({ minute: 3, hour: 100, day: 1000 });
  rl.take("k", 2);
  rl.refund("k");
  expect(rl.take("k", 0).headers.ratelimit).toMatch(/^"minute";r=2;t=60, "hour";r=99;t=3600, "day";r=999;/);
  rl.refund("k", 5);
  expect(rl.take("k", 0).headers.ratelimit).toMatch(/^"minute";r=3;t=60, "hour";r=100;t=3600, "day";r=1000;/);
  // A refund of a key never seen opens its windows at zero.
  rl.refund("other");
  expect(rl.take("other", 0).headers.ratelimit).toMatch(/^"minute";r=3;/);
});

test("each key has its own windows; a key with quotas of its own is held to them", () => {
  const own = { minute: 1, hour: 2, day: 3 };
  const { rl } = limiter({ minute: 60, hour: 3000, day: 50000 }, 1, new Map([["small", own]]));
  rl.take("small");
  expect(rl.take("small").exceeded).toBe("minute");
  expect(rl.take("small").headers["ratelimit-policy"]).toBe('"minute";q=1;w=60, "hour";q=2;w=3600, "day";q=3;w=86400');
  expect(rl.take("big").headers.ratelimit).toMatch(/^"minute";r=59;/);
});

test("a time scale shrinks each window and the headers speak real seconds, at least 1", () => {
  const { clock, rl } = limiter(DEFAULT_QUOTAS, 10);
  expect(rl.take("k").headers).toEqual({
    ratelimit: '"minute";r=59;t=6, "hour";r=2999;t=360, "day";r=49999;t=8640',
    "ratelimit-policy": '"minute";q=60;w=6, "hour";q=3000;w=360, "day";q=50000;w=8640',
  });
  clock.t = T0 + 6_000;
  expect(rl.take("k").headers.ratelimit).toMatch(/^"minute";r=59;t=6, "hour";r=2998;t=354,/);
  // A minute of 60 ms still reads w=1, never 0.
  const fast = limiter(DEFAULT_QUOTAS, 1000);
  expect(fast.rl.take("k").headers["ratelimit-policy"]).toBe('"minute";q=60;w=1, "hour";q=3000;w=4, "day";q=50000;w=87');
});

test("the storm fault's headers: the minute reads exhausted for one second, nothing counted", () => {
  const { rl } = limiter();
  rl.take("k");
  expect(rl.stormHeaders("k")).toEqual({
    ratelimit: '"minute";r=0;t=1, "hour";r=2999;t=3600, "day";r=49999;t=86400',
    "ratelimit-policy": '"minute";q=60;w=60, "hour";q=3000;w=3600, "day";q=50000;w=86400',
    "retry-after": "1",
  });
  expect(rl.take("k").headers.ratelimit).toMatch(/^"minute";r=58;/);
});

import {
  backoffMs,
  exhaustedWindowDelayMs,
  parseRateLimit,
  parseRateLimitPolicy,
  parseRetryAfter,
  retryDelayMs,
  serverDelayMs,
} from "../../../../src/client/core/retry";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const POLICY = '"minute";q=60;w=60, "hour";q=3000;w=3600, "day";q=50000;w=86400';

describe("serverDelayMs: headers to the delay the server asked for", () => {
  // [what, headers, expected ms (undefined = no server delay: back off)]
  const table: [string, Record<string, string>, number | undefined][] = [
    ["Retry-After seconds", { "retry-after": "12" }, 12_000],
    ["Retry-After zero", { "retry-after": "0" }, 0],
    ["Retry-After with spaces", { "retry-after": " 3 " }, 3_000],
    ["Retry-After HTTP-date", { "retry-after": "Thu, 01 Jan 2026 12:00:30 GMT" }, 30_000],
    ["Retry-After date in the past", { "retry-after": "Thu, 01 Jan 2026 11:00:00 GMT" }, 0],
    ["Retry-After fraction is malformed", { "retry-after": "1.5" }, undefined],
    ["Retry-After negative is malformed", { "retry-after": "-5" }, undefined],
    ["Retry-After text is malformed", { "retry-after": "soon" }, undefined],
    ["Retry-After empty is malformed", { "retry-after": "" }, undefined],
    ["Retry-After HTTP-date after other text is malformed", { "retry-after": "xThu, 01 Jan 2026 12:00:30 GMT" }, undefined],
    ["Retry-After HTTP-date with an offset is malformed", { "retry-after": "Thu, 01 Jan 2026 12:00:30 GMT+0100" }, undefined],
    ["Retry-After wins over RateLimit", { "retry-after": "2", ratelimit: '"minute";r=0;t=40' }, 2_000],
    ["the platform's example: minute exhausted", { ratelimit: '"minute";r=0;t=12, "hour";r=2800;t=1812, "day";r=49500;t=45012', "ratelimit-policy": POLICY }, 12_000],
    ["two windows exhausted: the longer", { ratelimit: '"minute";r=0;t=12, "hour";r=0;t=1812' }, 1_812_000],
    ["nothing exhausted", { ratelimit: '"minute";r=5;t=12, "hour";r=2800;t=1812' }, undefined],
    ["token names parse too", { ratelimit: "minute;r=0;t=9" }, 9_000],
    ["r=0 without t falls back to the policy window", { ratelimit: '"minute";r=0', "ratelimit-policy": POLICY }, 60_000],
    ["r=0 with malformed t falls back to the policy", { ratelimit: '"hour";r=0;t=1.5', "ratelimit-policy": POLICY }, 3_600_000],
    ["r=0 without t and no policy", { ratelimit: '"minute";r=0' }, undefined],
    ["negative t with no policy", { ratelimit: '"minute";r=0;t=-3' }, undefined],
    ["string r is not a count", { ratelimit: '"minute";r="0";t=5' }, undefined],
    ["unparseable RateLimit", { ratelimit: '"minute;r=0;t=12' }, undefined],
    ["garbage RateLimit", { ratelimit: "{{{" }, undefined],
    ["trailing comma", { ratelimit: '"minute";r=0;t=12,' }, undefined],
    ["a member that is a number or a boolean names no window", { ratelimit: '5;r=0;t=3, ?1;r=0;t=4, "minute";r=1;t=2' }, undefined],
    ["inner lists are skipped", { ratelimit: '("a" "b");r=0;t=4, "minute";r=0;t=3' }, 3_000],
    ["malformed policy does not break a good RateLimit", { ratelimit: '"minute";r=0;t=7', "ratelimit-policy": "???" }, 7_000],
    ["no headers", {}, undefined],
  ];
  test.each(table)("%s", (_what, headers, expected) => {
    expect(serverDelayMs(headers, NOW)).toBe(expected);
  });
});

describe("parsers", () => {
  test("RateLimit members keep their names and counts", () => {
    expect(parseRateLimit('"minute";r=0;t=12, "hour";r=2800;t=1812')).toEqual([
      { name: "minute", remaining: 0, resetSeconds: 12 },
      { name: "hour", remaining: 2800, resetSeconds: 1812 },
    ]);
  });
  test("RateLimit-Policy members keep quota and window", () => {
    expect(parseRateLimitPolicy(POLICY)?.map((w) => [w.name, w.quota, w.windowSeconds])).toEqual([
      ["minute", 60, 60],
      ["hour", 3000, 3600],
      ["day", 50000, 86400],
    ]);
  });
  test("a token name parses to its name, a string like a quoted one", () => {
    expect(parseRateLimit("minute;r=0;t=9")).toEqual([{ name: "minute", remaining: 0, resetSeconds: 9 }]);
    expect(parseRateLimitPolicy('minute;q=60;w=60, "hour";q=3000;w=3600')?.map((w) => typeof w.name)).toEqual(["string", "string"]);
  });
  test("a member that is a number or a boolean is no window: it is skipped", () => {
    expect(parseRateLimit('5;r=0;t=3, ?1;r=0;t=4, "minute";r=1;t=2')).toEqual([{ name: "minute", remaining: 1, resetSeconds: 2 }]);
  });
  test("an empty or blank header is absent, not a list of no windows", () => {
    expect(parseRateLimit("")).toBeUndefined();
    expect(parseRateLimit("   ")).toBeUndefined();
    expect(parseRateLimitPolicy(" ")).toBeUndefined();
  });
  test("absent or malformed headers parse to undefined, not an exception", () => {
    expect(parseRateLimit(undefined)).toBeUndefined();
    expect(parseRateLimit('"unterminated')).toBeUndefined();
    expect(parseRateLimitPolicy("q=;;")).toBeUndefined();
    expect(parseRetryAfter("Mon, 32 Foo 2026 99:00:00 GMT", NOW)).toBeUndefined();
  });
  test("exhaustedWindowDelayMs ignores Retry-After (pacing reads only RateLimit)", () => {
    expect(exhaustedWindowDelayMs({ "retry-after": "5" })).toBeUndefined();
  });
});

describe("backoff: exponential, full jitter, capped", () => {
  const opts = { baseDelayMs: 100, maxBackoffMs: 1000 };
  test.each([
    [1, 0.5, 50],
    [2, 0.5, 100],
    [3, 0.5, 200],
    [4, 0.999, 799],
    [5, 0.999, 999], // 1600 capped to 1000
    [30, 0.999, 999],
    [3, 0, 0],
  ])("attempt %d, random %d -> %d ms", (attempt, r, expected) => {
    expect(backoffMs(attempt, () => r, opts)).toBe(expected);
  });

  test("every backoff lies in [0, cap) whatever the randomness", () => {
    for (let attempt = 1; attempt < 40; attempt++) {
      for (const r of [0, 0.1, 0.5, 0.9999999]) {
        const d = backoffMs(attempt, () => r, opts);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(1000);
      }
    }
  });

  test("the default backoff starts at 500 ms and is capped at 30 s", () => {
    expect(backoffMs(1, () => 0.5)).toBe(250);
    expect(backoffMs(3, () => 0.5)).toBe(1000);
    expect(backoffMs(20, () => 0.5)).toBe(15_000);
    expect(retryDelayMs({ attempt: 2, serverDelayMs: undefined, random: () => 0.5 })).toEqual({ delayMs: 500, source: "backoff" });
  });

  test("a server-given delay is used as given, without jitter", () => {
    expect(retryDelayMs({ attempt: 3, serverDelayMs: 12_000, random: () => 0.3 })).toEqual({ delayMs: 12_000, source: "server" });
    expect(retryDelayMs({ attempt: 1, serverDelayMs: undefined, random: () => 0.5, backoff: opts })).toEqual({
      delayMs: 50,
      source: "backoff",
    });
  });
});

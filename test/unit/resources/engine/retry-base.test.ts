// COMPUTEPLATFORM_RETRY_BASE_MS: the pace of retries and of looks after an ambiguous answer
// inside the plugin (src/resources/engine/settings.ts, src/resources/lifecycle/look.ts).
import { RETRY_BASE_ENV, retryBaseMs } from "../../../../src/resources/engine/settings";
import { lookPauseMs } from "../../../../src/resources/lifecycle/look";

afterEach(() => {
  delete process.env[RETRY_BASE_ENV];
});

test("unset or empty, the client's default holds", () => {
  expect(retryBaseMs({})).toBeUndefined();
  expect(retryBaseMs({ [RETRY_BASE_ENV]: " " })).toBeUndefined();
});

test("a whole number of milliseconds is the first backoff ceiling, 0 included", () => {
  expect(retryBaseMs({ [RETRY_BASE_ENV]: "40" })).toBe(40);
  expect(retryBaseMs({ [RETRY_BASE_ENV]: "0" })).toBe(0);
});

test.each(["-1", "1.5", "fast", "1e400"])("%s is refused, naming the variable and the rule", (raw) => {
  expect(() => retryBaseMs({ [RETRY_BASE_ENV]: raw })).toThrow(`COMPUTEPLATFORM_RETRY_BASE_MS must be a whole number of milliseconds, 0 or more (got "${raw}")`);
});

test("the looks after an ambiguous answer follow it: half the base, doubling, at most 5 s", () => {
  process.env[RETRY_BASE_ENV] = "40";
  expect([1, 2, 3].map((a) => lookPauseMs(a))).toEqual([40, 80, 160]);
  process.env[RETRY_BASE_ENV] = "4000";
  expect([1, 2, 3].map((a) => lookPauseMs(a))).toEqual([4000, 5000, 5000]);
  delete process.env[RETRY_BASE_ENV];
  expect([1, 2, 3].map((a) => lookPauseMs(a))).toEqual([500, 1000, 2000]);
});

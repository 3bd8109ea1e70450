// Sign-in slows after wrong keys from one address (docs/emulator.md, "The console"): five are
// free, then each try waits 1 s, 2 s, 4 s ... at most a minute of the emulator's clock after the
// last wrong one; a right key forgets the address's failures.
import { FREE_FAILURES, MAX_WAIT_MS, SignInAttempts } from "../../../../src/emulator/console/attempts";

function attempts() {
  const clock = { t: 1_000_000, now: () => clock.t };
  return { clock, a: new SignInAttempts(clock) };
}

test("five wrong keys are free; the sixth waits 1 s, then 2 s, 4 s, doubling from the last failure", () => {
  const { clock, a } = attempts();
  expect(FREE_FAILURES).toBe(5);
  for (let i = 0; i < 4; i++) a.failed("10.0.0.1");
  expect(a.waitMs("10.0.0.1")).toBe(0);
  const waits: number[] = [];
  for (let i = 0; i < 4; i++) {
    a.failed("10.0.0.1");
    waits.push(a.waitMs("10.0.0.1"));
    clock.t += 500;
  }
  expect(waits).toEqual([1000, 2000, 4000, 8000]);
  expect(a.waitMs("10.0.0.1")).toBe(7500); // 8 s from the last failure, 500 ms ago
});

test("the wait shrinks with the clock and ends at 0", () => {
  const { clock, a } = attempts();
  for (let i = 0; i < 5; i++) a.failed("c");
  clock.t += 400;
  expect(a.waitMs("c")).toBe(600);
  clock.t += 5000;
  expect(a.waitMs("c")).toBe(0);
});

test("the wait is at most a minute, however many failures", () => {
  const { a } = attempts();
  for (let i = 0; i < 40; i++) a.failed("c");
  expect(MAX_WAIT_MS).toBe(60_000);
  expect(a.waitMs("c")).toBe(60_000);
});

test("each address counts apart, and a right key forgets its failures", () => {
  const { a } = attempts();
  for (let i = 0; i < 6; i++) a.failed("a");
  expect(a.waitMs("b")).toBe(0);
  expect(a.waitMs("a")).toBe(2000);
  a.succeeded("a");
  expect(a.waitMs("a")).toBe(0);
  for (let i = 0; i < 5; i++) a.failed("a");
  expect(a.waitMs("a")).toBe(1000);
});

test("past 10,000 addresses the one that failed longest ago is forgotten first", () => {
  const { a } = attempts();
  for (let i = 0; i < 6; i++) a.failed("first");
  for (let i = 0; i < 6; i++) a.failed("second");
  for (let i = 0; i < 9_998; i++) a.failed(`c${i}`);
  a.failed("first"); // a new failure makes it the newest
  a.failed("one more");
  expect(a.waitMs("second")).toBe(0);
  expect(a.waitMs("first")).toBe(4000);
});

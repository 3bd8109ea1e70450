// The emulator's clock (docs/emulator.md, "The clock"): the time source plus an offset that only
// moves forward, a year at most per step, kept in the state file.
import { AdjustableClock, MAX_ADVANCE_MS } from "../../../../src/emulator/core/clock";

const T0 = 1_700_000_000_000;

function clock() {
  const base = { t: T0, now: () => base.t };
  return { base, c: new AdjustableClock(base) };
}

test("now is the source's time plus every advance; the source keeps running under it", () => {
  const { base, c } = clock();
  expect(c.now()).toBe(T0);
  c.advance(60_000);
  c.advance(1);
  expect(c.now()).toBe(T0 + 60_001);
  expect(c.advancedMs).toBe(60_001);
  base.t += 5;
  expect(c.now()).toBe(T0 + 60_006);
});

test.each([-1, 0.5, Number.NaN, MAX_ADVANCE_MS + 1])("advance(%p) is refused naming the bound, and the clock stays", (ms) => {
  const { c } = clock();
  expect(() => c.advance(ms)).toThrow(`advance must be an integer from 0 to ${MAX_ADVANCE_MS} ms, got ${ms}`);
  expect(c.now()).toBe(T0);
});

test("0 and a whole year (366 days) are both steps it takes", () => {
  const { c } = clock();
  c.advance(0);
  c.advance(MAX_ADVANCE_MS);
  expect(MAX_ADVANCE_MS).toBe(366 * 24 * 3_600_000);
  expect(c.now()).toBe(T0 + MAX_ADVANCE_MS);
});

test("the offset is saved under `clock` and restored by another clock", () => {
  const { c } = clock();
  c.advance(86_400_000);
  const [part] = c.stateParts();
  expect(part.key).toBe("clock");
  const saved = JSON.parse(JSON.stringify(part.snapshot()));
  expect(saved).toEqual({ advancedMs: 86_400_000 });
  const { c: again } = clock();
  again.stateParts()[0].restore(saved);
  expect(again.now()).toBe(T0 + 86_400_000);
});

test.each([[{ advancedMs: -1 }], [{ advancedMs: 1.5 }], [{ advancedMs: "5" }], [{}], [null]])("a saved offset of %j stops the load naming the field", (saved) => {
  const { c } = clock();
  expect(() => c.stateParts()[0].restore(saved)).toThrow(/^state file: clock\.advancedMs must be an integer >= 0/);
  expect(c.advancedMs).toBe(0);
});

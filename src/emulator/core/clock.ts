// The emulator's clock: the time source it was given (Date, or a test's manual clock) plus an
// offset the user moves forward (the control plane's POST /emulator/clock, the console, or
// `Emulator.advanceClock` in code), so a test sees an idle timeout, a job's ttl or a day of
// billing without waiting. It never moves back, and the offset is kept in the state file: every
// time stored there was read from this clock, so a restart without it would put them in the
// future (a pod made after a move would be created tomorrow, up for minus a day, billed nowhere).

import type { StatePart } from "./persistence";

/** The longest single step: a year (a bound on one request, not on the total). */
export const MAX_ADVANCE_MS = 366 * 24 * 3_600_000;

export class AdjustableClock {
  private offset = 0;

  constructor(private readonly base: { now(): number }) {}

  now(): number {
    return this.base.now() + this.offset;
  }

  /** Moves the clock forward by `ms` (clock ms: timers run `timeScale` times faster, billing does not). */
  advance(ms: number): void {
    if (!(Number.isInteger(ms) && ms >= 0 && ms <= MAX_ADVANCE_MS))
      throw new RangeError(`advance must be an integer from 0 to ${MAX_ADVANCE_MS} ms, got ${ms}`);
    this.offset += ms;
  }

  /** How far the clock has been moved in total. */
  get advancedMs(): number {
    return this.offset;
  }

  /** The offset, under `clock` in the state file; a file written before it was kept has none (not moved). */
  stateParts(): StatePart[] {
    return [
      {
        key: "clock",
        snapshot: () => ({ advancedMs: this.offset }),
        restore: (saved) => {
          const ms = (saved as { advancedMs?: unknown } | null)?.advancedMs;
          if (!(typeof ms === "number" && Number.isSafeInteger(ms) && ms >= 0))
            throw new Error(`state file: clock.advancedMs must be an integer >= 0, got ${JSON.stringify(ms)}`);
          this.offset = ms;
        },
      },
    ];
  }
}

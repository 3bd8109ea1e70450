import type { Clock } from "../../src/client/core/clock";

/**
 * A clock whose `sleep` advances `now` at once and records the wait, so a test of a
 * "wait 12 s" path takes microseconds and can assert the exact wait.
 */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(public current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.current += Math.max(0, ms);
    // Yield, so a concurrent abort or request can interleave as with a real timer.
    await new Promise((r) => setImmediate(r));
    if (signal?.aborted) throw signal.reason;
  }
}

/** A {@link FakeClock} that runs `meanwhile` inside its first sleep: what another program does while a step waits. */
export function clockDoing(meanwhile: () => Promise<unknown>): FakeClock {
  return new (class extends FakeClock {
    override async sleep(ms: number, signal?: AbortSignal): Promise<void> {
      await super.sleep(ms, signal);
      if (this.sleeps.length === 1) await meanwhile();
    }
  })();
}

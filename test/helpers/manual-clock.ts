import type { Clock } from "../../src/client/core/clock";

/** A clock that moves only when told; sleepers wake in the order of their times. */
export class ManualClock implements Clock {
  t = 0;
  private timers: { at: number; resolve: () => void }[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = { at: this.t + ms, resolve };
      this.timers.push(timer);
      signal?.addEventListener("abort", () => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal.reason);
      });
    });
  }
  /** When the earliest sleeper wakes (Infinity: none sleeps). */
  next(): number {
    return Math.min(...this.timers.map((x) => x.at));
  }
  /** Moves to `to`, wakes every sleeper due by then, and lets what they start run. */
  async advance(to: number): Promise<void> {
    this.t = to;
    const due = this.timers.filter((x) => x.at <= to).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((x) => x.at > to);
    for (const x of due) x.resolve();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  }
}

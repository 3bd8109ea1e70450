import type { Clock } from "../../src/client/core/clock";

/**
 * Time for tests that poll a real server: it moves only when nothing is in flight. Every
 * request goes through `track` (see `tracked`); `drive` then lets the process go idle (no
 * request pending, every continuation run) before it jumps to the earliest pending `sleep`.
 * So which reads happen at which instant follows from the code alone, not from how busy
 * the machine is: a request can never be overtaken by a timer, however slowly it is answered.
 * The emulator takes the same clock, so its timings (workers starting, draining) are on it.
 */
export class SteppedClock implements Clock {
  private timers: { at: number; resolve: () => void }[] = [];
  private inflight = 0;
  private idleWaiters: (() => void)[] = [];
  /** Jumps made by `drive`. */
  steps = 0;

  constructor(private t = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = {
        at: this.t + Math.max(0, ms),
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  /** Counts `work` as in flight until it settles: `drive` does not move time meanwhile. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.inflight++;
    try {
      return await work();
    } finally {
      if (--this.inflight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /**
   * Runs until `work` settles: each round waits for the process to go idle, then fires the
   * earliest pending sleep. Fails if nothing is pending while `work` still waits (it would
   * never end), or after `maxSteps` jumps.
   */
  async drive<T>(work: Promise<T>, maxSteps = 1000): Promise<T> {
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let round = 0; ; round++) {
      await this.idle();
      if (settled) return work;
      if (round >= maxSteps) throw new Error(`SteppedClock: still waiting after ${maxSteps} steps`);
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers.shift();
      if (!next) throw new Error("SteppedClock: the work waits, but on no request and no sleep");
      this.t = Math.max(this.t, next.at);
      this.steps++;
      next.resolve();
    }
  }

  /** No request in flight, and two turns of the event loop with none started. */
  private async idle(): Promise<void> {
    for (;;) {
      while (this.inflight > 0) await new Promise<void>((r) => this.idleWaiters.push(r));
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      if (this.inflight === 0) return;
    }
  }
}

/**
 * `target` with every method call counted as in flight on `clock` (methods only: a client's
 * resource namespaces are objects of async methods).
 */
export function tracked<T extends object>(clock: SteppedClock, target: T): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => clock.track(() => value.apply(obj, args));
    },
  });
}

/** A client whose every resource namespace (`pods`, `endpoints`...) is `tracked`; one object, so pollers shared per client stay shared. */
export function trackedClient<C extends object>(clock: SteppedClock, client: C): C {
  const namespaces = new Map<PropertyKey, unknown>();
  return new Proxy(client, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj);
      if (typeof value === "function") return value.bind(obj);
      if (typeof value !== "object" || value === null) return value;
      if (!namespaces.has(prop)) namespaces.set(prop, tracked(clock, value));
      return namespaces.get(prop);
    },
  });
}

// The real clock (clock.ts): every wait of the client goes through its sleep, so a cancelled
// operation must end its wait at once, with the signal's reason, and leave no timer behind.
// No test here waits on time: each sleep is 0 ms, ended by its signal, or run on jest's fake timers.
import { getEventListeners } from "node:events";
import { systemClock } from "../../../../src/client/core/clock";

describe("systemClock", () => {
  it("now is the wall clock", () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it("a sleep of 0 ms (or less) resolves", async () => {
    await expect(systemClock.sleep(0)).resolves.toBeUndefined();
    await expect(systemClock.sleep(-5, new AbortController().signal)).resolves.toBeUndefined();
  });

  it("a sleep resolves when its time has passed, not before", async () => {
    jest.useFakeTimers();
    try {
      let done = false;
      const sleeping = systemClock.sleep(1000).then(() => {
        done = true;
      });
      await jest.advanceTimersByTimeAsync(999);
      expect(done).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await sleeping;
      expect(done).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it("a signal already aborted rejects at once with its reason", async () => {
    const ac = new AbortController();
    const reason = new Error("cancelled");
    ac.abort(reason);
    await expect(systemClock.sleep(60_000, ac.signal)).rejects.toBe(reason);
  });

  it("an abort during the sleep rejects it with the reason and clears its timer", async () => {
    const cleared = jest.spyOn(global, "clearTimeout");
    try {
      const ac = new AbortController();
      const reason = new Error("stop");
      const sleeping = systemClock.sleep(3_600_000, ac.signal);
      ac.abort(reason);
      await expect(sleeping).rejects.toBe(reason);
      expect(cleared).toHaveBeenCalledTimes(1);
      // A signal may outlive the wait (one per command): the wait leaves nothing on it.
      expect(getEventListeners(ac.signal, "abort")).toEqual([]);
    } finally {
      cleared.mockRestore();
    }
  });

  it("an abort without a reason of its own rejects with an AbortError", async () => {
    // A signal whose reason is undefined (AbortController always gives one): the clock makes its own.
    const listeners: (() => void)[] = [];
    const signal = {
      aborted: false,
      reason: undefined,
      addEventListener: (_: string, f: () => void) => listeners.push(f),
      removeEventListener: () => undefined,
    } as unknown as AbortSignal;
    const sleeping = systemClock.sleep(3_600_000, signal);
    (signal as { aborted: boolean }).aborted = true;
    listeners.forEach((f) => f());
    await expect(sleeping).rejects.toMatchObject({ name: "AbortError", message: "The operation was aborted" });
    const already = { aborted: true, reason: undefined } as unknown as AbortSignal;
    await expect(systemClock.sleep(1, already)).rejects.toMatchObject({ name: "AbortError" });
  });

  it("a sleep that ends leaves no listener on its signal", async () => {
    const ac = new AbortController();
    const removed = jest.spyOn(ac.signal, "removeEventListener");
    await systemClock.sleep(0, ac.signal);
    expect(removed).toHaveBeenCalledWith("abort", expect.any(Function));
  });
});

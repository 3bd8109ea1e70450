/**
 * Time, injectable: tests hand the client a fake clock so a "wait 30 s" path runs in
 * microseconds, and every wait in the client goes through `sleep`, so every wait can be
 * cancelled.
 */
export interface Clock {
  /** Milliseconds since the epoch (or any monotonic origin a fake clock chooses). */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Thrown by `sleep` when its signal aborts without a reason of its own. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError");
}

/** The real clock: `Date.now()` and a timer that is cleared when the signal aborts. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

import { backoffMs, type Clock, DEFAULT_BACKOFF } from "../../client";
import { retryBaseMs } from "../engine/settings";
import { isFatal } from "./poller";

/** Looks after an answer that proves nothing (a failed list, an ambiguous create). */
export const LOOKUPS = 3;
/** Tries to delete one earlier try. */
export const RETIRE_ATTEMPTS = 3;

/**
 * The pause before look number `attempt` (0.5, 1, 2 s, at most 5): the client's backoff at
 * its ceiling, so `COMPUTEPLATFORM_RETRY_BASE_MS` paces both. No jitter: these are a few looks
 * of one deployment, not a crowd of clients.
 */
export function lookPauseMs(attempt: number): number {
  const base = retryBaseMs() ?? DEFAULT_BACKOFF.baseDelayMs;
  return backoffMs(attempt + 1, () => 1, { baseDelayMs: base / 2, maxBackoffMs: 5000 });
}

export interface Looking {
  clock: Pick<Clock, "sleep">;
  signal?: AbortSignal;
}

/**
 * A look-up tried up to `attempts` times (a failed list proves nothing); a client error no
 * retry fixes (bad key, missing permission) is passed on at once.
 */
export async function lookAgain<T>(look: () => Promise<T>, opts: Looking & { attempts: number }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await look();
    } catch (err) {
      if (attempt >= opts.attempts || isFatal(err)) throw err;
      await opts.clock.sleep(lookPauseMs(attempt), opts.signal);
    }
  }
}


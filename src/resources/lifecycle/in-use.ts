// Deleting what something else still uses: a volume a pod mounts, a template an endpoint
// runs. The platform answers 409 (in use); the delete waits, bounded, for the users to go,
// looking them up between tries, then fails naming the ones left.
import { type ApiError, type Clock, ConflictError, NotFoundError } from "../../client";

/** How long delete waits, by default, for what uses the object to be gone. */
export const DEFAULT_DELETE_WAIT_SECONDS = 120;
/** Upper bound of `deleteWaitSeconds`: a wait longer than an hour is a stuck deployment. */
export const MAX_DELETE_WAIT_SECONDS = 3600;

/** One thing that still uses the object, as a delete failure names it. */
export interface Holder {
  id: string;
  name: string;
  /** What it is and its state, e.g. `RUNNING` or `serverless endpoint`. */
  status: string;
}

export interface DeleteWhenUnused {
  /** The DELETE; NotFoundError counts as done. */
  remove: () => Promise<void>;
  /** What uses the object now, from a fresh list. */
  holders: () => Promise<Holder[]>;
  /** Whether an error of `remove` means "still in use". @default a ConflictError (409) */
  inUse?: (err: unknown) => boolean;
  /** The error once the wait is over: `conflict` is the platform's last refusal. */
  failure: (holders: Holder[], conflict: ApiError | undefined) => Error;
  waitMs: number;
  pollIntervalMs: number;
  clock: Pick<Clock, "now" | "sleep">;
  signal?: AbortSignal;
}

/**
 * DELETE; while the platform says the object is in use, look up its users every
 * `pollIntervalMs` and DELETE again once none is listed, until `waitMs` is spent.
 */
export async function deleteWhenUnused(d: DeleteWhenUnused): Promise<void> {
  const inUse = d.inUse ?? ((err: unknown) => err instanceof ConflictError);
  const deadline = d.clock.now() + d.waitMs;
  // The deadline ends the wait; the bound on rounds keeps the loop finite even under a
  // clock that does not advance.
  const maxRounds = Math.ceil(d.waitMs / d.pollIntervalMs) + 2;
  let holders: Holder[] = [];
  let conflict: ApiError | undefined;
  for (let round = 0; round < maxRounds; round++) {
    // While a listed user remains a DELETE would only be refused again.
    if (holders.length === 0) {
      try {
        await d.remove();
        return;
      } catch (err) {
        if (err instanceof NotFoundError) return;
        if (!inUse(err)) throw err;
        conflict = err as ApiError;
      }
    }
    const left = deadline - d.clock.now();
    if (left <= 0) break;
    await d.clock.sleep(Math.min(d.pollIntervalMs, left), d.signal);
    holders = await d.holders();
  }
  if (holders.length === 0) holders = await d.holders();
  throw d.failure(holders, conflict);
}

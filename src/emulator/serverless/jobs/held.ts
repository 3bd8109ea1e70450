// Calls held open on a job (runsync, status-sync, a completion) and the account's bound on them
// (`heldCalls`): each is woken by its job's end or purge, or by the timer at its own deadline,
// never by polling. A hosted model's held calls count against the same bound (holdOther).
import { busy, type Job, type Reply, type Waiter } from "./job";

export class HeldCalls {
  private readonly waiters = new Map<Job, Set<Waiter>>();
  private held = 0;

  constructor(private readonly limit: number) {}

  /** The answer to a call past the limit: 503 with Retry-After. */
  tooMany(): Reply {
    return busy(503, `${this.limit} calls are held open on jobs already, the emulator's limit: retry, or submit with run and read status`);
  }

  /** Whether one more call may be held open: false means answer 503 at once. */
  canHold(): boolean {
    return this.held < this.limit;
  }

  /** A call held elsewhere counted against the limit: the function ends it; undefined past the limit. */
  holdOther(): (() => void) | undefined {
    if (!this.canHold()) return undefined;
    this.held += 1;
    let ended = false;
    return () => {
      if (!ended) this.held -= 1;
      ended = true;
    };
  }

  /** Holds a call on `job` until `release` ends it: resolves `gone` when the job itself is gone. */
  hold(job: Job, waitEnd: number, until: number): Promise<boolean> {
    return new Promise<boolean>((done) => {
      let set = this.waiters.get(job);
      if (!set) this.waiters.set(job, (set = new Set()));
      set.add({ waitEnd, until, done });
      this.held += 1;
    });
  }

  /** Ends the held calls on `job` (those `only` picks): `gone` when the job itself is gone. */
  release(job: Job, gone: boolean, only?: (w: Waiter) => boolean): void {
    const set = this.waiters.get(job);
    if (!set) return;
    for (const w of [...set])
      if (!only || only(w)) {
        set.delete(w);
        this.held -= 1;
        w.done(gone);
      }
    if (set.size === 0) this.waiters.delete(job);
  }

  /** Ends every call held on a job of a deleted endpoint, as gone. */
  releaseEndpoint(endpointId: string): void {
    for (const job of [...this.waiters.keys()]) if (job.endpointId === endpointId) this.release(job, true);
  }

  /** Ends the calls whose wait ran out, on the emulator's clock (`now`) or in real time (`real`). */
  releaseDue(now: number, real: number): void {
    for (const job of [...this.waiters.keys()]) this.release(job, false, (w) => now >= w.waitEnd || real >= w.until);
  }

  /** Ends every held call with its job's answer as it stands (the emulator closes). */
  releaseAll(): void {
    for (const job of [...this.waiters.keys()]) this.release(job, false);
  }

  /** The endpoints some call waits on. */
  endpoints(): Set<string> {
    const ids = new Set<string>();
    for (const job of this.waiters.keys()) ids.add(job.endpointId);
    return ids;
  }

  /** Clock ms until the first held call's deadline (on either clock), capped at `cap`; `cap` when none is held. */
  untilFirstDeadline(now: number, real: number, cap: number): number {
    let delay = cap;
    for (const set of this.waiters.values()) for (const w of set) delay = Math.min(delay, Math.max(Math.min(w.waitEnd - now, w.until - real), 0) + 1);
    return delay;
  }
}

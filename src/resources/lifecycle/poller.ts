import { type Clock, ConfigurationError, unreadableRecord } from "../../client";

/**
 * One poller per client and kind for every object this process waits on. A `pulumi up` that
 * creates twenty pods would otherwise send twenty GETs per tick; here each tick is one list
 * call, and every waiter reads its object from that one answer. A waiter's ticks back off
 * while its object is in a slow phase (the kind's `slow` predicate: a pod PROVISIONING, an
 * endpoint whose workers start or drain), and every wait has a deadline and an abort signal,
 * so the loop always ends. Each kind brings its own readiness predicate to `wait`.
 *
 * A tick starts at least `intervalMs` after the previous list was answered, however waiters
 * come: a destroy's waiters join one by one as their DELETEs are answered (paced by the
 * quota), and each would otherwise bring a list of its own one interval after it joined. A
 * waiter that joins between ticks is looked at by the next one, one interval after it joined
 * at the latest, as on its own; one that joins while a list is out, one interval after that
 * list's answer (the list may predate its object).
 *
 * Its lists yield to work (`StatusRead`): while the creates, updates and deletes of the key wait
 * for the rate limit, the tick's list waits behind them, then answers every waiter at once. A
 * waiter is answered by a list that left for the server after it joined (a list that waited
 * behind its own DELETE sees the DELETE), however long ago the tick began.
 */

/** How the poller sends its lists: a status read that yields to work, and tells when it leaves. */
export interface StatusRead {
  yieldToWork: true;
  /** Called as the list leaves for the server (after any wait for the rate limit). */
  onSend: () => void;
}

/** What the poller needs of an object: its id, and a status for the timeout message. */
export interface Polled {
  id: string;
  status?: string;
}

/**
 * A waiter's reading of its pod as last listed (`undefined`: not listed, which for the
 * platform's list means terminated or never existed). Return "done" to resolve the wait,
 * "pending" to look again later, or an Error to fail the wait with it.
 */
export type Condition<P extends Polled> = (item: P | undefined) => "done" | "pending" | Error;

/** Timing of the shared poller. */
export interface PollerTimings {
  /**
   * Delay between ticks while a pod is past PROVISIONING, in ms. A pod is found RUNNING on
   * average half a tick after it got there: 1.5 s keeps that under a second (bench/readiness).
   * @default 1500
   */
  intervalMs?: number;
  /**
   * Upper bound of the delay while pods are PROVISIONING; the delay grows by `backoff` each
   * tick up to this.
   * @default 10000
   */
  maxIntervalMs?: number;
  /**
   * Growth factor of the delay while PROVISIONING.
   * @default 1.5
   */
  backoff?: number;
}

/** What a kind tells its poller. */
export interface PollerOptions<P extends Polled> extends PollerTimings {
  /** The kind's word in messages: `pod`, `endpoint`. */
  noun: string;
  /** Whether the object is in a slow phase, where ticks back off by `backoff` up to `maxIntervalMs`. */
  slow: (item: P | undefined) => boolean;
}

/** Options of one wait. */
export interface WaitOptions<P extends Polled> {
  /** When the wait is over. */
  until: Condition<P>;
  /** Upper bound of the wait, in ms. */
  timeoutMs: number;
  /** What the wait is for, for the timeout message (e.g. `RUNNING`). */
  description: string;
  /** Cancels the wait; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A wait ran out of time. Carries the object as last listed, so the caller can keep its state. */
export class WaitTimeoutError<P extends Polled = Polled> extends Error {
  readonly id: string;
  readonly waitedMs: number;
  readonly last: P | undefined;
  constructor(noun: string, id: string, description: string, waitedMs: number, last: P | undefined) {
    const where = last ? (last.status ? `it is ${last.status}` : "it is still listed") : "it was not listed";
    super(`${noun} ${id} did not become ${description} within ${Math.round(waitedMs / 1000)} s (${where})`);
    this.name = "WaitTimeoutError";
    this.id = id;
    this.waitedMs = waitedMs;
    this.last = last;
  }
}

interface Waiter<P extends Polled> {
  id: string;
  until: Condition<P>;
  description: string;
  startedAt: number;
  deadline: number;
  delay: number;
  nextAt: number;
  /** The poller's event number when the waiter joined: a list sent earlier says nothing about it. */
  joinedAt: number;
  last: P | undefined;
  settle: (outcome: { pod: P | undefined } | { error: unknown }) => void;
}

/** True for errors that no amount of waiting fixes (bad key, missing permission, a client that cannot run here...). */
export function isFatal(err: unknown): boolean {
  if (err instanceof ConfigurationError) return true;
  const status = (err as { status?: unknown })?.status;
  return typeof status === "number" && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** The shared poller. Construct one per client and kind; `wait` may be called from any number of resources. */
export class Poller<P extends Polled> {
  private readonly waiters = new Set<Waiter<P>>();
  private readonly intervalMs: number;
  private readonly maxIntervalMs: number;
  private readonly backoff: number;
  private readonly noun: string;
  private readonly slow: (item: P | undefined) => boolean;
  private running = false;
  /** Numbers the joins and the sends of lists, in the order they happened. */
  private events = 0;
  private wake: AbortController | undefined;
  private sleepingUntil = Number.POSITIVE_INFINITY;
  /** When the last list was answered (or failed): the next tick is one interval later at the earliest. */
  private listedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly list: (how: StatusRead) => Promise<P[]>,
    private readonly clock: Clock,
    options: PollerOptions<P>,
  ) {
    const timings = options;
    this.noun = options.noun;
    this.slow = options.slow;
    this.intervalMs = Math.max(1, timings.intervalMs ?? 1500);
    this.maxIntervalMs = Math.max(this.intervalMs, timings.maxIntervalMs ?? 10_000);
    this.backoff = Math.max(1, timings.backoff ?? 1.5);
  }

  /** Objects being waited on right now. */
  get waiting(): number {
    return this.waiters.size;
  }

  /**
   * Waits until `until` says "done" for the object `id`, as seen by the shared list. Resolves
   * with the pod as last listed (undefined when it is no longer listed).
   */
  wait(id: string, options: WaitOptions<P>): Promise<P | undefined> {
    return new Promise<P | undefined>((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const now = this.clock.now();
      const onAbort = () => waiter.settle({ error: signal!.reason });
      const waiter: Waiter<P> = {
        id,
        until: options.until,
        description: options.description,
        startedAt: now,
        deadline: now + Math.max(0, options.timeoutMs),
        delay: this.intervalMs,
        nextAt: now + this.intervalMs,
        joinedAt: ++this.events,
        last: undefined,
        settle: (outcome) => {
          if (!this.waiters.delete(waiter)) return;
          signal?.removeEventListener("abort", onAbort);
          if ("error" in outcome) reject(outcome.error);
          else resolve(outcome.pod);
        },
      };
      // No `once`: every way a wait ends (the abort's among them) removes the listener in `settle`.
      signal?.addEventListener("abort", onAbort);
      this.waiters.add(waiter);
      this.ensureRunning(Math.min(waiter.nextAt, waiter.deadline));
    });
  }

  private ensureRunning(dueAt: number): void {
    if (!this.running) {
      this.running = true;
      void this.run();
    } else if (dueAt < this.sleepingUntil) {
      // The loop sleeps past this waiter's first look: wake it to recompute.
      this.wake?.abort();
    }
  }

  private async run(): Promise<void> {
    try {
      while (this.waiters.size > 0) {
        const now = this.clock.now();
        let dueAt = Number.POSITIVE_INFINITY;
        for (const w of this.waiters) dueAt = Math.min(dueAt, w.nextAt, w.deadline);
        // One list per tick: however many waiters joined since the last one.
        dueAt = Math.max(dueAt, this.listedAt + this.intervalMs);
        if (dueAt > now) {
          this.wake = new AbortController();
          this.sleepingUntil = dueAt;
          try {
            await this.clock.sleep(dueAt - now, this.wake.signal);
          } catch {
            // Woken early by a new waiter: recompute the next tick.
          }
          this.sleepingUntil = Number.POSITIVE_INFINITY;
          continue;
        }
        await this.tick();
      }
    } finally {
      this.running = false;
      // A waiter that joined while the loop was winding down still needs a loop.
      // Stryker disable next-line ConditionalExpression: the loop ends with waiters left only when a kind's `slow` throws, which none does
      if (this.waiters.size > 0) this.ensureRunning(0);
    }
  }

  private async tick(): Promise<void> {
    // When the list left (a list that does not say so: when it was asked for).
    let sentAt = ++this.events;
    let pods: P[] | undefined;
    let failure: unknown;
    try {
      pods = await this.list({ yieldToWork: true, onSend: () => (sentAt = ++this.events) });
    } catch (err) {
      failure = err;
    }
    const now = this.clock.now();
    this.listedAt = now;
    const byId = new Map(pods?.map((p) => [p.id, p] as const));
    for (const w of [...this.waiters]) {
      // Joined after this list was sent: the list may predate its pod.
      // Stryker disable next-line EqualityOperator: joins and sends draw distinct numbers from one counter, so `>` and `>=` agree
      if (w.joinedAt > sentAt) continue;
      if (isFatal(failure)) {
        w.settle({ error: failure });
        continue;
      }
      // Listed but unreadable (a status this release does not know): no news of it this tick, never "gone".
      if (pods && (byId.has(w.id) || !unreadableRecord(pods, w.id))) {
        const pod = byId.get(w.id);
        w.last = pod;
        let verdict: ReturnType<Condition<P>>;
        try {
          verdict = w.until(pod);
        } catch (err) {
          verdict = err instanceof Error ? err : new Error(String(err));
        }
        if (verdict === "done") {
          w.settle({ pod });
          continue;
        }
        if (verdict instanceof Error) {
          w.settle({ error: verdict });
          continue;
        }
      }
      if (now >= w.deadline) {
        const error = new WaitTimeoutError(this.noun, w.id, w.description, now - w.startedAt, w.last);
        if (failure !== undefined) (error as { cause?: unknown }).cause = failure;
        w.settle({ error });
        continue;
      }
      // A slow phase says little until it ends: look less often. Otherwise keep the pace.
      w.delay = this.slow(w.last) ? Math.min(this.maxIntervalMs, w.delay * this.backoff) : this.intervalMs;
      w.nextAt = now + w.delay;
    }
  }
}

/**
 * `COMPUTEPLATFORM_POLL_INTERVAL_MS` sets the pollers' pace (pods and endpoints) inside the plugin, where no
 * options reach the provider: a slower pace for a large fleet, a fast one against the emulator.
 */
export function pollFromEnv(env: Readonly<Record<string, string | undefined>>): PollerTimings {
  const ms = Number(env.COMPUTEPLATFORM_POLL_INTERVAL_MS);
  if (!Number.isInteger(ms) || ms <= 0) return {};
  return { intervalMs: ms, maxIntervalMs: Math.max(ms, 5 * ms) };
}

// The pacer: one key's requests wait here for the budget the registry (pacing-registry.ts, the
// policy) grants, each in its key's line, which the registry keeps beside the key's count of work
// waiting. The registry's names are handed on from here, so importers keep one path.
import type { Clock } from "./clock";
import type { PacingRegistry, PacingTicket } from "./pacing-registry";
import type { HeaderMap } from "./retry";

export {
  PacingRegistry,
  sharedPacing,
  PATIENCE_MS,
  STALE_MS,
  type PacingDecision,
  type PacingTicket,
  type ReserveOptions,
} from "./pacing-registry";

/**
 * Passes of one `acquire`: each pass either lets the request go or waits for a reset or an
 * answer, which always come; the cap stops a pathological server.
 */
const MAX_PASSES = 100_000;

/** A pacer bound to one key and clock. */
export class Pacer {
  constructor(
    private readonly registry: PacingRegistry,
    private readonly keyId: string,
    private readonly clock: Clock,
  ) {}

  /** The current wait for this key, in ms. */
  pendingMs(): number {
    return this.registry.waitMs(this.keyId, this.clock.now());
  }

  /** Wait out any hold (cancellable); loops because another response may extend it meanwhile. */
  async wait(signal: AbortSignal | undefined, maxWaitMs: number): Promise<void> {
    // Bounded: each pass either returns or sleeps a positive hold, which no one extends forever
    // without the server saying so; the cap below stops a pathological server.
    for (let pass = 0; pass < 8; pass++) {
      const ms = this.pendingMs();
      if (ms <= 0) return;
      await this.clock.sleep(Math.min(ms, maxWaitMs), signal);
    }
  }

  /**
   * Wait until the budget lets one request go, and count it (cancellable). Every ticket must be
   * handed back to {@link settle}, answered or not. A status read (`yields`) goes after the
   * work that waits for the budget (see the top of the file).
   */
  async acquire(signal: AbortSignal | undefined, maxWaitMs: number, yields = false): Promise<PacingTicket> {
    let waited = false;
    const since = this.clock.now();
    const line = this.registry.line(this.keyId, yields);
    const place = line.join();
    try {
      if (!line.first(place)) {
        // Behind others: it waits for the budget as they do, and asks it when they have gone.
        if (!yields) this.registry.waiting(this.keyId, 1);
        waited = true;
        await line.turn(place, signal);
      }
      for (let pass = 0; pass < MAX_PASSES; pass++) {
        const now = this.clock.now();
        // A status read yields for one window at most, then takes its turn (see the top of the file).
        const yielding = yields && now - since < this.registry.yieldLimitMs(this.keyId);
        const d = this.registry.reserve(this.keyId, now, { yields: yielding, waited });
        if ("go" in d) return d.go;
        if (!waited && !yields) this.registry.waiting(this.keyId, 1);
        waited = true;
        if ("waitMs" in d) await this.clock.sleep(Math.min(d.waitMs, maxWaitMs), signal);
        else await this.answerOrTime(d.maxWaitMs, signal);
        // A status read woken by an answer looks again once the code awaiting that answer has
        // run (a DELETE's caller starts its wait): the read then serves it too.
        if (yields) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      throw new Error(`rate-limit pacing gave up after ${MAX_PASSES} waits`);
    } finally {
      line.leave(place);
      if (waited && !yields) this.registry.waiting(this.keyId, -1);
    }
  }

  /** Until the next answer with this key, or `ms` (a request out that long holds nothing back), or an abort. */
  private async answerOrTime(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const done = new AbortController();
    const onAbort = () => done.abort(signal!.reason);
    if (signal?.aborted) throw signal.reason;
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, so its listener runs once either way
    signal?.addEventListener("abort", onAbort, { once: true });
    const answer = this.registry.nextAnswer(this.keyId, done.signal);
    const timer = this.clock.sleep(ms, done.signal);
    // The one that loses is cancelled below: its rejection is expected.
    answer.catch(() => undefined);
    timer.catch(() => undefined);
    try {
      await Promise.race([answer, timer]);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      done.abort();
    }
  }

  /** Hand back a ticket with the answer's headers (undefined when no answer came). */
  settle(ticket: PacingTicket, headers: HeaderMap | undefined): void {
    this.registry.settle(ticket, headers, this.clock.now());
  }

  /** Hold this key for `delayMs` from now. */
  hold(delayMs: number): void {
    this.registry.holdUntil(this.keyId, this.clock.now() + delayMs);
  }
}

// The pacer: one key's requests wait here for the budget the registry (pacing-registry.ts, the
// pure policy) grants. The registry's names are handed on from here, so importers keep one path.
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

/** A request's place in its key's line: `ready` settles when it is first. */
interface Place {
  ready: Promise<void>;
  call: () => void;
}

/**
 * The requests of one key waiting their turn, oldest first. Only the first asks the budget (and
 * sleeps or waits for an answer as it says); the others wait without a timer until the one before
 * them has gone. The budget's answer is the same for every request of a line (it depends on the
 * key, not on the request), so the first speaks for all of them. Without the line, every answer
 * woke every request waiting: a stack of 3,600 creates asked the budget 3,600 times per request
 * sent, and that work, not the quota, set the pace of its `up` (issue 50). The line also lets
 * requests go in the order they asked: a create started first is sent first.
 */
class Line {
  private readonly places = new Set<Place>();

  /** A new place at the end of the line. */
  join(): Place {
    let call!: () => void;
    const place: Place = { ready: new Promise<void>((resolve) => (call = resolve)), call };
    this.places.add(place);
    return place;
  }

  first(place: Place): boolean {
    return this.places.values().next().value === place;
  }

  /** Until `place` is first in line (cancellable). */
  async turn(place: Place, signal: AbortSignal | undefined): Promise<void> {
    if (!signal) return place.ready;
    if (signal.aborted) throw signal.reason;
    let onAbort!: () => void;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, so its listener runs once either way
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([place.ready, aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * `place` leaves the line (sent, or cancelled): the one now first asks the budget. (When `place`
   * was not first, the first was told already: telling it again changes nothing.)
   */
  leave(place: Place): void {
    this.places.delete(place);
    this.places.values().next().value?.call();
  }
}

/**
 * The lines of each registry's keys, two per key: work (creates, updates, deletes), and status
 * reads, which yield to work (the registry's rule) and so must not stand in its way.
 */
const lines = new WeakMap<PacingRegistry, Map<string, { work: Line; reads: Line }>>();

function lineOf(registry: PacingRegistry, keyId: string, reads: boolean): Line {
  let byKey = lines.get(registry);
  if (!byKey) {
    byKey = new Map();
    lines.set(registry, byKey);
  }
  let pair = byKey.get(keyId);
  if (!pair) {
    pair = { work: new Line(), reads: new Line() };
    byKey.set(keyId, pair);
  }
  return reads ? pair.reads : pair.work;
}

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
    const line = lineOf(this.registry, this.keyId, yields);
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

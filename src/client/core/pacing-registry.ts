import { createHash } from "node:crypto";
import { type HeaderMap, parseRateLimit, parseRateLimitPolicy } from "./retry";

/**
 * Rate-limit pacing, one budget per API key shared by every client in the process.
 *
 * Two mechanisms. A hold: after a 429 (or a hold set by hand) every request with that key
 * waits until the named time. And a budget: each `RateLimit` header says what each window has
 * left (`r`) and when it resets (`t`); the registry counts every request it lets go against that
 * until its answer comes, and makes the rest wait for the reset when it runs out. Counting before
 * sending, not reading `r=0` after, keeps a burst (a fleet of pods created at once) from 429s.
 *
 * The quota is the key's, not the process's: another process (a second stack's `up`, a CI
 * matrix) may spend it at the same time, unseen. So:
 *   - Learn before bursting. Until an answer of the key says whether and how the server counts,
 *     one request goes at a time; and again at the start of every window, and when the newest
 *     count is old news (the request it answered went more than STALE_MS ago: a quiet spell, or
 *     a process too busy to read its answers), since what a neighbour spent meanwhile only an
 *     answer tells. (Not while more is left than a neighbour could send meanwhile: a day's quota.)
 *   - Believe the lowest count. The server's `r` only falls within a window, so the lowest `r`
 *     answered is the newest word on it, a neighbour's spending included. What is left is that,
 *     less this process's requests still out (they may have reached the server after it).
 *   - Commit at most a third of what is left at a time. Requests out are at most a third of
 *     the lowest count, so a neighbour doing the same cannot, together with this process, send
 *     more than is left before either hears the new count. (One neighbour: three processes
 *     bursting on one key at once may still meet a few 429s, which the client waits out.)
 *   - Leave the window's last two requests to a neighbour: two processes that both read `r=1`
 *     would otherwise both send it, and one whose count is a little old one more.
 *   - Keep room for a neighbour's requests in flight (`neighbourShare`).
 * A request out longer than PATIENCE_MS (a hosted-model call) no longer holds the others back.
 *
 * Status reads yield to work. A request that only looks (a poller's list: `yields`) waits while
 * another request of the key waits for the budget or is out after waiting: its one answer then
 * sees what they did, and a binding quota is spent on the changes first. It yields for one
 * window at most (the shortest the server names, else a minute), so a poller's waiters hear of
 * their objects about once a window, however long the work ahead.
 *
 * A server that sends no `RateLimit` is not gated after its first answer. Keys are held as hashes.
 */

/** How long a request out holds back the requests behind it, at most (ms). */
export const PATIENCE_MS = 2000;

/** A count from a request sent longer ago than this (ms) may be old news: one request asks again before more go. */
export const STALE_MS = 100;

/** How long a status read yields to work when no answer has named a window (ms). */
const DEFAULT_YIELD_MS = 60_000;

/** More left than this, a count's age does not matter: no neighbour sends that many before an answer. */
const STALE_BELOW = 1000;

/**
 * Requests out are at most the lowest count divided by this. A half would do if both
 * processes heard the same count at once; a neighbour's answers come late, and a third leaves
 * room for what it sent meanwhile (simulated in test/unit/client/core/pacing.test.ts: two
 * processes with bursts of any size at any offset meet no 429).
 */
const SHARE = 3;

/** One window of one key, as the answers told it. */
interface WindowBudget {
  /** The lowest `r` answered to a request sent in this window (after a reset: the quota, less the requests then out). */
  lowest: number;
  /** Requests sent in this window whose answers never came: they may have been counted. */
  lost: number;
  /** When the window resets (ms); undefined right after a reset, until an answer of the new window says. */
  resetAt: number | undefined;
  /** `q` of `RateLimit-Policy`: what the count starts from after a reset. */
  quota: number | undefined;
  /** `w` of `RateLimit-Policy`, in ms. */
  windowMs: number | undefined;
  /** Since when this count holds: answers to requests sent earlier belong to an older window. */
  since: number;
  /** An answer to a request sent in this window was read (false from a reset to the first answer). */
  fresh: boolean;
  /** When the newest request answered in this window went: its count is news of that moment or later. */
  heardFrom: number;
  /** This process's requests that may count in this window: those out when it began, and every one sent since. */
  own: number;
  /** When an answer last showed a neighbour spending this window, and the highest count it was seen at within the patience. */
  neighbour?: { at: number; level: number };
}

interface KeyBudget {
  /** `unknown`: nothing answered yet, one request at a time; `untracked`: the server sends no counts. */
  mode: "unknown" | "tracked" | "untracked";
  /** Requests let go so far (a ticket's number). */
  sent: number;
  /** Requests let go and not settled yet: number to when it went. */
  out: Map<number, number>;
  windows: Map<string, WindowBudget>;
  /** Wake-ups for requests waiting on an answer (or, for a status read, on the work ahead of it) rather than on a time. */
  onAnswer: Set<() => void>;
  /** Requests that change something (not status reads) waiting for the budget now. */
  working: number;
  /** Of the requests out, those the budget held back before they went: number to when it went. */
  heldBack: Map<number, number>;
  /**
   * The key's requests waiting their turn (see {@link Line}), two lines: work (creates, updates,
   * deletes), and status reads, which yield to work and so must not stand in its way.
   */
  lines: { work: Line; reads: Line };
}

/** A request let go by the budget; handed back with its answer. */
export interface PacingTicket {
  readonly keyId: string;
  readonly sentAt: number;
  /** Its number among the key's requests. */
  readonly seq: number;
}

/** How a request asks the budget. */
export interface ReserveOptions {
  /** A status read: it goes only when no other request waits for the budget, nor is out after waiting. */
  yields?: boolean;
  /** It waited for the budget before (a status read waits for it to be answered). */
  waited?: boolean;
}

/** What a request must do before it may go. */
export type PacingDecision =
  | { go: PacingTicket }
  | { waitMs: number }
  /** Wait for the next answer with this key (the budget depends on it), or `maxWaitMs` at most. */
  | { waitForAnswer: true; maxWaitMs: number };

/**
 * The last requests of a window are left to a neighbour: two processes that both read `r=1`
 * would both send it, and one whose count is a little old may still send one more than is left.
 * (Fewer with a quota of one or two, which would otherwise never be spent.)
 */
// Stryker disable next-line ArithmeticOperator: an answer's r is below its window's q, so with a quota of one or two every count is spent under either reserve
const reserveOf = (w: WindowBudget): number => Math.max(0, Math.min(2, (w.quota ?? 3) - 1));

/**
 * What a window keeps beyond its reserve for a neighbour seen spending it (an answer's count
 * lower than this process's own requests explain) within the patience: a third of the highest
 * count it was seen at, less the one request the reserve leaves it. Its requests let go at that
 * count may land after this process spent down to the reserve (a stalled process: two ups at
 * once met a 429 so, one run in five). It moves where the window stops, not its pace.
 */
const neighbourShare = (w: WindowBudget, nowMs: number): number =>
  w.neighbour && nowMs - w.neighbour.at < PATIENCE_MS ? Math.max(0, Math.floor((w.neighbour.level - reserveOf(w)) / SHARE) - 1) : 0;

/** A request's place in its key's line: `ready` settles when it is first. */
export interface Place {
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
export class Line {
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

export class PacingRegistry {
  private readonly resumeAt = new Map<string, number>();
  private readonly budgets = new Map<string, KeyBudget>();

  /** A fingerprint of `apiKey`: what the registry (and a log line) may hold. */
  static keyId(apiKey: string): string {
    return createHash("sha256").update(apiKey).digest("hex").slice(0, 16);
  }

  /** Requests with `keyId` must not start before `atMs` (later resumes win). */
  holdUntil(keyId: string, atMs: number): void {
    this.resumeAt.set(keyId, Math.max(atMs, this.resumeAt.get(keyId) ?? 0));
  }

  /**
   * How long a request with `keyId` must wait now, in ms (0 when it may go, as far as time
   * goes): a hold, or a spent window's reset.
   */
  waitMs(keyId: string, nowMs: number): number {
    // A hold that has passed waits 0 ms (its entry stays: one a key).
    let wait = Math.max(0, (this.resumeAt.get(keyId) ?? 0) - nowMs);
    const budget = this.budgets.get(keyId);
    if (budget?.mode === "tracked") {
      this.roll(budget, nowMs);
      for (const w of budget.windows.values()) {
        if (this.left(budget, w, nowMs) <= reserveOf(w) && w.resetAt !== undefined) wait = Math.max(wait, w.resetAt - nowMs);
      }
    }
    return wait;
  }

  /** Whether a request with `keyId` may go now; if so, it is counted as out. */
  reserve(keyId: string, nowMs: number, how: ReserveOptions = {}): PacingDecision {
    const held = this.waitMs(keyId, nowMs);
    if (held > 0) return { waitMs: held };
    const budget = this.budget(keyId);
    if (how.yields) {
      // Work waits for the budget, or is out after waiting: this read goes after it.
      const behind = this.heldBackOut(budget, nowMs);
      if (budget.working > 0) return { waitForAnswer: true, maxWaitMs: PATIENCE_MS };
      if (behind.count > 0) return { waitForAnswer: true, maxWaitMs: behind.patienceMs };
    }
    if (budget.mode === "unknown") {
      // Nothing known yet: one request finds out.
      const out = this.recentOut(budget, Number.NEGATIVE_INFINITY, nowMs);
      if (out.count > 0) return { waitForAnswer: true, maxWaitMs: out.patienceMs };
    } else {
      // Tracked (an untracked key has no windows: nothing below holds its requests back).
      // A window that reset since its last answer, or not heard of lately: one request reads what is left of it.
      const stale = [...budget.windows.values()].filter(
        (w) => !w.fresh || (nowMs - w.heardFrom > STALE_MS && w.lowest - w.lost <= STALE_BELOW),
      );
      // None stale: the earliest start is Infinity, and no request went after it.
      const asking = this.recentOut(budget, Math.min(...stale.map((w) => w.since)), nowMs);
      if (asking.count > 0) return { waitForAnswer: true, maxWaitMs: asking.patienceMs };
      for (const w of budget.windows.values()) {
        if (!w.fresh) continue;
        const reserve = reserveOf(w);
        const out = this.recentOut(budget, w.since, nowMs);
        const left = w.lowest - w.lost;
        // Stryker disable next-line ArithmeticOperator: requests out that spend the window are also at least its share, so adding them waits the same
        if (left - out.count <= reserve + neighbourShare(w, nowMs)) {
          // Spent: an answer out may say more; with none out and no reset time known (an
          // answer without `t`), assume a whole window from its start.
          if (out.count > 0) return { waitForAnswer: true, maxWaitMs: out.patienceMs };
          // Only what is kept for a neighbour's requests in flight holds it: until they have landed.
          if (left > reserveOf(w) && w.neighbour) return { waitMs: Math.max(1, w.neighbour.at + PATIENCE_MS - nowMs) };
          w.resetAt = w.since + (w.windowMs ?? 1000);
          return { waitMs: Math.max(1, w.resetAt - nowMs) };
        }
        // At most a third of what the answers left may be out at once (see the top of the file).
        const share = Math.max(1, Math.floor((left - reserve) / SHARE));
        if (out.count >= share) return { waitForAnswer: true, maxWaitMs: out.patienceMs };
      }
    }
    const seq = ++budget.sent;
    budget.out.set(seq, nowMs);
    for (const w of budget.windows.values()) w.own++;
    if (how.waited && !how.yields) budget.heldBack.set(seq, nowMs);
    return { go: { keyId, sentAt: nowMs, seq } };
  }

  /** The line of `keyId`'s work, or of its status reads (`reads`), where its requests wait their turn. */
  line(keyId: string, reads: boolean): Line {
    const { lines } = this.budget(keyId);
    return reads ? lines.reads : lines.work;
  }

  /**
   * A request that changes something starts (`+1`) or stops (`-1`) waiting for the budget of
   * `keyId`. When none waits any more, the status reads behind them look again.
   */
  waiting(keyId: string, delta: 1 | -1): void {
    const budget = this.budget(keyId);
    budget.working = Math.max(0, budget.working + delta);
    if (budget.working === 0) this.wake(budget);
  }

  /**
   * The answer to a request let go by `reserve` (headers undefined when none came: the
   * connection failed). Updates the budget from `RateLimit` and `RateLimit-Policy`.
   */
  settle(ticket: PacingTicket, headers: HeaderMap | undefined, nowMs: number): void {
    const budget = this.budget(ticket.keyId);
    budget.out.delete(ticket.seq);
    budget.heldBack.delete(ticket.seq);
    const windows = headers ? parseRateLimit(headers.ratelimit) : undefined;
    // No answer: the request may have reached the server and been counted.
    if (!headers) for (const w of budget.windows.values()) if (ticket.sentAt >= w.since) w.lost++;
    if (windows) {
      // Windows are kept only while tracked: a key becoming tracked has none to clear.
      const policy = parseRateLimitPolicy(headers!["ratelimit-policy"]);
      budget.mode = "tracked";
      for (const win of windows) {
        if (win.remaining === undefined) continue;
        const p = policy?.find((x) => x.name === win.name);
        const seconds = win.resetSeconds ?? p?.windowSeconds;
        // `t` is whole seconds rounded up, so each answer bounds the reset from above; the
        // earliest bound is the closest.
        const resetAt = seconds === undefined ? undefined : nowMs + seconds * 1000;
        const known = budget.windows.get(win.name);
        if (!known) {
          budget.windows.set(win.name, {
            lowest: win.remaining,
            lost: 0,
            resetAt,
            quota: p?.quota,
            windowMs: p?.windowSeconds === undefined ? undefined : p.windowSeconds * 1000,
            since: ticket.sentAt,
            fresh: true,
            heardFrom: ticket.sentAt,
            // Every request this process has sent may be in the server's first window.
            own: budget.sent,
          });
          continue;
        }
        // Sent before this window began: the answer speaks of the previous one.
        if (ticket.sentAt < known.since) continue;
        known.lowest = Math.min(known.lowest, win.remaining);
        const quota = p?.quota ?? known.quota;
        // Stryker disable next-line ConditionalExpression: counted more of this window than this process sent, a neighbour spends it too (no quota known: NaN > own is false)
        if (quota !== undefined && quota - win.remaining > known.own) {
          const recent = known.neighbour && nowMs - known.neighbour.at < PATIENCE_MS ? known.neighbour.level : 0;
          known.neighbour = { at: nowMs, level: Math.max(recent, win.remaining) };
        }
        known.fresh = true;
        known.heardFrom = Math.max(known.heardFrom, ticket.sentAt);
        if (resetAt !== undefined) known.resetAt = known.resetAt === undefined ? resetAt : Math.min(known.resetAt, resetAt);
        if (p?.quota !== undefined) known.quota = p.quota;
        if (p?.windowSeconds !== undefined) known.windowMs = p.windowSeconds * 1000;
      }
    } else if (headers && budget.mode === "unknown") {
      // Answered without counts: a server (or a path) that does not limit.
      // Stryker disable next-line StringLiteral: the mode is only ever compared with "unknown" and "tracked"
      budget.mode = "untracked";
    }
    this.wake(budget);
  }

  private wake(budget: KeyBudget): void {
    const wake = [...budget.onAnswer];
    budget.onAnswer.clear();
    for (const w of wake) w();
  }

  /** Resolves at the next `settle` with `keyId` (or when no work waits any more), or rejects when `signal` aborts. */
  nextAnswer(keyId: string, signal?: AbortSignal): Promise<void> {
    const budget = this.budget(keyId);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        budget.onAnswer.delete(done);
        reject(signal!.reason);
      };
      const done = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      budget.onAnswer.add(done);
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, so its listener runs once either way
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** How long a status read yields to work at most: the shortest window of the key, else a minute. */
  yieldLimitMs(keyId: string): number {
    const spans = [...this.budget(keyId).windows.values()].map((w) => w.windowMs).filter((ms): ms is number => ms !== undefined);
    return spans.length > 0 ? Math.min(...spans) : DEFAULT_YIELD_MS;
  }

  /** Forget every hold and budget (tests). */
  clear(): void {
    this.resumeAt.clear();
    this.budgets.clear();
  }

  private budget(keyId: string): KeyBudget {
    let b = this.budgets.get(keyId);
    if (!b) {
      b = { mode: "unknown", sent: 0, out: new Map(), windows: new Map(), onAnswer: new Set(), working: 0, heldBack: new Map(), lines: { work: new Line(), reads: new Line() } };
      this.budgets.set(keyId, b);
    }
    return b;
  }

  /** What window `w` has left for this process to send now. */
  private left(budget: KeyBudget, w: WindowBudget, nowMs: number): number {
    return w.lowest - w.lost - this.recentOut(budget, w.since, nowMs).count;
  }

  /** Requests out that the budget held back before they went, within the patience (a status read waits for them). */
  private heldBackOut(budget: KeyBudget, nowMs: number): { count: number; patienceMs: number } {
    return this.within(budget.heldBack, Number.NEGATIVE_INFINITY, nowMs);
  }

  /**
   * Requests out that went at or after `since`, within the patience: how many, and in how long
   * the first of them stops holding back.
   */
  private recentOut(budget: KeyBudget, since: number, nowMs: number): { count: number; patienceMs: number } {
    return this.within(budget.out, since, nowMs);
  }

  private within(sent: Map<number, number>, since: number, nowMs: number): { count: number; patienceMs: number } {
    let count = 0;
    let first = Number.POSITIVE_INFINITY;
    for (const at of sent.values()) {
      if (at < since || nowMs - at >= PATIENCE_MS) continue;
      count++;
      first = Math.min(first, at);
    }
    // None out: Infinity, which no caller reads.
    return { count, patienceMs: Math.max(1, first + PATIENCE_MS - nowMs) };
  }

  /**
   * Windows whose reset has passed start again from their quota, less the requests still out
   * (they may reach the server in the new window), until the new window's first answer says
   * what is left; windows without a quota are forgotten.
   */
  private roll(budget: KeyBudget, nowMs: number): void {
    for (const [name, w] of budget.windows) {
      if (w.resetAt === undefined || w.resetAt > nowMs) continue;
      if (w.quota === undefined) {
        budget.windows.delete(name);
        continue;
      }
      w.lowest = w.quota - this.recentOut(budget, Number.NEGATIVE_INFINITY, nowMs).count;
      w.own = budget.out.size;
      w.neighbour = undefined;
      w.lost = 0;
      w.resetAt = undefined;
      w.since = nowMs;
      w.fresh = false;
    }
    if (budget.windows.size === 0) budget.mode = "unknown";
  }
}

/** The process-wide registry every `ComputePlatform` uses unless given another. */
export const sharedPacing = new PacingRegistry();

import { createHash } from "node:crypto";
import type { Clock } from "./clock";
import { type HeaderMap, parseRateLimit, parseRateLimitPolicy } from "./retry";

/**
 * Rate-limit pacing, one budget per API key shared by every client in the process.
 *
 * Two mechanisms. A hold: after a 429 (or a hold set by hand) every request with that key
 * waits until the named time. And a budget: every response's `RateLimit` header says how many
 * requests each window has left (`r`) and when it resets (`t`); the registry keeps that count,
 * takes one from it for every request it lets go, and makes the rest wait for the reset when
 * it reaches 0. Counting before sending, not reading `r=0` after, is what keeps a burst of
 * concurrent requests (a fleet of pods created at once) from earning 429s: the answers of
 * requests in flight have not said `r=0` yet when the next ones would go.
 *
 * Until the first answer of a key says whether the server counts at all, one request goes at
 * a time; a server that sends no `RateLimit` is then not gated. The registry is keyed by a
 * hash of the key, so the key itself is never held here as a visible value.
 */

/** One window of one key, as the answers told it and as local sends spent it. */
interface WindowBudget {
  /** Requests left, counting those sent and not answered yet. */
  remaining: number;
  /** When the window resets (ms); undefined right after a reset, until an answer of the new window says. */
  resetAt: number | undefined;
  /** `q` of `RateLimit-Policy`: what `remaining` starts from after a reset. */
  quota: number | undefined;
  /** `w` of `RateLimit-Policy`, in ms. */
  windowMs: number | undefined;
  /** Since when this count holds: answers to requests sent earlier belong to an older window. */
  since: number;
}

interface KeyBudget {
  /** `unknown`: nothing answered yet, one request at a time; `untracked`: the server sends no counts. */
  mode: "unknown" | "tracked" | "untracked";
  /** A request is out while `mode` is `unknown`. */
  probing: boolean;
  /** Requests let go and not settled yet. */
  inFlight: number;
  windows: Map<string, WindowBudget>;
  /** Wake-ups for requests waiting on an answer rather than on a time. */
  onAnswer: Set<() => void>;
}

/** A request let go by the budget; handed back with its answer. */
export interface PacingTicket {
  readonly keyId: string;
  readonly sentAt: number;
  readonly probe: boolean;
}

/** What a request must do before it may go. */
export type PacingDecision =
  | { go: PacingTicket }
  | { waitMs: number }
  /** Wait for the next answer with this key (the budget depends on it). */
  | { waitForAnswer: true };

export class PacingRegistry {
  private readonly resumeAt = new Map<string, number>();
  private readonly budgets = new Map<string, KeyBudget>();

  /** A fingerprint of `apiKey`: what the registry (and a log line) may hold. */
  static keyId(apiKey: string): string {
    return createHash("sha256").update(apiKey).digest("hex").slice(0, 16);
  }

  /** Requests with `keyId` must not start before `atMs` (later resumes win). */
  holdUntil(keyId: string, atMs: number): void {
    const current = this.resumeAt.get(keyId) ?? 0;
    if (atMs > current) this.resumeAt.set(keyId, atMs);
  }

  /**
   * How long a request with `keyId` must wait now, in ms (0 when it may go, as far as time
   * goes): a hold, or an exhausted window's reset.
   */
  waitMs(keyId: string, nowMs: number): number {
    let wait = 0;
    const at = this.resumeAt.get(keyId);
    if (at !== undefined) {
      if (at <= nowMs) this.resumeAt.delete(keyId);
      else wait = at - nowMs;
    }
    const budget = this.budgets.get(keyId);
    if (budget?.mode === "tracked") {
      this.roll(budget, nowMs);
      for (const w of budget.windows.values()) {
        if (w.remaining <= 0 && w.resetAt !== undefined) wait = Math.max(wait, w.resetAt - nowMs);
      }
    }
    return wait;
  }

  /** Whether a request with `keyId` may go now; if so, it is counted against every window. */
  reserve(keyId: string, nowMs: number): PacingDecision {
    const held = this.waitMs(keyId, nowMs);
    if (held > 0) return { waitMs: held };
    const budget = this.budget(keyId);
    if (budget.mode === "unknown") {
      if (budget.probing) return { waitForAnswer: true };
      budget.probing = true;
      budget.inFlight++;
      return { go: { keyId, sentAt: nowMs, probe: true } };
    }
    if (budget.mode === "tracked") {
      for (const w of budget.windows.values()) {
        if (w.remaining > 0) continue;
        // Exhausted with the reset time unknown: the new window went out whole and its first
        // answer will say when it ends. With nothing out any more (every one of them failed
        // unanswered), assume a whole window from its start.
        if (budget.inFlight > 0) return { waitForAnswer: true };
        w.resetAt = w.since + (w.windowMs ?? 1000);
        return { waitMs: Math.max(1, w.resetAt - nowMs) };
      }
      for (const w of budget.windows.values()) w.remaining--;
    }
    budget.inFlight++;
    return { go: { keyId, sentAt: nowMs, probe: false } };
  }

  /**
   * The answer to a request let go by `reserve` (headers undefined when none came: the
   * connection failed). Updates the budget from `RateLimit` and `RateLimit-Policy`.
   */
  settle(ticket: PacingTicket, headers: HeaderMap | undefined, nowMs: number): void {
    const budget = this.budget(ticket.keyId);
    if (ticket.probe) budget.probing = false;
    budget.inFlight = Math.max(0, budget.inFlight - 1);
    const windows = headers ? parseRateLimit(headers.ratelimit) : undefined;
    if (headers && windows === undefined) {
      if (budget.mode === "unknown") budget.mode = "untracked";
      // Answered without counts (a path the server does not limit): it did not spend the budget.
      for (const w of budget.windows.values()) {
        if (ticket.sentAt >= w.since) w.remaining = Math.min(w.quota ?? Number.POSITIVE_INFINITY, w.remaining + 1);
      }
    }
    if (windows) {
      const policy = parseRateLimitPolicy(headers?.["ratelimit-policy"]) ?? [];
      if (budget.mode !== "tracked") budget.windows.clear();
      budget.mode = "tracked";
      for (const win of windows) {
        if (win.remaining === undefined) continue;
        const p = policy.find((x) => x.name === win.name);
        const seconds = win.resetSeconds ?? p?.windowSeconds;
        // `t` is whole seconds rounded up, so each answer bounds the reset from above; the
        // earliest bound is the closest.
        const resetAt = seconds === undefined ? undefined : nowMs + seconds * 1000;
        const known = budget.windows.get(win.name);
        if (!known) {
          budget.windows.set(win.name, {
            remaining: win.remaining,
            resetAt,
            quota: p?.quota,
            windowMs: p?.windowSeconds === undefined ? undefined : p.windowSeconds * 1000,
            since: ticket.sentAt,
          });
          continue;
        }
        // Sent before this window began: the answer speaks of the previous one.
        if (ticket.sentAt < known.since) continue;
        known.remaining = Math.min(known.remaining, win.remaining);
        if (resetAt !== undefined) known.resetAt = known.resetAt === undefined ? resetAt : Math.min(known.resetAt, resetAt);
        if (p?.quota !== undefined) known.quota = p.quota;
        if (p?.windowSeconds !== undefined) known.windowMs = p.windowSeconds * 1000;
      }
    }
    const wake = [...budget.onAnswer];
    budget.onAnswer.clear();
    for (const w of wake) w();
  }

  /** Resolves at the next `settle` with `keyId`, or rejects when `signal` aborts. */
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
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Forget every hold and budget (tests). */
  clear(): void {
    this.resumeAt.clear();
    this.budgets.clear();
  }

  private budget(keyId: string): KeyBudget {
    let b = this.budgets.get(keyId);
    if (!b) {
      b = { mode: "unknown", probing: false, inFlight: 0, windows: new Map(), onAnswer: new Set() };
      this.budgets.set(keyId, b);
    }
    return b;
  }

  /** Windows whose reset has passed start again from their quota (or are forgotten without one). */
  private roll(budget: KeyBudget, nowMs: number): void {
    for (const [name, w] of budget.windows) {
      if (w.resetAt === undefined || w.resetAt > nowMs) continue;
      if (w.quota === undefined) {
        budget.windows.delete(name);
        continue;
      }
      w.remaining = w.quota;
      w.resetAt = undefined;
      w.since = nowMs;
    }
    if (budget.windows.size === 0) budget.mode = "unknown";
  }
}

/** The process-wide registry every `ComputePlatform` uses unless given another. */
export const sharedPacing = new PacingRegistry();

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
   * handed back to {@link settle}, answered or not.
   */
  async acquire(signal: AbortSignal | undefined, maxWaitMs: number): Promise<PacingTicket> {
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const d = this.registry.reserve(this.keyId, this.clock.now());
      if ("go" in d) return d.go;
      if ("waitMs" in d) await this.clock.sleep(Math.min(d.waitMs, maxWaitMs), signal);
      else await this.registry.nextAnswer(this.keyId, signal);
    }
    throw new Error(`rate-limit pacing gave up after ${MAX_PASSES} waits`);
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

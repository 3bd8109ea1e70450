// Per-key fixed windows over minute, hour and day.
// Windows are emulated time: with timeScale 10 a minute lasts six real seconds, and the
// headers speak real seconds (`w=6`) so a client that waits as told waits the right time.

export interface Quotas {
  /** Requests per minute window. @default 60 */
  minute: number;
  /** Requests per hour window. @default 3000 */
  hour: number;
  /** Requests per day window. @default 50000 */
  day: number;
}

export const DEFAULT_QUOTAS: Quotas = { minute: 60, hour: 3000, day: 50000 };

export const WINDOWS = [
  ["minute", 60],
  ["hour", 3600],
  ["day", 86400],
] as const;

type WindowName = (typeof WINDOWS)[number][0];

interface Counter {
  count: number;
  resetAt: number;
}

export interface RateDecision {
  headers: Record<string, string>;
  /** The window that refused the request, if any. */
  exceeded?: WindowName;
  retryAfterSec?: number;
}

export class RateLimiter {
  private readonly counters = new Map<string, Record<WindowName, Counter>>();

  constructor(
    private readonly defaults: Quotas,
    private readonly timeScale: number,
    private readonly now: () => number,
    /** Keys with quotas of their own (the rest have `defaults`). */
    private readonly perKey: ReadonlyMap<string, Quotas> = new Map(),
  ) {}

  private quotasOf(key: string): Quotas {
    return this.perKey.get(key) ?? this.defaults;
  }

  private windowMs(seconds: number): number {
    return (seconds * 1000) / this.timeScale;
  }

  private windowSec(seconds: number): number {
    return Math.max(1, Math.ceil(seconds / this.timeScale));
  }

  private countersOf(key: string): Record<WindowName, Counter> {
    const now = this.now();
    let c = this.counters.get(key);
    if (!c) {
      c = {} as Record<WindowName, Counter>;
      for (const [name, sec] of WINDOWS) c[name] = { count: 0, resetAt: now + this.windowMs(sec) };
      this.counters.set(key, c);
    }
    for (const [name, sec] of WINDOWS) {
      if (now >= c[name].resetAt) c[name] = { count: 0, resetAt: now + this.windowMs(sec) };
    }
    return c;
  }

  /**
   * Counts `requests` requests for `key` (one, or each mutation of a GraphQL document) unless a
   * window cannot take them all: then none is counted. Returns the headers to send.
   */
  take(key: string, requests = 1): RateDecision {
    const c = this.countersOf(key);
    const quotas = this.quotasOf(key);
    let exceeded: WindowName | undefined;
    for (const [name] of WINDOWS) {
      // The widest window that cannot take them decides how long the caller must wait.
      if (c[name].count + requests > quotas[name]) exceeded = name;
    }
    if (!exceeded) for (const [name] of WINDOWS) c[name].count += requests;
    const headers = this.headers(c, quotas);
    if (!exceeded) return { headers };
    const retryAfterSec = this.secondsUntil(c[exceeded].resetAt);
    return { headers: { ...headers, "retry-after": String(retryAfterSec) }, exceeded, retryAfterSec };
  }

  /** Gives back requests counted by `take` (a request then refused with 429 counts nothing). */
  refund(key: string, requests = 1): void {
    const c = this.countersOf(key);
    for (const [name] of WINDOWS) c[name].count = Math.max(0, c[name].count - requests);
  }

  /** The headers of a 429 storm fault: the minute window reads as exhausted for one second. */
  stormHeaders(key: string): Record<string, string> {
    const c = this.countersOf(key);
    const quotas = this.quotasOf(key);
    const fake = { ...c, minute: { count: quotas.minute, resetAt: this.now() + 1000 } };
    return { ...this.headers(fake, quotas), "retry-after": "1" };
  }

  private secondsUntil(at: number): number {
    return Math.max(1, Math.ceil((at - this.now()) / 1000));
  }

  private headers(c: Record<WindowName, Counter>, quotas: Quotas): Record<string, string> {
    const limit = WINDOWS.map(
      ([name]) =>
        `"${name}";r=${Math.max(0, quotas[name] - c[name].count)};t=${this.secondsUntil(c[name].resetAt)}`,
    ).join(", ");
    const policy = WINDOWS.map(([name, sec]) => `"${name}";q=${quotas[name]};w=${this.windowSec(sec)}`).join(
      ", ",
    );
    return { ratelimit: limit, "ratelimit-policy": policy };
  }
}

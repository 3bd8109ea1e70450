import { type BareItem, type Item, parseList, Token } from "structured-headers";

/**
 * Pure retry timing (after ky and Octokit's plugin-throttling): response headers in, a delay
 * out. `Retry-After`, `RateLimit` and `RateLimit-Policy` (RFC 9651 structured-field lists,
 * as the platform sends them) are parsed with `structured-headers`. A header that does not
 * parse is ignored, so the caller falls back to backoff instead of failing.
 */

/** Lower-case header name to value. */
export type HeaderMap = Readonly<Record<string, string | undefined>>;

/** One window of `RateLimit`: `"minute";r=0;t=12`. */
export interface RateLimitWindow {
  name: string;
  /** `r`: requests left in the window. */
  remaining: number | undefined;
  /** `t`: seconds until the window resets. */
  resetSeconds: number | undefined;
}

/** One window of `RateLimit-Policy`: `"minute";q=60;w=60`. */
export interface RateLimitPolicyWindow {
  name: string;
  /** `q`: the quota. */
  quota: number | undefined;
  /** `w`: the window length in seconds. */
  windowSeconds: number | undefined;
}

/** Backoff settings. */
export interface BackoffOptions {
  /** First backoff ceiling. @default 500 */
  baseDelayMs: number;
  /** Largest backoff ceiling. @default 30000 */
  maxBackoffMs: number;
}

/** The client's backoff when its options set none. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseDelayMs: 500, maxBackoffMs: 30_000 };

function memberName(item: BareItem): string | undefined {
  if (typeof item === "string") return item;
  if (item instanceof Token) return item.toString();
  return undefined;
}

function nonNegativeInt(v: BareItem | undefined): number | undefined {
  // Number.isInteger is false for anything but a number.
  return Number.isInteger(v) && (v as number) >= 0 ? (v as number) : undefined;
}

/**
 * The named members of a structured-field list with their integer parameters, or undefined
 * when the header is absent or does not parse. Inner lists and unnamed members are skipped.
 */
function parseMembers(header: string | undefined): { name: string; param(key: string): number | undefined }[] | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  let list: ReturnType<typeof parseList>;
  try {
    list = parseList(header);
  } catch {
    return undefined;
  }
  const out: { name: string; param(key: string): number | undefined }[] = [];
  for (const member of list) {
    // An inner list has no name (memberName): it is skipped with the other unnamed members.
    const [value, params] = member as Item;
    const name = memberName(value);
    if (name !== undefined) out.push({ name, param: (key) => nonNegativeInt(params.get(key)) });
  }
  return out;
}

/** Parse `RateLimit`; undefined when absent or malformed. */
export function parseRateLimit(header: string | undefined): RateLimitWindow[] | undefined {
  return parseMembers(header)?.map((m) => ({ name: m.name, remaining: m.param("r"), resetSeconds: m.param("t") }));
}

/** Parse `RateLimit-Policy`; undefined when absent or malformed. */
export function parseRateLimitPolicy(header: string | undefined): RateLimitPolicyWindow[] | undefined {
  return parseMembers(header)?.map((m) => ({ name: m.name, quota: m.param("q"), windowSeconds: m.param("w") }));
}

/**
 * `Retry-After` in ms: delta-seconds (the platform's form) or an HTTP-date (RFC 9110). Undefined
 * when absent or malformed (a fraction, a negative number, text).
 */
export function parseRetryAfter(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const v = header.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * How long the next request must wait because a window is exhausted (`r=0`): the longest
 * `t` among such windows. A window with `r=0` but no usable `t` falls back to its policy
 * window length `w`. Undefined when no window is exhausted or nothing parses.
 */
export function exhaustedWindowDelayMs(headers: HeaderMap): number | undefined {
  const windows = parseRateLimit(headers.ratelimit);
  if (!windows) return undefined;
  // Stryker disable next-line ArrayDeclaration: a non-window element in the fallback has no name any window's equals
  const policy = parseRateLimitPolicy(headers["ratelimit-policy"]) ?? [];
  let delay: number | undefined;
  for (const w of windows) {
    if (w.remaining !== 0) continue;
    const seconds = w.resetSeconds ?? policy.find((p) => p.name === w.name)?.windowSeconds;
    if (seconds === undefined) continue;
    delay = Math.max(delay ?? 0, seconds * 1000);
  }
  return delay;
}

/** The delay the server asked for: `Retry-After`, else an exhausted `RateLimit` window. */
export function serverDelayMs(headers: HeaderMap, nowMs: number): number | undefined {
  return parseRetryAfter(headers["retry-after"], nowMs) ?? exhaustedWindowDelayMs(headers);
}

/**
 * Exponential backoff with full jitter: a uniform delay in [0, min(max, base * 2^(attempt-1))).
 * `attempt` counts from 1 (the first retry).
 */
export function backoffMs(attempt: number, random: () => number, opts: BackoffOptions = DEFAULT_BACKOFF): number {
  const ceiling = Math.min(opts.maxBackoffMs, opts.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** The delay before retry number `attempt`: the server's (as given, no jitter), else backoff. */
export function retryDelayMs(input: {
  attempt: number;
  serverDelayMs: number | undefined;
  random: () => number;
  backoff?: BackoffOptions;
}): { delayMs: number; source: "server" | "backoff" } {
  if (input.serverDelayMs !== undefined) return { delayMs: input.serverDelayMs, source: "server" };
  return { delayMs: backoffMs(input.attempt, input.random, input.backoff), source: "backoff" };
}

/**
 * Redaction, applied where errors and log lines are built (after Octokit's request-error):
 * the bearer token and the GraphQL `api_key` query value never reach a message, a URL on
 * an error, a `cause` or a log line.
 */

const MARK = "[REDACTED]";

/** `url` with any `api_key` query value and any user-info replaced by a mark. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    if (u.searchParams.has("api_key")) u.searchParams.set("api_key", MARK);
    // URLSearchParams percent-encodes the brackets; keep the mark readable.
    return u.toString().replaceAll(encodeURIComponent(MARK), MARK);
  } catch {
    return maskKnownForms(url);
  }
}

/** Only the path of `url` (no query, no host): what log lines and messages name. */
export function urlPath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "(invalid url)";
  }
}

/**
 * `text` with each secret (raw, percent-encoded and JSON-escaped), every `Bearer <token>` and
 * every `api_key=<value>` replaced by a mark. Secrets shorter than 4 characters are not
 * searched for, so a one-letter test key cannot shred every message. `writeOnly` values (a
 * registry credential's username and password) are masked at any length: from 4 characters
 * wherever they occur, shorter ones where they stand as a token of their own.
 */
export function redactText(
  text: string,
  secrets: readonly (string | undefined)[],
  // Stryker disable next-line ArrayDeclaration: a filler value in this empty list masks only a text that holds it
  writeOnly: readonly string[] = [],
): string {
  // Longest first: a value inside a longer one must not break the longer one apart (leaving
  // its ends in the text) before the longer one is masked whole.
  const values = [...secrets.filter((s): s is string => s !== undefined && s.length >= 4), ...writeOnly].sort((a, b) => b.length - a.length);
  let out = text;
  for (const value of values) {
    if (value.length >= 4) out = maskEverywhere(out, value);
    else if (value) out = maskAsToken(out, value);
  }
  return maskKnownForms(out);
}

/** `text` with every `Bearer <token>` and every `api_key=<value>` masked. */
function maskKnownForms(text: string): string {
  return text
    .replace(/(Bearer\s+)[^\s"',;]+/gi, `$1${MARK}`)
    .replace(/(api_key=)[^&\s"',;]+/gi, `$1${MARK}`);
}

/** `text` with `secret` masked raw, percent-encoded and JSON-escaped, wherever it occurs. */
function maskEverywhere(text: string, secret: string): string {
  let out = text;
  for (const form of new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])) {
    out = out.split(form).join(MARK);
  }
  return out;
}

/** `text` with `value` masked where it stands as a token of its own (not inside a word). */
function maskAsToken(text: string, value: string): string {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, "gu"), MARK);
}

/**
 * A copy of an error that is safe to keep as a `cause`: name, code and message redacted,
 * the stack redacted, nothing else carried over (a library error may hold the request,
 * its headers or its URL as properties).
 */
export function sanitizeError(
  err: unknown,
  secrets: readonly (string | undefined)[],
  // Stryker disable next-line ArrayDeclaration: a filler value in this empty list masks only a text that holds it
  writeOnly: readonly string[] = [],
): Error {
  const source = err instanceof Error ? err : new Error(String(err));
  const copy = new Error(redactText(source.message, secrets, writeOnly));
  copy.name = source.name;
  const code = (source as { code?: unknown }).code;
  if (typeof code === "string") (copy as Error & { code?: string }).code = code;
  copy.stack = source.stack ? redactText(source.stack, secrets, writeOnly) : undefined;
  if (source.cause !== undefined) copy.cause = sanitizeError(source.cause, secrets, writeOnly);
  return copy;
}

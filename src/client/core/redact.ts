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
    if (u.username || u.password) {
      u.username = "";
      u.password = "";
    }
    if (u.searchParams.has("api_key")) u.searchParams.set("api_key", MARK);
    // URLSearchParams percent-encodes the brackets; keep the mark readable.
    return u.toString().replaceAll(encodeURIComponent(MARK), MARK);
  } catch {
    return redactText(url, []);
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
  writeOnly: readonly string[] = [],
): string {
  let out = text;
  for (const secret of [...secrets, ...writeOnly]) {
    if (!secret || secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])) {
      out = out.split(form).join(MARK);
    }
  }
  for (const short of writeOnly) {
    if (!short || short.length >= 4) continue;
    const escaped = short.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, "gu"), MARK);
  }
  return out
    .replace(/(Bearer\s+)[^\s"',;]+/gi, `$1${MARK}`)
    .replace(/(api_key=)[^&\s"',;]+/gi, `$1${MARK}`);
}

/**
 * A copy of an error that is safe to keep as a `cause`: name, code and message redacted,
 * the stack redacted, nothing else carried over (a library error may hold the request,
 * its headers or its URL as properties).
 */
export function sanitizeError(
  err: unknown,
  secrets: readonly (string | undefined)[],
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

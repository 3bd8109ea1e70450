import { urlPath } from "./redact";

/**
 * The client's errors (after openai-node and ky). Everything the client throws is a
 * `PlatformError`, except the caller's own abort reason. URLs on errors are redacted
 * before they get here: `ApiError.url` never holds an `api_key` value.
 */
export class PlatformError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Client settings are missing or unusable (e.g. no API key). Nothing was sent. */
export class ConfigurationError extends PlatformError {}

/** No API key in the options or the environment: nothing can be sent. */
export class MissingApiKeyError extends ConfigurationError {}

/** What a `MissingApiKeyError` says. */
export const MISSING_API_KEY = "No Compute Platform API key: set COMPUTEPLATFORM_API_KEY, or pass apiKey to new ComputePlatform()";

/** No API address in the options or the environment: the client has no default, so nothing goes to a guessed host. */
export class MissingApiUrlError extends ConfigurationError {}

/**
 * The client cannot run in this process: a Node.js older than the package needs, or an HTTP
 * client that would not load. Nothing was sent, so no create is ambiguous because of it.
 */
export class UnsupportedRuntimeError extends ConfigurationError {}

/** One request-validation failure, with the field as a dotted path. */
export interface FieldIssue {
  /** Dotted path of the field, e.g. `mounts.network[0].path`; empty for the whole object. */
  path: string;
  /** What is wrong, e.g. `is required`. */
  message: string;
}

/** Parameters rejected by the client before any request was sent. */
export class RequestValidationError extends PlatformError {
  readonly issues: FieldIssue[];
  constructor(what: string, issues: FieldIssue[]) {
    super(`Invalid ${what}: ${issues.map(formatIssue).join("; ")}`);
    this.issues = issues;
  }
}

/** A response arrived but does not match the wire contract. */
export class ResponseValidationError extends PlatformError {
  readonly method: string;
  readonly url: string;
  readonly issues: FieldIssue[];
  constructor(method: string, url: string, what: string, issues: FieldIssue[]) {
    super(
      `${method} ${urlPath(url)} returned ${what} that breaks the contract: ${issues.map(formatIssue).join("; ")}`,
    );
    this.method = method;
    this.url = url;
    this.issues = issues;
  }
}

export function formatIssue(issue: FieldIssue): string {
  return issue.path ? `${issue.path} ${issue.message}` : issue.message;
}

/** The request could not be completed at the transport level. */
export class ConnectionError extends PlatformError {
  readonly method: string;
  readonly url: string;
  /** Low-level code, e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`. */
  readonly code: string | undefined;
  /**
   * False when the failure happened before the request left (connect refused, DNS): the
   * server provably did nothing. True when it may have been received and processed.
   */
  readonly requestSent: boolean;
  constructor(
    message: string,
    init: { method: string; url: string; code?: string; requestSent: boolean; cause?: unknown },
  ) {
    super(message, { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
    this.code = init.code;
    this.requestSent = init.requestSent;
  }
}

/** No complete response within `timeoutMs`. The server may have processed the request. */
export class TimeoutError extends PlatformError {
  readonly method: string;
  readonly url: string;
  readonly timeoutMs: number;
  readonly requestSent = true;
  constructor(method: string, url: string, timeoutMs: number) {
    super(`${method} ${urlPath(url)} got no response within ${timeoutMs} ms (timeoutMs)`);
    this.method = method;
    this.url = url;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A create whose outcome is unknown: the request may have been processed, and the look-up
 * by name that should have told us failed too. Look for the object before creating again.
 */
export class AmbiguousRequestError extends PlatformError {
  readonly what: string;
  readonly objectName: string;
  constructor(what: string, name: string, cause: PlatformError, lookupError: unknown) {
    super(
      `Creating ${what} "${name}" failed ambiguously (${cause.message}) and the look-up by name failed ` +
        `(${lookupError instanceof Error ? lookupError.message : String(lookupError)}); ` +
        `the ${what} may exist: list by name before creating it again`,
      { cause },
    );
    this.what = what;
    this.objectName = name;
  }
}

/**
 * A hosted-model job still unfinished (IN_QUEUE or IN_PROGRESS) when `runSync`'s deadline
 * passed, after following it with `status-sync`. It was not submitted again (each submission is
 * a paid job) and runs on: `models.status(modelId, jobId)` reads it later.
 */
export class ModelJobInProgressError extends PlatformError {
  readonly modelId: string;
  readonly jobId: string;
  /** How long the call waited for the job in all, in ms. */
  readonly waitMs: number;
  /** The job's last status: IN_QUEUE or IN_PROGRESS. */
  readonly jobStatus: string;
  constructor(modelId: string, jobId: string, waitMs: number, jobStatus = "IN_PROGRESS") {
    super(
      `hosted model ${modelId}: job ${jobId} still ${jobStatus} after ${waitMs} ms, the call's deadline; it was not ` +
        `submitted again (each submission is a paid job) and runs on. Read it with models.status("${modelId}", "${jobId}"), ` +
        "or give runSync a longer deadlineMs next time",
    );
    this.modelId = modelId;
    this.jobId = jobId;
    this.waitMs = waitMs;
    this.jobStatus = jobStatus;
  }
}

/** A hosted-model job that ended without a result: FAILED (with the platform's `error`), CANCELLED or TIMED_OUT. */
export class ModelJobFailedError extends PlatformError {
  readonly modelId: string;
  readonly jobId: string;
  /** The platform's `error` of the job, or what its status says. */
  readonly jobError: string;
  /** FAILED, CANCELLED or TIMED_OUT. */
  readonly jobStatus: string;
  constructor(modelId: string, jobId: string, jobError: string, jobStatus = "FAILED") {
    super(`hosted model ${modelId}: job ${jobId} ${jobStatus}: ${jobError}`);
    this.modelId = modelId;
    this.jobId = jobId;
    this.jobError = jobError;
    this.jobStatus = jobStatus;
  }
}

/** Fields of an HTTP (or GraphQL) error response, problem+json shaped. */
export interface ApiErrorInit {
  status: number;
  title: string;
  detail: string;
  errors: string[];
  method: string;
  /** Redacted. */
  url: string;
  /** The GraphQL `extensions.code`, when the error came from GraphQL. */
  code?: string;
  /** A delay the server asked for (Retry-After or an exhausted RateLimit window), in ms. */
  retryAfterMs?: number;
}

/** The server answered with an error. One subclass per status a caller treats differently. */
export class ApiError extends PlatformError {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  /** Individual validation failures, as the server wrote them. */
  readonly errors: string[];
  readonly method: string;
  readonly url: string;
  readonly code: string | undefined;
  readonly retryAfterMs: number | undefined;
  constructor(message: string, init: ApiErrorInit) {
    super(message);
    this.status = init.status;
    this.title = init.title;
    this.detail = init.detail;
    this.errors = init.errors;
    this.method = init.method;
    this.url = init.url;
    this.code = init.code;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 400: the request breaks a cross-field rule (`detail` names it). */
export class BadRequestError extends ApiError {}
/** 401: the API key is missing, malformed, expired or invalid. */
export class AuthenticationError extends ApiError {}
/** 403: the key is valid but lacks permission. */
export class PermissionDeniedError extends ApiError {}
/** 404: no such object. */
export class NotFoundError extends ApiError {}
/** 409: not allowed in the object's current state (e.g. an action not in `actions`). */
export class ConflictError extends ApiError {}
/** 422: the body does not match the contract; never retried. */
export class UnprocessableEntityError extends ApiError {}
/** 429: the per-user rate limit is exceeded. */
export class RateLimitError extends ApiError {}
/** 5xx: the server failed. */
export class InternalServerError extends ApiError {}

const API_KEY_HINT = "set COMPUTEPLATFORM_API_KEY or stack config computeplatform:apiKey";

/** GraphQL `extensions.code` to the HTTP status whose class it maps into (docs/design.md). */
export const GRAPHQL_CODE_STATUS: Readonly<Record<string, number>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  BAD_USER_INPUT: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  NOT_FOUND: 404,
  FAILED_PRECONDITION: 409,
};

function classFor(status: number): typeof ApiError {
  switch (status) {
    case 400:
      return BadRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return PermissionDeniedError;
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 422:
      return UnprocessableEntityError;
    case 429:
      return RateLimitError;
    default:
      return status >= 500 ? InternalServerError : ApiError;
  }
}

/**
 * Turn one server-written validation failure into what the user should change:
 * `$.mounts.network[0]: missing property 'path'` becomes `mounts.network[0].path is required`.
 * Unknown shapes keep their text, with the `$` root dropped. Read in one pass: a platform's
 * entry may be long, and the pattern this replaced backtracked over it (quadratic in its length).
 */
export function humanizeValidationError(raw: string): string {
  const text = raw.trim();
  const colon = text.indexOf(":");
  if (!text.startsWith("$") || colon < 0) return raw;
  const where = text.slice(1, colon);
  // The root (`$ :`), a property (`$.a.b`) or an index (`$[0]`); anything else is not this shape.
  if (where.trim() !== "" && !where.startsWith(".") && !where.startsWith("[")) return raw;
  const path = where.trim() === "" ? "" : where.replace(/^\./, "");
  const rest = text.slice(colon + 1).trimStart();
  const join = (name: string) => (path ? `${path}.${name}` : name);
  const missing = /^missing propert(?:y|ies) (.+)$/.exec(rest);
  if (missing) return names(missing[1]).map((n) => `${join(n)} is required`).join("; ");
  const extra = /^additional propert(?:y|ies) (.+?) (?:is |are )?not allowed$/.exec(rest);
  if (extra) return names(extra[1]).map((n) => `${join(n)} is not an allowed property`).join("; ");
  return path ? `${path}: ${rest}` : rest;
}

function names(list: string): string[] {
  const quoted = [...list.matchAll(/'([^']*)'/g)].map((m) => m[1]);
  return quoted.length > 0 ? quoted : [list];
}

/**
 * The most of a server's words an error keeps. A platform (or whatever answers in its place)
 * may send a `detail` of megabytes or thousands of `errors`; an error message becomes a line in
 * a Pulumi diagnostic, so it says what the server said, cut at these bounds.
 */
export const ERROR_TEXT_LIMITS = {
  /** Characters of `title` or `detail` kept. */
  text: 2_000,
  /** Entries of `errors` kept; the message counts the rest. */
  entries: 20,
  /** Characters of one `errors` entry kept. */
  entry: 500,
  /** Levels of an `errors` entry that is not a string written out (deeper ones read `…`). */
  depth: 6,
  /** Characters of a message built from `errors` (the kept entries, each cut, and the count of the rest fit). */
  message: 12_000,
} as const;

/** `text` cut to `max` characters, saying how many were left out. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * A server's `errors` entry that is not a string, as short JSON: at most `ERROR_TEXT_LIMITS.depth`
 * levels and about `ERROR_TEXT_LIMITS.entry` characters, so an entry nested 20,000 deep or a
 * million keys wide costs what its first characters cost (JSON.stringify of it overflows the stack).
 */
export function briefJson(value: unknown): string {
  let out = "";
  const full = () => out.length >= ERROR_TEXT_LIMITS.entry;
  const walk = (v: unknown, depth: number): void => {
    if (v === null || typeof v !== "object") {
      out += clip(JSON.stringify(v) ?? "null", Math.max(16, ERROR_TEXT_LIMITS.entry - out.length));
      return;
    }
    const array = Array.isArray(v);
    if (depth >= ERROR_TEXT_LIMITS.depth) {
      out += array ? "[…]" : "{…}";
      return;
    }
    out += array ? "[" : "{";
    let first = true;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      if (full()) {
        out += ",…";
        break;
      }
      if (!first) out += ",";
      first = false;
      if (!array) out += `${JSON.stringify(key)}:`;
      walk((v as Record<string, unknown>)[key], depth + 1);
    }
    out += array ? "]" : "}";
  };
  walk(value, 0);
  // At most the bound, one value cut to what was left of it, and the closing brackets of the levels open.
  return out;
}

/** A server's `errors`, each as text and cut to the bounds, with a last entry counting the ones left out. */
export function errorEntries(entries: readonly unknown[]): string[] {
  const kept = entries
    .slice(0, ERROR_TEXT_LIMITS.entries)
    .map((e) => (typeof e === "string" ? clip(e, ERROR_TEXT_LIMITS.entry) : briefJson(e)));
  const left = entries.length - kept.length;
  return left > 0 ? [...kept, `(and ${left} more)`] : kept;
}

/** The one factory for `ApiError`s: picks the class by status and writes the message. */
export function makeApiError(init: ApiErrorInit): ApiError {
  const Cls = classFor(init.status);
  const where = `${init.status} from ${init.method} ${urlPath(init.url)}`;
  let what: string;
  if (init.errors.length > 0 && (init.status === 400 || init.status === 422)) {
    // The entries come bounded (problemFields, graphqlError); the whole is bounded again for a caller that did not.
    what = clip(init.errors.map(humanizeValidationError).join("; "), ERROR_TEXT_LIMITS.message);
  } else {
    what = clip(init.detail || init.title || "request failed", ERROR_TEXT_LIMITS.text);
  }
  if (init.status === 401) what += ` (check the API key: ${API_KEY_HINT})`;
  if (init.status === 403) what += ` (the API key is valid but is not allowed to do this: use a key with that permission; ${API_KEY_HINT})`;
  if (init.status === 429 && init.retryAfterMs !== undefined) {
    what += ` (retry after ${Math.ceil(init.retryAfterMs / 1000)} s)`;
  }
  return new Cls(`${what} [${where}]`, init);
}

/** Parse a problem+json body (or anything else) into the ApiError fields it carries. */
export function problemFields(
  status: number,
  body: string,
): Pick<ApiErrorInit, "title" | "detail" | "errors"> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const p = (parsed && typeof parsed === "object" ? parsed : {}) as Record<string, unknown>;
  return {
    title: typeof p.title === "string" ? clip(p.title, ERROR_TEXT_LIMITS.text) : `HTTP ${status}`,
    detail: typeof p.detail === "string" ? clip(p.detail, ERROR_TEXT_LIMITS.text) : body.slice(0, 200),
    errors: Array.isArray(p.errors) ? errorEntries(p.errors) : [],
  };
}

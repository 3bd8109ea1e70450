import type { Pool } from "undici";
import type { z } from "zod";
import type { Clock } from "./clock";
import {
  ApiError,
  MISSING_API_KEY,
  MissingApiKeyError,
  ConnectionError,
  InternalServerError,
  makeApiError,
  type PlatformError,
  problemFields,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
} from "./errors";
import { Pacer, PacingRegistry } from "./pacing";
import { loadHttpClient } from "./runtime";
import { redactText, redactUrl, sanitizeError, urlPath } from "./redact";
import { type BackoffOptions, type HeaderMap, retryDelayMs, serverDelayMs } from "./retry";
import { fieldIssues } from "./validate";

/** Where debug lines go. Every line is redacted before it is handed over. */
export interface Logger {
  debug(message: string): void;
}

/** Which setting an address came from, so a connection failure can name it. */
export type AddressSetting = "apiUrl" | "serverlessUrl";

/**
 * The local emulator's address when started with its defaults (`npx computeplatform-emulator`).
 * Not a default of the client: an address must be set (see `ComputePlatformOptions.apiUrl`).
 */
export const DEFAULT_URL = "http://127.0.0.1:8787";

const SETTING_ENV: Record<AddressSetting, string> = {
  apiUrl: "COMPUTEPLATFORM_API_URL",
  serverlessUrl: "COMPUTEPLATFORM_SERVERLESS_URL",
};

export interface TransportOptions {
  apiKey: string | undefined;
  timeoutMs: number;
  maxRetries: number;
  maxRetryDelayMs: number;
  clock: Clock;
  pacing: PacingRegistry | false;
  logger: Logger | undefined;
  random: () => number;
  backoff: BackoffOptions;
}

/** One HTTP exchange. */
export interface HttpRequest {
  method: string;
  url: string;
  body?: string;
  /** `bearer` sends `Authorization: Bearer`; `query` means the key is already in `url` (GraphQL). */
  auth: "bearer" | "query";
  setting: AddressSetting;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** This exchange's limit for a complete response, in ms. @default the transport's timeoutMs */
  timeoutMs?: number;
  /**
   * Write-only values this request carries (a registry credential's username and password):
   * masked in every error, `cause` and log line the exchange produces.
   */
  writeOnly?: readonly string[];
  /** A status read: it waits behind the requests of its key that wait for the rate limit (pacing.ts). */
  yieldToWork?: boolean;
  /** Called as each attempt leaves for the server, after any pacing wait. */
  onSend?: () => void;
}

export interface HttpResponse {
  status: number;
  headers: HeaderMap;
  /**
   * The body text as received. Not redacted: it is data (a pod's env may legitimately hold
   * "Bearer ..."); whatever of it reaches an error goes through `redact` first.
   */
  body: string;
}

/**
 * `idempotent`: GET, PATCH, DELETE, GraphQL queries: retry on 429, 5xx and connection
 * errors. `unsafe`: a create or a hosted-model call (a paid job): retry only where the
 * server provably did nothing (429, or a connection that was never made); a create's caller
 * resolves ambiguity by name, a model call's failure is the caller's to judge.
 */
export type RetryMode = "idempotent" | "unsafe";

/** A failure after which the server may or may not have processed the request. */
export function isAmbiguous(err: unknown): boolean {
  return (
    err instanceof TimeoutError ||
    err instanceof InternalServerError ||
    (err instanceof ConnectionError && err.requestSent)
  );
}

function isRetryable(err: unknown, mode: RetryMode): boolean {
  if (err instanceof RateLimitError) return true;
  if (err instanceof ConnectionError && !err.requestSent) return true;
  return mode === "idempotent" && isAmbiguous(err);
}

// Failures before a single byte of the request could have reached the server. The last three are
// this process's own limits on opening a socket (descriptors, local ports), met under many sockets.
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT",
  "EMFILE", "ENFILE", "EADDRNOTAVAIL",
]);

/** Whether a connection failure with this code may have let the request reach the server. */
export function mayHaveReachedServer(code: string | undefined): boolean {
  return !(code && NOT_SENT_CODES.has(code));
}

/**
 * What a connection failure's message adds to say how to fix it: start the emulator when nothing
 * listens at its default address, else check the setting the address came from.
 */
export function connectionHint(code: string | undefined, origin: string, setting: AddressSetting): string {
  const env = SETTING_ENV[setting];
  if (code === "ECONNREFUSED" && origin === DEFAULT_URL) {
    return (
      `. Nothing listens at ${DEFAULT_URL}, the local emulator's address: start it with ` +
      `\`npx computeplatform-emulator\`, or point at the platform with ${env} (stack config computeplatform:${setting})`
    );
  }
  if (code === "ECONNREFUSED" || code === "ENOTFOUND") return `. Check ${env} (stack config computeplatform:${setting})`;
  return "";
}

/**
 * REST and GraphQL over undici: one keep-alive pool per origin, bearer auth, pacing per key,
 * timeouts, redaction, and the retry loop. Resource classes only name path, verb and body.
 */
export class Transport {
  private readonly pools = new Map<string, Pool>();
  private readonly pacer: Pacer | undefined;
  // ES private: not shown by util.inspect, not serialized, not enumerable.
  readonly #apiKey: string | undefined;
  /** Everything but the key. */
  readonly options: Omit<TransportOptions, "apiKey">;

  constructor(options: TransportOptions) {
    const { apiKey, ...rest } = options;
    this.#apiKey = apiKey;
    this.options = rest;
    this.pacer =
      options.pacing && apiKey ? new Pacer(options.pacing, PacingRegistry.keyId(apiKey), options.clock) : undefined;
  }

  private get secrets(): (string | undefined)[] {
    return [this.#apiKey];
  }

  /** An error safe to keep as a `cause` (without the key or the write-only values given). */
  sanitize(err: unknown, writeOnly: readonly string[] = []): Error {
    return sanitizeError(err, this.secrets, writeOnly);
  }

  /** The API key, or a clear error naming where to set it. */
  requireKey(): string {
    const key = this.#apiKey;
    if (!key) {
      throw new MissingApiKeyError(MISSING_API_KEY);
    }
    return key;
  }

  /** `text` without the API key, or the write-only values given. */
  redact(text: string, writeOnly: readonly string[] = []): string {
    return redactText(text, this.secrets, writeOnly);
  }

  private log(line: string, writeOnly?: readonly string[]): void {
    this.options.logger?.debug(this.redact(`computeplatform: ${line}`, writeOnly));
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      // A bounded body too: a misbehaving server cannot make the client buffer without end.
      // undici's own header and body timeouts (300 s) are off: the per-exchange timer below
      // is the one limit, and a hosted-model call may rightly wait up to 300 s plus its answer.
      const { Pool } = loadHttpClient();
      pool = new Pool(origin, {
        keepAliveTimeout: 10_000,
        connections: 8,
        maxResponseSize: 64 * 1024 * 1024,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** One attempt: pacing wait, the exchange, rate-limit bookkeeping, a log line. */
  async send(req: HttpRequest, attempt = 1): Promise<HttpResponse> {
    const key = this.requireKey();
    const safeUrl = redactUrl(req.url);
    if (this.pacer) {
      const pending = this.pacer.pendingMs();
      if (pending > this.options.maxRetryDelayMs) {
        throw makeApiError({
          status: 429,
          title: "Rate limit window exhausted",
          detail: `a rate-limit window for this API key resets in ${Math.ceil(pending / 1000)} s, longer than maxRetryDelayMs (${this.options.maxRetryDelayMs} ms); not sent`,
          errors: [],
          method: req.method,
          url: safeUrl,
          retryAfterMs: pending,
        });
      }
      if (pending > 0) this.log(`${req.method} ${urlPath(req.url)} paced for ${pending} ms (rate-limit window exhausted)`);
    }
    const url = new URL(req.url);
    // Before the budget and outside the exchange's try: a client that cannot load sent nothing,
    // and its error must not pass for a connection cut after sending (an ambiguous create).
    const pool = this.pool(url.origin);
    // Counted against the key's budget before it goes; handed back with the answer below.
    const ticket = await this.pacer?.acquire(req.signal, this.options.maxRetryDelayMs, req.yieldToWork);
    req.onSend?.();

    const headers: Record<string, string> = { accept: "application/json", ...req.headers };
    if (req.auth === "bearer") headers.authorization = `Bearer ${key}`;
    if (req.body !== undefined) headers["content-type"] ??= "application/json";

    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
    const started = this.options.clock.now();
    let res: HttpResponse;
    try {
      const r = await pool.request({
        path: url.pathname + url.search,
        method: req.method as "GET",
        headers,
        body: req.body,
        signal,
      });
      const body = await r.body.text();
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(r.headers)) {
        if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
      }
      res = { status: r.statusCode, headers: flat, body };
    } catch (err) {
      if (ticket) this.pacer!.settle(ticket, undefined);
      if (req.signal?.aborted) throw req.signal.reason;
      const failure = timeout.signal.aborted
        ? new TimeoutError(req.method, safeUrl, timeoutMs)
        : this.connectionError(req, safeUrl, err);
      this.log(`${req.method} ${urlPath(req.url)} -> ${failure.name} (attempt ${attempt})`, req.writeOnly);
      throw failure;
    } finally {
      clearTimeout(timer);
    }

    if (ticket) {
      // A 429 holds the key for the delay it names; the budget follows every answer's counts
      // (an `r=0` makes the next request wait for the reset).
      const hold = res.status === 429 ? serverDelayMs(res.headers, this.options.clock.now()) : undefined;
      if (hold !== undefined) this.pacer!.hold(hold);
      this.pacer!.settle(ticket, res.headers);
    }
    this.log(
      `${req.method} ${urlPath(req.url)} -> ${res.status} (attempt ${attempt}, ${this.options.clock.now() - started} ms)`,
      req.writeOnly,
    );
    return res;
  }

  private connectionError(req: HttpRequest, safeUrl: string, err: unknown): ConnectionError {
    const code = (err as { code?: unknown })?.code;
    const codeStr = typeof code === "string" ? code : undefined;
    const origin = new URL(req.url).origin;
    const message =
      `${req.method} ${urlPath(req.url)} to ${origin} failed: ${this.redact(err instanceof Error ? err.message : String(err), req.writeOnly)}` +
      `${codeStr ? ` (${codeStr})` : ""}${connectionHint(codeStr, origin, req.setting)}`;
    return new ConnectionError(message, {
      method: req.method,
      url: safeUrl,
      code: codeStr,
      requestSent: mayHaveReachedServer(codeStr),
      cause: sanitizeError(err, this.secrets, req.writeOnly),
    });
  }

  /** The `ApiError` a >= 400 response stands for. */
  errorFrom(req: HttpRequest, res: HttpResponse): ApiError {
    // Masked in the raw text (before `detail` may be cut short) and again once parsed, where
    // JSON escapes of an echoed request are undone.
    const fields = problemFields(res.status, this.redact(res.body, req.writeOnly));
    const clean = (text: string) => this.redact(text, req.writeOnly);
    return makeApiError({
      status: res.status,
      title: clean(fields.title),
      detail: clean(fields.detail),
      errors: fields.errors.map(clean),
      method: req.method,
      url: redactUrl(req.url),
      retryAfterMs: res.status === 429 || res.status >= 500 ? serverDelayMs(res.headers, this.options.clock.now()) : undefined,
    });
  }

  /** Run `attempt` until it succeeds, fails for good, or the retry budget is spent. */
  async retrying<T>(
    attempt: (n: number) => Promise<T>,
    mode: RetryMode,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const { maxRetries, maxRetryDelayMs, clock, random, backoff } = this.options;
    for (let n = 1; ; n++) {
      try {
        return await attempt(n);
      } catch (err) {
        if (n > maxRetries || !isRetryable(err, mode)) throw err;
        const { delayMs, source } = retryDelayMs({
          attempt: n,
          serverDelayMs: err instanceof ApiError ? err.retryAfterMs : undefined,
          random,
          backoff,
        });
        // A server that asks for longer than we may wait gets its error back, not a hang.
        if (delayMs > maxRetryDelayMs) throw err;
        this.log(`retry ${n}/${maxRetries} after ${(err as PlatformError).name} in ${delayMs} ms (${source})`);
        await clock.sleep(delayMs, signal);
      }
    }
  }

  /**
   * A JSON REST call with retries: validates a 2xx body with `schema` (204 or an empty body
   * yields undefined), turns >= 400 into the matching `ApiError`.
   */
  async json<S extends z.ZodType>(
    req: HttpRequest,
    schema: S | undefined,
    what: string,
    mode: RetryMode,
    opts: { notFoundOnRetryIsSuccess?: boolean } = {},
  ): Promise<z.infer<S>> {
    return this.retrying(
      async (n) => {
        const res = await this.send(req, n);
        // A DELETE retried after an ambiguous failure finds the object gone: that is our delete.
        if (res.status === 404 && n > 1 && opts.notFoundOnRetryIsSuccess) return undefined as z.infer<S>;
        if (res.status >= 400) throw this.errorFrom(req, res);
        if (!schema) return undefined as z.infer<S>;
        let value: unknown;
        try {
          value = res.body === "" ? undefined : JSON.parse(res.body);
        } catch {
          throw new ResponseValidationError(req.method, redactUrl(req.url), what, [
            { path: "", message: `body is not JSON (status ${res.status})` },
          ]);
        }
        return this.validate(schema, value, req, what);
      },
      mode,
      req.signal,
    );
  }

  /** `value` parsed by `schema`, or a `ResponseValidationError` naming the fields. */
  validate<S extends z.ZodType>(schema: S, value: unknown, req: HttpRequest, what: string): z.infer<S> {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw new ResponseValidationError(req.method, redactUrl(req.url), what, fieldIssues(parsed.error, value));
  }

  /** Close every pool (idle keep-alive sockets would otherwise linger). */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }
}

// The body of a job on an account's endpoint (docs/emulator.md, "Jobs on the account's own endpoints"): `{ input, webhook?,
// policy?: { executionTimeout?, ttl?, lowPriority? }, s3Config? }`, the same on an account's
// endpoint and on a hosted model. Each failure is named with its `$`-path and its rule.

/** `policy.executionTimeout` range (ms) and `policy.ttl`'s floor and default (ms). */
export const POLICY_LIMITS = { executionTimeout: { min: 5000, max: 604_800_000 }, ttl: { min: 10_000, default: 86_400_000 } } as const;

export interface JobPolicy {
  executionTimeout?: number;
  ttl?: number;
  lowPriority?: boolean;
}

export interface JobEnvelope {
  input: Record<string, unknown>;
  webhook?: string;
  policy: JobPolicy;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * An emulator limit on a job's `input` (and an OpenAI call's body): how deep its JSON nests (the
 * object itself is level 1) and how many bytes it takes written as JSON. Deeper input would
 * overflow the stack of every answer that writes it back (status, a webhook, a completion).
 */
export const INPUT_LIMITS = { depth: 64, bytes: 256 * 1024 } as const;

/** Whether `value` nests deeper than `max` levels, walked without recursion and given up at the first level past it. */
function nestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    // A number, a string, a boolean or null is no level of its own.
    if (typeof v !== "object" || v === null) continue;
    if (d > max) return true;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return false;
}

/** The depth and size rule for `value` at `path`; one entry in `errors` when it is broken. */
export function checkInputShape(value: unknown, path: string, errors: string[], maxDepth: number = INPUT_LIMITS.depth): void {
  if (nestsDeeper(value, maxDepth)) {
    errors.push(`${path}: must nest at most ${maxDepth} levels deep`);
    return;
  }
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > INPUT_LIMITS.bytes) errors.push(`${path}: must take at most ${INPUT_LIMITS.bytes} bytes as JSON, got ${bytes}`);
}

/** The envelope's rules; `errors` gets one entry per failure (`$.policy.ttl: must be ...`). */
export function checkEnvelope(body: Record<string, unknown>, errors: string[]): JobEnvelope | undefined {
  for (const k of Object.keys(body))
    if (!["input", "webhook", "policy", "s3Config"].includes(k)) errors.push(`$: additional properties '${k}' not allowed`);
  const input = body.input;
  if (input === undefined) errors.push("$: missing property 'input'");
  else if (!isObject(input)) errors.push("$.input: must be an object");
  else checkInputShape(input, "$.input", errors);
  const webhook = body.webhook;
  if (webhook !== undefined) {
    if (typeof webhook !== "string") errors.push("$.webhook: must be a string");
    else if (!URL.canParse(webhook) || !/^https?:$/.test(new URL(webhook).protocol)) errors.push("$.webhook: must be an http(s) URL");
  }
  if (body.s3Config !== undefined && !isObject(body.s3Config)) errors.push("$.s3Config: must be an object");
  const policy: JobPolicy = {};
  if (body.policy !== undefined) {
    if (!isObject(body.policy)) errors.push("$.policy: must be an object");
    else {
      const p = body.policy;
      for (const k of Object.keys(p))
        if (!["executionTimeout", "ttl", "lowPriority"].includes(k)) errors.push(`$.policy: additional properties '${k}' not allowed`);
      const int = (name: "executionTimeout" | "ttl", min: number, max = Number.MAX_SAFE_INTEGER) => {
        const v = p[name];
        if (v === undefined) return;
        if (typeof v !== "number" || !Number.isInteger(v)) errors.push(`$.policy.${name}: must be an integer (ms)`);
        else if (v < min || v > max)
          errors.push(`$.policy.${name}: must be ${max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`} ms, got ${v}`);
        else policy[name] = v;
      };
      int("executionTimeout", POLICY_LIMITS.executionTimeout.min, POLICY_LIMITS.executionTimeout.max);
      int("ttl", POLICY_LIMITS.ttl.min);
      if (p.lowPriority !== undefined) {
        if (typeof p.lowPriority !== "boolean") errors.push("$.policy.lowPriority: must be a boolean");
        else policy.lowPriority = p.lowPriority;
      }
    }
  }
  if (!isObject(input)) return undefined;
  return { input, ...(typeof webhook === "string" ? { webhook } : {}), policy };
}

/** A webhook the emulator may call: loopback only (127.0.0.0/8, ::1, localhost). */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** `wait` of a runsync call, in ms. */
export const WAIT_MS = { min: 1000, max: 300000, default: 90000 } as const;

/** The `wait` query value in ms, or the 400 problem naming the rule. */
export function parseWait(raw: string | null): { ok: true; value: number } | { ok: false; problem: { title: string; status: number; detail: string } } {
  if (raw === null) return { ok: true, value: WAIT_MS.default };
  const n = /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
  if (n >= WAIT_MS.min && n <= WAIT_MS.max) return { ok: true, value: n };
  return {
    ok: false,
    problem: {
      title: "Bad Request",
      status: 400,
      detail: `wait must be an integer from ${WAIT_MS.min} to ${WAIT_MS.max} (ms), got ${JSON.stringify(raw)}`,
    },
  };
}

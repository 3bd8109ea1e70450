// The test worker that stands in for an endpoint's container (docs/emulator.md, "Jobs on the
// account's own endpoints"): the job's output is its input unchanged, unless the input asks
// otherwise: `sleep_ms: n` holds the job n emulated ms, `fail: "message"` ends it FAILED with
// that error, `stream: [a, b, ...]` yields each item as a stream chunk, then COMPLETED with the
// list as output. An OpenAI-compatible call (`openai_route`, `openai_input`) is answered with the
// last user message (or the prompt) echoed as the completion text.

/** What the worker will do with a job: how long it takes and how it ends. */
export interface WorkerPlan {
  /** Emulated ms. */
  durationMs: number;
  outcome: { output: unknown } | { error: string };
  /** Stream chunks, spread evenly over the job (all at its start when it takes no time). */
  chunks: unknown[];
}

/** The longest `sleep_ms` honoured: the platform's longest execution timeout (7 days). */
export const MAX_SLEEP_MS = 604_800_000;

export function planTestJob(input: Record<string, unknown>): WorkerPlan {
  const sleep = input.sleep_ms;
  const durationMs = typeof sleep === "number" && Number.isFinite(sleep) && sleep > 0 ? Math.min(sleep, MAX_SLEEP_MS) : 0;
  if (typeof input.openai_route === "string") return { durationMs, outcome: { output: echoCompletion(input.openai_input) }, chunks: [] };
  if (typeof input.fail === "string") return { durationMs, outcome: { error: input.fail }, chunks: [] };
  if (Array.isArray(input.stream)) return { durationMs, outcome: { output: input.stream }, chunks: [...input.stream] };
  return { durationMs, outcome: { output: input }, chunks: [] };
}

/** The text an OpenAI-compatible call is answered with: the last user message, or the prompt. */
export function echoCompletion(body: unknown): string {
  const b = (typeof body === "object" && body !== null ? body : {}) as { messages?: unknown; prompt?: unknown };
  if (Array.isArray(b.messages)) {
    const users = b.messages.filter((m): m is { role: string; content: unknown } => typeof m === "object" && m !== null && (m as { role?: unknown }).role === "user");
    const last = users.at(-1)?.content;
    if (typeof last === "string") return last;
    // Content parts: the text parts joined.
    if (Array.isArray(last))
      return last.map((p) => (typeof p === "object" && p !== null && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("");
    return "";
  }
  if (typeof b.prompt === "string") return b.prompt;
  if (Array.isArray(b.prompt)) return b.prompt.filter((p) => typeof p === "string").join("\n");
  return "";
}

// The job routes of an account's endpoint, knowing no HTTP: each takes the path's ids, the
// body and the query values and returns the status and body to send (problem+json on failure).
//
//   POST /v2/{id}/run                 run          POST /v2/{id}/cancel/{jobId}   cancel
//   POST /v2/{id}/runsync[?wait=]     runSync      POST /v2/{id}/retry/{jobId}    retry
//   GET  /v2/{id}/status/{jobId}      status       POST /v2/{id}/purge-queue      purgeQueue
//   GET  /v2/{id}/status-sync/{jobId} statusSync   GET  /v2/{id}/health           health
//   GET  /v2/{id}/stream/{jobId}      stream
//   POST /v2/{id}/openai/v1/chat/completions, /completions; GET /v2/{id}/openai/v1/models
import { checkInputShape, INPUT_LIMITS, parseWait, WAIT_MS } from "./envelope";
import { refuse } from "./job";
import type { EndpointJobs } from "./queue";

type Reply = { status: number; body?: unknown; headers?: Record<string, string>; raw?: { data: Buffer | Iterable<string>; contentType: string } };

const noJob = (id: string, jobId: string) => refuse(404, `endpoint ${id} has no job ${JSON.stringify(jobId)}`);
/** A held call whose job went while it waited: the 404 its status now reads. */
const gone = (id: string, jobId: string) => refuse(404, `endpoint ${id} has no job ${JSON.stringify(jobId)} any more: it was purged from the queue (or the endpoint deleted) while this call waited`);

export class JobCalls {
  constructor(private readonly jobs: EndpointJobs) {}

  private tooManyHeld(): Reply {
    return this.jobs.tooManyHeld();
  }

  run(id: string, body: unknown): Reply {
    const r = this.jobs.submit(id, body);
    return "reply" in r ? r.reply : { status: 200, body: { id: r.job.id, status: "IN_QUEUE" } };
  }

  async runSync(id: string, body: unknown, waitParam: string | null): Promise<Reply> {
    const wait = parseWait(waitParam);
    if (!wait.ok) return refuse(400, wait.problem.detail);
    if (!this.jobs.canHold()) return this.tooManyHeld();
    const r = this.jobs.submit(id, body);
    if ("reply" in r) return r.reply;
    const answer = await this.jobs.waitFor(r.job, wait.value);
    return answer ? { status: 200, body: answer } : gone(id, r.job.id);
  }

  async status(id: string, jobId: string, waitParam?: string | null): Promise<Reply> {
    let waitMs = 0;
    if (waitParam !== undefined) {
      const wait = parseWait(waitParam);
      if (!wait.ok) return refuse(400, wait.problem.detail);
      waitMs = wait.value;
    }
    const job = this.jobs.find(id, jobId);
    if (!job) return noJob(id, jobId);
    if (waitMs === 0) return { status: 200, body: this.jobs.answer(job) };
    if (!this.jobs.canHold()) return this.tooManyHeld();
    const answer = await this.jobs.waitFor(job, waitMs);
    return answer ? { status: 200, body: answer } : gone(id, jobId);
  }

  stream(id: string, jobId: string): Reply {
    const job = this.jobs.find(id, jobId);
    return job ? { status: 200, body: this.jobs.stream(job) } : noJob(id, jobId);
  }

  cancel(id: string, jobId: string): Reply {
    const job = this.jobs.find(id, jobId);
    return job ? { status: 200, body: this.jobs.cancel(job) } : noJob(id, jobId);
  }

  retry(id: string, jobId: string): Reply {
    const job = this.jobs.find(id, jobId);
    return job ? this.jobs.retry(job) : noJob(id, jobId);
  }

  purgeQueue(id: string): Reply {
    return { status: 200, body: this.jobs.purge(id) };
  }

  health(id: string): Reply {
    return { status: 200, body: this.jobs.health(id) };
  }

  models(id: string, now: number): Reply {
    return { status: 200, body: { object: "list", data: [{ id, object: "model", created: Math.floor(now / 1000), owned_by: "computeplatform-emulator" }] } };
  }

  /**
   * An OpenAI-compatible completion: a job of the endpoint (it waits for a worker and bills like
   * one) whose input carries the route and the body, answered plain or as server-sent events.
   */
  async completion(id: string, route: "chat/completions" | "completions", body: unknown, now: number): Promise<Reply> {
    const errors: string[] = [];
    const b = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : undefined) as Record<string, unknown> | undefined;
    if (!b) errors.push("$: must be a JSON object");
    else if (route === "chat/completions") {
      if (!Array.isArray(b.messages) || b.messages.length === 0) errors.push("$.messages: must be a non-empty array");
    } else if (typeof b.prompt !== "string" && !Array.isArray(b.prompt)) errors.push("$.prompt: must be a string or an array of strings");
    if (b && b.stream !== undefined && typeof b.stream !== "boolean") errors.push("$.stream: must be a boolean");
    if (b && b.model !== undefined && typeof b.model !== "string") errors.push("$.model: must be a string");
    for (const k of ["max_tokens", "max_completion_tokens"])
      if (b && b[k] !== undefined && b[k] !== null && !(Number.isInteger(b[k]) && (b[k] as number) >= 1 && (b[k] as number) <= MAX_COMPLETION_TOKENS))
        errors.push(`$.${k}: must be an integer from 1 to ${MAX_COMPLETION_TOKENS}`);
    // The body becomes the job's input one level down, so it keeps the input's rule with a level less.
    if (b) checkInputShape(b, "$", errors, INPUT_LIMITS.depth - 1);
    if (errors.length > 0) return refuse(422, errors.join("; "), errors);
    // The one model the endpoint serves (what `models` lists): another is not echoed back.
    if (b!.model !== undefined && b!.model !== id)
      return refuse(404, `model ${JSON.stringify((b!.model as string).slice(0, 100))} is not served here: this endpoint's one model is ${JSON.stringify(id)} (GET openai/v1/models)`);
    if (!this.jobs.canHold()) return this.tooManyHeld();
    const r = this.jobs.submit(id, { input: { openai_route: `/v1/${route}`, openai_input: b } });
    if ("reply" in r) return r.reply;
    const answer = await this.jobs.waitFor(r.job, WAIT_MS.max);
    if (!answer) return gone(id, r.job.id);
    if (answer.status !== "COMPLETED") {
      const on = answer.workerId ? ` on worker ${answer.workerId}` : "";
      return refuse(answer.status === "IN_QUEUE" || answer.status === "IN_PROGRESS" ? 504 : 500, `job ${answer.id} ended ${answer.status}${on}${answer.error ? `: ${answer.error}` : ""}`);
    }
    const text = typeof answer.output === "string" ? answer.output : JSON.stringify(answer.output);
    const created = Math.floor(now / 1000);
    const chat = route === "chat/completions";
    // What was asked bounds what is answered: at most `max_tokens` words (a word stands for a token).
    let pieces: string[] = text.match(/\s*\S+/g) ?? [];
    const limit = maxTokens(b!);
    const finish = pieces.length > limit ? "length" : "stop";
    pieces = pieces.slice(0, limit);
    const content = pieces.join("");
    const usage = { prompt_tokens: words(JSON.stringify(chat ? b!.messages : b!.prompt)), completion_tokens: pieces.length, total_tokens: 0 };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const base = { id: `cmpl-${answer.id}`, created, model: id };
    if (b!.stream !== true) {
      const choice = chat ? { index: 0, message: { role: "assistant", content }, finish_reason: finish } : { index: 0, text: content, finish_reason: finish, logprobs: null };
      return { status: 200, body: { ...base, object: chat ? "chat.completion" : "text_completion", choices: [choice], usage } };
    }
    // Streamed: one event per word, each made as the socket takes the last (never the whole stream in memory).
    const object = chat ? "chat.completion.chunk" : "text_completion";
    function* events(): Generator<string> {
      const event = (e: unknown) => `data: ${JSON.stringify(e)}\n\n`;
      if (chat) yield event({ ...base, object, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
      for (const p of pieces) yield event({ ...base, object, choices: [chat ? { index: 0, delta: { content: p }, finish_reason: null } : { index: 0, text: p, finish_reason: null }] });
      yield event({ ...base, object, choices: [chat ? { index: 0, delta: {}, finish_reason: finish } : { index: 0, text: "", finish_reason: finish }], usage });
      yield "data: [DONE]\n\n";
    }
    return { status: 200, raw: { data: events(), contentType: "text/event-stream" }, headers: { "cache-control": "no-cache" } };
  }
}

/** The completion tokens asked for: `max_completion_tokens` or `max_tokens` (validated before), else the emulator's ceiling. */
function maxTokens(b: Record<string, unknown>): number {
  const asked = b.max_completion_tokens ?? b.max_tokens;
  return typeof asked === "number" ? asked : MAX_COMPLETION_TOKENS;
}

/** An emulator limit: the most completion tokens (words) an OpenAI call is answered with, and the highest `max_tokens` taken. */
export const MAX_COMPLETION_TOKENS = 4096;

const words = (s: string) => (s.match(/\S+/g) ?? []).length;

// Hosted-model jobs: one store behind `runsync`, `run`,
// `status/{jobId}` and `status-sync/{jobId}`, so a job submitted one way is followed the others.
//
// A job carries timestamps only (submitted, started, finished on the emulator's clock); what a
// reader sees (IN_QUEUE, IN_PROGRESS, COMPLETED, FAILED) is computed from them at read time, as
// for endpoint workers. The waits of `runsync` and `status-sync` are real sleeps bounded by
// `wait`, so a manual clock that never moves cannot hold a request open for longer than that.
import { parseWait } from "../jobs/envelope";
import { IMAGE_MODELS, imageName, type Problem, parseImageRequest } from "./models";

export type JobStatus = "IN_QUEUE" | "IN_PROGRESS" | "COMPLETED" | "FAILED";

/** What a caller reads of a job: `output` or `error` and the two times once it finished. */
export interface JobAnswer {
  id: string;
  status: JobStatus;
  output?: { image_url: string };
  error?: string;
  /** Emulated ms the job waited in the queue. */
  delayTime?: number;
  /** Emulated ms the job ran. */
  executionTime?: number;
}

interface JobRecord {
  id: string;
  modelId: string;
  /** Clock ms (the emulator's clock, already scaled): when the job starts and when it ends. */
  startsAt: number;
  endsAt: number;
  /** Emulated ms, as reported. */
  delayMs: number;
  durationMs: number;
  outcome: { output: { image_url: string } } | { error: string };
}

export interface JobsOptions {
  clock: { now(): number };
  random: () => number;
  imageBaseUrl: () => string;
  modelJob?: (prompt: string) => { durationMs: number; fails: boolean };
  /** Emulated ms per clock ms. @default 1 */
  timeScale?: number;
}

type Reply = { status: number; body: unknown; headers?: Record<string, string> };

/** A finished job stays readable this long (emulated ms): at least the 10 minutes the platform promises. */
export const JOB_RETENTION_MS = 15 * 60_000;
/**
 * An emulator limit, not a platform rule: beyond this many jobs the oldest finished ones past
 * their retention go first, then the oldest finished at all, so memory stays bounded.
 */
export const MAX_JOBS = 10_000;

const PROBLEM_HEADERS = { "content-type": "application/problem+json" } as const;

/** A wait that does not hold the process open (a closing emulator cuts the socket anyway). */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function asJson(body: unknown): unknown {
  if (typeof body !== "string" && !Buffer.isBuffer(body)) return body;
  try {
    return JSON.parse(body.toString());
  } catch {
    return undefined;
  }
}

const refuse = (problem: Problem): Reply => ({ status: problem.status, body: problem, headers: { ...PROBLEM_HEADERS } });

export class ModelJobs {
  private readonly jobs = new Map<string, JobRecord>();
  /** Jobs submitted since start (or since the restored snapshot): the numeric part of ids. */
  runCounter = 0;

  constructor(private readonly opts: JobsOptions) {}

  /** `POST /v2/{id}/runsync`: submit, then hold the call up to `wait` for the job. */
  async runSync(modelId: string, body: unknown, waitParam: string | null): Promise<Reply> {
    const unknown = this.unknownModel(modelId);
    if (unknown) return unknown;
    const wait = parseWait(waitParam);
    if (!wait.ok) return refuse(wait.problem);
    const job = this.submit(modelId, body, "sync");
    if ("problem" in job) return refuse(job.problem);
    return { status: 200, body: await this.waitFor(job, wait.value) };
  }

  /** `POST /v2/{id}/run`: submit and answer IN_QUEUE at once. */
  run(modelId: string, body: unknown): Reply {
    const unknown = this.unknownModel(modelId);
    if (unknown) return unknown;
    const job = this.submit(modelId, body, "async");
    if ("problem" in job) return refuse(job.problem);
    return { status: 200, body: { id: job.id, status: "IN_QUEUE" } };
  }

  /**
   * `GET /v2/{id}/status/{jobId}` (`waitParam` undefined) and `status-sync/{jobId}?wait=`:
   * the job's current answer, held up to `wait` for a job not finished yet.
   */
  async status(modelId: string, jobId: string, waitParam?: string | null): Promise<Reply> {
    const unknown = this.unknownModel(modelId);
    if (unknown) return unknown;
    let waitMs = 0;
    if (waitParam !== undefined) {
      const wait = parseWait(waitParam);
      if (!wait.ok) return refuse(wait.problem);
      waitMs = wait.value;
    }
    const job = this.jobs.get(jobId);
    if (!job || job.modelId !== modelId)
      return refuse({ title: "Not Found", status: 404, detail: `model ${modelId} has no job ${JSON.stringify(jobId)}` });
    return { status: 200, body: await this.waitFor(job, waitMs) };
  }

  /** A job's answer at clock time `now`. */
  private answer(job: JobRecord, now: number): JobAnswer {
    if (now < job.startsAt) return { id: job.id, status: "IN_QUEUE" };
    if (now < job.endsAt) return { id: job.id, status: "IN_PROGRESS" };
    const times = { delayTime: job.delayMs, executionTime: job.durationMs };
    return "output" in job.outcome
      ? { id: job.id, status: "COMPLETED", output: job.outcome.output, ...times }
      : { id: job.id, status: "FAILED", error: job.outcome.error, ...times };
  }

  private unknownModel(modelId: string): Reply | undefined {
    if ((IMAGE_MODELS as readonly string[]).includes(modelId)) return undefined;
    return refuse({
      title: "Not Found",
      status: 404,
      detail: `no hosted model ${JSON.stringify(modelId)}; available: ${IMAGE_MODELS.join(", ")}`,
    });
  }

  private submit(modelId: string, body: unknown, kind: "sync" | "async"): JobRecord | { problem: Problem } {
    const parsed = parseImageRequest(modelId, asJson(body));
    if (!parsed.ok) return { problem: parsed.problem };
    const now = this.opts.clock.now();
    this.prune(now);
    this.runCounter += 1;
    let tail = "";
    for (let i = 0; i < 8; i++) tail += Math.floor(this.opts.random() * 36).toString(36);
    const spec = this.opts.modelJob?.(parsed.value.prompt) ?? { durationMs: 0, fails: false };
    const scale = this.opts.timeScale ?? 1;
    const base = this.opts.imageBaseUrl().replace(/\/+$/, "");
    const job: JobRecord = {
      id: `${kind}-${this.runCounter}-${tail}`,
      modelId,
      // Jobs start at once: the emulator has no queue of its own, so delayTime is 0.
      startsAt: now,
      endsAt: now + spec.durationMs / scale,
      delayMs: 0,
      durationMs: spec.durationMs,
      outcome: spec.fails
        ? { error: `model ${modelId} failed on this input (emulated failure)` }
        : { output: { image_url: `${base}/images/${imageName(parsed.value)}` } },
    };
    this.jobs.set(job.id, job);
    return job;
  }

  /** The job's answer once it finished, or when `waitMs` (emulated) ran out, whichever is first. */
  private async waitFor(job: JobRecord, waitMs: number): Promise<JobAnswer> {
    const scale = this.opts.timeScale ?? 1;
    // The answer is the job's state when the wait ends, even if this process answers late (a
    // loaded machine): a job longer than the wait reads IN_PROGRESS however slow the reply.
    const waitEnd = this.opts.clock.now() + waitMs / scale;
    // The bound is real time, so a clock that does not move cannot hold the request forever.
    const until = performance.now() + waitMs / scale;
    for (;;) {
      const now = this.opts.clock.now();
      const a = this.answer(job, Math.min(now, waitEnd));
      const left = until - performance.now();
      if (a.status === "COMPLETED" || a.status === "FAILED" || now >= waitEnd || left <= 0) return a;
      // +1: a timer may fire a little before the clock reads the end.
      await sleep(Math.min(Math.max(job.endsAt - now, 0) + 1, left));
    }
  }

  /** Drops jobs finished longer ago than the retention, then the oldest finished past MAX_JOBS. */
  private prune(now: number): void {
    const keep = JOB_RETENTION_MS / (this.opts.timeScale ?? 1);
    for (const [id, j] of this.jobs) if (now >= j.endsAt + keep) this.jobs.delete(id);
    if (this.jobs.size < MAX_JOBS) return;
    for (const [id, j] of this.jobs) {
      if (this.jobs.size < MAX_JOBS) break;
      if (now >= j.endsAt) this.jobs.delete(id);
    }
  }
}

// Jobs on the account's own endpoints: a queue per endpoint and each job's life (submitted,
// taken by a worker, ended, timed out by its execution timeout or ttl, cancelled, retried,
// purged, its webhook called). The workers that take the jobs, and the scaling by
// `scalerType`/`scalerValue` and idle timeouts, are workers.ts; what a job is, job.ts.
//
// Like the rest of the emulator this keeps timestamps, not timers: `sync(now)` replays every
// event between the last sync and `now` in time order (a worker ready, a job done or timed
// out, a ttl passed, a scaler threshold crossed, an idle worker leaving), so a manual clock or
// a clock moved forward by the control plane sees exactly what the elapsed time would have
// produced. Durations are emulated ms; the clock runs `timeScale` times slower than them.
// Only a webhook, or a handler function given by an embedder, needs something to happen
// without a reader: a timer then syncs at the next event.
import type { EndpointRecord, WorkerRecord } from "../endpoints/store";
import { checkEnvelope, POLICY_LIMITS } from "./envelope";
import { busy, DEFAULT_JOB_LIMITS, type EndpointHealth, type EndpointJobStatus, FINAL, type Job, type JobAnswer, type JobLimits, MAX_EVENTS, MAX_JOBS_PER_ENDPOINT, JOB_RETENTION_MS, type Queue, type QueueOptions, type Reply, refuse } from "./job";
import { HeldCalls } from "./held";
import { Webhooks } from "./webhook";
import { planTestJob, type WorkerPlan } from "./test-worker";
import { addActive, answerOf, healthOf, newQueue, prune, removeActive } from "./active";
import { latestReady, roll, takesJobs } from "./rollout";
import { leaveIdle, nextEvent, scaleUp, type WorkerState, workerStates } from "./workers";

export class EndpointJobs {
  private readonly queues = new Map<string, Queue>();
  private counter = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly held: HeldCalls;
  private closed = false;
  /**
   * Jobs the replay has looked at since start (a running job checked, a queued one timed out or
   * started): what a test counts to hold the replay linear in its events, instead of timing it.
   */
  replaySteps = 0;
  /** Webhook calls (a test may await them). */
  readonly webhooks = new Webhooks();

  private readonly limits: JobLimits;

  constructor(private readonly opts: QueueOptions) {
    this.limits = { ...DEFAULT_JOB_LIMITS, ...opts.limits };
    this.held = new HeldCalls(this.limits.heldCalls);
  }

  private get scale(): number {
    return this.opts.timeScale;
  }

  has(endpointId: string): boolean {
    return this.opts.store.get(endpointId) !== undefined;
  }

  /** `POST /v2/{id}/run` (and the submission of runsync): validate, queue, answer IN_QUEUE. */
  submit(endpointId: string, body: unknown): { job: Job } | { reply: Reply } {
    const ep = this.opts.store.get(endpointId);
    if (!ep) return { reply: refuse(404, `no endpoint ${JSON.stringify(endpointId)}`) };
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return { reply: refuse(400, "request body must be a JSON object of the form { input: { ... } }") };
    const errors: string[] = [];
    const checked = checkEnvelope(body as Record<string, unknown>, errors);
    if (errors.length > 0) return { reply: refuse(422, errors.join("; "), errors) };
    // checkEnvelope answers undefined only with an error pushed.
    const env = checked!;
    const now = this.opts.clock.now();
    this.sync(now);
    const q = this.queue(endpointId, now);
    const bytes = Buffer.byteLength(JSON.stringify(env.input));
    const { queuedJobs, queuedBytes } = this.limits;
    if (q.active.size >= queuedJobs || q.activeBytes + bytes > queuedBytes)
      return {
        reply: busy(
          429,
          `endpoint ${endpointId} holds ${q.active.size} jobs not ended (${q.activeBytes} bytes of input); it takes at most ${queuedJobs} jobs and ${queuedBytes} bytes: retry when some have ended`,
        ),
      };
    // A full pass every 64 submissions (or at the cap): retention is a floor, not an exact time.
    if (this.counter % 64 === 0 || q.jobs.size >= MAX_JOBS_PER_ENDPOINT) prune(q, now, JOB_RETENTION_MS / this.scale);
    this.counter += 1;
    let tail = "";
    for (let i = 0; i < 8; i++) tail += Math.floor(this.opts.random() * 36).toString(36);
    const job: Job = {
      id: `${this.counter}-${tail}-${endpointId.slice(0, 4)}`,
      endpointId,
      input: env.input,
      ...(env.webhook ? { webhook: env.webhook } : {}),
      policy: env.policy,
      seq: this.counter,
      submittedAt: now,
      ttlEnd: now + (env.policy.ttl ?? POLICY_LIMITS.ttl.default) / this.scale,
      status: "IN_QUEUE",
      chunkTimes: [],
      streamRead: 0,
      bytes,
    };
    q.jobs.set(job.id, job);
    addActive(q, job);
    q.waiting.add(job);
    this.sync(now);
    return { job };
  }

  /** A job of the endpoint, synced to now; undefined when the endpoint or the job is unknown. */
  find(endpointId: string, jobId: string): Job | undefined {
    // The replay drops the queue of an endpoint the store no longer has, and makes none for an unknown one.
    this.sync(this.opts.clock.now());
    return this.queues.get(endpointId)?.jobs.get(jobId);
  }

  answer(job: Job): JobAnswer {
    return answerOf(job, this.opts.clock.now(), this.scale);
  }

  /** The answer to a call past the `heldCalls` limit: 503 with Retry-After. */
  tooManyHeld(): Reply {
    return this.held.tooMany();
  }

  /** A call held elsewhere (a hosted model's runsync or status-sync) counted against `heldCalls`: the function ends it; undefined past the limit. */
  holdOther(): (() => void) | undefined {
    return this.held.holdOther();
  }

  /** Whether one more call may be held open (the `heldCalls` limit): false means answer 503 at once. */
  canHold(): boolean {
    return this.held.canHold();
  }

  /**
   * The job's answer once it is final, or when `waitMs` (emulated) ran out; undefined when the
   * job is gone meanwhile (purged, or its endpoint deleted). No polling: the job's end (or its
   * purge) wakes the call, and one timer for every held call fires at the next event or deadline.
   */
  async waitFor(job: Job, waitMs: number): Promise<JobAnswer | undefined> {
    const now = this.opts.clock.now();
    this.sync(now);
    if (!this.holds(job)) return undefined;
    if (FINAL.includes(job.status) || waitMs <= 0 || this.closed) return this.answer(job);
    const held = this.held.hold(job, now + waitMs / this.scale, performance.now() + waitMs / this.scale);
    this.armTimer(now);
    const gone = await held;
    return gone ? undefined : this.answer(job);
  }

  /** Whether the queue still holds this very job (a purge or a deleted endpoint drops it). */
  private holds(job: Job): boolean {
    return this.queues.get(job.endpointId)?.jobs.get(job.id) === job;
  }

  /** `stream/{jobId}`: the chunks produced since the last stream read. */
  stream(job: Job): { status: EndpointJobStatus; stream: { output: unknown }[] } {
    const now = Math.min(this.opts.clock.now(), job.finishedAt ?? Infinity);
    const chunks = job.plan?.chunks ?? [];
    let n = job.streamRead;
    while (n < chunks.length && job.chunkTimes[n] <= now) n++;
    const out = chunks.slice(job.streamRead, n).map((output) => ({ output }));
    job.streamRead = n;
    return { status: job.status, stream: out };
  }

  // A cancel and a retry replay up to now first: the job may have ended meanwhile, and the
  // worker it frees (or the one that takes it again) does so at now, not at the last read. A job
  // the queue no longer holds (purged, or its endpoint deleted) is answered as it stands.
  cancel(job: Job): JobAnswer {
    const now = this.opts.clock.now();
    this.sync(now);
    if (!FINAL.includes(job.status) && this.holds(job)) this.finish(job, "CANCELLED", now, undefined);
    this.sync(now);
    return { id: job.id, status: job.status };
  }

  retry(job: Job): Reply {
    const now = this.opts.clock.now();
    this.sync(now);
    if (job.status !== "FAILED" && job.status !== "TIMED_OUT")
      return refuse(409, `job ${job.id} is ${job.status}; only a FAILED or TIMED_OUT job can be retried`);
    const q = this.queue(job.endpointId, now);
    q.counters.retried += 1;
    addActive(q, job);
    Object.assign(job, { status: "IN_QUEUE", submittedAt: now, ttlEnd: now + (job.policy.ttl ?? POLICY_LIMITS.ttl.default) / this.scale, chunkTimes: [], streamRead: 0 });
    for (const k of ["workerId", "startedAt", "endsAt", "deadline", "plan", "finishedAt", "outcome", "webhookResult"] as const) delete job[k];
    q.waiting.add(job);
    // The answer is the retry taken; a free worker may take the job at once after it.
    this.sync(now);
    return { status: 200, body: { id: job.id, status: "IN_QUEUE" } };
  }

  purge(endpointId: string): { removed: number; status: "completed" } {
    const now = this.opts.clock.now();
    this.sync(now);
    const q = this.queue(endpointId, now);
    let removed = 0;
    for (const j of q.active)
      if (j.status === "IN_QUEUE") {
        q.jobs.delete(j.id);
        q.waiting.remove(j);
        removeActive(q, j);
        this.held.release(j, true);
        removed++;
      }
    return { removed, status: "completed" };
  }

  health(endpointId: string): EndpointHealth {
    const now = this.opts.clock.now();
    this.sync(now);
    return healthOf(this.queue(endpointId, now), this.workerStates(this.opts.store.get(endpointId)!, now));
  }

  /** Each live worker's state at `now` (INITIALIZING, UNHEALTHY, IDLE, RUNNING), for health and listEndpointWorkers. */
  workerStates(ep: EndpointRecord, now: number): { worker: WorkerRecord; state: WorkerState }[] {
    return workerStates(this.opts, ep, now);
  }

  /** The most recent jobs of an endpoint (for the console), newest first. */
  recent(endpointId: string, limit: number): { answer: JobAnswer; submittedAt: number; webhook?: string; webhookResult?: string }[] {
    this.sync(this.opts.clock.now());
    const jobs = [...(this.queues.get(endpointId)?.jobs.values() ?? [])].sort((a, b) => b.seq - a.seq).slice(0, limit);
    return jobs.map((j) => ({ answer: this.answer(j), submittedAt: j.submittedAt, webhook: j.webhook, webhookResult: j.webhookResult }));
  }

  /** Replays every endpoint's events up to `now`. */
  sync(now: number): void {
    for (const ep of this.opts.store.list()) {
      const q = this.queue(ep.id, now);
      // Each event in turn, up to now itself.
      let t = Math.min(q.lastTick, now);
      // Stryker disable next-line EqualityOperator,UpdateOperator: a bound against a replay that never ends, which a sound replay never nears (each event is later than the one before, up to now)
      for (let i = 0; i < MAX_EVENTS; i++) {
        this.settle(ep, q, t);
        if (t >= now) break;
        t = Math.min(nextEvent(this.opts, ep, q, t) ?? Infinity, now);
      }
      q.lastTick = Math.max(q.lastTick, now);
    }
    for (const id of this.queues.keys())
      if (!this.opts.store.get(id)) {
        this.queues.delete(id);
        this.held.releaseEndpoint(id);
      }
    this.armTimer(now);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.held.releaseAll();
  }

  private queue(endpointId: string, now: number): Queue {
    let q = this.queues.get(endpointId);
    if (!q) this.queues.set(endpointId, (q = newQueue(now)));
    return q;
  }

  /** Applies everything due at `t` until nothing changes. */
  private settle(ep: EndpointRecord, q: Queue, t: number): void {
    // Stryker disable next-line EqualityOperator,UpdateOperator: a bound against rounds that never settle, which sound rules never near (each round starts, ends or moves jobs and workers)
    for (let round = 0; round < 10_000; round++) {
      let changed = false;
      const byId = new Map(ep.workers.map((w) => [w.id, w]));
      // The running jobs (no more than the workers), then the queued ones whose ttl passed, off
      // their heap: an event never walks the whole queue, so a replay stays linear in its events.
      for (const j of [...q.running]) {
        this.replaySteps++;
        const w = j.workerId ? byId.get(j.workerId) : undefined;
        // start() sets both a running job's deadline and (with its plan) its end, the handler's answer the end.
        const deadline = j.deadline ?? Infinity;
        const endsAt = j.endsAt ?? Infinity;
        if (!w || w.jobId !== j.id) {
          // Its worker left (a scale-down below it, which lets go of its job): the job goes back to the queue.
          Object.assign(j, { status: "IN_QUEUE" as const, chunkTimes: [], streamRead: 0 });
          for (const k of ["workerId", "startedAt", "endsAt", "deadline", "plan"] as const) delete j[k];
          q.running.delete(j);
          q.waiting.add(j);
          changed = true;
        } else if (deadline <= t && deadline < endsAt) {
          this.finish(j, "TIMED_OUT", deadline, { error: "job exceeded its execution timeout or ttl" });
          changed = true;
        } else if (endsAt <= t) {
          this.finish(j, "error" in j.plan!.outcome ? "FAILED" : "COMPLETED", endsAt, j.plan!.outcome);
          changed = true;
        }
      }
      for (let j = q.waiting.firstTtl(); j && j.ttlEnd <= t; j = q.waiting.firstTtl()) {
        this.replaySteps++;
        this.finish(j, "TIMED_OUT", j.ttlEnd, { error: "job's ttl passed while it was queued" });
        changed = true;
      }
      if (roll(this.opts, ep, t)) changed = true;
      // Free, started workers take queued jobs, oldest first (low-priority jobs after the rest);
      // during a rollout the latest version's workers, stale ones only while none of those is ready.
      const latest = latestReady(this.opts, ep, t);
      const free = ep.workers.filter((w) => w.drainingSince === null && takesJobs(this.opts, ep, w, t, latest)).sort((a, b) => (a.idleSince ?? 0) - (b.idleSince ?? 0));
      for (let j = q.waiting.next(); j && free.length > 0; j = q.waiting.next()) {
        this.replaySteps++;
        this.start(ep, q, j, free.shift()!, t);
        changed = true;
      }
      if (scaleUp(this.opts, ep, q, t)) changed = true;
      if (leaveIdle(this.opts, ep, t)) changed = true;
      if (!changed) return;
    }
  }

  private start(ep: EndpointRecord, q: Queue, job: Job, w: WorkerRecord, t: number): void {
    q.waiting.remove(job);
    q.running.add(job);
    job.status = "IN_PROGRESS";
    job.startedAt = t;
    job.workerId = w.id;
    w.jobId = job.id;
    const limit = job.policy.executionTimeout ?? ep.executionTimeoutMs;
    job.deadline = Math.min(limit > 0 ? t + limit / this.scale : Infinity, job.ttlEnd);
    const handler = this.opts.handler;
    if (handler) {
      const run = async () => handler({ id: job.id, endpointId: ep.id, input: structuredClone(job.input) });
      const started = job.startedAt;
      run().then(
        (output) => this.handlerDone(job, started, { output: output === undefined ? null : output }, Array.isArray(job.input.stream) && Array.isArray(output) ? output : []),
        (err: unknown) => this.handlerDone(job, started, { error: err instanceof Error ? err.message : String(err) }, []),
      );
      return;
    }
    const plan = planTestJob(job.input);
    job.plan = plan;
    job.endsAt = t + plan.durationMs / this.scale;
    const n = plan.chunks.length;
    job.chunkTimes = plan.chunks.map((_, i) => t + ((i + 1) * plan.durationMs) / n / this.scale);
  }

  /** The handler's answer: its outcome, and its output as stream chunks when the input asked for a stream. */
  private handlerDone(job: Job, started: number, outcome: WorkerPlan["outcome"], chunks: unknown[]): void {
    // A job cancelled, timed out or requeued meanwhile ignores its late answer.
    if (job.status !== "IN_PROGRESS" || job.startedAt !== started) return;
    const now = this.opts.clock.now();
    job.plan = { durationMs: 0, outcome, chunks };
    job.endsAt = Math.max(now, started);
    job.chunkTimes = job.plan.chunks.map(() => job.endsAt!);
    this.sync(now);
  }

  /** Ends a job its queue holds (the replay's, and a cancel's, which checks). */
  private finish(job: Job, status: EndpointJobStatus, at: number, outcome: Job["outcome"]): void {
    const q = this.queues.get(job.endpointId)!;
    // A job's worker holds it until it ends or is requeued (which forgets the worker).
    const w = this.opts.store.get(job.endpointId)!.workers.find((x) => x.id === job.workerId);
    if (w) {
      w.jobId = null;
      w.idleSince = at;
    }
    q.waiting.remove(job);
    q.running.delete(job);
    removeActive(q, job);
    job.status = status;
    job.finishedAt = at;
    // Its held calls answer once the replay that ended it is over (they read the job then).
    this.held.release(job, false);
    job.outcome = outcome;
    if (status === "COMPLETED") q.counters.completed += 1;
    if (status === "FAILED" || status === "TIMED_OUT") q.counters.failed += 1;
    if (job.webhook) this.webhooks.deliver(job, this.answer(job));
  }

  /**
   * One timer for everything that must happen without a reader: a job with a webhook (or a
   * handler) ends at its next event, and a held call ends at its job's next event or its own
   * deadline. A clock moved by an embedder outside the control plane is seen within a second.
   */
  private armTimer(now: number): void {
    clearTimeout(this.timer);
    if (this.closed) return;
    let next = Infinity;
    let pending = false;
    const waited = this.held.endpoints();
    for (const [id, q] of this.queues) {
      if (!waited.has(id) && q.webhooks === 0) continue;
      pending = true;
      // Every caller has just replayed, which drops the queues of deleted endpoints.
      next = Math.min(next, nextEvent(this.opts, this.opts.store.get(id)!, q, now) ?? Infinity);
    }
    if (!pending) return;
    const delay = this.held.untilFirstDeadline(now, performance.now(), Math.min(Math.max(next - now, 0) + 1, 1000));
    this.timer = setTimeout(() => this.tick(), Math.max(delay, 0));
    this.timer.unref();
  }

  /** The timer: replay up to now (ending jobs wakes their calls), then end the held calls whose wait ran out. */
  private tick(): void {
    const now = this.opts.clock.now();
    this.sync(now);
    this.held.releaseDue(now, performance.now());
    this.armTimer(now);
  }
}

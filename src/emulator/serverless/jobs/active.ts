// An endpoint's queue record: the jobs not ended (bounded in count and bytes by the queue's
// limits), the retention pass that drops ended jobs once kept long enough, and what the queue
// answers of a job and of itself.
import { type EndpointHealth, type Job, type JobAnswer, MAX_JOBS_PER_ENDPOINT, type Queue } from "./job";
import { WaitingJobs } from "./waiting";
import type { WorkerState } from "./workers";

/** An empty queue, its replay at `now`. */
export function newQueue(now: number): Queue {
  return { jobs: new Map(), active: new Set(), waiting: new WaitingJobs(), running: new Set(), activeBytes: 0, webhooks: 0, lastTick: now, counters: { completed: 0, failed: 0, retried: 0 } };
}

/** Counts a job as not ended (submitted or retried). */
export function addActive(q: Queue, job: Job): void {
  if (q.active.has(job)) return;
  q.active.add(job);
  q.activeBytes += job.bytes;
  if (job.webhook) q.webhooks += 1;
}

/** A job ended or purged: it no longer counts against the queue's limits. */
export function removeActive(q: Queue, job: Job): void {
  if (!q.active.delete(job)) return;
  q.activeBytes -= job.bytes;
  if (job.webhook) q.webhooks -= 1;
}

/** Drops the jobs ended at least `keepMs` (clock ms) before `now`; at the cap, the oldest ended ones too. */
export function prune(q: Queue, now: number, keepMs: number): void {
  // A job not ended has no time to be dropped at.
  for (const [id, j] of q.jobs) if (now >= (j.finishedAt ?? Infinity) + keepMs) q.jobs.delete(id);
  for (const [id, j] of q.jobs) {
    if (q.jobs.size < MAX_JOBS_PER_ENDPOINT) break;
    if (j.finishedAt !== undefined) q.jobs.delete(id);
  }
}

/** A job's answer at `now`: its delay and execution times in emulated ms (`scale` per clock ms). */
export function answerOf(job: Job, now: number, scale: number): JobAnswer {
  const out: JobAnswer = { id: job.id, status: job.status };
  if (job.workerId !== undefined) out.workerId = job.workerId;
  if (job.startedAt !== undefined) {
    out.delayTime = Math.round((job.startedAt - job.submittedAt) * scale);
    out.executionTime = Math.round(((job.finishedAt ?? now) - job.startedAt) * scale);
  } else if (job.finishedAt !== undefined) out.delayTime = Math.round((job.finishedAt - job.submittedAt) * scale);
  if (job.outcome && "output" in job.outcome) out.output = job.outcome.output;
  if (job.outcome && "error" in job.outcome) out.error = job.outcome.error;
  return out;
}

/** `GET /v2/{id}/health`: the queue's counts and its workers' states. */
export function healthOf(q: Queue, workers: readonly { state: WorkerState }[]): EndpointHealth {
  const jobs = [...q.active];
  const count = (s: string) => workers.filter((x) => x.state === s).length;
  return {
    jobs: {
      completed: q.counters.completed,
      failed: q.counters.failed,
      inProgress: jobs.filter((j) => j.status === "IN_PROGRESS").length,
      inQueue: jobs.filter((j) => j.status === "IN_QUEUE").length,
      retried: q.counters.retried,
    },
    workers: {
      idle: count("IDLE"),
      initializing: count("INITIALIZING"),
      ready: count("IDLE") + count("RUNNING"),
      running: count("RUNNING"),
      throttled: 0,
      unhealthy: count("UNHEALTHY"),
    },
  };
}

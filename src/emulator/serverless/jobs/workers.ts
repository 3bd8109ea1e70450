// The workers of an account's endpoint as its jobs see them: when one is ready, its state, when
// the scaler adds one (`QUEUE_DELAY`, `REQUEST_COUNT`, never above `workersMax`), when an idle
// one above `workersMin` leaves, and the next of these events after a time. All times are clock
// ms; durations given in emulated ms or seconds are divided by the time scale. The queue
// (queue.ts) calls these while it replays events; they change only the endpoint's worker records.
//
// During a rollout (rollout.ts) the replacements it starts are extra: the scaler, the idle
// timeout and workersMin count the workers the endpoint keeps (`keptWorkers`), so a rollout
// neither looks like a scale-up to them nor lets them undo it.
import { type EndpointRecord, keptWorkers, type WorkerRecord, type WorkerState, workerState } from "../endpoints/store";
import type { Queue, QueueOptions } from "./job";

/** What the worker rules need of the queue's options. */
export type WorkerOptions = Pick<QueueOptions, "store" | "timeScale">;

export type { WorkerState };

const live = (ep: EndpointRecord): WorkerRecord[] => ep.workers.filter((w) => w.drainingSince === null);

export function readyAt(o: WorkerOptions, ep: EndpointRecord, w: WorkerRecord): number {
  return o.store.readyAt(ep, w);
}

/** Whether a worker takes jobs at `t`: started, and its image could start. */
export function serving(o: WorkerOptions, ep: EndpointRecord, w: WorkerRecord, t: number): boolean {
  return !w.cannotStart && readyAt(o, ep, w) <= t;
}

/** Each live worker's state at `now`, for health and listEndpointWorkers. */
export function workerStates(o: WorkerOptions, ep: EndpointRecord, now: number): { worker: WorkerRecord; state: WorkerState }[] {
  return live(ep).map((worker) => ({ worker, state: workerState(worker, readyAt(o, ep, worker), now) }));
}

/** Adds workers as the scaler asks, never above workersMax. */
export function scaleUp(o: WorkerOptions, ep: EndpointRecord, q: Queue, t: number): boolean {
  const workers = keptWorkers(ep);
  if (workers.length >= ep.workersMax) return false;
  const queued = q.waiting.size;
  const inProgress = q.running.size;
  if (queued === 0) return false;
  let want = workers.length;
  if (workers.length === 0) want = 1; // a queued job on an endpoint with no worker wakes one
  if (ep.scalerType === "REQUEST_COUNT") want = Math.max(want, Math.ceil((queued + inProgress) / Math.max(ep.scalerValue, 0.5)));
  else {
    const oldest = q.waiting.oldest()!.submittedAt;
    const starting = workers.some((w) => readyAt(o, ep, w) > t);
    // "More than scalerValue seconds": at the threshold itself the job has waited exactly that long.
    if (!starting && (t - oldest) * o.timeScale > ep.scalerValue * 1000) want = Math.max(want, workers.length + 1);
  }
  want = Math.min(want, ep.workersMax);
  if (want <= workers.length) return false;
  for (let i = workers.length; i < want; i++) o.store.addWorker(ep, t);
  return true;
}

/** Workers above workersMin leave after idleTimeout seconds with no job (one that cannot start is not idle: it stays). */
export function leaveIdle(o: WorkerOptions, ep: EndpointRecord, t: number): boolean {
  const kept = keptWorkers(ep);
  let count = kept.length;
  if (count <= ep.workersMin) return false;
  const idle = kept
    .filter((w) => !w.jobId && serving(o, ep, w, t))
    .map((w) => ({ w, at: leaveAt(o, ep, w) }))
    .filter((x) => x.at <= t)
    .sort((a, b) => a.at - b.at);
  let changed = false;
  for (const { w, at } of idle) {
    if (count <= ep.workersMin) break;
    o.store.drainWorker(ep, w, at);
    count--;
    changed = true;
  }
  return changed;
}

function leaveAt(o: WorkerOptions, ep: EndpointRecord, w: WorkerRecord): number {
  return Math.max(w.idleSince ?? 0, readyAt(o, ep, w)) + (ep.idleTimeout * 1000) / o.timeScale;
}

/** The first event after `t`: a worker ready, a job ending or timing out, a ttl, a scaler threshold, an idle leave. */
export function nextEvent(o: WorkerOptions, ep: EndpointRecord, q: Queue, t: number): number | undefined {
  let next = Infinity;
  const at = (x: number | undefined) => {
    if (x !== undefined && x > t && x < next) next = x;
  };
  const kept = keptWorkers(ep);
  for (const w of live(ep)) at(readyAt(o, ep, w));
  for (const w of kept) if (!w.jobId && !w.cannotStart && kept.length > ep.workersMin) at(leaveAt(o, ep, w));
  for (const j of q.running) {
    at(j.endsAt);
    at(j.deadline);
  }
  at(q.waiting.firstTtl()?.ttlEnd);
  const oldest = q.waiting.oldest();
  // The first time past the threshold: one emulated ms after it.
  if (oldest && ep.scalerType === "QUEUE_DELAY") at(oldest.submittedAt + (ep.scalerValue * 1000 + 1) / o.timeScale);
  return next === Infinity ? undefined : next;
}

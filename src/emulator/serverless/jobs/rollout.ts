// A release that rolls, as its workers see it (docs/emulator.md, "Releases and rollouts"): every worker
// of an older version is stale; the endpoint starts one of the latest version per stale worker,
// at most max(1, ceil(kept / 4)) starting at once (past workersMax if need be); when one is
// ready it retires a stale worker, which drains at once or, holding a job, after it. A
// replacement that cannot start (the `errorImages` fault) is UNHEALTHY and retires no one, so
// the stale workers keep serving and the rollout stays in progress until a later release.
//
// Like scaling (workers.ts) this is a rule the queue's replay applies at each event time (a
// worker ready, a job ended), so a moved clock sees what the elapsed time would have done.
import { type EndpointRecord, keptWorkers, type WorkerRecord } from "../endpoints/store";
import { serving, type WorkerOptions } from "./workers";

/** Which stale worker a ready replacement retires first: one not serving, then an idle one, the oldest first. */
const retireOrder = (o: WorkerOptions, ep: EndpointRecord, t: number) => (a: WorkerRecord, b: WorkerRecord) =>
  Number(serving(o, ep, a, t)) - Number(serving(o, ep, b, t)) || Number(!!a.jobId) - Number(!!b.jobId) || a.version - b.version || a.createdAt - b.createdAt;

/** Applies the rollout's rules at `t`; true when a worker changed. */
export function roll(o: WorkerOptions, ep: EndpointRecord, t: number): boolean {
  let changed = false;
  const live = ep.workers.filter((w) => w.drainingSince === null);
  const stale = (w: WorkerRecord) => w.version < ep.version;
  for (const w of live) {
    if (!w.replacing || !stale(w)) continue;
    // A superseded rollout's replacement: still starting (or unable to), it is an extra worker of
    // an older version and leaves; started, it serves as a stale worker that the new rollout replaces.
    if (serving(o, ep, w, t)) delete w.replacing;
    else o.store.drainWorker(ep, w, t);
    changed = true;
  }
  const candidates = () => keptWorkers(ep).filter((w) => stale(w) && !w.retiring);
  for (const w of live) {
    if (!w.replacing || w.drainingSince !== null || !serving(o, ep, w, t)) continue;
    delete w.replacing;
    changed = true;
    const victim = candidates().sort(retireOrder(o, ep, t))[0];
    if (!victim) continue; // the stale worker it was started for left meanwhile (an idle timeout)
    if (victim.jobId) victim.retiring = true;
    else o.store.drainWorker(ep, victim, t);
  }
  for (const w of keptWorkers(ep)) {
    if (w.retiring && !w.jobId) {
      o.store.drainWorker(ep, w, t);
      changed = true;
    }
  }
  const starting = ep.workers.filter((w) => w.drainingSince === null && w.replacing).length;
  const surge = Math.max(1, Math.ceil(keptWorkers(ep).length / 4));
  const wanted = Math.min(surge, candidates().length) - starting;
  for (let i = 0; i < wanted; i++) {
    o.store.addWorker(ep, t, { replacing: true });
    changed = true;
  }
  return changed;
}

/** Whether a job may go to `w` at `t`: a stale worker takes one only while no worker of the latest version is ready. */
export function takesJobs(o: WorkerOptions, ep: EndpointRecord, w: WorkerRecord, t: number, latestReady: boolean): boolean {
  if (w.jobId || w.retiring || !serving(o, ep, w, t)) return false;
  return w.version === ep.version || !latestReady;
}

/** Whether a worker of the latest version is ready at `t` (then stale workers take no new job). */
export function latestReady(o: WorkerOptions, ep: EndpointRecord, t: number): boolean {
  return ep.workers.some((w) => w.drainingSince === null && w.version === ep.version && serving(o, ep, w, t));
}

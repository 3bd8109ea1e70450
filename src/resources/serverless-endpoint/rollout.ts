/**
 * After a write: the endpoint's version and rollout, and, after a change that rolls its
 * workers, the wait until the rollout is over (every worker on the latest version), for both
 * APIs: the platform serves an endpoint's releases and workers over REST whichever API manages
 * it.
 *
 *   no wait   GET /v2/serverless/{id}/releases once: the version and rollout for the outputs.
 *   wait      GET /v2/serverless/{id}/workers once per tick (the pause grows by half each time,
 *             up to the poll ceiling): while a worker is stale or one of the latest version is
 *             starting, wait; when every worker of the latest version is UNHEALTHY (its image
 *             cannot start) the rollout is held: fail at once, naming the release, the workers
 *             and what to do (the stale workers keep serving). When the workers say it is
 *             over, GET .../releases confirms it (the contract's `rollout.inProgress`) and
 *             gives the outputs. Out of time: fail naming the same, the next `up` waits again.
 *
 * Each read is a status read that yields to work (the client's pacing): at the quota, the
 * writes of a promotion go first. The platform lists no endpoint's releases beside another's,
 * so each endpoint waits on its own reads.
 */
import type { Clock, ComputePlatform, EndpointReleases, EndpointWorkerRecord, Release } from "../../client";
import type { EndpointRolloutOutput } from "./outputs";
import { MAX_POLLS } from "./dialect";

/** Worker statuses of a worker that serves jobs. */
const READY = new Set(["IDLE", "RUNNING"]);

export interface RolloutOptions {
  client: Pick<ComputePlatform, "serverless">;
  id: string;
  clock: Clock;
  signal?: AbortSignal;
  /** Why a rollout is expected (the release's fields, or `rollout`); none: read once, no wait. */
  reasons: readonly string[];
  /** The program's `waitForRollout`. */
  wait: boolean;
  timeoutSeconds: number;
  pollIntervalMs: number;
  maxPollIntervalMs: number;
}

/** What the outputs say of the endpoint's releases. */
export interface RolloutState {
  version: number | null;
  rollout: EndpointRolloutOutput;
}

/** A rollout that did not finish: held (the new workers cannot start) or out of time. The state as last read. */
export class RolloutNotOverError extends Error {
  constructor(
    message: string,
    readonly state: RolloutState,
  ) {
    super(message);
    this.name = "RolloutNotOverError";
  }
}

/** The endpoint's version and rollout, after waiting for the rollout when `reasons` says one is under way. */
export async function settleRollout(o: RolloutOptions): Promise<RolloutState> {
  const read = { signal: o.signal, yieldToWork: true };
  if (!o.wait || o.reasons.length === 0) return stateOf(await o.client.serverless.releases(o.id, read));
  const deadline = o.clock.now() + 1000 * o.timeoutSeconds;
  let pause = o.pollIntervalMs;
  for (let i = 0; i < MAX_POLLS; i++) {
    const listed = [...(await o.client.serverless.workers(o.id, read)).workers];
    const held = isHeld(listed);
    const late = o.clock.now() >= deadline;
    if (held || late || !pending(listed)) {
      const releases = await o.client.serverless.releases(o.id, read);
      const state = stateOf(releases, listed);
      if (held) throw new RolloutNotOverError(heldMessage(o.id, releases, listed), state);
      if (!releases.rollout.inProgress) return state;
      if (late) throw new RolloutNotOverError(timeoutMessage(o.id, o.timeoutSeconds, releases, listed), state);
    }
    await o.clock.sleep(Math.min(pause, Math.max(0, deadline - o.clock.now())), o.signal);
    pause = Math.min(o.maxPollIntervalMs, pause * 1.5);
  }
  throw new Error(`endpoint ${o.id}: its rollout was read ${MAX_POLLS} times`);
}

/** The outputs' version and rollout from the releases; with the workers as just listed, the versions that serve. */
function stateOf(r: EndpointReleases, workers?: readonly EndpointWorkerRecord[]): RolloutState {
  const { inProgress, workersOnLatest, workersTotal, percentOnLatest } = r.rollout;
  return {
    version: r.endpointVersion ?? r.releases[0]?.version ?? null,
    rollout: { inProgress, workersOnLatest, workersTotal, percentOnLatest, ...(workers ? { serving: serving(workers) } : {}) },
  };
}

/** A worker still to be replaced, or one of the latest version not serving yet: the rollout is under way. */
function pending(workers: readonly EndpointWorkerRecord[]): boolean {
  return workers.some((w) => w.isStale || w.status === "INITIALIZING" || w.status === "UNHEALTHY");
}

/** Every worker of the latest version is UNHEALTHY (none serving, none starting): its release cannot start. */
function isHeld(workers: readonly EndpointWorkerRecord[]): boolean {
  const latest = workers.filter((w) => !w.isStale);
  return latest.length > 0 && latest.every((w) => w.status === "UNHEALTHY");
}

/** The versions ready workers run, ascending. */
function serving(workers: readonly EndpointWorkerRecord[]): number[] {
  const versions = workers.filter((w) => READY.has(w.status) && typeof w.version === "number").map((w) => w.version as number);
  return [...new Set(versions)].sort((a, b) => a - b);
}

/** `2 UNHEALTHY new (version 4, image "x"), 2 IDLE stale (version 3)`. */
export function describeWorkers(workers: readonly EndpointWorkerRecord[]): string {
  if (workers.length === 0) return "no workers";
  const groups = new Map<string, number>();
  for (const w of workers) {
    const key = `${w.status} ${w.isStale ? "stale" : "new"} (version ${w.version ?? "unknown"}${w.image ? `, image ${JSON.stringify(w.image)}` : ""})`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return [...groups].map(([key, n]) => `${n} ${key}`).join(", ");
}

/** `release 4 (template.image "a" -> "b")`: the release and what it changed, values as the platform gives them. */
export function describeRelease(r: Pick<Release, "version" | "diff"> | undefined, version: number | null | undefined): string {
  const changes = (r?.diff ?? []).map((d) => `${d.field} ${JSON.stringify(d.old)} -> ${JSON.stringify(d.new)}`);
  return `release ${version ?? r?.version ?? "?"}${changes.length > 0 ? ` (${changes.join(", ")})` : ""}`;
}

function heldMessage(id: string, r: EndpointReleases, workers: readonly EndpointWorkerRecord[]): string {
  const version = r.endpointVersion ?? r.releases[0]?.version;
  const stale = workers.filter((w) => w.isStale && READY.has(w.status)).length;
  return (
    `the rollout of endpoint ${id} is held: the new workers of ${describeRelease(r.releases[0], version)} cannot start ` +
    `(workers: ${describeWorkers(workers)}). ` +
    (stale > 0 ? `The ${stale} stale worker${stale === 1 ? "" : "s"} of the earlier release keep serving. ` : "No worker serves. ") +
    "Fix the image or configuration of that release (the Template's or the endpoint's), then run `pulumi up` again; " +
    `the endpoint is kept in state at version ${version ?? "?"} with its rollout in progress`
  );
}

function timeoutMessage(id: string, seconds: number, r: EndpointReleases, workers: readonly EndpointWorkerRecord[]): string {
  const version = r.endpointVersion ?? r.releases[0]?.version;
  return (
    `the rollout of endpoint ${id} to ${describeRelease(r.releases[0], version)} was not over after ${seconds} s ` +
    `(${r.rollout.workersOnLatest} of ${r.rollout.workersTotal} workers on the latest version; workers: ${describeWorkers(workers)}); ` +
    "it is kept in state and the next `pulumi up` waits again (raise rolloutTimeoutSeconds, or set waitForRollout: false)"
  );
}

/**
 * After a write: the endpoint's version and rollout, and, after a change that rolls its
 * workers, the wait until the rollout is over (every worker on the latest version), for both
 * APIs: the platform serves an endpoint's releases and workers over REST whichever API manages
 * it.
 *
 *   no wait   GET /v2/serverless/{id}/releases once: the version and rollout for the outputs.
 *   wait      the process's shared poller of the account's endpoints (GraphQL's `myself`, the
 *             platform's only read of many endpoints' workers, which lists endpoints made over
 *             REST too): one read per tick answers every endpoint that waits, as the pod poller
 *             does. When an endpoint's workers there may be over the rollout (none starting or
 *             in any state but RUNNING or draining, at least workersMin RUNNING), GET .../releases
 *             confirms it (the contract's `rollout.inProgress`) and gives the outputs; a view
 *             that misled is confirmed again only after a pause that grows by half.
 *             GraphQL shows a worker that cannot start as it shows one starting, so the
 *             endpoint's own GET .../workers looks for a held rollout at a slower cadence: first
 *             at twice the poll ceiling (a worker is found UNHEALTHY only once its start failed,
 *             and a start takes about that), then each time twice as long, up to four times the
 *             ceiling. When every worker of the latest version is UNHEALTHY the rollout is held:
 *             fail at once, naming the release, the workers and what to do (the stale workers
 *             keep serving). The same read, with the releases, says where it stands when time
 *             runs out: fail naming the same, the next `up` waits again.
 *             Without the shared poller (a client with no GraphQL half), or once its read fails
 *             for good, each tick reads the endpoint's own workers instead (the pause grows by
 *             half each time, up to the poll ceiling), then its releases once to confirm.
 *
 * Each read is a status read that yields to work (the client's pacing): at the quota, the
 * writes of a promotion go first. The platform lists no endpoint's releases beside another's,
 * so each endpoint's end is confirmed by a read of its own.
 */
import type { Clock, ComputePlatform, EndpointReleases, EndpointWorkerRecord, Release } from "../../client";
import { type Poller, WaitTimeoutError } from "../lifecycle/poller";
import type { EndpointRolloutOutput } from "./outputs";
import { MAX_POLLS } from "./dialect";

/** Worker statuses of a worker that serves jobs. */
const READY = new Set(["IDLE", "RUNNING"]);

/** GraphQL `pods` statuses of an endpoint done rolling: started, or draining (a draining worker is no longer one of its workers). */
const SETTLED = new Set(["RUNNING", "EXITED"]);

/** An endpoint as the shared read lists it: its workers' `desiredStatus` (GraphQL's `pods`) and its minimum. */
export interface ListedEndpoint {
  id: string;
  workersMin?: number | null;
  pods?: readonly { desiredStatus: string }[];
}

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
  /**
   * The process's shared poller of the account's endpoints, whose one read per tick answers
   * every wait; without it, each tick reads this endpoint's own workers.
   */
  shared?: Pick<Poller<ListedEndpoint>, "wait">;
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
  if (!o.wait || o.reasons.length === 0) return stateOf(await o.client.serverless.releases(o.id, readOf(o)));
  const deadline = o.clock.now() + 1000 * o.timeoutSeconds;
  return o.shared ? sharedWait(o, o.shared, deadline) : ownWait(o, deadline);
}

/** Each read of a wait: a status read that yields to work. */
const readOf = (o: RolloutOptions) => ({ signal: o.signal, yieldToWork: true as const });

/** The wait on the shared read: see the comment at the top of this file. */
async function sharedWait(o: RolloutOptions, shared: NonNullable<RolloutOptions["shared"]>, deadline: number): Promise<RolloutState> {
  const ceiling = Math.max(o.pollIntervalMs, o.maxPollIntervalMs);
  let checkPause = 2 * ceiling;
  let checkAt = o.clock.now() + checkPause;
  let confirmPause = o.pollIntervalMs;
  let confirmFrom = o.clock.now();
  for (let i = 0; i < MAX_POLLS; i++) {
    let listed: ListedEndpoint | undefined;
    try {
      listed = await shared.wait(o.id, {
        description: "over its rollout",
        timeoutMs: Math.max(0, deadline - o.clock.now()),
        signal: o.signal,
        // Not listed (gone, or left out of a list that lags): the next look at its own workers says which.
        until: (e) => (o.clock.now() >= checkAt || (e !== undefined && mayBeOver(e) && o.clock.now() >= confirmFrom) ? "done" : "pending"),
      });
    } catch (err) {
      if (o.signal?.aborted) throw err;
      // The shared read failed for good (one a retry does not fix): this endpoint reads its own.
      if (!(err instanceof WaitTimeoutError)) return ownWait(o, deadline);
    }
    const now = o.clock.now();
    if (listed && mayBeOver(listed) && now >= confirmFrom && now < deadline) {
      const releases = await o.client.serverless.releases(o.id, readOf(o));
      if (!releases.rollout.inProgress) return overState(releases);
      // The platform's list ran ahead of its releases, or the rollout has not begun: later.
      confirmFrom = now + confirmPause;
      confirmPause = Math.min(ceiling, confirmPause * 1.5);
      if (now < checkAt) continue;
    }
    const over = await judge(o, [...(await o.client.serverless.workers(o.id, readOf(o))).workers], now >= deadline);
    if (over) return over;
    checkPause = Math.min(4 * ceiling, 2 * checkPause);
    checkAt = o.clock.now() + checkPause;
  }
  throw new Error(`endpoint ${o.id}: its rollout was read ${MAX_POLLS} times`);
}

/** The wait on the endpoint's own workers, read once per tick. */
async function ownWait(o: RolloutOptions, deadline: number): Promise<RolloutState> {
  let pause = o.pollIntervalMs;
  for (let i = 0; i < MAX_POLLS; i++) {
    const over = await judge(o, [...(await o.client.serverless.workers(o.id, readOf(o))).workers], o.clock.now() >= deadline);
    if (over) return over;
    await o.clock.sleep(Math.min(pause, Math.max(0, deadline - o.clock.now())), o.signal);
    pause = Math.min(o.maxPollIntervalMs, pause * 1.5);
  }
  throw new Error(`endpoint ${o.id}: its rollout was read ${MAX_POLLS} times`);
}

/**
 * From the endpoint's workers as just listed: the state when the releases confirm the rollout
 * over, undefined to wait on; throws when it is held, or not over when time ran out (`late`).
 * The releases are read only when the workers say it is over, held or late.
 */
async function judge(o: RolloutOptions, workers: readonly EndpointWorkerRecord[], late: boolean): Promise<RolloutState | undefined> {
  const held = isHeld(workers);
  if (!held && !late && pending(workers)) return undefined;
  const releases = await o.client.serverless.releases(o.id, readOf(o));
  const state = stateOf(releases, workers);
  if (held) throw new RolloutNotOverError(heldMessage(o.id, releases, workers), state);
  if (!releases.rollout.inProgress) return state;
  if (late) throw new RolloutNotOverError(timeoutMessage(o.id, o.timeoutSeconds, releases, workers), state);
  return undefined;
}

/**
 * From the shared read: whether the endpoint's rollout may be over. None of its workers is
 * starting (a worker that cannot start reads the same over GraphQL) or in a state the spec does
 * not name, and at least workersMin are RUNNING. A list without workers says nothing.
 */
function mayBeOver(e: ListedEndpoint): boolean {
  if (!e.pods) return false;
  const running = e.pods.filter((p) => p.desiredStatus === "RUNNING").length;
  return e.pods.every((p) => SETTLED.has(p.desiredStatus)) && running >= (e.workersMin ?? 0);
}

/**
 * The outputs of a rollout the releases say is over: no worker stale or starting, so the ready
 * ones all run the latest version, and it is the one that serves.
 */
function overState(r: EndpointReleases): RolloutState {
  const state = stateOf(r);
  return { ...state, rollout: { ...state.rollout, serving: r.rollout.workersOnLatest > 0 && state.version !== null ? [state.version] : [] } };
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

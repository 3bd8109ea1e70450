import { type Clock, type ComputePlatform, ConflictError, isAmbiguous } from "../../client";
import { type Poller, WaitTimeoutError } from "../lifecycle/poller";
import type { PodOutputs } from "./outputs";
import type { LivePod, PodInputs, WaitFor } from "./schema";

/*
 * The pod's status machine: from where a pod is to where `desiredStatus` wants it (start,
 * stop or restart as needed), then the shared poller until the kind's readiness predicate
 * holds. Create, update and adopt end here.
 */

/** Statuses in which the container is not running and `start` applies. */
export const STOPPED = new Set(["EXITED", "ERROR"]);
/** Tries of one action when its outcome is unknown. */
const ACTION_ATTEMPTS = 3;

/** What the status machine needs of the provider. */
export interface PodContext {
  client: ComputePlatform;
  poller: Poller<LivePod>;
  clock: Clock;
  signal?: AbortSignal;
}

/**
 * A pod that ended in ERROR while this resource waited for it.
 *
 * @group Errors
 */
export class PodFailedError extends Error {
  constructor(
    readonly pod: LivePod,
    message: string,
  ) {
    super(message);
    this.name = "PodFailedError";
  }
}

/**
 * The partial-state error of Pulumi's dynamic provider: the plugin turns an error with
 * `id`, `properties` and `reasons` into ErrorResourceInitFailed, so the engine keeps the
 * pod's ID and outputs in state and the next `pulumi up` retries (or replaces) it.
 *
 * @group Errors
 */
export class PodInitError extends Error {
  readonly reasons: string[];
  constructor(
    readonly id: string,
    readonly properties: PodOutputs,
    cause: unknown,
  ) {
    const text = cause instanceof Error ? cause.message : String(cause);
    super(`pod ${id} ("${properties.name}"): ${text}`, { cause });
    this.name = "PodInitError";
    this.reasons = [text];
  }
}

/** Whether the pod is ready as `waitFor` asks: RUNNING, and for PORTS every port published. */
export function isReady(pod: Pick<LivePod, "status" | "ports" | "runtime">, waitFor: WaitFor): boolean {
  if (pod.status !== "RUNNING") return false;
  return waitFor === "RUNNING" || portsPublished(pod);
}

/**
 * Every port in `ports` has its runtime entry. TCP and UDP ports need a public port
 * mapped; HTTP ports are served through the platform's proxy, so being listed is enough.
 */
export function portsPublished(pod: Pick<LivePod, "ports" | "runtime">): boolean {
  const published = pod.runtime?.ports ?? [];
  return pod.ports.every((spec) => {
    const [port, protocol] = spec.split("/");
    const entry = published.find((p) => p.private === Number(port) && (p.type === undefined || p.type === protocol));
    if (!entry) return false;
    return protocol === "http" || (entry.public !== null && entry.public !== undefined);
  });
}

/** Whether the live pod is where `desiredStatus` wants it (ready, or stopped). */
export function statusMatches(
  pod: Pick<LivePod, "status" | "ports" | "runtime">,
  desired: unknown,
  waitFor: unknown,
): boolean {
  // A failed container is not running either, and ERROR offers no stop: nothing to do.
  if (desired === "EXITED") return pod.status === "EXITED" || pod.status === "ERROR";
  return isReady(pod, waitFor === "PORTS" ? "PORTS" : "RUNNING");
}

/** The poller's slow phase for pods: PROVISIONING says little until it ends. */
export const provisioning = (pod: LivePod | undefined): boolean => pod?.status === "PROVISIONING";

/** The pod as last seen when `err` happened: the failed pod, the timed-out one, or `fallback`. */
export function lastSeen<T extends LivePod | undefined>(err: unknown, fallback: T): LivePod | T {
  if (err instanceof PodFailedError) return err.pod;
  if (err instanceof WaitTimeoutError && err.last) return err.last as LivePod;
  return fallback;
}

/**
 * From where the pod is to where `desiredStatus` wants it: start, stop or restart as
 * needed, then wait on the shared poller. Resolves with the pod as last seen.
 */
export async function converge(
  ctx: PodContext,
  pod: LivePod,
  inputs: PodInputs,
  opts: { restart: boolean; restartedFrom?: { startedAt: string | null } },
): Promise<LivePod> {
  const deadline = ctx.clock.now() + 1000 * inputs.waitTimeoutSeconds;
  const left = () => Math.max(0, deadline - ctx.clock.now());
  let cur = pod;
  if (opts.restartedFrom && inputs.desiredStatus === "RUNNING" && cur.status !== "EXITED") {
    cur = await waitRestarted(ctx, cur, opts.restartedFrom.startedAt, inputs.waitFor, left());
  }
  if (inputs.desiredStatus === "RUNNING") {
    if (opts.restart && cur.status === "RUNNING") cur = await act(ctx, cur, "restart");
    if (STOPPED.has(cur.status)) cur = await act(ctx, cur, "start");
    if (!isReady(cur, inputs.waitFor)) cur = await waitReady(ctx, cur.id, inputs.waitFor, left());
    return cur;
  }
  if (STOPPED.has(cur.status)) return cur;
  if (!cur.actions.includes("stop")) {
    // PROVISIONING cannot be stopped: wait until the container exists.
    cur = await waitUntil(ctx, cur.id, "stoppable", left(), (p) => p.actions.includes("stop") || STOPPED.has(p.status));
    if (STOPPED.has(cur.status)) return cur;
  }
  cur = await act(ctx, cur, "stop");
  if (cur.status !== "EXITED") cur = await waitUntil(ctx, cur.id, "EXITED", left(), (p) => p.status === "EXITED");
  return cur;
}

/**
 * Run an action once. The client does not retry actions (they are not idempotent), so
 * after a failure whose outcome is unknown (connection dropped, 5xx) or a 409 (perhaps
 * because the first try did take effect) read the pod: if the action shows, it is done;
 * otherwise try again, a bounded number of times.
 */
async function act(ctx: PodContext, pod: LivePod, action: "start" | "stop" | "restart"): Promise<LivePod> {
  const { client, signal } = ctx;
  const tookEffect = (p: LivePod) =>
    action === "stop"
      ? p.status === "EXITED"
      : action === "start"
        ? !STOPPED.has(p.status)
        : p.status === "STARTING" || (p.startedAt !== pod.startedAt && p.status !== "ERROR");
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await client.pods.action(pod.id, action, { signal });
      return result ?? (await client.pods.get(pod.id, { signal }));
    } catch (err) {
      if (!(isAmbiguous(err) || err instanceof ConflictError) || attempt >= ACTION_ATTEMPTS) throw err;
      const now = await client.pods.get(pod.id, { signal });
      if (tookEffect(now)) return now;
      if (err instanceof ConflictError && !now.actions.includes(action)) throw err;
    }
  }
}

/**
 * After a PATCH that restarts the container (RUNNING goes STARTING, then RUNNING
 * again). The platform restarts asynchronously, so its answer may still say RUNNING from
 * before: the restart shows as a new `startedAt`. ERROR (the new configuration cannot become
 * healthy) fails at once: nothing is started again.
 */
async function waitRestarted(ctx: PodContext, pod: LivePod, startedBefore: string | null, waitFor: WaitFor, timeoutMs: number): Promise<LivePod> {
  const what = `RUNNING again after the update restarted its container${waitFor === "PORTS" ? ", with its ports published" : ""}`;
  const verdict = (p: LivePod): boolean | Error => {
    if (p.status === "ERROR") return new PodFailedError(p, `pod ${p.id} went into ERROR instead of ${what}: its container could not become healthy`);
    if (p.status === "EXITED") return new PodFailedError(p, `pod ${p.id} was stopped (EXITED) while waiting for ${what}`);
    return p.startedAt !== startedBefore && isReady(p, waitFor);
  };
  const now = verdict(pod);
  if (now instanceof Error) throw now;
  return now ? pod : waitUntil(ctx, pod.id, what, timeoutMs, verdict);
}

/** The pod's readiness predicate: RUNNING (and its ports published, for `PORTS`); ERROR or EXITED fail the wait. */
function waitReady(ctx: PodContext, id: string, waitFor: WaitFor, timeoutMs: number): Promise<LivePod> {
  const what = waitFor === "PORTS" ? "RUNNING with its ports published" : "RUNNING";
  return waitUntil(ctx, id, what, timeoutMs, (p) => {
    if (p.status === "ERROR") {
      return new PodFailedError(p, `pod ${id} went into ERROR instead of ${what}: its container could not become healthy`);
    }
    if (p.status === "EXITED") return new PodFailedError(p, `pod ${id} was stopped (EXITED) while waiting for ${what}`);
    return isReady(p, waitFor);
  });
}

async function waitUntil(
  ctx: PodContext,
  id: string,
  description: string,
  timeoutMs: number,
  ok: (pod: LivePod) => boolean | Error,
): Promise<LivePod> {
  const pod = await ctx.poller.wait(id, {
    description,
    timeoutMs,
    signal: ctx.signal,
    until: (p) => {
      if (!p) return new Error(`pod ${id} was terminated while waiting for ${description}`);
      const verdict = ok(p);
      return verdict === true ? "done" : verdict === false ? "pending" : verdict;
    },
  });
  return pod!;
}

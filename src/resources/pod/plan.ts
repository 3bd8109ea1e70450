import type { PodUpdateParams } from "../../client";
import { containsUnknown, isUnknown } from "../engine/check";
import type { LivePod, PodDeclaration, PodInputs, PodMountsInput, PodOutputs, WaitFor } from "./schema";

/**
 * Replace versus update for a Pod, as a pure function of (old outputs, new inputs).
 *
 * Old outputs hold the live pod as last read plus what the user declared (`__declared`), so
 * each declared property is compared with what the platform has: a change made outside
 * Pulumi and seen by `refresh` shows up here as drift. Only what the user declared is
 * compared (env keys the platform injects, defaults the user never wrote, the order of env
 * keys or ports do not count), so a provider upgrade alone never shows a diff.
 *
 * The mount rules follow spec 2.4 rule 4 and open-parts: the kind of mount is fixed at
 * creation, so is a network mount's volumeId and a persistent mount's size; only a path may
 * change. Every PATCH the platform answers with 400 is planned as a replace instead.
 */

/** What moving from the old outputs to the new inputs takes. */
export interface PodPlan {
  /** Properties whose change needs a new pod. */
  replaces: string[];
  /** Properties that change in place. */
  updates: string[];
}

/** Properties a PATCH can change (open-parts, updatePod). */
export const PATCHABLE = [
  "name",
  "image",
  "args",
  "disk",
  "ports",
  "env",
  "registry",
  "mounts",
  "locked",
  "globalNetworking",
] as const;

/** PATCH fields that restart a running container by themselves (open-parts). */
export const RESTARTING_FIELDS: readonly string[] = ["image", "args", "disk", "ports", "env", "registry", "mounts"];

/** A stable text of a JSON value: object keys sorted, so key order never counts. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Equal for planning: an unknown new value is never equal (preview shows the worst case). */
function same(old: unknown, next: unknown): boolean {
  if (containsUnknown(next)) return false;
  return canonical(old) === canonical(next);
}

/** Ports as a set: the platform may list them in another order. */
function samePorts(old: readonly string[] | undefined, next: unknown): boolean {
  if (containsUnknown(next) || !Array.isArray(next)) return false;
  return canonical([...(old ?? [])].sort()) === canonical([...next].sort());
}

type MountKind = "none" | "persistent" | "network";

function mountKind(m: PodMountsInput | LivePod["mounts"] | undefined): MountKind {
  if (m?.persistent) return "persistent";
  if (m?.network && m.network.length > 0) return "network";
  return "none";
}

/** The declaration of state written before `__declared` existed (or by `Pod.get`): all of it. */
export function declarationOf(olds: Partial<PodOutputs>, news: Partial<PodInputs>): PodDeclaration {
  return (
    olds.__declared ?? {
      keys: Object.keys(news),
      envKeys: Object.keys(isUnknown(news.env) ? {} : (news.env ?? {})),
      globalNetworking: olds.globalNetworking?.enabled ?? false,
    }
  );
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
  if (isUnknown(desired) || isUnknown(waitFor)) return false;
  // A failed container is not running either, and ERROR offers no stop: nothing to do.
  if (desired === "EXITED") return pod.status === "EXITED" || pod.status === "ERROR";
  return isReady(pod, waitFor === "PORTS" ? "PORTS" : "RUNNING");
}

/** The env a PATCH sends: the live env, minus keys the user dropped, plus the declared ones. */
export function nextEnv(
  liveEnv: Record<string, string>,
  oldEnvKeys: readonly string[],
  declared: Record<string, string> | undefined,
): Record<string, string> {
  const env: Record<string, string> = { ...liveEnv };
  for (const key of oldEnvKeys) delete env[key];
  return { ...env, ...(declared ?? {}) };
}

/** A gpu or cpu block that appears, disappears, is unknown, or differs in one of `fields`. */
function computeChanged(old: object | undefined, next: unknown, fields: readonly string[]): boolean {
  if (old === undefined && next === undefined) return false;
  if (old === undefined || next === undefined || isUnknown(next)) return true;
  const o = old as Record<string, unknown>;
  const n = next as Record<string, unknown>;
  return fields.some((f) => !same(o[f], n[f]));
}

function envChanged(olds: Partial<PodOutputs>, news: Partial<PodInputs>, decl: PodDeclaration): boolean {
  if (isUnknown(news.env)) return true;
  const next = news.env ?? {};
  const live = olds.env ?? {};
  for (const [k, v] of Object.entries(next)) {
    if (isUnknown(v) || live[k] !== v) return true;
  }
  // A key the user dropped: it goes, if the pod still has it.
  return decl.envKeys.some((k) => !(k in next) && k in live);
}

/**
 * The plan of a Pod change. `olds` are the old outputs (the dynamic provider's `diff` and
 * `update` receive outputs, not inputs), `news` the checked new inputs.
 */
export function planPodChange(olds: Partial<PodOutputs>, news: Partial<PodInputs>): PodPlan {
  const replaces: string[] = [];
  const updates: string[] = [];
  const decl = declarationOf(olds, news);
  const wasDeclared = (k: string) => decl.keys.includes(k);

  // Compute: the kind and the amount are fixed at creation.
  if (computeChanged(olds.gpu, news.gpu, ["id", "count"])) replaces.push("gpu");
  if (computeChanged(olds.cpu, news.cpu, ["id", "vcpuCount"])) replaces.push("cpu");
  if (!same(olds.cloud, news.cloud ?? "SECURE")) replaces.push("cloud");
  const oldDcs = [...(olds.dataCenterIds ?? [])].sort();
  const newDcs = news.dataCenterIds;
  if (containsUnknown(newDcs) || canonical(oldDcs) !== canonical([...(newDcs ?? [])].sort())) {
    replaces.push("dataCenterIds");
  }

  // Mounts: kind, volumeId and size replace; a path updates.
  const m = news.mounts as unknown;
  if (isUnknown(m)) {
    replaces.push("mounts");
  } else {
    const nm = news.mounts;
    const oldKind = mountKind(olds.mounts);
    const newKind = isUnknown(nm?.persistent) ? "persistent" : isUnknown(nm?.network) ? "network" : mountKind(nm);
    if (oldKind !== newKind || isUnknown(nm?.persistent) || isUnknown(nm?.network)) {
      replaces.push("mounts");
    } else if (newKind === "network") {
      const o = olds.mounts!.network![0];
      const n = nm!.network![0] as unknown as Record<string, unknown>;
      if (isUnknown(n) || !same(o.volumeId, n.volumeId)) replaces.push("mounts");
      else if (!same(o.path, n.path)) updates.push("mounts");
    } else if (newKind === "persistent") {
      const o = olds.mounts!.persistent!;
      const n = nm!.persistent!;
      if (!same(o.size, n.size)) replaces.push("mounts");
      else if (!same(o.path, n.path)) updates.push("mounts");
    }
  }

  // Container and pod settings: in place.
  if (!same(olds.name, news.name)) updates.push("name");
  if (!same(olds.image, news.image)) updates.push("image");
  if (news.args !== undefined ? !same(olds.args, news.args) : wasDeclared("args") && olds.args !== "") {
    updates.push("args");
  }
  if (news.disk !== undefined && !same(olds.disk, news.disk)) updates.push("disk");
  if (news.ports !== undefined && !samePorts(olds.ports, news.ports)) updates.push("ports");
  if (envChanged(olds, news, decl)) updates.push("env");
  if (
    news.registry !== undefined
      ? !same(olds.registry ?? null, news.registry)
      : wasDeclared("registry") && (olds.registry ?? null) !== null
  ) {
    updates.push("registry");
  }
  if (!same(olds.locked ?? false, news.locked ?? false)) updates.push("locked");
  if (!same(decl.globalNetworking, news.globalNetworking ?? false)) updates.push("globalNetworking");
  if (
    !same(olds.desiredStatus, news.desiredStatus) ||
    (olds.status !== undefined && !statusMatches(olds as PodOutputs, news.desiredStatus, news.waitFor))
  ) {
    updates.push("desiredStatus");
  }
  if (!same(olds.waitFor, news.waitFor)) updates.push("waitFor");
  if (!same(olds.waitTimeoutSeconds, news.waitTimeoutSeconds)) updates.push("waitTimeoutSeconds");

  return { replaces, updates };
}

/**
 * The PATCH body that brings the pod from `olds` to `news`: only the changed fields, each
 * whole (the platform takes no partial mount entries). Call it only for a plan without
 * replaces; with one, the body could break a mount rule.
 */
export function podPatch(olds: PodOutputs, news: PodInputs, plan: PodPlan = planPodChange(olds, news)): PodUpdateParams {
  if (plan.replaces.length > 0) {
    throw new Error(`a change of ${plan.replaces.join(", ")} needs a new pod, not a PATCH`);
  }
  const decl = declarationOf(olds, news);
  const changed = new Set(plan.updates);
  const body: PodUpdateParams = {};
  if (changed.has("name")) body.name = news.name;
  if (changed.has("image")) body.image = news.image;
  if (changed.has("args")) body.args = news.args ?? "";
  if (changed.has("disk")) body.disk = news.disk;
  if (changed.has("ports")) body.ports = news.ports;
  if (changed.has("env")) body.env = nextEnv(olds.env ?? {}, decl.envKeys, news.env);
  if (changed.has("registry")) body.registry = news.registry ?? null;
  if (changed.has("mounts")) {
    body.mounts = news.mounts?.persistent
      ? { persistent: { size: news.mounts.persistent.size, path: news.mounts.persistent.path } }
      : { network: news.mounts!.network!.map((n) => ({ volumeId: n.volumeId, path: n.path })) };
  }
  if (changed.has("locked")) body.locked = news.locked;
  if (changed.has("globalNetworking")) body.globalNetworking = news.globalNetworking;
  return body;
}

/** Whether a PATCH with these fields restarts a running container on its own. */
export function patchRestarts(body: PodUpdateParams): boolean {
  return Object.keys(body).some((k) => RESTARTING_FIELDS.includes(k));
}

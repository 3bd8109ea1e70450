import { type ChangeVerdicts, gpuChoices, planWithUnknowns } from "../inputs/check";
import { canonical, recordKey } from "../lifecycle/applied";
import type { PodDeclaration, PodOutputs } from "./outputs";
import type { LivePod, PodInputs, PodMountsInput } from "./schema";
import { statusMatches } from "./status";

/**
 * Replace versus update for a Pod, as a pure function of (old outputs, new inputs).
 *
 * Old outputs hold the live pod as last read plus what the user declared (`__declared`), so
 * each declared property is compared with what the platform has: a change made outside
 * Pulumi and seen by `refresh` shows up here as drift. Only what the user declared is
 * compared (env keys the platform injects, defaults the user never wrote, the order of env
 * keys or ports do not count), so a provider upgrade alone never shows a diff.
 *
 * The mount rules are the platform's: the kind of mount is fixed at
 * creation, so is a network mount's volumeId; a path may change, and a persistent mount may
 * grow. Every PATCH the platform answers with 400 (a smaller persistent mount) is planned as
 * a replace instead. dataCenterIds is read at creation only: it replaces only when the pod's
 * data center is no longer allowed, and is otherwise recorded without a request.
 */

/**
 * What moving from the old outputs to the new inputs takes.
 *
 * @group Providers and checks
 */
export interface PodPlan {
  /** Properties whose change needs a new pod. */
  replaces: string[];
  /** Properties that change in place. */
  updates: string[];
}

/**
 * Equal for planning. A value unknown at preview is the engine's marker string, which no
 * known old value equals, so an unknown part never compares equal (preview shows the worst case).
 */
function same(old: unknown, next: unknown): boolean {
  return canonical(old) === canonical(next);
}

/** Ports as a set: the platform may list them in another order. */
function samePorts(old: readonly string[] | undefined, next: readonly string[]): boolean {
  return canonical([...(old ?? [])].sort()) === canonical([...next].sort());
}

type MountKind = "none" | "persistent" | "network";

/** What a change of a block takes: a new pod, an update in place, or nothing (undefined). */
type Change = "replace" | "update" | undefined;

function mountKind(m: PodMountsInput | LivePod["mounts"] | undefined): MountKind {
  if (m?.persistent) return "persistent";
  if (m?.network && m.network.length > 0) return "network";
  // Stryker disable next-line StringLiteral: both sides of a comparison are this function's, so any other text for "none" plans the same
  return "none";
}

/** The declaration of state written before `__declared` existed (or by `Pod.get`): all of it. */
export function declarationOf(olds: Partial<PodOutputs>, news: Partial<PodInputs>): PodDeclaration {
  return (
    olds.__declared ?? {
      keys: Object.keys(news),
      envKeys: Object.keys(news.env ?? {}),
      globalNetworking: olds.globalNetworking?.enabled ?? false,
    }
  );
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

/**
 * The gpu block: a new count, or a `gpu.id` that no longer names the GPU type the pod got,
 * needs a new pod; a new preference list that still holds it is recorded without a request.
 * A list with a part unknown at preview is an update: the marker is in no list applied before.
 */
function gpuChange(old: LivePod["gpu"] | undefined, next: unknown, decl: PodDeclaration): Change {
  if (computeChanged(old, next, ["count"])) return "replace";
  if (old === undefined) return undefined;
  const ids: unknown[] = gpuChoices((next as { id: unknown }).id);
  if (!ids.includes(old.id)) return "replace";
  if (decl.gpuIdsKey !== undefined) return decl.gpuIdsKey === recordKey(ids) ? undefined : "update";
  const declared = decl.gpuIds ?? [old.id];
  return same(declared, ids) ? undefined : "update";
}

/**
 * Whether the declared maxHourlyCost differs from the one last applied: state of 0.1.x kept the
 * value, later state a key of it (the value may be secret). A value unknown at preview equals
 * neither, so it is a change.
 */
function maxHourlyCostChanged(decl: PodDeclaration, next: unknown): boolean {
  if (decl.maxHourlyCost !== undefined) return !same(decl.maxHourlyCost, next ?? null);
  return (decl.maxHourlyCostKey ?? null) !== (next === undefined ? null : recordKey(next));
}

/** A gpu or cpu block that appears, disappears, is unknown, or differs in one of `fields`. */
function computeChanged(old: object | undefined, next: unknown, fields: readonly string[]): boolean {
  if (old === undefined && next === undefined) return false;
  if (old === undefined || typeof next !== "object") return true;
  const o = old as Record<string, unknown>;
  const n = next as Record<string, unknown>;
  return fields.some((f) => !same(o[f], n[f]));
}

function envChanged(olds: Partial<PodOutputs>, news: Partial<PodInputs>, decl: PodDeclaration): boolean {
  const next = news.env ?? {};
  const live = olds.env ?? {};
  for (const [k, v] of Object.entries(next)) {
    if (live[k] !== v) return true;
  }
  // A key the user dropped: it goes, if the pod still has it.
  return decl.envKeys.some((k) => !(k in next) && k in live);
}

/**
 * Mounts: the kind, a network volumeId and a persistent size are fixed (replace); a path
 * updates. A part that is not an object or a list is a value unknown at preview: replace.
 */
function mountsChange(old: LivePod["mounts"] | undefined, next: PodMountsInput | undefined): Change {
  const opaque = (v: unknown) => v !== undefined && typeof v !== "object";
  if (opaque(next) || opaque(next?.persistent) || opaque(next?.network) || opaque(next?.network?.[0])) return "replace";
  const kind = mountKind(old);
  if (kind !== mountKind(next)) return "replace";
  if (kind === "network") {
    const o = old!.network![0];
    const n = next!.network![0];
    if (!same(o.volumeId, n.volumeId)) return "replace";
    return same(o.path, n.path) ? undefined : "update";
  }
  if (kind === "persistent") {
    const o = old!.persistent!;
    const n = next!.persistent!;
    // A PATCH may grow the mount (the container restarts); a smaller size is answered 400, and
    // a size unknown at preview (the marker, no number: it compares false) plans the worst case.
    if (n.size > o.size) return "update";
    if (!same(o.size, n.size)) return "replace";
    return same(o.path, n.path) ? undefined : "update";
  }
  return undefined;
}

/** What a change of each property takes when its new value is wholly unknown at preview (the worst case). */
export const POD_CHANGE_VERDICTS = {
  name: "update",
  image: "update",
  args: "update",
  disk: "update",
  ports: "update",
  env: "update",
  registry: "update",
  gpu: "replace",
  cpu: "replace",
  maxHourlyCost: "update",
  mounts: "replace",
  cloud: "replace",
  dataCenterIds: "replace",
  globalNetworking: "update",
  locked: "update",
  desiredStatus: "update",
  waitFor: "update",
  waitTimeoutSeconds: "update",
} as const satisfies ChangeVerdicts;

/**
 * The plan of a Pod change as `diff` shows it at preview. `olds` are the old outputs (the
 * dynamic provider's `diff` and `update` receive outputs, not inputs), `news` the checked new
 * inputs, any of which may still be unknown.
 *
 * @group Providers and checks
 */
export function planPodChange(olds: Partial<PodOutputs>, news: Partial<PodInputs>): PodPlan {
  return planWithUnknowns(news, POD_CHANGE_VERDICTS, (known) => planKnownPodChange(olds, known));
}

/**
 * The plan of a Pod change whose new inputs are known (create, update, adopt). A value only
 * partly known at preview still plans to its worst case: its marker equals no old value.
 */
export function planKnownPodChange(olds: Partial<PodOutputs>, news: Partial<PodInputs>): PodPlan {
  const replaces: string[] = [];
  const updates: string[] = [];
  const decl = declarationOf(olds, news);
  const wasDeclared = (k: string) => decl.keys.includes(k);

  // Compute: the kind and the amount are fixed at creation.
  const gpu = gpuChange(olds.gpu, news.gpu, decl);
  if (gpu === "replace") replaces.push("gpu");
  if (gpu === "update") updates.push("gpu");
  if (computeChanged(olds.cpu, news.cpu, ["id", "vcpuCount"])) replaces.push("cpu");
  if (!same(olds.cloud, news.cloud ?? "SECURE")) replaces.push("cloud");
  // dataCenterIds is read at creation only and a pod never moves: a new list
  // that no longer allows the pod's data center needs a new pod; any other edit is recorded.
  const newDcs = news.dataCenterIds ?? [];
  if (olds.dataCenterId && newDcs.length > 0 && !newDcs.includes(olds.dataCenterId)) replaces.push("dataCenterIds");
  else if (canonical([...(olds.dataCenterIds ?? [])].sort()) !== canonical([...newDcs].sort())) updates.push("dataCenterIds");

  const mounts = mountsChange(olds.mounts, news.mounts);
  if (mounts === "replace") replaces.push("mounts");
  if (mounts === "update") updates.push("mounts");

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
  if (maxHourlyCostChanged(decl, news.maxHourlyCost)) updates.push("maxHourlyCost");

  return { replaces, updates };
}

/**
 * Properties whose change is recorded in state without a request: read at creation only
 * (dataCenterIds, a gpu preference list that still holds the pod's GPU type, maxHourlyCost)
 * or only by this resource (the wait's bound).
 */
export const RECORDED_ONLY: readonly string[] = ["dataCenterIds", "waitTimeoutSeconds", "gpu", "maxHourlyCost"];

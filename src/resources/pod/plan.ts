import { randomBytes } from "node:crypto";
import type { PodCreateParams, PodUpdateParams } from "../../client";
import { type ChangeVerdicts, containsUnknown, gpuChoices, isUnknown, planWithUnknowns } from "../inputs/check";
import { recordKey } from "../lifecycle/applied";
import { baseOf, OWNER_TOKEN_KEY, pendingName } from "../lifecycle/owner";
import { type LivePod, type PodDeclaration, type PodInputs, type PodMountsInput, type PodOutputs } from "./schema";
import { STOPPED, statusMatches } from "./status";
import { canonical, createBody, declarationFor, mountsBody, podOutputs } from "./wire";

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

/** PATCH fields that restart a running container by themselves. */
export const RESTARTING_FIELDS: readonly string[] = ["image", "args", "disk", "ports", "env", "registry", "mounts"];

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
 */
function gpuChange(old: LivePod["gpu"] | undefined, next: unknown, decl: PodDeclaration): "replace" | "update" | "none" {
  if (computeChanged(old, next, ["count"])) return "replace";
  if (old === undefined) return "none";
  const ids: unknown[] = gpuChoices((next as { id: unknown }).id);
  if (!ids.includes(old.id)) return "replace";
  if (ids.some(isUnknown)) return "update";
  if (decl.gpuIdsKey !== undefined) return decl.gpuIdsKey === recordKey(ids) ? "none" : "update";
  const declared = decl.gpuIds ?? [old.id];
  return same(declared, ids) ? "none" : "update";
}

/** Whether the declared maxHourlyCost differs from the one last applied (kept as a key; state of 0.1.x: the value). */
function maxHourlyCostChanged(decl: PodDeclaration, next: unknown): boolean {
  if (isUnknown(next)) return true;
  if (decl.maxHourlyCostKey !== undefined || decl.maxHourlyCost === undefined) {
    return (decl.maxHourlyCostKey ?? null) !== (next === undefined ? null : recordKey(next));
  }
  return !same(decl.maxHourlyCost, next ?? null);
}

/** A gpu or cpu block that appears, disappears, is unknown, or differs in one of `fields`. */
function computeChanged(old: object | undefined, next: unknown, fields: readonly string[]): boolean {
  if (old === undefined && next === undefined) return false;
  if (old === undefined || next === undefined || typeof next !== "object") return true;
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
function mountsChange(old: LivePod["mounts"] | undefined, next: PodMountsInput | undefined): "replace" | "update" | "none" {
  const opaque = (v: unknown) => v !== undefined && typeof v !== "object";
  if (opaque(next) || opaque(next?.persistent) || opaque(next?.network) || opaque(next?.network?.[0])) return "replace";
  const kind = mountKind(old);
  if (kind !== mountKind(next)) return "replace";
  if (kind === "network") {
    const o = old!.network![0];
    const n = next!.network![0];
    if (!same(o.volumeId, n.volumeId)) return "replace";
    return same(o.path, n.path) ? "none" : "update";
  }
  if (kind === "persistent") {
    const o = old!.persistent!;
    const n = next!.persistent!;
    // A PATCH may grow the mount (the container restarts); a smaller size is answered 400.
    if (!same(o.size, n.size)) return typeof n.size === "number" && n.size > o.size ? "update" : "replace";
    return same(o.path, n.path) ? "none" : "update";
  }
  return "none";
}

/** What a change of each property takes when its new value is wholly unknown at preview (the worst case). */
export const POD_CHANGE_VERDICTS: ChangeVerdicts = {
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
};

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
 * The PATCH body that brings the pod from `olds` to `news`: only the changed fields, each
 * whole (the platform takes no partial mount entries). Call it only for a plan without
 * replaces; with one, the body could break a mount rule.
 */
export function podPatch(olds: PodOutputs, news: PodInputs, plan: PodPlan = planKnownPodChange(olds, news)): PodUpdateParams {
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
  if (changed.has("mounts")) body.mounts = mountsBody(news.mounts!);
  if (changed.has("locked")) body.locked = news.locked;
  if (changed.has("globalNetworking")) body.globalNetworking = news.globalNetworking;
  return body;
}

/** An update as requests: computed once from the plan, then carried out by the provider. */
export interface UpdateSteps {
  /** The first PATCH (empty: nothing to PATCH, the pod is read instead). */
  patch: PodUpdateParams;
  /** Restart after the PATCH: globalNetworking applies at the next start, and nothing else restarts the container. */
  restart: boolean;
  /** The PATCH itself restarts a running container: wait for the restart, whatever the answer says. */
  restarts: boolean;
  /** PATCH `{ locked: true }` last: the platform refuses a stop or restart on a locked pod. */
  lockLast: boolean;
  /** Nothing to send: only settings the platform does not hold after creation changed (dataCenterIds, the wait's bound). */
  recordOnly: boolean;
  declaration: PodDeclaration;
}

/**
 * Properties whose change is recorded in state without a request: read at creation only
 * (dataCenterIds, a gpu preference list that still holds the pod's GPU type, maxHourlyCost)
 * or only by this resource (the wait's bound).
 */
export const RECORDED_ONLY: readonly string[] = ["dataCenterIds", "waitTimeoutSeconds", "gpu", "maxHourlyCost"];

/**
 * The requests that bring pod `id` from `olds` (outputs) to the known `news`: one PATCH of
 * the changed fields, then the actions desiredStatus and globalNetworking need. Throws for a
 * change the platform would refuse (a replacing property, a stop or restart of a locked pod).
 */
export function planUpdate(id: string, olds: PodOutputs, news: PodInputs, change = planKnownPodChange(olds, news)): UpdateSteps {
  if (change.replaces.length > 0) {
    // The engine replaces on a plan with replaces; a PATCH here would be answered 400.
    throw new Error(`pod ${id}: ${change.replaces.join(", ")} cannot change in place; the pod must be replaced`);
  }
  const patch = podPatch(olds, news, change);
  const needsStop = news.desiredStatus === "EXITED" && !STOPPED.has(olds.status);
  const restart = patch.globalNetworking !== undefined && !patchRestarts(patch) && news.desiredStatus === "RUNNING";
  const refused = lockedRefusal(olds, news, patch);
  if (refused) throw new Error(`pod ${id} ${refused}`);
  // The platform refuses a stop, a restart and a restarting PATCH on a locked pod: the lock comes after them all.
  const lockLast = patch.locked === true && (needsStop || restart || patchRestarts(patch));
  if (lockLast) delete patch.locked;
  const recordOnly = change.updates.length > 0 && change.updates.every((k) => RECORDED_ONLY.includes(k));
  // The price was set at creation: the compute never changes in place.
  const declaration = declarationFor(news);
  if (olds.__declared?.hourlyCost !== undefined) declaration.hourlyCost = olds.__declared.hourlyCost;
  return { patch, restart, restarts: patchRestarts(patch), lockLast, recordOnly, declaration };
}

/**
 * Why a pod that stays locked cannot take this change, or undefined: the platform refuses to
 * stop or restart a locked pod (409), and a PATCH of a field that restarts the container of a
 * running one. Planned before any request, so preview (diff) fails as up would, naming what.
 */
export function lockedRefusal(olds: PodOutputs, news: PodInputs, patch: PodUpdateParams): string | undefined {
  if (!(news.locked === true && olds.locked && patch.locked === undefined)) return undefined;
  const running = olds.status === "RUNNING" || olds.status === "STARTING";
  const restarting = Object.keys(patch).filter((k) => RESTARTING_FIELDS.includes(k));
  if (running && restarting.length > 0) {
    return (
      `is locked, and a change of ${restarting.join(", ")} restarts its container, which the platform refuses on a locked pod; ` +
      "set locked: false in the same change, or leave them as they are"
    );
  }
  const needsStop = news.desiredStatus === "EXITED" && !STOPPED.has(olds.status);
  const restart = patch.globalNetworking !== undefined && restarting.length === 0 && news.desiredStatus === "RUNNING";
  if (needsStop || (restart && olds.status === "RUNNING")) {
    return (
      `is locked, so it cannot be ${needsStop ? "stopped" : "restarted (globalNetworking applies at the next start)"}; ` +
      "set locked: false in the same change, or leave desiredStatus and globalNetworking as they are"
    );
  }
  return undefined;
}

/**
 * What `diff` refuses at preview, as up would: {@link lockedRefusal} of the known change. A
 * value unknown at preview may end up the same, so it is not counted, except where it is
 * certain to change: an unknown `registry` is the id of a credential being created or
 * replaced, which no existing id equals.
 */
export function previewRefusal(olds: PodOutputs, news: PodInputs): string | undefined {
  const certain: PodInputs = isUnknown(news.registry) ? { ...news, registry: NEW_ID } : news;
  if (!containsUnknown(certain)) return lockedRefusal(olds, certain, podPatch(olds, certain));
  if (certain.registry !== NEW_ID || isUnknown(news.locked)) return undefined;
  return lockedRefusal(olds, { ...olds, ...certain, locked: news.locked } as PodInputs, { registry: NEW_ID });
}

/** Stands for an id not made yet: equal to no existing one. */
const NEW_ID = "(the id of a resource being created or replaced)";

/** Whether a PATCH with these fields restarts a running container on its own. */
export function patchRestarts(body: PodUpdateParams): boolean {
  return Object.keys(body).some((k) => RESTARTING_FIELDS.includes(k));
}

// ---------------------------------------------------------------------------------------------
// Planning a create: once from the checked inputs, before any request.

/** What a create needs from the checked inputs, computed once before any request. */
export interface CreatePlan {
  inputs: PodInputs;
  /**
   * The `POST /v2/pods` body (for the first GPU choice), with this create's owner mark in env
   * and the pending name when there is a token.
   */
  body: PodCreateParams;
  /** The GPU types to try, in order (a CPU pod: none); each try's body is `bodyFor(choice)`. */
  gpuChoices: string[];
  bodyFor: (gpuId: string | undefined) => PodCreateParams;
  /** The owner token check() settled on, if any. */
  token?: string;
  /** This create's own mark (`<token>.<8 hex>`): an earlier try of the same token never passes for it. */
  mark?: string;
  /** A replacement diffed in this process: a pod with its token is an earlier try to take over (owner.ts). */
  replacement: boolean;
  /** The declaration kept in state beside the live pod. */
  declaration: PodDeclaration;
}

export function planCreate(inputs: PodInputs): CreatePlan {
  const token = inputs[OWNER_TOKEN_KEY];
  const base = baseOf("Pod", inputs as unknown as Record<string, unknown>);
  // A replacement's mark also ends with the base token: the stack's cost finds the pod by it (stack-cost/what-runs.ts).
  const mark = token ? `${token}.${randomBytes(4).toString("hex")}${base && base !== token ? `.${base}` : ""}` : undefined;
  // An owned create's pod carries the pending name until the create hands it over (owner.ts).
  const bodyFor = (gpuId: string | undefined) => {
    const body = createBody(inputs, mark, gpuId);
    if (token) body.name = pendingName(inputs.name);
    return body;
  };
  return {
    inputs,
    body: bodyFor(undefined),
    gpuChoices: inputs.gpu ? gpuChoices(inputs.gpu.id) : [],
    bodyFor,
    declaration: declarationFor(inputs),
    token,
    mark,
    replacement: token !== undefined && token !== base,
  };
}

/** How an existing pod (an earlier try, or one to adopt) becomes the planned one: its baseline and the change from it. */
export interface ExistingPlan {
  /** The pod as if this resource had made it, wanting nothing beyond its live values. */
  baseline: PodOutputs;
  change: PodPlan;
}

export function planExisting(pod: LivePod, plan: CreatePlan): ExistingPlan {
  const { inputs } = plan;
  const baseline = podOutputs(
    pod,
    { ...inputs, desiredStatus: STOPPED.has(pod.status) ? "EXITED" : "RUNNING" },
    { ...plan.declaration, envKeys: [], globalNetworking: pod.globalNetworking.enabled, locked: undefined },
  );
  // The planner sees the pod's data center: one outside the allowed ones cannot become this pod.
  return { baseline, change: planKnownPodChange(baseline, inputs) };
}

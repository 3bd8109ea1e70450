import { randomBytes } from "node:crypto";
import type { PodCreateParams, PodUpdateParams } from "../../client";
import { canonical, containsUnknown, defined, isUnknown } from "../engine/check";
import { OWNER_TOKEN_KEY } from "../lifecycle/owner";
import { type LivePod, OWNER_ENV, type PodDeclaration, type PodInputs, type PodMountsInput, type PodOutputs } from "./schema";
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

/** PATCH fields that restart a running container by themselves (open-parts). */
export const RESTARTING_FIELDS: readonly string[] = ["image", "args", "disk", "ports", "env", "registry", "mounts"];

export { canonical };

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

// ---------------------------------------------------------------------------------------------
// The wire, both ways: the create body from checked inputs, the outputs from the live pod, the
// inputs a refresh reports, and whether a listed pod is the one a create made.

/** The gpu block in the one shape the create body, the outputs and the refresh inputs share. */
export function gpuOf<G extends { id: string; count?: number }>(gpu: G): { id: string; count: G["count"] } {
  return { id: gpu.id, count: gpu.count };
}

/** The declaration kept in state: which inputs were set, which env keys, the wanted globalNetworking. */
export function declarationFor(inputs: PodInputs): PodDeclaration {
  return {
    keys: Object.keys(inputs)
      .filter((k) => !k.startsWith("__") && k !== "adopt")
      .sort(),
    envKeys: Object.keys(inputs.env ?? {}).sort(),
    globalNetworking: inputs.globalNetworking,
    locked: inputs.locked,
  };
}

/** A Pod's outputs: the live pod (spec 2.2) plus the settings only this resource has. */
export function podOutputs(pod: LivePod, inputs: PodInputs, declaration = declarationFor(inputs)): PodOutputs {
  const out: PodOutputs = {
    id: pod.id,
    name: pod.name,
    status: pod.status,
    actions: [...pod.actions],
    image: pod.image,
    args: pod.args,
    disk: pod.disk,
    mounts: pod.mounts,
    ports: [...pod.ports],
    env: { ...pod.env },
    registry: pod.registry,
    cloud: pod.cloud,
    dataCenterId: pod.dataCenterId,
    template: pod.template,
    cost: pod.cost,
    locked: pod.locked,
    globalNetworking: pod.globalNetworking,
    runtime: pod.runtime,
    createdAt: pod.createdAt,
    startedAt: pod.startedAt,
    desiredStatus: inputs.desiredStatus,
    waitFor: inputs.waitFor,
    waitTimeoutSeconds: inputs.waitTimeoutSeconds,
    __declared: declaration,
  };
  if (pod.gpu) out.gpu = gpuOf(pod.gpu);
  if (pod.cpu) out.cpu = { id: pod.cpu.id, vcpuCount: pod.cpu.vcpuCount, memory: pod.cpu.memory };
  if (inputs.dataCenterIds && inputs.dataCenterIds.length > 0) out.dataCenterIds = [...inputs.dataCenterIds];
  return defined(out);
}

/** The create body of spec 4.1 from checked inputs: only what the user set, nothing of this resource's own. */
export function createBody(inputs: PodInputs): PodCreateParams {
  const body: PodCreateParams = { name: inputs.name, image: inputs.image };
  if (inputs.args !== undefined) body.args = inputs.args;
  if (inputs.disk !== undefined) body.disk = inputs.disk;
  if (inputs.ports !== undefined) body.ports = [...inputs.ports];
  if (inputs.env !== undefined) body.env = { ...inputs.env };
  // Only the declared env keys are ever compared (planPodChange), so this one never shows a diff.
  // The token, then this create's own mark: an earlier try (same token) never passes for it.
  const token = inputs[OWNER_TOKEN_KEY];
  if (token) body.env = { ...body.env, [OWNER_ENV]: `${token}.${randomBytes(4).toString("hex")}` };
  if (inputs.registry !== undefined) body.registry = inputs.registry;
  if (inputs.gpu) body.gpu = gpuOf(inputs.gpu);
  if (inputs.cpu) body.cpu = { id: inputs.cpu.id, vcpuCount: inputs.cpu.vcpuCount };
  if (inputs.mounts) body.mounts = defined(inputs.mounts);
  body.cloud = inputs.cloud;
  if (inputs.dataCenterIds && inputs.dataCenterIds.length > 0) body.dataCenterIds = [...inputs.dataCenterIds];
  if (inputs.globalNetworking) body.globalNetworking = true;
  return body;
}

/**
 * Whether `pod` is the pod a create of `body` makes: compute, cloud, mount, placement. After
 * an ambiguous create the client adopts the newest pod with the same name, image and
 * compute; during a replace that keeps the name, that can be the very pod being replaced,
 * which differs from the request in exactly what forced the replace.
 */
export function matchesCreate(pod: LivePod, body: PodCreateParams): boolean {
  if (pod.name !== body.name || pod.image !== body.image) return false;
  if (body.gpu && (pod.gpu?.id !== body.gpu.id || pod.gpu.count !== (body.gpu.count ?? 1))) return false;
  if (body.cpu && (pod.cpu?.id !== body.cpu.id || pod.cpu.vcpuCount !== body.cpu.vcpuCount)) return false;
  if ((body.cloud ?? "SECURE") !== pod.cloud) return false;
  if (body.dataCenterIds?.length && pod.dataCenterId !== null && !body.dataCenterIds.includes(pod.dataCenterId)) {
    return false;
  }
  const want = body.mounts ?? {};
  const have = pod.mounts ?? {};
  if (canonical(want.persistent?.size ?? null) !== canonical(have.persistent?.size ?? null)) return false;
  if (canonical(want.network?.[0]?.volumeId ?? null) !== canonical(have.network?.[0]?.volumeId ?? null)) return false;
  return true;
}

/** Whether `pod` was made by a create with owner token `token` (its env holds `<token>.<mark>`). */
export function ownedBy(pod: Pick<LivePod, "env">, token: string): boolean {
  const v = pod.env?.[OWNER_ENV];
  return typeof v === "string" && (v === token || v.startsWith(`${token}.`));
}

export function newestOf(pods: LivePod[]): LivePod | undefined {
  return pods.reduce<LivePod | undefined>((best, p) => (!best || p.createdAt > best.createdAt ? p : best), undefined);
}

export function describeFixed(pod: LivePod): string {
  const parts: string[] = [];
  if (pod.gpu) parts.push(`gpu: { id: "${pod.gpu.id}", count: ${pod.gpu.count} }`);
  if (pod.cpu) parts.push(`cpu: { id: "${pod.cpu.id}", vcpuCount: ${pod.cpu.vcpuCount} }`);
  parts.push(`cloud: "${pod.cloud}"`);
  if (pod.mounts?.persistent) parts.push(`mounts.persistent.size: ${pod.mounts.persistent.size}`);
  if (pod.mounts?.network?.[0]) parts.push(`mounts.network[0].volumeId: "${pod.mounts.network[0].volumeId}"`);
  return parts.join(", ");
}

/**
 * The inputs a refresh leaves in state: the declared properties with the values the pod has
 * now (env: only the declared keys), except `name`, which keeps the one last applied, so
 * an auto-named pod renamed outside Pulumi is renamed back rather than adopting the new name.
 */
export function inputsFromState(outs: PodOutputs, old: Partial<PodOutputs> | undefined): Record<string, unknown> {
  const keys = new Set(outs.__declared.keys);
  const inputs: Record<string, unknown> = {
    name: old?.name ?? outs.name,
    image: outs.image,
    cloud: outs.cloud,
    globalNetworking: outs.__declared.globalNetworking,
    locked: outs.locked,
    desiredStatus: outs.desiredStatus,
    waitFor: outs.waitFor,
    waitTimeoutSeconds: outs.waitTimeoutSeconds,
  };
  if (outs.gpu) inputs.gpu = gpuOf(outs.gpu);
  if (outs.cpu) inputs.cpu = { id: outs.cpu.id, vcpuCount: outs.cpu.vcpuCount };
  if (keys.has("args")) inputs.args = outs.args;
  if (keys.has("disk")) inputs.disk = outs.disk;
  if (keys.has("ports")) inputs.ports = outs.ports;
  if (keys.has("registry")) inputs.registry = outs.registry;
  if (keys.has("mounts") && (outs.mounts.persistent || outs.mounts.network)) inputs.mounts = outs.mounts;
  if (outs.dataCenterIds) inputs.dataCenterIds = outs.dataCenterIds;
  const envKeys = outs.__declared.envKeys.filter((k) => k in outs.env);
  if (envKeys.length > 0) inputs.env = Object.fromEntries(envKeys.map((k) => [k, outs.env[k]]));
  return defined(inputs);
}


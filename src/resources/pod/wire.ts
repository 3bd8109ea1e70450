/**
 * The Pod on the wire, both ways, pure: the create body from checked inputs, the outputs
 * from the live pod, the inputs a refresh reports, and whether a listed pod is the one a
 * create made.
 */
import type { PodCreateParams } from "../../client";
import { defined, gpuChoices } from "../inputs/check";
import { canonical, recordKey } from "../lifecycle/applied";
import { isAutoNamed, STACK_MARK_ENV, stackOf } from "../lifecycle/owner";
import type { PodDeclaration, PodOutputs } from "./outputs";
import { type LivePod, OWNER_ENV, type PodInputs, type PodMountsInput } from "./schema";

/** Mounts as a request carries them: one kind, each entry whole. */
export function mountsBody(m: PodMountsInput): PodMountsInput {
  return m.persistent
    ? { persistent: { size: m.persistent.size, path: m.persistent.path } }
    : { network: m.network!.map((n) => ({ volumeId: n.volumeId, path: n.path })) };
}

/** The gpu block in the one shape the create body, the outputs and the refresh inputs share. */
export function gpuOf<G extends { id: string; count?: number }>(gpu: G): { id: string; count: G["count"] } {
  return { id: gpu.id, count: gpu.count };
}

/** The declaration kept in state: which inputs were set, which env keys, the wanted globalNetworking. */
export function declarationFor(inputs: PodInputs): PodDeclaration {
  const declaration: PodDeclaration = {
    keys: Object.keys(inputs)
      .filter((k) => !k.startsWith("__") && k !== "adopt")
      .sort(),
    envKeys: Object.keys(inputs.env ?? {}).sort(),
    globalNetworking: inputs.globalNetworking,
    locked: inputs.locked,
  };
  // Values the program may have marked secret are kept as keys, or not at all (lifecycle/applied.ts).
  if (isAutoNamed(inputs as unknown as Record<string, unknown>)) declaration.name = inputs.name;
  if (Array.isArray(inputs.gpu?.id)) declaration.gpuIdsKey = recordKey(inputs.gpu.id);
  if (inputs.maxHourlyCost !== undefined) declaration.maxHourlyCostKey = recordKey(inputs.maxHourlyCost);
  return declaration;
}

/** A Pod's outputs: the live pod plus the settings only this resource has. */
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
  if (declaration.hourlyCost !== undefined) out.hourlyCost = declaration.hourlyCost;
  if (pod.cpu) out.cpu = { id: pod.cpu.id, vcpuCount: pod.cpu.vcpuCount, memory: pod.cpu.memory };
  if (inputs.dataCenterIds && inputs.dataCenterIds.length > 0) out.dataCenterIds = [...inputs.dataCenterIds];
  return out;
}

/**
 * The create body (`POST /v2/pods`) from checked inputs: only what the user set, and the owner
 * `mark`; `gpuId` is the GPU type this try asks for (one of a preference list).
 */
export function createBody(inputs: PodInputs, mark?: string, gpuId?: string): PodCreateParams {
  const body: PodCreateParams = { name: inputs.name, image: inputs.image };
  if (inputs.args !== undefined) body.args = inputs.args;
  if (inputs.disk !== undefined) body.disk = inputs.disk;
  if (inputs.ports !== undefined) body.ports = [...inputs.ports];
  if (inputs.env !== undefined) body.env = { ...inputs.env };
  // Only the declared env keys are ever compared (planPodChange), so this one never shows a diff.
  if (mark) body.env = { ...body.env, [OWNER_ENV]: mark };
  const stack = stackOf(inputs as unknown as Record<string, unknown>);
  if (stack) body.env = { ...body.env, [STACK_MARK_ENV]: stack };
  if (inputs.registry !== undefined) body.registry = inputs.registry;
  if (inputs.gpu) body.gpu = { id: gpuId ?? gpuChoices(inputs.gpu.id)[0]!, count: inputs.gpu.count };
  if (inputs.cpu) body.cpu = { id: inputs.cpu.id, vcpuCount: inputs.cpu.vcpuCount };
  if (inputs.mounts) body.mounts = mountsBody(inputs.mounts);
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

/**
 * The base token of the resource whose create made `pod` (its owner mark is `<token>.<8 hex>`,
 * a replacement's `.<base>` after it: create-plan.ts), or undefined for a pod no stack made.
 */
export function ownerBaseOf(pod: Pick<LivePod, "env">): string | undefined {
  const v = pod.env?.[OWNER_ENV];
  if (typeof v !== "string" || v === "") return undefined;
  const parts = v.split(".");
  return parts[2] ?? parts[0];
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
  if (pod.dataCenterId) parts.push(`dataCenterIds allowing "${pod.dataCenterId}"`);
  return parts.join(", ");
}

/**
 * The inputs a refresh leaves in state: the declared properties with the values the pod has
 * now (env: only the declared keys), except `name`, which keeps the one last applied (kept in
 * the declaration, so a second refresh does not take the live name either), so an auto-named
 * pod renamed outside Pulumi is renamed back rather than adopting the new name.
 */
export function inputsFromState(outs: PodOutputs, old: Partial<PodOutputs> | undefined): Record<string, unknown> {
  const keys = new Set(outs.__declared.keys);
  const inputs: Record<string, unknown> = {
    name: outs.__declared.name ?? old?.name ?? outs.name,
    image: outs.image,
    cloud: outs.cloud,
    globalNetworking: outs.__declared.globalNetworking,
    locked: outs.locked,
    desiredStatus: outs.desiredStatus,
    waitFor: outs.waitFor,
    waitTimeoutSeconds: outs.waitTimeoutSeconds,
  };
  // The GPU type the pod got (the declared preference list is kept only as a key; state of 0.1.x kept the list).
  if (outs.gpu) inputs.gpu = { id: outs.__declared.gpuIds ?? outs.gpu.id, count: outs.gpu.count };
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


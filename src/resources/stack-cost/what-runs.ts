/*
 * What will run, pure: from a ledger entry (what the program declares), its entry of the last
 * preview or up, and the live object, the compute an up leaves running. Prices come from this,
 * never from the program alone:
 *
 *   - the live object for what up leaves alone: a pod's GPU preference list that still holds
 *     the type it got and its maxHourlyCost are only recorded; a field the program hides with
 *     `ignoreChanges` keeps its live value; an endpoint field the program never declared is
 *     the platform's choice and stays as it is;
 *   - the platform's defaults for what the program leaves out of a new object (an endpoint's
 *     workersMax: 3, workersMin: 0, one GPU per worker);
 *   - the catalog (cost/prices.ts) for the price of that compute.
 *
 * The live object is found through the owner token the program's ledger entry carries: a pod's
 * owner mark (env) starts with it, or ends with it for a replacement; an endpoint carries its
 * auto-name. Once found, its id is kept in the entry, so the next look finds it by id, or its
 * replacement by the token derived from that id.
 */
import type { AccountEndpoint, AccountPod } from "../cost/account";
import { gpuChoices } from "../inputs/check";
import { ENDPOINT_WORKER_DEFAULTS } from "../inputs/endpoint-defaults";
import { autoName, isPendingName, replacementToken } from "../lifecycle/owner";

/** A live pod, as far as pricing goes (the account's lists, cost/account.ts). */
export type LivePodCompute = AccountPod;

/** A live endpoint, as far as pricing goes. */
export type LiveEndpointCompute = AccountEndpoint;


/** What a pod entry declares, after the program's ignoreChanges (`ignore`: the pricing paths it hides). */
export interface PodDeclared {
  gpu?: { id: string | string[]; count: number };
  cpu?: { id: string; vcpuCount: number };
  cloud: "SECURE" | "COMMUNITY";
  desiredStatus: "RUNNING" | "EXITED";
  maxHourlyCost?: number;
  ignore?: string[];
}

/** The compute a pod runs with, for the price book; `choices`: a new pod's GPU types in the order its create tries them. */
export interface PodRuns {
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number };
  cloud: "SECURE" | "COMMUNITY";
  running: boolean;
  /** A new (or replacing) pod with a preference list: the types to try, first affordable wins. */
  choices?: string[];
}

const STOPPED = new Set(["EXITED", "ERROR", "TERMINATED"]);

/** Whether pod `p` carries owner token `token` (its mark starts with it) or was made for base token `base` as a replacement (its mark ends with it). */
function podOwnedBy(p: LivePodCompute, tokens: string[], base: string): boolean {
  const mark = p.env?.COMPUTEPLATFORM_OWNER;
  if (typeof mark !== "string") return false;
  return mark.endsWith(`.${base}`) || tokens.some((t) => mark === t || mark.startsWith(`${t}.`));
}

/**
 * The stack's live pod for an entry that existed at the last preview or up: by the id found
 * then, else by owner token (base, or the replacement of the id found then); the newest when
 * several match (a pod kept from an earlier life of the name is older). Unfinished creates are
 * no one's yet.
 */
export function findLivePod(pods: readonly LivePodCompute[], owner: string | undefined, liveId: string | undefined): LivePodCompute | undefined {
  const alive = pods.filter((p) => p.status !== "TERMINATED" && !isPendingName(p.name));
  if (liveId) {
    const same = alive.find((p) => p.id === liveId);
    if (same) return same;
  }
  if (!owner) return undefined;
  const tokens = [owner, ...(liveId ? [replacementToken(owner, liveId)] : [])];
  return alive.filter((p) => podOwnedBy(p, tokens, owner)).sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}

/** The stack's live endpoint for an entry that existed before: by id, else by name (given, or the auto-name of the token). */
export function findLiveEndpoint(
  endpoints: readonly LiveEndpointCompute[],
  entry: { name: string; owner?: string; declaredName?: string },
  liveId: string | undefined,
): LiveEndpointCompute | undefined {
  if (liveId) {
    const same = endpoints.find((e) => e.id === liveId);
    if (same) return same;
  }
  const names = new Set<string>();
  if (entry.declaredName) names.add(entry.declaredName);
  else if (entry.owner) {
    names.add(autoName(entry.name, undefined, entry.owner));
    if (liveId) names.add(autoName(entry.name, undefined, replacementToken(entry.owner, liveId)));
  }
  return endpoints.filter((e) => names.has(e.name)).at(-1);
}

const ignored = (ignore: readonly string[] | undefined, path: string) => (ignore ?? []).some((p) => p === path || path.startsWith(`${p}.`));

/**
 * What an up leaves running for a pod entry. `live`: the stack's pod now (undefined for a new
 * one). In place (the pod stays): its live compute, stopped or not as `desiredStatus` says. A
 * replacement or a new pod: the declared compute.
 */
export function podRuns(d: PodDeclared, live: LivePodCompute | undefined): PodRuns {
  // ignoreChanges: the engine hands the provider the old value of a hidden field, so up leaves it as it is.
  let gpu = d.gpu;
  let cpu = d.cpu;
  let cloud = d.cloud;
  let desired = d.desiredStatus;
  if (live) {
    if (live.gpu && gpu && ignored(d.ignore, "gpu.id")) gpu = { ...gpu, id: live.gpu.id };
    if (live.gpu && gpu && ignored(d.ignore, "gpu.count")) gpu = { ...gpu, count: live.gpu.count };
    if (live.gpu && ignored(d.ignore, "gpu")) gpu = { id: live.gpu.id, count: live.gpu.count };
    if (live.cpu && ignored(d.ignore, "cpu")) cpu = { id: live.cpu.id, vcpuCount: live.cpu.vcpuCount };
    if (ignored(d.ignore, "cloud")) cloud = live.cloud;
    if (ignored(d.ignore, "desiredStatus")) desired = STOPPED.has(live.status) ? "EXITED" : "RUNNING";
  }
  const running = desired !== "EXITED";
  const choices = gpu ? gpuChoices(gpu.id).map(String) : [];
  if (live && !replaces(live, gpu, cpu, cloud, choices)) {
    return { gpu: live.gpu ? { id: live.gpu.id, count: live.gpu.count } : undefined, cpu: live.cpu ?? undefined, cloud: live.cloud, running };
  }
  if (gpu) return { gpu: { id: choices[0]!, count: gpu.count }, cloud, running, ...(choices.length > 1 ? { choices } : {}) };
  return { cpu, cloud, running };
}

/** The pod's rules for a new pod (Pod plan): a new count, CPU, cloud, or a list without the type it got. */
function replaces(live: LivePodCompute, gpu: PodDeclared["gpu"], cpu: PodDeclared["cpu"], cloud: string, choices: string[]): boolean {
  if (cloud !== live.cloud) return true;
  if (Boolean(gpu) !== Boolean(live.gpu) || Boolean(cpu) !== Boolean(live.cpu)) return true;
  if (gpu && live.gpu) return gpu.count !== live.gpu.count || !choices.includes(live.gpu.id);
  if (cpu && live.cpu) return cpu.id !== live.cpu.id || cpu.vcpuCount !== live.cpu.vcpuCount;
  return false;
}

/** What an endpoint entry declares (undefined: left to the platform), after ignoreChanges. */
export interface EndpointDeclared {
  gpuIds: string;
  workersMin?: number;
  workersMax?: number;
  gpuCount?: number;
  ignore?: string[];
}

/** An endpoint's workers and GPUs as an up leaves them. */
export interface EndpointRuns {
  gpuIds: string;
  workersMin: number;
  workersMax: number;
  gpuCount: number;
}

/**
 * What an up leaves for an endpoint entry. A field the program declares is saved; one it
 * declared before and no longer does goes back to `removedDefaults` (the provider's rule); one
 * it never declared keeps its live value, or the platform's default on a new endpoint.
 */
export function endpointRuns(
  d: EndpointDeclared,
  before: Partial<EndpointDeclared> | undefined,
  live: LiveEndpointCompute | undefined,
  removedDefaults: { workersMin: number; workersMax: number; gpuCount?: number },
): EndpointRuns {
  const pick = (field: "workersMin" | "workersMax" | "gpuCount"): number => {
    const liveValue = live?.[field];
    if (live && ignored(d.ignore, field) && typeof liveValue === "number") return liveValue;
    const declared = d[field];
    if (typeof declared === "number") return declared;
    if (before && typeof before[field] === "number") return removedDefaults[field] ?? ENDPOINT_WORKER_DEFAULTS[field];
    return typeof liveValue === "number" ? liveValue : ENDPOINT_WORKER_DEFAULTS[field];
  };
  const gpuIds = live && ignored(d.ignore, "gpuIds") ? live.gpuIds : d.gpuIds;
  return { gpuIds, workersMin: pick("workersMin"), workersMax: pick("workersMax"), gpuCount: pick("gpuCount") };
}

/*
 * The account sweep: every object of an account, who owns it where the platform (or a stack's
 * exported state) lets us know, its state, and what it costs now, largest first.
 *
 *   read    one list per kind through the client (paced like every client call): GET /v2/pods,
 *           GET /v2/network-volumes, GET /v2/templates, GET /v2/registries, GraphQL myself
 *           (every endpoint with its workers), and GET /v2/catalog/gpus for the workers' prices.
 *   price   pure (`sweepOf`): a pod its `cost` while it is not EXITED (the platform's own figure;
 *           a stopped pod bills nothing, its disks are listed as held); a volume its size at the
 *           platform's published storage rate for its tier; an endpoint each worker it keeps
 *           (starting or running: a draining one no longer bills) at `gpuCount` times the highest
 *           secure price of its first GPU tier; templates and credentials bill nothing.
 *   owner   owners.ts: a stack's exported state names the stack; else the marks the platform
 *           carries (a pod's owner mark, the pending name of an unfinished create); else it says
 *           it cannot tell.
 */
import type { ComputePlatform, Endpoint, GpuType, NetworkVolume, Pod, Registry, Template } from "../client";
import { tierPrice } from "../resources/cost/prices";
import { type Kind, KINDS } from "./kinds";
import { ownerOf, type Owner, type StateOwners } from "./owners";

export { type Kind, KINDS };

/** Hours in the month the figures use: 30 days, as the platform's storage rates are per 30-day month. */
export const HOURS_PER_MONTH = 30 * 24;

/**
 * The platform's storage rates, USD per GB and 30-day month, by tier. The API serves no storage
 * price (its catalog prices compute only), so the sweep holds the published rates.
 */
export const VOLUME_USD_PER_GB_MONTH = { STANDARD: 0.07, HIGH_PERFORMANCE: 0.14 } as const;

/** What the account holds, one list per kind (and the GPU catalog for worker prices). */
export interface AccountLists {
  pods: readonly Pod[];
  networkVolumes: readonly NetworkVolume[];
  templates: readonly Template[];
  registries: readonly Registry[];
  endpoints: readonly Endpoint[];
  gpus: readonly GpuType[];
}

/** One object of the account as the sweep reports it. */
export interface SweptObject {
  kind: Kind;
  id: string;
  name: string;
  /** What it is doing now: a pod's status, an endpoint's workers, a volume's size and tier. */
  state: string;
  owner: Owner;
  /** USD per hour it bills now. */
  perHour: number;
  /** USD per 30-day month at that rate. */
  perMonth: number;
  /** What the figure is made of, or why it is 0. */
  cost: string;
}

export interface Sweep {
  objects: SweptObject[];
  totals: { objects: number; perHour: number; perMonth: number };
  /** What the sweep cannot know, said once. */
  notes: string[];
}

/** Read the account: one list per kind, one after another (the client paces them). */
export async function readAccount(client: ComputePlatform, kinds: readonly Kind[] = KINDS): Promise<AccountLists> {
  const want = new Set(kinds);
  const pods = want.has("Pod") ? await client.pods.list() : [];
  const networkVolumes = want.has("NetworkVolume") ? await client.networkVolumes.list() : [];
  const templates = want.has("Template") ? await client.templates.list() : [];
  const registries = want.has("RegistryCredential") ? await client.registries.list() : [];
  const endpoints = want.has("ServerlessEndpoint") ? await client.endpoints.list() : [];
  const gpus = endpoints.length > 0 ? await client.catalog.gpus() : [];
  return { pods, networkVolumes, templates, registries, endpoints, gpus };
}

const STOPPED = new Set(["EXITED", "TERMINATED"]);
const usd = (n: number) => `$${n.toFixed(4)}`;

/** What one GPU of a worker on `tier` bills (the budgets' own rule, cost/prices.ts), 0 when the catalog prices none. */
const gpuPrice = (gpus: readonly GpuType[], tier: string): number => tierPrice(gpus, tier) ?? 0;

function podObject(p: Pod): Omit<SweptObject, "owner" | "perMonth"> {
  const held = (p.disk ?? 0) + (p.mounts?.persistent?.size ?? 0);
  const stopped = STOPPED.has(p.status);
  return {
    kind: "Pod",
    id: p.id,
    name: p.name,
    state: p.status,
    perHour: stopped ? 0 : p.cost,
    cost: stopped ? `stopped: bills no compute; holds ${held} GB of disk` : `compute ${usd(p.cost)}/h; ${held} GB of disk`,
  };
}

function volumeObject(v: NetworkVolume): Omit<SweptObject, "owner" | "perMonth"> {
  const tier = v.type ?? "STANDARD";
  const rate = VOLUME_USD_PER_GB_MONTH[tier];
  return {
    kind: "NetworkVolume",
    id: v.id,
    name: v.name,
    state: `${v.size} GB ${tier} in ${v.dataCenter}`,
    perHour: (v.size * rate) / HOURS_PER_MONTH,
    cost: `${v.size} GB at $${rate}/GB-month`,
  };
}

function endpointObject(e: Endpoint, gpus: readonly GpuType[]): Omit<SweptObject, "owner" | "perMonth"> {
  const billing = (e.pods ?? []).filter((w) => w.desiredStatus !== "EXITED").length;
  const tier = (e.gpuIds ?? "").split(",")[0]!;
  const perWorker = (e.gpuCount ?? 1) * gpuPrice(gpus, tier);
  return {
    kind: "ServerlessEndpoint",
    id: e.id,
    name: e.name ?? "",
    state: `${billing} worker${billing === 1 ? "" : "s"} (min ${e.workersMin ?? 0}, max ${e.workersMax ?? 0}) on ${e.gpuIds}`,
    perHour: billing * perWorker,
    cost: `${billing} × ${e.gpuCount ?? 1} GPU × ${usd(gpuPrice(gpus, tier))}/h (${tier})`,
  };
}

const free = (kind: Kind, id: string, name: string, state: string): Omit<SweptObject, "owner" | "perMonth"> => ({ kind, id, name, state, perHour: 0, cost: "bills nothing" });

/** The sweep of what was read, largest first (pure). */
export function sweepOf(lists: AccountLists, states: StateOwners): Sweep {
  const objects = [
    ...lists.pods.filter((p) => p.status !== "TERMINATED").map((p) => ({ ...podObject(p), owner: ownerOf("Pod", p, states) })),
    ...lists.endpoints.map((e) => ({ ...endpointObject(e, lists.gpus), owner: ownerOf("ServerlessEndpoint", e, states) })),
    ...lists.networkVolumes.map((v) => ({ ...volumeObject(v), owner: ownerOf("NetworkVolume", v, states) })),
    ...lists.templates.map((t) => ({ ...free("Template", t.id, t.name, t.serverless ? "serverless" : "pod template"), owner: ownerOf("Template", t, states) })),
    ...lists.registries.map((r) => ({ ...free("RegistryCredential", r.id, r.name, "credential"), owner: ownerOf("RegistryCredential", r, states) })),
  ]
    .map((o) => ({ ...o, perMonth: o.perHour * HOURS_PER_MONTH }))
    .sort((a, b) => b.perHour - a.perHour || KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind) || a.name.localeCompare(b.name));
  const perHour = objects.reduce((sum, o) => sum + o.perHour, 0);
  const notes = [
    "Owners: a stack's exported state (--state, `pulumi stack export`) names the stack of every object it holds. Without it, " +
      "a pod a stack made carries its stack (env COMPUTEPLATFORM_STACK; an older one only its owner mark, COMPUTEPLATFORM_OWNER) " +
      "and an unfinished create a name ending in ~creating; the platform keeps no mark on volumes, templates, credentials, " +
      "endpoints a stack finished making, or adopted objects.",
    `Costs: what each object bills now, per hour and per ${HOURS_PER_MONTH}-hour month at that rate. Volumes at the published ` +
      `storage rates (${Object.entries(VOLUME_USD_PER_GB_MONTH).map(([t, r]) => `${t} $${r}`).join(", ")} per GB-month; the API serves none).`,
  ];
  return { objects, totals: { objects: objects.length, perHour, perMonth: perHour * HOURS_PER_MONTH }, notes };
}

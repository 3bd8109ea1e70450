/**
 * ServerlessEndpoint's plan, pure: replace-versus-update, and the endpoint on the wire both
 * ways (the save inputs, the outputs, the inputs a refresh reports). The saved fields are
 * listed once, here; every mapping walks that list.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Endpoint as WireEndpoint, EndpointInput as WireEndpointInput } from "../../client";
import { isUnknown } from "../inputs/check";
import { ENDPOINT_FIELD_DEFAULTS } from "../inputs/endpoint-defaults";
import { isAutoNamed } from "../lifecycle/owner";
import {
  APPLIED_NAME_KEY,
  DECLARED_KEY,
  DEFAULT_DRAIN_TIMEOUT_SECONDS,
  DEFAULT_READY_TIMEOUT_SECONDS,
  DEFAULT_ROLLOUT_TIMEOUT_SECONDS,
  DEFAULT_TYPE,
  type EndpointInputs,
  type EndpointRequestUrls,
  SAVED_FIELDS,
  type SavedField,
  type ServerlessEndpointOutputs,
  TEMPLATE_ROLLS_KEY,
  type WorkerPrice,
} from "./schema";
import { rollingChanges, templateChanges } from "./rollout-plan";
import { usd } from "../cost/prices";

export { SAVED_FIELDS, type SavedField } from "./schema";

/** Settings of this resource that the platform never sees: they shape the waits. */
export const LOCAL_FIELDS = ["waitForWorkers", "readyTimeoutSeconds", "drainTimeoutSeconds", "waitForRollout", "rolloutTimeoutSeconds"] as const;
type LocalField = (typeof LOCAL_FIELDS)[number];

/** Each local setting's default: state written before a setting existed holds none, and means it. */
export const LOCAL_DEFAULTS = {
  waitForWorkers: true,
  readyTimeoutSeconds: DEFAULT_READY_TIMEOUT_SECONDS,
  drainTimeoutSeconds: DEFAULT_DRAIN_TIMEOUT_SECONDS,
  waitForRollout: true,
  rolloutTimeoutSeconds: DEFAULT_ROLLOUT_TIMEOUT_SECONDS,
} as const satisfies Record<LocalField, boolean | number>;

/** The local settings that change (their old value, or the default in state that predates it). */
export function changedLocalFields(olds: Record<string, any>, news: Record<string, any>): LocalField[] {
  return LOCAL_FIELDS.filter((field) => news[field] !== undefined && !sameValue(olds[field] ?? LOCAL_DEFAULTS[field], news[field]));
}

/**
 * Why `up` has a rollout to wait for, in the release's names: the changed fields that roll the
 * workers (the endpoint's own, `changed`, and the bound Template's container), and a rollout the
 * state says was not over when last read (an `up` whose wait ran out or failed), unless the
 * program no longer waits for rollouts.
 */
export function rolloutReasons(olds: Record<string, any>, news: Record<string, any>, changed: readonly string[]): string[] {
  const reasons = [...rollingChanges(changed), ...templateChanges(olds[TEMPLATE_ROLLS_KEY], news[TEMPLATE_ROLLS_KEY])];
  // Only a wait that did not finish carries over (its state lists the versions that serve): a
  // write that did not wait (waitForWorkers or waitForRollout false) records the rollout as read,
  // its own workers starting included, and the next preview must not show that as a change.
  if (news.waitForRollout !== false && olds.rollout?.inProgress === true && Array.isArray(olds.rollout.serving)) reasons.push("rollout");
  return [...new Set(reasons)];
}

/** Platform values that mean the same thing compare equal: "" and null are both any region. */
function normalized(field: string, value: unknown): unknown {
  // (An undefined one already equals null: see sameValue.)
  if (field === "locations" && value === "") return null;
  return value;
}

/**
 * The value each saved field should have: the declared one; for a field declared before
 * and removed since, the platform's default (ENDPOINT_FIELD_DEFAULTS); else undefined, the
 * platform's choice, so a value the platform filled in never shows as a change.
 */
export function wantedValue(field: SavedField, olds: Record<string, any>, news: Record<string, any>): unknown {
  if (news[field] !== undefined) return news[field];
  const declaredBefore: unknown = olds[DECLARED_KEY];
  if (Array.isArray(declaredBefore) && declaredBefore.includes(field) && Object.hasOwn(ENDPOINT_FIELD_DEFAULTS, field)) {
    return ENDPOINT_FIELD_DEFAULTS[field as keyof typeof ENDPOINT_FIELD_DEFAULTS];
  }
  return undefined;
}

/**
 * The refusal of a save whose workersMin would end above its workersMax, for a pair of which
 * the program declares one side only: the other is the endpoint's (set outside the stack, read by
 * refresh) or the platform's default once removed, and the platform refuses the save. Said at
 * preview, naming both values and where each comes from, so up sends nothing. Undefined when the
 * pair holds, or a side is not known yet.
 */
export function workersOrderRefusal(olds: Record<string, any>, news: Record<string, any>): string | undefined {
  const side = (field: "workersMin" | "workersMax") => {
    const wanted = wantedValue(field, olds, news);
    if (news[field] !== undefined) return { value: wanted, from: "declared" };
    return wanted !== undefined ? { value: wanted, from: "the platform's default, as the program no longer declares it" } : { value: olds[field], from: "the endpoint's, which the program leaves undeclared" };
  };
  const [min, max] = [side("workersMin"), side("workersMax")];
  if (typeof min.value !== "number" || typeof max.value !== "number" || min.value <= max.value) return undefined;
  // Both declared: check refuses it. Both the endpoint's: the program asks nothing of them.
  if (min.from === max.from) return undefined;
  return (
    `workersMin ${min.value} (${min.from}) would be above workersMax ${max.value} (${max.from}), which the platform refuses. ` +
    `Declare ${min.from === "declared" ? `workersMax (at least ${min.value})` : `workersMin (at most ${max.value})`}, or change the one declared.`
  );
}

/**
 * The saved fields whose wanted value (see wantedValue) differs from the old output; an
 * unknown (preview) input counts as a change.
 */
export function changedSavedFields(olds: Record<string, any>, news: Record<string, any>): SavedField[] {
  return SAVED_FIELDS.filter((field) => {
    const next = wantedValue(field, olds, news);
    if (next === undefined) return false;
    // An unknown value is the engine's marker, which no old value equals: a change.
    return !sameValue(normalized(field, olds[field]), normalized(field, next));
  });
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (a == null && b == null);
}

/**
 * `diff()`: `olds` are the old outputs (what the platform reported), `news` the checked
 * inputs. A different `type` replaces: the kind of endpoint is fixed at creation. Everything
 * else, including the wait settings, updates in place.
 */
export function planEndpointDiff(olds: Record<string, any>, news: Record<string, any>): pulumi.dynamic.DiffResult {
  const replaces: string[] = [];
  const newType = news.type ?? DEFAULT_TYPE;
  if (isUnknown(newType) || (olds.type != null && olds.type !== newType)) replaces.push("type");
  const saved = changedSavedFields(olds, news);
  const changed = [...saved, ...changedLocalFields(olds, news), ...rolloutReasons(olds, news, saved)];
  return { changes: replaces.length > 0 || changed.length > 0, replaces, deleteBeforeReplace: false };
}

// ---------------------------------------------------------------------------------------------
// The wire

/** The settings of this resource that shape its waits, with their defaults; the name last applied. */
export type LocalSettings = Pick<ServerlessEndpointOutputs, (typeof LOCAL_FIELDS)[number]> & {
  [DECLARED_KEY]: SavedField[];
  [APPLIED_NAME_KEY]?: string;
  /** The worker price last read from the catalog; outputs only, never an input. */
  [WORKER_PRICE_KEY]?: WorkerPrice;
};

/**
 * `from`: checked inputs (create, update), whose name is the one applied, or the old outputs
 * (read), which carry it under APPLIED_NAME_KEY. Only a name the program did not give is kept
 * there (the auto-name, or the name kept after the program removed its own: the checked inputs
 * then do not list `name` as declared): a name the program gives may be secret, and the program
 * gives it again at every check (lifecycle/applied.ts).
 * State of 0.1.0 has no record at all: the name read. `previous` (an update's old outputs): a
 * name it records as the auto-name applied stays recorded while the update keeps it, whatever
 * owner token the check settled on (a refresh reports no token, so the check after one derives
 * it again, and after a replacement, or a diff in the same process, derives another one, of
 * which the kept name is not the auto-name).
 */
export function localSettings(from: (Partial<LocalSettings> & { name?: string }) | undefined, previous?: Partial<LocalSettings>): LocalSettings {
  // The name is read only when there is a `from` (isAutoNamed of none is false).
  const kept = previous?.[APPLIED_NAME_KEY] !== undefined && previous[APPLIED_NAME_KEY] === from?.name ? from.name : undefined;
  const applied =
    from?.[APPLIED_NAME_KEY] ??
    kept ??
    (isAutoNamed(from as Record<string, unknown>) || (from !== undefined && !from[DECLARED_KEY]?.includes("name")) ? from!.name : undefined);
  const settings: LocalSettings = {
    ...(applied ? { [APPLIED_NAME_KEY]: applied } : {}),
    waitForWorkers: from?.waitForWorkers ?? LOCAL_DEFAULTS.waitForWorkers,
    readyTimeoutSeconds: from?.readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS,
    drainTimeoutSeconds: from?.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS,
    waitForRollout: from?.waitForRollout ?? LOCAL_DEFAULTS.waitForRollout,
    rolloutTimeoutSeconds: from?.rolloutTimeoutSeconds ?? DEFAULT_ROLLOUT_TIMEOUT_SECONDS,
    // The saved fields the program declared (check() lists them); state of 0.1.0 has none.
    [DECLARED_KEY]: [...(from?.[DECLARED_KEY] ?? [])],
  };
  const price = from?.[WORKER_PRICE_KEY];
  if (price && typeof price.tier === "string" && typeof price.usd === "number") settings[WORKER_PRICE_KEY] = { tier: price.tier, usd: price.usd };
  return settings;
}

/** Where the worker price rides in the outputs. */
export const WORKER_PRICE_KEY = "__workerPrice";

/** The first GPU tier of a `gpuIds` priority list. */
export const firstTier = (gpuIds: string): string => gpuIds.split(",")[0]!.trim();

/**
 * The hourly cost range of `ep` from a GPU price read for its first tier (none for another
 * tier): a worker is `gpuCount` GPUs (the platform's default 1 when it reports none).
 */
export function hourlyCostOf(ep: Pick<WireEndpoint, "gpuIds" | "gpuCount" | "workersMin" | "workersMax">, price: WorkerPrice | undefined) {
  if (!price || typeof ep.gpuIds !== "string" || firstTier(ep.gpuIds) !== price.tier) return undefined;
  const worker = price.usd * (ep.gpuCount ?? 1);
  return { min: usd(worker * (ep.workersMin ?? 0)), max: usd(worker * (ep.workersMax ?? 0)) };
}

/**
 * Where a queue-based endpoint takes jobs, from the client's serverless address (GraphQL answers
 * no URLs); none for a load-balancing endpoint, whose paths are its worker's, or without an address.
 */
export function queueUrls(serverlessUrl: string | undefined, id: string, type: string): EndpointRequestUrls | undefined {
  if (!serverlessUrl || type !== "QB") return undefined;
  const at = `${serverlessUrl.replace(/\/+$/, "")}/v2/${encodeURIComponent(id)}`;
  return { run: `${at}/run`, runSync: `${at}/runsync` };
}

/** Workers RUNNING now. */
export function runningWorkers(ep: WireEndpoint): number {
  // Stryker disable next-line ArrayDeclaration: any stand-in list for none holds no RUNNING worker
  return (ep.pods ?? []).filter((p) => p.desiredStatus === "RUNNING").length;
}

/** The endpoint as state holds it: every key present, null rather than undefined. */
export function endpointOutputs(ep: WireEndpoint, settings: LocalSettings, fallbackType?: string): ServerlessEndpointOutputs {
  const live = ep as Record<string, unknown>;
  const saved = Object.fromEntries(SAVED_FIELDS.map((field) => [field, live[field] ?? null]));
  const outs: ServerlessEndpointOutputs = {
    ...(saved as Pick<ServerlessEndpointOutputs, SavedField>),
    type: ep.type ?? fallbackType ?? DEFAULT_TYPE,
    pods: (ep.pods ?? []).map((p) => ({ desiredStatus: p.desiredStatus })),
    ...settings,
  };
  const hourlyCost = hourlyCostOf(ep, settings[WORKER_PRICE_KEY]);
  if (hourlyCost) outs.hourlyCost = hourlyCost;
  return outs;
}

/**
 * The inputs a refresh reports: what the platform has now, so the next preview shows a
 * program that no longer matches (drift) as a change. Fields the platform leaves empty are
 * left out, as a program would. Except `name`, which keeps the one last applied (kept in the
 * outputs under APPLIED_NAME_KEY, so however many refreshes run): check() settles a program without a name on the old inputs' name, so an
 * auto-named endpoint renamed outside Pulumi is renamed back, as a pod is, not adopted.
 */
export function inputsFromLive(ep: WireEndpoint, settings: LocalSettings): Record<string, unknown> {
  // The name last applied rides as `name` (of its own name), never under another key.
  const { [WORKER_PRICE_KEY]: _price, [APPLIED_NAME_KEY]: _applied, ...local } = settings;
  const inputs: Record<string, unknown> = { type: ep.type ?? DEFAULT_TYPE, ...local };
  for (const field of SAVED_FIELDS) {
    const value = (ep as Record<string, unknown>)[field];
    if (value !== undefined && value !== null) inputs[field] = value;
  }
  if (settings[APPLIED_NAME_KEY]) inputs.name = settings[APPLIED_NAME_KEY];
  return inputs;
}

/** Create input: the required fields and every optional one the program gave. */
export function createInput(inputs: EndpointInputs): WireEndpointInput {
  const input: Record<string, unknown> = { type: inputs.type };
  for (const field of SAVED_FIELDS) {
    if (inputs[field] !== undefined) input[field] = inputs[field];
  }
  return input as WireEndpointInput;
}

/** Saved fields whose null the platform reads as "none": a save may send it. */
const NULL_MEANS_NONE: readonly SavedField[] = ["locations", "networkVolumeId"];

/**
 * A save of endpoint `id` that carries every field of the save input: `wanted` (the declared
 * fields at their declared values, removed ones at the platform's defaults) over `live` (the
 * endpoint as last read), so the endpoint ends the same whether the platform keeps the fields
 * a save leaves out or resets them to its defaults. A field the platform reports no value for
 * is left out (there is nothing to keep), unless its null means none.
 */
export function fullSaveInput(
  id: string,
  type: string,
  live: Partial<Record<SavedField, unknown>>,
  wanted: Partial<Record<SavedField, unknown>>,
): WireEndpointInput {
  const input: Record<string, unknown> = { id, type };
  for (const field of SAVED_FIELDS) {
    const value = wanted[field] !== undefined ? wanted[field] : live[field];
    if (value !== undefined && (value !== null || NULL_MEANS_NONE.includes(field))) input[field] = value;
  }
  return input as WireEndpointInput;
}

/** Every saved field's wanted value (see wantedValue); undefined where the platform's choice stands. */
export function wantedValues(olds: Record<string, any>, news: Record<string, any>): Partial<Record<SavedField, unknown>> {
  return Object.fromEntries(SAVED_FIELDS.map((field) => [field, wantedValue(field, olds, news)]));
}

/** The saved fields a full save would leave out for want of a live value (state written before they existed). */
export function missingLive(live: Record<string, unknown>, wanted: Partial<Record<SavedField, unknown>>): SavedField[] {
  return SAVED_FIELDS.filter((f) => wanted[f] === undefined && live[f] === undefined);
}

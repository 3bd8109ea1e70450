/**
 * The pure half of the ServerlessEndpoint resource: the allowed values of spec 2.9, the check
 * schema, the defaults `check()` fills in, and replace-versus-update planning. No I/O here,
 * so all of it is tested as tables.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { GPU_TIERS, LOCATIONS } from "../client/schemas";
import { checkFailures, isUnknown } from "./check";
import { autoName, OWNER_TOKEN_KEY, ownerToken, resolveName } from "./naming";

// The allowed values of spec 2.9 are the client's (one list for the wire and for check()).
export const GPU_IDS = GPU_TIERS;
export { LOCATIONS };
export const ENDPOINT_TYPES = ["QB", "LB"] as const;
export const SCALER_TYPES = ["QUEUE_DELAY", "REQUEST_COUNT"] as const;
export const FLASH_BOOT_TYPES = ["OFF", "FLASHBOOT"] as const;

export type GpuId = (typeof GPU_IDS)[number];
export type Location = (typeof LOCATIONS)[number];
export type EndpointType = (typeof ENDPOINT_TYPES)[number];
export type ScalerType = (typeof SCALER_TYPES)[number];
export type FlashBootType = (typeof FLASH_BOOT_TYPES)[number];

export const DEFAULT_TYPE: EndpointType = "QB";
export const DEFAULT_READY_TIMEOUT_SECONDS = 600;
export const DEFAULT_DRAIN_TIMEOUT_SECONDS = 600;
/** A day: a wait longer than this is a typo, and every wait must have a bound. */
const MAX_TIMEOUT_SECONDS = 86_400;

/**
 * The input that carries the resource's logical name into `check()`, which Pulumi's dynamic
 * provider does not otherwise see; auto-naming needs it.
 */
export const LOGICAL_NAME_KEY = "__logicalName";

/** Fields sent to `saveEndpoint`, apart from `type` (fixed at creation). */
export const SAVED_FIELDS = [
  "name",
  "gpuIds",
  "templateId",
  "idleTimeout",
  "locations",
  "flashBootType",
  "scalerType",
  "scalerValue",
  "workersMin",
  "workersMax",
  "networkVolumeId",
] as const;
export type SavedField = (typeof SAVED_FIELDS)[number];

/** Settings of this resource that the platform never sees: they shape the waits. */
export const LOCAL_FIELDS = ["waitForWorkers", "readyTimeoutSeconds", "drainTimeoutSeconds"] as const;

function oneOf<const T extends readonly [string, ...string[]]>(field: string, values: T) {
  return z.enum(values, {
    error: (iss) =>
      iss.input === undefined
        ? `${field} is required: one of ${values.join(", ")}`
        : `${field} must be one of ${values.join(", ")} (got ${JSON.stringify(iss.input)})`,
  });
}

function nonNegativeInt(field: string, unit: string) {
  const error = `${field} must be a non-negative integer (${unit})`;
  return z.number({ error }).int({ error }).min(0, { error });
}

function timeoutSeconds(field: string) {
  const error = `${field} must be an integer from 1 to ${MAX_TIMEOUT_SECONDS} (seconds)`;
  return z.number({ error }).int({ error }).min(1, { error }).max(MAX_TIMEOUT_SECONDS, { error });
}

function nonEmpty(field: string) {
  const error = `${field} is required: a non-empty string`;
  return z.string({ error }).min(1, { error });
}

const locationsRule = `locations must be one of ${LOCATIONS.join(", ")}, a comma-separated list of them (e.g. "US,RO"), or "" for any region`;

/** One region code, or several separated by commas, each at most once. */
function validLocations(value: string): boolean {
  if (value === "") return true;
  const codes = value.split(",");
  return codes.every((c) => (LOCATIONS as readonly string[]).includes(c)) && new Set(codes).size === codes.length;
}

/**
 * The inputs after `check()` has filled in the defaults. Extra keys (`__provider`,
 * `__name`) pass through untouched.
 */
export const endpointInputsSchema = z
  .object({
    name: nonEmpty("name"),
    gpuIds: oneOf("gpuIds", GPU_IDS),
    templateId: nonEmpty("templateId"),
    type: oneOf("type", ENDPOINT_TYPES),
    idleTimeout: nonNegativeInt("idleTimeout", "seconds").optional(),
    // "" and null both mean any region (spec 2.9).
    locations: z
      .string({ error: locationsRule })
      .refine(validLocations, { error: (iss) => `${locationsRule} (got ${JSON.stringify(iss.input)})` })
      .nullable()
      .optional(),
    flashBootType: oneOf("flashBootType", FLASH_BOOT_TYPES).optional(),
    scalerType: oneOf("scalerType", SCALER_TYPES).optional(),
    scalerValue: nonNegativeInt("scalerValue", "the scaler's target").optional(),
    workersMin: nonNegativeInt("workersMin", "workers").optional(),
    workersMax: nonNegativeInt("workersMax", "workers").optional(),
    networkVolumeId: z
      .string({ error: "networkVolumeId must be a network volume id, or null for none" })
      .min(1, { error: "networkVolumeId must be a network volume id, or null for none" })
      .nullable()
      .optional(),
    waitForWorkers: z.boolean({ error: "waitForWorkers must be true or false" }),
    readyTimeoutSeconds: timeoutSeconds("readyTimeoutSeconds"),
    drainTimeoutSeconds: timeoutSeconds("drainTimeoutSeconds"),
  })
  .superRefine((v, ctx) => {
    if (typeof v.workersMin === "number" && typeof v.workersMax === "number" && v.workersMin > v.workersMax) {
      ctx.addIssue({
        code: "custom",
        path: ["workersMin"],
        message: `workersMin (${v.workersMin}) must not exceed workersMax (${v.workersMax})`,
      });
    }
  });

export type EndpointInputs = z.infer<typeof endpointInputsSchema> & {
  [LOGICAL_NAME_KEY]?: string;
  /** The owner token `check()` settled on (see naming.ts); never part of a diff. */
  [OWNER_TOKEN_KEY]?: string;
};

/** The kind in owner tokens: an endpoint and a pod of the same logical name never share one. */
export const ENDPOINT_KIND = "ServerlessEndpoint";

/**
 * Whether the endpoint's name is the one generated from its owner token: only such a name
 * says which stack's resource made it (a name the user gave may be another stack's too).
 */
export function isOwnerNamed(inputs: { name?: unknown; [LOGICAL_NAME_KEY]?: unknown; [OWNER_TOKEN_KEY]?: unknown }): boolean {
  const token = inputs[OWNER_TOKEN_KEY];
  const logical = typeof inputs[LOGICAL_NAME_KEY] === "string" ? inputs[LOGICAL_NAME_KEY] : "endpoint";
  return typeof token === "string" && inputs.name === autoName(logical, undefined, token);
}

/**
 * `check()`: fill the defaults (so an explicit default and an omitted one give the same
 * inputs, hence no diff), then validate. `olds` are the old inputs: they keep a generated
 * name stable across updates.
 */
export function checkEndpointInputs(
  olds: Record<string, any> | undefined,
  news: Record<string, any>,
  predecessorOf?: (base: string) => string | undefined,
): pulumi.dynamic.CheckResult {
  const logicalName = typeof news[LOGICAL_NAME_KEY] === "string" ? news[LOGICAL_NAME_KEY] : "endpoint";
  const token = ownerToken(ENDPOINT_KIND, olds, news, predecessorOf);
  const inputs: Record<string, any> = {
    ...news,
    [OWNER_TOKEN_KEY]: token,
    name: resolveName(news.name, olds, logicalName, token),
    type: news.type ?? DEFAULT_TYPE,
    waitForWorkers: news.waitForWorkers ?? true,
    readyTimeoutSeconds: news.readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS,
    drainTimeoutSeconds: news.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS,
  };
  // Pulumi hands over an omitted optional input as absent, but be strict about `undefined`
  // anyway: it cannot be serialized into state.
  for (const key of Object.keys(inputs)) if (inputs[key] === undefined) delete inputs[key];
  const parsed = endpointInputsSchema.safeParse(inputs);
  const failures = parsed.success ? [] : checkFailures(parsed.error, inputs);
  return failures.length > 0 ? { inputs, failures } : { inputs };
}

/** Platform values that mean the same thing compare equal: "" and null are both any region. */
function normalized(field: string, value: unknown): unknown {
  if (field === "locations" && (value === "" || value === undefined)) return null;
  return value;
}

/**
 * The saved fields whose new input differs from the old output. An input left out is the
 * platform's choice, so a value the platform filled in never shows as a change; an unknown
 * (preview) input counts as a change.
 */
export function changedSavedFields(olds: Record<string, any>, news: Record<string, any>): SavedField[] {
  return SAVED_FIELDS.filter((field) => {
    const next = news[field];
    if (next === undefined) return false;
    if (isUnknown(next)) return true;
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
  const changed: string[] = changedSavedFields(olds, news);
  for (const field of LOCAL_FIELDS) {
    if (news[field] !== undefined && !sameValue(olds[field], news[field])) changed.push(field);
  }
  return { changes: replaces.length > 0 || changed.length > 0, replaces, deleteBeforeReplace: false };
}

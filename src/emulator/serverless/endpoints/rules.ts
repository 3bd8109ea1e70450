// The value rules of endpoint management, shared by both APIs: the allowed sets, the limits,
// the defaults a create fills in, and the check of a save's input that GraphQL's types cannot
// express. The store (store.ts) applies them; REST's view (../rest/endpoints.ts) and the state
// file (../snapshot.ts) read the same sets and limits.
import { GraphQLError } from "graphql";

export const GPU_TIERS = [
  "AMPERE_16",
  "AMPERE_24",
  "ADA_24",
  "AMPERE_48",
  "ADA_48_PRO",
  "AMPERE_80",
  "ADA_80_PRO",
] as const;
export const LOCATIONS = ["CZ", "FR", "GB", "NO", "RO", "US"] as const;
export const ENDPOINT_TYPES = ["QB", "LB"] as const;
export const SCALER_TYPES = ["QUEUE_DELAY", "REQUEST_COUNT"] as const;

/**
 * An emulator limit, not a platform rule: workers are materialised one record each, so an
 * unbounded `workersMin` would let one request allocate without end.
 */
export const MAX_WORKERS = 100;

/**
 * The maximums of the other integer fields (the platform sets only minimums): an hour of idle
 * time, a scaler value of 1000 (seconds of queue delay or requests), 8 GPUs per worker (the
 * most any GPU type allows), a job limit of 7 days. Past them: an error naming the field.
 */
export const ENDPOINT_LIMITS = { idleTimeout: 3600, scalerValue: 1000, gpuCount: 8, executionTimeoutMs: 7 * 24 * 3600 * 1000 };

/** Values a created endpoint gets for the optional fields it leaves out. */
export const ENDPOINT_DEFAULTS = {
  type: "QB",
  idleTimeout: 5,
  locations: null,
  flashBootType: "OFF",
  scalerType: "QUEUE_DELAY",
  scalerValue: 4,
  workersMin: 0,
  workersMax: 3,
  networkVolumeId: null,
  gpuCount: 1,
  executionTimeoutMs: 300000,
} as const;

/** The coerced `EndpointInput`: a key is absent when the caller left the field out. */
export type EndpointInput = Partial<Record<string, unknown>>;

export function gqlError(code: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

const quoted = (values: readonly string[]) => values.join(", ");

/**
 * Value rules the schema cannot express. GraphQL has already checked the types; this checks
 * allowed sets, ranges and nulls, naming the field and the rule for each failure.
 */
export function valueViolations(input: EndpointInput): string[] {
  const out: string[] = [];
  const has = (k: string) => Object.hasOwn(input, k);
  const oneOf = (field: string, allowed: readonly string[]) => {
    if (!has(field)) return;
    const v = input[field];
    if (v === null) out.push(`input.${field} must not be null (allowed: ${quoted(allowed)})`);
    else if (!allowed.includes(v as string))
      out.push(`input.${field} ${JSON.stringify(v)} is not one of ${quoted(allowed)}`);
  };
  const nonEmpty = (field: string) => {
    if (input[field] === "") out.push(`input.${field} must not be empty`);
  };
  const count = (field: string, max?: number, min = 0) => {
    if (!has(field)) return;
    const v = input[field] as number | null;
    if (v === null) out.push(`input.${field} must not be null`);
    else if (v < min) out.push(`input.${field} must be >= ${min}, got ${v}`);
    else if (max !== undefined && v > max)
      out.push(`input.${field} must be <= ${max} in the emulator, got ${v}`);
  };

  // One allowed value or a comma-separated list of distinct ones in priority
  // order, no spaces (`locations` may also be empty or null: any region).
  const priorityList = (field: string, allowed: readonly string[], emptyMeansAny: boolean) => {
    const v = input[field];
    if (typeof v !== "string" || (v === "" && emptyMeansAny)) return;
    const items = v.split(",");
    const bad = items.filter((c) => !allowed.includes(c));
    if (bad.length > 0)
      out.push(
        `input.${field} ${JSON.stringify(v)}: ${bad.map((b) => JSON.stringify(b)).join(", ")} not in ${quoted(allowed)} (one value or a comma-separated list without spaces)`,
      );
    else if (new Set(items).size !== items.length) out.push(`input.${field} ${JSON.stringify(v)} repeats a value`);
  };

  nonEmpty("name");
  nonEmpty("templateId");
  oneOf("type", ENDPOINT_TYPES);
  oneOf("scalerType", SCALER_TYPES);
  if (has("flashBootType") && input.flashBootType === null)
    out.push("input.flashBootType must not be null (allowed: OFF, FLASHBOOT)");
  priorityList("gpuIds", GPU_TIERS, false);
  priorityList("locations", LOCATIONS, true);
  count("idleTimeout", ENDPOINT_LIMITS.idleTimeout);
  count("scalerValue", ENDPOINT_LIMITS.scalerValue);
  count("workersMin", MAX_WORKERS);
  count("workersMax", MAX_WORKERS);
  count("gpuCount", ENDPOINT_LIMITS.gpuCount, 1);
  count("executionTimeoutMs", ENDPOINT_LIMITS.executionTimeoutMs);
  return out;
}

export const EDITABLE = [
  "name",
  "gpuIds",
  "templateId",
  "type",
  "idleTimeout",
  "locations",
  "flashBootType",
  "scalerType",
  "scalerValue",
  "workersMin",
  "workersMax",
  "networkVolumeId",
  "gpuCount",
  "executionTimeoutMs",
  "dataCenterIds",
] as const;

/** Strings where "" means none: stored (and read) as null: the platform's "null when none". */
export const EMPTY_MEANS_NONE = ["locations", "networkVolumeId"] as const;

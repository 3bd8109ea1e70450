/**
 * ServerlessEndpoint's check: the allowed values of the endpoint fields, the schema, and the defaults
 * `check()` fills in. No I/O here, so all of it is tested as tables.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { ENDPOINT_FIELDS, type EndpointField, schemas, validateGpuIds, validateLocations } from "../../client";
import { didYouMean, splitUnknownArgs } from "../inputs/arguments";
import { checkFailures } from "../inputs/check";
import { adoptId, isPort, PORT_RULE } from "../inputs/container";
import { ENDPOINT_FIELD_DEFAULTS } from "../inputs/endpoint-defaults";
import { autoName, LOGICAL_NAME_KEY, OWNER_INPUT_KEYS, OWNER_TOKEN_KEY, ownerToken, resolveName } from "../lifecycle/owner";

const { GPU_TIERS, LOCATIONS } = schemas;

// The allowed values of the endpoint fields are the client's (one list for the wire and for check()).
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

/** Fields sent to `saveEndpoint`, apart from `type` (fixed at creation): the client's list. */
export type SavedField = Exclude<EndpointField, "type">;
export const SAVED_FIELDS: readonly SavedField[] = ENDPOINT_FIELDS.filter((f): f is SavedField => f !== "type");

/** The hidden input (and output) listing the saved fields the program declares. */
export const DECLARED_KEY = "__declared";
/** The hidden output holding the name last applied (a refresh reports it as the input, not the live name). */
export const APPLIED_NAME_KEY = "__appliedName";

export const DEFAULT_READY_TIMEOUT_SECONDS = 600;
export const DEFAULT_DRAIN_TIMEOUT_SECONDS = 600;
/**
 * Half an hour: a rollout replaces the workers a quarter at a time (the platform starts at most
 * `max(1, ceil(workers / 4))` at once), so about four worker starts in a row, and a GPU worker's
 * start (pulling a large image) can take several minutes.
 */
export const DEFAULT_ROLLOUT_TIMEOUT_SECONDS = 1800;
/** A day: a wait longer than this is a typo, and every wait must have a bound. */
const MAX_TIMEOUT_SECONDS = 86_400;

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

function positiveInt(field: string, unit: string) {
  const error = `${field} must be an integer >= 1 (${unit})`;
  return z.number({ error }).int({ error }).min(1, { error });
}

function timeoutSeconds(field: string) {
  const error = `${field} must be an integer from 1 to ${MAX_TIMEOUT_SECONDS} (seconds)`;
  return z.number({ error }).int({ error }).min(1, { error }).max(MAX_TIMEOUT_SECONDS, { error });
}

function nonEmpty(field: string) {
  const error = `${field} is required: a non-empty string`;
  return z.string({ error }).min(1, { error });
}

/**
 * One allowed value or a comma-separated priority list of distinct ones, no spaces;
 * `anyWhenEmpty`: "" is allowed (an empty `locations` means any region). The rule itself is the
 * client's (`validate`), so the client and the resources accept and refuse the same strings.
 */
function priorityList(field: string, allowed: readonly string[], example: string, anyWhenEmpty: boolean, validate: (value: string) => string | undefined) {
  const rule =
    `${field} must be one of ${allowed.join(", ")}, or a comma-separated list of distinct ones in priority order ` +
    `with no spaces (e.g. "${example}")${anyWhenEmpty ? `, or "" for any` : ""}`;
  return z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required: ${rule.slice(field.length + 1)}` : rule) })
    .superRefine((value, ctx) => {
      const problem = validate(value);
      if (problem === undefined) return;
      // Each entry not in the list, with the one it was probably meant to be ("ADA24": ADA_24).
      const near = value
        .split(",")
        .filter((v) => v !== "" && !allowed.includes(v))
        .map((v) => [v, didYouMean(v, allowed)] as const)
        .filter(([, d]) => d !== undefined)
        .map(([v, d]) => `for "${v}", ${d}`);
      ctx.addIssue({ code: "custom", message: near.length > 0 ? `${problem} (${near.join("; ")})` : problem });
    });
}

/** How the endpoint is managed: GraphQL (the seed's interface) or REST v2 (its successor). */
export const API_KINDS = ["graphql", "rest"] as const;
export type ApiKind = (typeof API_KINDS)[number];

/** The container of a REST-managed endpoint (the contract's ContainerConfig). */
const containerSchema = z.strictObject(
  {
    image: nonEmpty("container.image"),
    args: z.string({ error: "container.args must be a string" }).optional(),
    disk: positiveInt("container.disk", "GB").optional(),
    ports: z.array(z.string().refine(isPort, { error: `container.ports[] ${PORT_RULE}` })).optional(),
    env: z.record(z.string(), z.string({ error: "container.env values must be strings" })).optional(),
    registry: z.string().min(1, { error: "container.registry must be a registry credential id, or null" }).nullable().optional(),
  },
  { error: (iss) => (iss.code === "unrecognized_keys" ? `container has no property ${(iss.keys ?? []).join(", ")}` : undefined) },
);
export type ContainerInput = z.infer<typeof containerSchema>;

/** What each interface can and cannot say (REST: no templateId, no locations; GraphQL: no container, no dataCenterIds). */
function interfaceIssues(v: { api?: string; templateId?: string; container?: unknown; locations?: unknown; dataCenterIds?: unknown }): { path: string[]; message: string }[] {
  const out: { path: string[]; message: string }[] = [];
  if (v.api === "rest") {
    if (v.templateId !== undefined)
      out.push({
        path: ["templateId"],
        message:
          'templateId cannot be used with api: "rest": over REST a container change and a delete act on the template bound to the endpoint, ' +
          "so a REST-managed endpoint carries its own container; give `container` instead (a Template the stack manages is then left alone)",
      });
    if (v.container === undefined) out.push({ path: ["container"], message: 'container is required with api: "rest": { image, args?, disk?, ports?, env?, registry? }' });
    if (v.locations !== undefined)
      out.push({
        path: ["locations"],
        message: 'locations cannot be set over REST v2 (it has no such field); remove it and use dataCenterIds, or keep api: "graphql"',
      });
  } else {
    if (v.templateId === undefined) out.push({ path: ["templateId"], message: "templateId is required: a non-empty string" });
    if (v.container !== undefined)
      out.push({ path: ["container"], message: 'container needs api: "rest"; over GraphQL the workers run the Template named by templateId' });
    if (v.dataCenterIds !== undefined) out.push({ path: ["dataCenterIds"], message: 'dataCenterIds needs api: "rest" (over GraphQL use locations)' });
  }
  return out;
}

/**
 * The inputs after `check()` has filled in the defaults. Extra keys (`__provider`,
 * `__name`) pass through untouched.
 *
 * @group Providers and checks
 */
export const endpointInputsSchema = z
  .strictObject(
    {
    name: nonEmpty("name"),
    gpuIds: priorityList("gpuIds", GPU_IDS, "ADA_24,AMPERE_24", false, validateGpuIds),
    // Required over GraphQL, refused over REST (see the refinement below).
    templateId: nonEmpty("templateId").optional(),
    type: oneOf("type", ENDPOINT_TYPES),
    idleTimeout: nonNegativeInt("idleTimeout", "seconds").optional(),
    // "" and null both mean any region.
    locations: priorityList("locations", LOCATIONS, "US,RO", true, validateLocations).nullable().optional(),
    flashBootType: oneOf("flashBootType", FLASH_BOOT_TYPES).optional(),
    scalerType: oneOf("scalerType", SCALER_TYPES).optional(),
    // GraphQL takes an integer of at least 1 (REST down to 0.5; one value here for both).
    scalerValue: positiveInt("scalerValue", "the scaler's target").optional(),
    workersMin: nonNegativeInt("workersMin", "workers").optional(),
    workersMax: nonNegativeInt("workersMax", "workers").optional(),
    networkVolumeId: z
      .string({ error: "networkVolumeId must be a network volume id, or null for none" })
      .min(1, { error: "networkVolumeId must be a network volume id, or null for none" })
      .nullable()
      .optional(),
    api: oneOf("api", API_KINDS).optional(),
    container: containerSchema.optional(),
    dataCenterIds: z.array(nonEmpty("dataCenterIds[]")).optional(),
    gpuCount: positiveInt("gpuCount", "GPUs per worker").optional(),
    executionTimeoutMs: nonNegativeInt("executionTimeoutMs", "ms a job may run; 0 for no limit").optional(),
    waitForWorkers: z.boolean({ error: "waitForWorkers must be true or false" }),
    readyTimeoutSeconds: timeoutSeconds("readyTimeoutSeconds"),
    drainTimeoutSeconds: timeoutSeconds("drainTimeoutSeconds"),
    waitForRollout: z.boolean({ error: "waitForRollout must be true or false" }),
    rolloutTimeoutSeconds: timeoutSeconds("rolloutTimeoutSeconds"),
    adopt: adoptId("endpoint"),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `ServerlessEndpoint has no property ${(iss.keys ?? []).join(", ")}; remove it (see ServerlessEndpointArgs)`
          : undefined,
    },
  )
  .superRefine((v, ctx) => {
    if (typeof v.workersMin === "number" && typeof v.workersMax === "number" && v.workersMin > v.workersMax) {
      ctx.addIssue({
        code: "custom",
        path: ["workersMin"],
        message: `workersMin (${v.workersMin}) must not exceed workersMax (${v.workersMax})`,
      });
    }
  });

/**
 * The hidden input the class sets when `templateId` is a Template's own `id` output:
 * `{ resourceName, serverless }` of that Template (serverless may be unknown at preview).
 */
export const TEMPLATE_CHECK_KEY = "__template";

/**
 * The hidden input (and output) the class sets when `templateId` is a Template's own `id`
 * output: what that Template's workers run (inputs/template-ref.ts `TemplateRolls`). Not
 * `__`-prefixed, so that Pulumi's display shows its change on the endpoint
 * (`~ template: { ~ image: ... }`): the change that rolls its workers.
 */
export const TEMPLATE_ROLLS_KEY = "template";

/**
 * A template known (at preview already) not to be serverless: the platform would refuse the
 * endpoint, so check() does first, naming the template.
 */
export function templateFailure(ref: unknown): pulumi.dynamic.CheckFailure | undefined {
  if (ref === null || typeof ref !== "object") return undefined;
  const { resourceName, serverless } = ref as { resourceName?: unknown; serverless?: unknown };
  if (serverless !== false) return undefined;
  return {
    property: "templateId",
    reason:
      `templateId is the id of Template ${JSON.stringify(resourceName)}, which is not serverless (serverless: false): ` +
      "an endpoint's workers run a serverless template; set serverless: true on that Template, or give another one",
  };
}

/** @group Providers and checks */
export type EndpointInputs = z.infer<typeof endpointInputsSchema> & {
  [LOGICAL_NAME_KEY]?: string;
  /** The owner token `check()` settled on (see lifecycle/owner.ts); never part of a diff. */
  [OWNER_TOKEN_KEY]?: string;
};

/** The arguments a ServerlessEndpoint has: any other is refused at check (inputs/arguments.ts). */
export const ENDPOINT_ARGS: readonly string[] = Object.keys(endpointInputsSchema.shape);

/** Properties the engine or the resource class add; not the user's. */
const RESERVED_KEYS = new Set<string>(["__provider", LOGICAL_NAME_KEY, OWNER_TOKEN_KEY, DECLARED_KEY, APPLIED_NAME_KEY, TEMPLATE_CHECK_KEY, TEMPLATE_ROLLS_KEY, ...OWNER_INPUT_KEYS]);

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
    waitForRollout: news.waitForRollout ?? true,
    rolloutTimeoutSeconds: news.rolloutTimeoutSeconds ?? DEFAULT_ROLLOUT_TIMEOUT_SECONDS,
  };
  // Pulumi hands over an omitted optional input as absent, but be strict about `undefined`
  // anyway: it cannot be serialized into state.
  for (const key of Object.keys(inputs)) if (inputs[key] === undefined) delete inputs[key];
  const { own, failures } = splitUnknownArgs("ServerlessEndpoint", inputs, ENDPOINT_ARGS, RESERVED_KEYS);
  const parsed = endpointInputsSchema.safeParse(own);
  if (!parsed.success) failures.push(...checkFailures(parsed.error, own));
  const template = templateFailure(inputs[TEMPLATE_CHECK_KEY]);
  if (template) failures.push(template);
  // Outside the schema's refinement, so it is reported beside any other failure.
  for (const issue of interfaceIssues(own)) failures.push({ property: issue.path[0]!, reason: issue.message });
  // The name counts as declared only when the program gives it: one it settled on (the auto-name,
  // or the name kept after the program removed its own) is recorded as applied (plan.ts).
  inputs[DECLARED_KEY] = SAVED_FIELDS.filter((f) => (f === "name" ? givenName(news.name) : inputs[f] !== undefined));
  // REST's create has no `type`: a load-balancing endpoint is made over GraphQL, then moved (or adopted).
  if (inputs.api === "rest" && inputs.type === "LB" && olds?.type !== "LB" && inputs.adopt === undefined)
    failures.push({
      property: "type",
      reason:
        'a load-balancing endpoint (type "LB") cannot be created over REST v2 (its create has no type): create it with api: "graphql", then move it to api: "rest"',
    });
  failures.push(...removalFailures(olds, inputs));
  return failures.length > 0 ? { inputs, failures } : { inputs };
}

/** Whether the program gave a name of its own (resolveName's test): else check() settles one. */
function givenName(name: unknown): boolean {
  return name !== undefined && name !== null && name !== "";
}

/**
 * Removals the platform cannot follow: a field with no default to return to (the platform
 * keeps its value, so the program would no longer say what runs), and workersMax removed
 * (back to 0) under a declared workersMin above 0.
 */
function removalFailures(olds: Record<string, any> | undefined, inputs: Record<string, any>): pulumi.dynamic.CheckFailure[] {
  const before: unknown = olds?.[DECLARED_KEY];
  if (!Array.isArray(before)) return [];
  // Over REST, templateId and locations are not the program's to say (removing them is the move).
  const removed = SAVED_FIELDS.filter((f) => before.includes(f) && inputs[f] === undefined && !(inputs.api === "rest" && (f === "templateId" || f === "locations")));
  const failures: pulumi.dynamic.CheckFailure[] = removed
    .filter((f) => !Object.hasOwn(ENDPOINT_FIELD_DEFAULTS, f))
    .map((f) => ({
      property: f,
      reason:
        `removing ${f} changes nothing: the platform keeps its ${f} (${JSON.stringify(olds![f])}) and has no default ` +
        "to return to; declare the value you want instead",
    }));
  if (removed.includes("workersMax") && typeof inputs.workersMin === "number" && inputs.workersMin > 0) {
    failures.push({
      property: "workersMax",
      reason: `removing workersMax sets it back to 0, below workersMin (${inputs.workersMin}); declare workersMax, or remove workersMin too`,
    });
  }
  return failures;
}

export type { EndpointRequestUrls, EndpointWorkerOutput, ServerlessEndpointOutputs, WorkerPrice } from "./outputs";

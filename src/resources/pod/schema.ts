import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { MountsParams, Pod as WirePod } from "../../client";
import { splitUnknownArgs } from "../inputs/arguments";
import { checkFailures, containsUnknown, gpuChoices, isUnknown } from "../inputs/check";
import { adoptId, containerRules, nonEmpty, onlyKeys, PERSISTENT_MIN_GB, persistentMountRule } from "../inputs/container";
import { LOGICAL_NAME_KEY, OWNER_INPUT_KEYS, OWNER_TOKEN_KEY, ownerToken, resolveName, STACK_MARK_ENV } from "../lifecycle/owner";

/**
 * The Pod's inputs as `check()` settles them: the platform's pod rules, the
 * defaults filled in, and the shape the plan (plan.ts) and the provider (provider.ts) share.
 * No I/O here.
 */

/**
 * The env var the provider sets on every pod it creates: the owner token (lifecycle/owner.ts), by which
 * a create whose answer was lost (the plugin killed mid-create) is found again.
 */
export const OWNER_ENV = "COMPUTEPLATFORM_OWNER";
/** How long create and update wait for readiness, by default: 10 minutes. */
export const DEFAULT_WAIT_TIMEOUT_SECONDS = 600;
/** Upper bound of `waitTimeoutSeconds`: a day. */
export const MAX_WAIT_TIMEOUT_SECONDS = 86_400;
export { PERSISTENT_MIN_GB };

/** @group Resource arguments */
export type Cloud = "SECURE" | "COMMUNITY";
/** @group Resource arguments */
export type DesiredStatus = "RUNNING" | "EXITED";
/**
 * `RUNNING`: status RUNNING. `PORTS`: RUNNING and every port in `ports` published.
 *
 * @group Resource arguments
 */
export type WaitFor = "RUNNING" | "PORTS";

/** Mounts as declared: the create request's shape. */
export type PodMountsInput = MountsParams;

/**
 * The inputs after `check()`: the fields of {@link podArgsSchema} as it parses them, and the
 * hidden inputs the resource class and check add. During preview any value may still be the
 * engine's unknown marker; `create` and `update` only ever see known values.
 *
 * @group Providers and checks
 */
export type PodInputs = z.infer<typeof podArgsSchema> & {
  [LOGICAL_NAME_KEY]?: string;
  /** The owner token `check()` settled on (see lifecycle/owner.ts); never part of a diff. */
  [OWNER_TOKEN_KEY]?: string;
};

/** The platform's Pod object, as the client returns it. */
export type LivePod = WirePod;

/**
 * The rules of one Pod's inputs, field by field, once defaults are filled in. Rules that
 * tie fields together (exactly one of gpu/cpu; persistent or globalNetworking on a CPU pod;
 * both mount kinds) are in `crossFieldFailures`, so a value unknown at preview can hold
 * them back.
 *
 * @group Providers and checks
 */
export const podArgsSchema = z.strictObject(
  {
    name: nonEmpty("name"),
    image: containerRules.image,
    args: containerRules.args.optional(),
    disk: containerRules.disk.optional(),
    ports: containerRules.ports.optional(),
    env: containerRules.env
      // The platform sets it to the pod's id on every pod: declared, it would show a diff forever.
      .refine((env) => !Object.hasOwn(env, "COMPUTEPLATFORM_POD_ID"), {
        path: ["COMPUTEPLATFORM_POD_ID"],
        message: "env.COMPUTEPLATFORM_POD_ID is set by the platform to the pod's id; remove it from env",
      })
      // The provider's own: a pod whose owner token the program could set could be mistaken for another's.
      .refine((env) => !Object.hasOwn(env, OWNER_ENV), {
        path: [OWNER_ENV],
        message: `env.${OWNER_ENV} is set by this provider to find a pod again after an interrupted create; remove it from env`,
      })
      // A pod that said it was another stack's would be counted in that stack's budget.
      .refine((env) => !Object.hasOwn(env, STACK_MARK_ENV), {
        path: [STACK_MARK_ENV],
        message: `env.${STACK_MARK_ENV} is set by this provider to say which stack a pod is (budgets count by it); remove it from env`,
      })
      .optional(),
    registry: containerRules.registry.optional(),
    /** `id`: one GPU type, or GPU types in order of preference (the create falls back on "no capacity"). */
    gpu: z
      .strictObject(
        {
          id: z.union(
            [
              nonEmpty("gpu.id"),
              z
                .array(nonEmpty("each gpu.id"), { error: "gpu.id must be a GPU type ID or a list of them" })
                .min(1, "gpu.id must not be []: name at least one GPU type")
                .refine((ids) => new Set(ids).size === ids.length, "gpu.id must not name a GPU type twice"),
            ],
            { error: "gpu.id must be a GPU type ID or a list of them in order of preference" },
          ),
          count: z
            .number({ error: "gpu.count must be a number" })
            .int("gpu.count must be a whole number")
            .min(1, "gpu.count must be at least 1"),
        },
        { error: onlyKeys("gpu", "id and count") },
      )
      .optional(),
    cpu: z
      .strictObject(
        {
          id: nonEmpty("cpu.id"),
          vcpuCount: z
            .number({
              error: (iss) =>
                iss.input === undefined ? "cpu.vcpuCount is required" : "cpu.vcpuCount must be a number",
            })
            .int("cpu.vcpuCount must be a whole number")
            .min(2, "cpu.vcpuCount must be at least 2")
            // Exact at any size: a 32-bit bit test (n & (n - 1)) passes 2^32 + 2.
            .refine((n) => Number.isSafeInteger(n) && 2 ** Math.round(Math.log2(n)) === n, "cpu.vcpuCount must be a power of two (2, 4, 8, 16, ...)"),
        },
        { error: onlyKeys("cpu", "id and vcpuCount (memory follows from the flavor)") },
      )
      .optional(),
    mounts: z
      .strictObject(
        {
          persistent: persistentMountRule.optional(),
          network: z
            .array(
              z.strictObject(
                {
                  volumeId: nonEmpty("mounts.network[].volumeId"),
                  path: nonEmpty("mounts.network[].path (it has no default)"),
                },
                { error: onlyKeys("a network mount", "volumeId and path") },
              ),
              { error: "mounts.network must be a list" },
            )
            .min(1, "mounts.network must not be []: leave network out for no mount (a network mount cannot be cleared)")
            .max(1, "mounts.network holds at most one entry")
            .optional(),
        },
        { error: onlyKeys("mounts", "persistent or network") },
      )
      .optional(),
    cloud: z.enum(["SECURE", "COMMUNITY"], { error: "cloud must be SECURE or COMMUNITY" }),
    dataCenterIds: z.array(nonEmpty("each data center ID"), { error: "dataCenterIds must be a list" }).optional(),
    globalNetworking: z.boolean({ error: "globalNetworking must be true or false" }),
    locked: z.boolean({ error: "locked must be true or false" }),
    desiredStatus: z.enum(["RUNNING", "EXITED"], { error: "desiredStatus must be RUNNING or EXITED" }),
    waitFor: z.enum(["RUNNING", "PORTS"], { error: "waitFor must be RUNNING or PORTS" }),
    waitTimeoutSeconds: z
      .number({ error: "waitTimeoutSeconds must be a number of seconds" })
      .int("waitTimeoutSeconds must be a whole number of seconds")
      .min(1, "waitTimeoutSeconds must be at least 1")
      .max(MAX_WAIT_TIMEOUT_SECONDS, `waitTimeoutSeconds must be at most ${MAX_WAIT_TIMEOUT_SECONDS} (a day)`),
    /** ID of an existing pod to take under management instead of creating one. */
    adopt: adoptId("pod"),
    /** The most a fallback choice may cost, in USD per hour; a GPU type above it is not tried. */
    maxHourlyCost: z
      .number({ error: "maxHourlyCost must be a number of USD per hour" })
      .positive("maxHourlyCost must be more than 0 (USD per hour)")
      .optional(),
  },
  { error: onlyKeys("Pod", "the properties of PodArgs") },
);

/** The arguments a Pod has: any other is refused at check (inputs/arguments.ts). */
export const POD_ARGS: readonly string[] = Object.keys(podArgsSchema.shape);

/** Properties the engine or the resource class add; not the user's. */
const RESERVED_KEYS = new Set<string>(["__provider", LOGICAL_NAME_KEY, OWNER_TOKEN_KEY, ...OWNER_INPUT_KEYS]);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

const absent = (v: unknown) => v === undefined || v === null;

/**
 * Fill in the defaults and drop what means "not set", so that writing a default explicitly
 * and leaving it out check to the same inputs. Unknown values are kept as they are.
 */
export function normalizePodInputs(
  olds: Record<string, unknown> | undefined,
  news: Record<string, unknown>,
  predecessorOf: (base: string) => string | undefined = () => undefined,
): Record<string, unknown> {
  const logicalName = typeof news[LOGICAL_NAME_KEY] === "string" ? (news[LOGICAL_NAME_KEY] as string) : "pod";
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(news)) {
    // undefined breaks Struct marshalling; null means "not set" for all but registry.
    if (v === undefined || (v === null && k !== "registry")) continue;
    out[k] = v;
  }
  const token = ownerToken("Pod", olds, news, predecessorOf);
  if (token !== undefined) out[OWNER_TOKEN_KEY] = token;
  out.name = resolveName(news.name, olds, logicalName, token);
  out.cloud ??= "SECURE";
  out.globalNetworking ??= false;
  out.locked ??= false;
  out.desiredStatus ??= "RUNNING";
  out.waitFor ??= "RUNNING";
  out.waitTimeoutSeconds ??= DEFAULT_WAIT_TIMEOUT_SECONDS;
  if (isObject(out.gpu)) {
    const gpu = { ...out.gpu };
    if (absent(gpu.count)) gpu.count = 1;
    out.gpu = gpu;
  }
  if (isObject(out.mounts)) {
    const mounts = Object.fromEntries(Object.entries(out.mounts).filter(([, v]) => !absent(v)));
    if (Object.keys(mounts).length === 0) delete out.mounts;
    else out.mounts = mounts;
  }
  // "Omitted or empty lets the scheduler choose": the same thing, one spelling.
  if (Array.isArray(out.dataCenterIds) && out.dataCenterIds.length === 0) delete out.dataCenterIds;
  // No keys declared, whichever way it is written.
  if (isObject(out.env) && Object.keys(out.env).length === 0) delete out.env;
  return out;
}

/**
 * The manufacturer a GPU id names when it is not NVIDIA. check() reads no catalog (it sends
 * no request), so it goes by the documented rule that a catalog GPU id starts with its
 * manufacturer's name ("AMD Instinct MI300X", "NVIDIA GeForce RTX 4090"); an id naming no
 * known other manufacturer passes, and the platform decides at up.
 */
export function otherManufacturer(gpuId: string): string | undefined {
  return /^(AMD|Intel)\b/i.exec(gpuId)?.[1]?.toUpperCase().replace("INTEL", "Intel");
}

/** The rules that tie fields together, held back while a value they need is unknown. */
export function crossFieldFailures(inputs: Record<string, unknown>): pulumi.dynamic.CheckFailure[] {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  const { gpu, cpu, mounts, globalNetworking } = inputs;
  const known = (v: unknown) => !containsUnknown(v);
  if (known(gpu) && known(cpu)) {
    if (gpu === undefined && cpu === undefined) {
      failures.push({ property: "gpu", reason: "set exactly one of gpu or cpu: neither is set" });
    } else if (gpu !== undefined && cpu !== undefined) {
      failures.push({ property: "cpu", reason: "set exactly one of gpu or cpu, not both" });
    }
  }
  const m = isObject(mounts) ? mounts : undefined;
  if (m && !absent(m.persistent) && !absent(m.network)) {
    failures.push({
      property: "mounts",
      reason: "set at most one of mounts.persistent or mounts.network, not both",
    });
  }
  if (m && !absent(m.persistent) && cpu !== undefined && !isUnknown(cpu)) {
    failures.push({
      property: "mounts.persistent",
      reason: "a persistent mount is invalid on a CPU pod: CPU pods take a network volume (mounts.network)",
    });
  }
  if (globalNetworking === true && cpu !== undefined && !isUnknown(cpu)) {
    failures.push({
      property: "globalNetworking",
      reason: "globalNetworking requires an NVIDIA GPU pod; it is not available with cpu",
    });
  }
  const ids = isObject(gpu) ? gpuChoices(gpu.id).filter((id): id is string => typeof id === "string") : [];
  for (const id of globalNetworking === true ? ids : []) {
    const maker = otherManufacturer(id);
    if (!maker) continue;
    failures.push({
      property: "globalNetworking",
      reason: `globalNetworking requires an NVIDIA GPU; ${id} is made by ${maker}. Pick an NVIDIA gpu.id or set globalNetworking: false`,
    });
  }
  return failures;
}

/**
 * `check()` as a pure function of (old inputs, new inputs): every rule the platform
 * applies to a pod (fields, mounts, create, limits) as a failure naming the property and the rule; values unknown at preview pass and
 * are checked when known.
 *
 * @group Providers and checks
 */
export function checkPod(
  olds: Record<string, unknown> | undefined,
  news: Record<string, unknown>,
  predecessorOf?: (base: string) => string | undefined,
): pulumi.dynamic.CheckResult<PodInputs> {
  const inputs = normalizePodInputs(olds, news, predecessorOf);
  const { own, failures } = splitUnknownArgs("Pod", inputs, POD_ARGS, RESERVED_KEYS);
  const parsed = podArgsSchema.safeParse(own);
  if (!parsed.success) failures.push(...checkFailures(parsed.error, own));
  failures.push(...crossFieldFailures(own));
  return { inputs: inputs as unknown as PodInputs, failures };
}

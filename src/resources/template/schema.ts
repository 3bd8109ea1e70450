// Template's check: the rules of the contract's CreateTemplateRequest (and ContainerConfig),
// strict about unknown properties, the defaults filled in. No I/O.
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { checkFailures } from "../inputs/check";
import { splitUnknownArgs } from "../inputs/arguments";
import { adoptId, containerRules, nonEmpty, onlyKeys, persistentMountRule } from "../inputs/container";
import { LOGICAL_NAME_KEY, OWNER_INPUT_KEYS, resolveName } from "../lifecycle/owner";
import { DEFAULT_DELETE_WAIT_SECONDS, MAX_DELETE_WAIT_SECONDS } from "../lifecycle/in-use";

export { DEFAULT_DELETE_WAIT_SECONDS, MAX_DELETE_WAIT_SECONDS };

/** The kind in owner tokens (lifecycle/owner.ts). */
export const TEMPLATE_KIND = "Template";

export const TEMPLATE_CATEGORIES = ["CPU", "NVIDIA", "AMD"] as const;
/** @group Resource arguments */
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];

/** The platform's defaults of CreateTemplateRequest that check() writes in (so leaving one out and writing it give the same inputs). */
export const TEMPLATE_DEFAULTS = {
  args: "",
  ports: [] as string[],
  env: {} as Record<string, string>,
  registry: null as string | null,
  serverless: false,
  public: false,
  category: "NVIDIA" as TemplateCategory,
};

/** @group Resource arguments */
export interface TemplateMountsInput {
  persistent?: { size: number; path: string };
}

/**
 * The checked inputs: what `check()` returns and `create`/`update`/`diff` receive.
 *
 * @group Providers and checks
 */
export interface TemplateInputs {
  name: string;
  image: string;
  args: string;
  /** Absent: the platform chooses, and keeps what it has when the program drops it. */
  disk?: number;
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
  mounts?: TemplateMountsInput;
  serverless: boolean;
  public: boolean;
  category: TemplateCategory;
  deleteWaitSeconds: number;
  adopt?: string;
  [LOGICAL_NAME_KEY]?: string;
}

/**
 * What a Template holds in state. `id` is the resource ID (`template.id`).
 *
 * @group Resource outputs
 */
export interface TemplateOutputs {
  /** The platform's template ID; pass it to a ServerlessEndpoint's `templateId`. */
  id: string;
  name: string;
  image: string;
  args: string;
  disk: number;
  /** `{}` when the template has no persistent mount. */
  mounts: TemplateMountsInput;
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
  serverless: boolean;
  public: boolean;
  category: TemplateCategory;
  /** @default 120 */
  deleteWaitSeconds: number;
}

const bool = (field: string) => z.boolean({ error: `${field} must be true or false` });
const waitRule = `deleteWaitSeconds must be a whole number of seconds from 0 to ${MAX_DELETE_WAIT_SECONDS}`;

/**
 * The rules of {@link TemplateArgs} once every input is known, the defaults filled and `name` settled.
 *
 * @group Providers and checks
 */
export const templateArgsSchema = z.strictObject(
  {
    name: nonEmpty("name"),
    image: containerRules.image,
    args: containerRules.args,
    disk: containerRules.disk.optional(),
    ports: containerRules.ports,
    env: containerRules.env,
    registry: containerRules.registry,
    mounts: z
      .strictObject(
        { persistent: persistentMountRule.optional() },
        { error: onlyKeys("mounts", "persistent (templates take no network mount)") },
      )
      .optional(),
    serverless: bool("serverless"),
    public: bool("public"),
    category: z.enum(TEMPLATE_CATEGORIES, {
      error: (iss) => `category must be one of ${TEMPLATE_CATEGORIES.join(", ")} (got ${JSON.stringify(iss.input)})`,
    }),
    deleteWaitSeconds: z.number({ error: waitRule }).int(waitRule).min(0, waitRule).max(MAX_DELETE_WAIT_SECONDS, waitRule),
    adopt: adoptId("template"),
  },
  { error: onlyKeys("Template", "the properties of TemplateArgs") },
);

/** The user's properties: every key of the schema. */
export const TEMPLATE_PROPERTIES = Object.keys(templateArgsSchema.shape) as (keyof TemplateInputs)[];

/** Properties the engine or the resource class add to the inputs; not the user's. */
const RESERVED_KEYS = new Set<string>(["__provider", LOGICAL_NAME_KEY, ...OWNER_INPUT_KEYS]);

const absent = (v: unknown) => v === undefined || v === null;

/**
 * `check()` as a pure function of (old inputs, new inputs): unknown properties refused by
 * name with the nearest known one (inputs/arguments.ts), the defaults filled in, then every rule of CreateTemplateRequest, so preview fails
 * before any request is sent. `olds` keep a generated name across updates.
 *
 * @group Providers and checks
 */
export function checkTemplate(olds: Record<string, unknown> | undefined, news: Record<string, unknown>): pulumi.dynamic.CheckResult<TemplateInputs> {
  const logicalName = typeof news[LOGICAL_NAME_KEY] === "string" ? (news[LOGICAL_NAME_KEY] as string) : "template";
  const inputs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(news)) if (!absent(v)) inputs[k] = v;
  inputs.name = resolveName(news.name, olds, logicalName);
  for (const [k, v] of Object.entries(TEMPLATE_DEFAULTS)) if (absent(inputs[k])) inputs[k] = v;
  inputs.deleteWaitSeconds ??= DEFAULT_DELETE_WAIT_SECONDS;
  // `mounts: {}` and `mounts: { persistent: undefined }` both mean no mount: one spelling.
  const mounts = inputs.mounts;
  if (mounts !== null && typeof mounts === "object") {
    const kept = Object.fromEntries(Object.entries(mounts).filter(([, v]) => !absent(v)));
    if (Object.keys(kept).length === 0) delete inputs.mounts;
    else inputs.mounts = kept;
  }

  const { own, failures } = splitUnknownArgs("Template", inputs, TEMPLATE_PROPERTIES, RESERVED_KEYS);
  const parsed = templateArgsSchema.safeParse(own);
  if (!parsed.success) failures.push(...checkFailures(parsed.error, own));
  return { inputs: inputs as unknown as TemplateInputs, failures };
}

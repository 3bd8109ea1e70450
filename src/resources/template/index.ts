/*
 * Template: the Pulumi class and its arguments. The lifecycle and its API calls are in
 * provider.ts; the check in schema.ts; the verdict and the wire mapping in plan.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { withSecretOutputs } from "../engine/secret-outputs";
import type { AccountInput } from "../engine/account";
import { accountInput } from "../engine/account-input";
import { checkGetState } from "../inputs/arguments";
import { shimProvider } from "../engine/shim";
import { noteTemplate, rollsOfArgs } from "../inputs/template-ref";
import { LOGICAL_NAME_KEY, ownerInputs } from "../lifecycle/owner";
import { PLATFORM_FIELDS } from "./plan";
import type { TemplateCategory, TemplateMountsInput } from "./schema";

export { planTemplateChange, type TemplatePlan } from "./plan";
export { TemplateProvider, type TemplateProviderOptions } from "./provider";
export { checkTemplate, TEMPLATE_CATEGORIES, TEMPLATE_DEFAULTS, templateArgsSchema, type TemplateCategory, type TemplateInputs, type TemplateOutputs } from "./schema";

/**
 * Arguments of a {@link Template}: the contract's CreateTemplateRequest, plus how long delete waits.
 *
 * @group Resource arguments
 */
export interface TemplateArgs {
  /**
   * The account this resource lives on, `{ name, apiKey, apiUrl?, serverlessUrl? }` (the key is
   * made secret), as pulumi-command's `connection` names a command's host. A new `name` or
   * address replaces the resource: it is made on the new account, then deleted from the old with
   * the old key. A new `apiKey` under the same `name` (a rotated key) is recorded in place.
   * @default the stack's account: stack config `computeplatform:apiKey` and `apiUrl`, else the environment
   */
  account?: pulumi.Input<AccountInput>;
  /**
   * The template's name on the platform. Changes in place.
   * @default the resource's logical name plus a random 7-character suffix (e.g. `worker-1a2b3c4`), kept across updates
   */
  name?: pulumi.Input<string>;
  /** Container image reference, e.g. `runpod/worker-comfyui:5.1.0`. Changes in place. */
  image: pulumi.Input<string>;
  /**
   * Whether the template is for serverless workers (`true`: what a `ServerlessEndpoint`'s
   * `templateId` must name) or for pods (`false`). Changes in place; the platform refuses to
   * make a template that an endpoint runs stop being serverless.
   * @default false
   */
  serverless?: pulumi.Input<boolean>;
  /**
   * Arguments passed to the container entrypoint. Changes in place; leaving it out sets `""`.
   * @default ""
   */
  args?: pulumi.Input<string>;
  /**
   * Container disk in GB, an integer >= 1 (ephemeral, wiped on restart). Changes in place.
   * Left out, the platform chooses (20 GB on the emulator); dropping it later keeps the size
   * the template has (no diff), since the platform has no way to unset it.
   * @default the platform's choice
   */
  disk?: pulumi.Input<number>;
  /**
   * Exposed ports, each `<port>/<protocol>` (e.g. `8888/http`, `22/tcp`). Changes in place;
   * leaving it out sets `[]`.
   * @default []
   */
  ports?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Environment variables of the container. Changes in place; leaving it out sets `{}`.
   * Wrap a value in `pulumi.secret()` to keep it out of plain-text state.
   * @default {}
   */
  env?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * ID of a container registry credential for a private image; `null` for none. Changes in
   * place; leaving it out sets `null`.
   * @default null
   */
  registry?: pulumi.Input<string | null>;
  /**
   * Storage: at most one persistent mount (`size` >= 10 GB, `path`); templates take no
   * network mount. Adding one or changing its size or path changes in place; removing it
   * replaces the template (a new one without the mount, then the old one deleted), because
   * the platform's PATCH keeps a mount it is not given.
   * @default no mount
   */
  mounts?: pulumi.Input<{ persistent?: pulumi.Input<{ size: pulumi.Input<number>; path: pulumi.Input<string> }> }>;
  /**
   * Whether other users of the platform can see the template. Changes in place.
   * @default false
   */
  public?: pulumi.Input<boolean>;
  /**
   * `CPU`, `NVIDIA` or `AMD`: how the console groups the template (no effect on hardware,
   * scheduling or billing). Changes in place.
   * @default "NVIDIA"
   */
  category?: pulumi.Input<TemplateCategory>;
  /**
   * How long delete waits, in seconds (0..3600), for the endpoints and pods that use the
   * template to be gone, before it fails naming them. Pulumi deletes this stack's endpoints
   * first; the wait covers ones made outside the stack and ones still shutting down.
   * Changes in place (no request).
   * @default 120
   */
  deleteWaitSeconds?: pulumi.Input<number>;
  /**
   * ID of an existing template to take under management instead of creating one (the way
   * in, since `pulumi import` does not work for dynamic resources: pulumi/pulumi#16175). The
   * first `up` keeps its id (endpoints and pods that name it keep running it) and PATCHes only
   * what differs; a persistent mount it has must be declared (PATCH cannot drop one), which
   * the preview checks. From then on the stack owns it: `pulumi destroy` deletes it. Read
   * at creation only: a later change or removal shows no diff and sends nothing (it neither
   * replaces nor updates the template).
   * @default undefined (create a new template)
   */
  adopt?: pulumi.Input<string>;
}

/**
 * A pod or serverless template: a saved container configuration (image, args, disk, ports,
 * env, registry, mount). Give a serverless one's `id` to a `ServerlessEndpoint`'s
 * `templateId`; the endpoint then depends on the template and is deleted before it.
 *
 * @group Resources
 */
export class Template extends pulumi.dynamic.Resource {
  declare public readonly name: pulumi.Output<string>;
  declare public readonly image: pulumi.Output<string>;
  declare public readonly args: pulumi.Output<string>;
  /** Container disk in GB. */
  declare public readonly disk: pulumi.Output<number>;
  /** `{}` or `{ persistent: { size, path } }`. */
  declare public readonly mounts: pulumi.Output<TemplateMountsInput>;
  declare public readonly ports: pulumi.Output<string[]>;
  declare public readonly env: pulumi.Output<Record<string, string>>;
  declare public readonly registry: pulumi.Output<string | null>;
  /** Whether the template is for serverless workers. */
  declare public readonly serverless: pulumi.Output<boolean>;
  declare public readonly public: pulumi.Output<boolean>;
  declare public readonly category: pulumi.Output<TemplateCategory>;
  /** Seconds delete waits for the template's users. @default 120 */
  declare public readonly deleteWaitSeconds: pulumi.Output<number>;

  constructor(name: string, args: TemplateArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      shimProvider("template"),
      name,
      {
        // Every output must be named here (undefined when left out) to appear on the class.
        ...Object.fromEntries([...PLATFORM_FIELDS, "deleteWaitSeconds"].map((k) => [k, undefined])),
        ...args,
        account: accountInput(args.account),
        [LOGICAL_NAME_KEY]: name,
        ...(opts?.id === undefined
          ? ownerInputs(opts?.parent, { organization: pulumi.getOrganization, project: pulumi.getProject, stack: pulumi.getStack })
          : {}),
      },
      // `env` holds credentials as often as not, and a template read by `.get`, `adopt` or refresh
      // has it from the platform, where no secret input marks it.
      withSecretOutputs(opts, ["env", "account"]),
      "computeplatform",
      "Template",
    );
    // What the workers of endpoints bound to it run: an endpoint's preview shows its change as a rollout.
    noteTemplate(this.id, { resourceName: name, serverless: this.serverless, ...(opts?.id === undefined ? { rolls: rollsOfArgs(args) } : {}) });
  }

  /**
   * An existing template, read by its ID and not managed: the stack never changes or deletes it.
   * Its outputs (e.g. `serverless`, `image`) are what the platform holds; a `refresh` reads it again.
   * @param state.account the account it is read from (see {@link TemplateArgs.account}); the stack's when left out
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, state?: { account?: pulumi.Input<AccountInput> }, opts?: pulumi.CustomResourceOptions): Template {
    checkGetState("Template", state, ["account"]);
    return new Template(name, ({ account: state?.account } as TemplateArgs), { ...opts, id });
  }
}

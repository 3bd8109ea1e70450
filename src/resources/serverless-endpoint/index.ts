/*
 * ServerlessEndpoint: the Pulumi class and its arguments. The lifecycle and its GraphQL calls
 * are in provider.ts; the check in schema.ts; the verdict and the wire mapping in plan.ts; the
 * runsync smoke test in smoke.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { joinLedger, ledgerIdentity, stackAccountsInput } from "../cost/ledger";
import { checkGetState, undeclaredArgs } from "../inputs/arguments";
import { withSecretOutputs } from "../engine/secret-outputs";
import type { AccountInput } from "../engine/account";
import { accountInput, accountName } from "../engine/account-input";
import { shimProvider } from "../engine/shim";
import { LOGICAL_NAME_KEY, ownerInputs } from "../lifecycle/owner";
import { templateBehind } from "../inputs/template-ref";
import { noteWorkersRun } from "./workers-run";
import { LOCAL_FIELDS, SAVED_FIELDS } from "./plan";
import type { EndpointRolloutOutput } from "./outputs";
import { ENDPOINT_ARGS, type EndpointRequestUrls, type EndpointType, type EndpointWorkerOutput, type FlashBootType, type GpuId, type ScalerType, TEMPLATE_CHECK_KEY, TEMPLATE_ROLLS_KEY, ENDPOINT_KIND } from "./schema";

export { EndpointNotReadyError, ServerlessEndpointProvider, type ServerlessEndpointProviderOptions } from "./provider";
export type { EndpointRolloutOutput } from "./outputs";
export {
  type EndpointRequestUrls,
  type EndpointWorkerOutput,
  ENDPOINT_TYPES,
  endpointInputsSchema as serverlessEndpointSchema,
  FLASH_BOOT_TYPES,
  GPU_IDS,
  LOCATIONS,
  SCALER_TYPES,
  type ServerlessEndpointOutputs,
} from "./schema";
export { type ImageModelInput, type RunSyncSmokeTestArgs, type RunSyncSmokeTestResult, runSyncSmokeTest } from "./smoke";

/**
 * Arguments of a {@link ServerlessEndpoint}: the platform's endpoint fields that `saveEndpoint` takes.
 *
 * @group Resource arguments
 */
export interface ServerlessEndpointArgs {
  /**
   * The account this resource lives on, `{ name, apiKey, apiUrl?, serverlessUrl? }` (the key is
   * made secret), as pulumi-command's `connection` names a command's host. A new `name` or
   * address replaces the resource: it is made on the new account, then deleted from the old with
   * the old key. A new `apiKey` under the same `name` (a rotated key) is recorded in place.
   * @default the stack's account: stack config `computeplatform:apiKey` and `apiUrl`, else the environment
   */
  account?: pulumi.Input<AccountInput>;
  /**
   * The endpoint's name on the platform, any non-empty string. Changing it renames the
   * endpoint in place. Leave it out to be covered after an interrupted deployment: an endpoint
   * has nowhere else to carry its owner token, and a name you give may be another stack's too,
   * so an endpoint made by a create whose plugin was killed is then not found again (README, limits).
   * @default the resource's logical name plus 7 hex characters of its owner token (e.g.
   * `api-1a2b3c4`), the same for a retried create, apart across stacks
   */
  name?: pulumi.Input<string>;
  /**
   * GPU tier of the workers: `AMPERE_16` (16 GB), `AMPERE_24` (24 GB), `ADA_24` (24 GB Ada),
   * `AMPERE_48` (48 GB), `ADA_48_PRO` (48 GB Ada Pro), `AMPERE_80` (80 GB) or `ADA_80_PRO`
   * (80 GB Ada Pro), or several distinct ones as a comma-separated priority list with no spaces
   * (`"ADA_24,AMPERE_24"`: workers go to the first tier with capacity). Changes in place.
   */
  gpuIds: pulumi.Input<GpuId | (string & {})>;
  /**
   * ID of the Serverless template the workers run, e.g. a serverless `Template`'s `id`.
   * Changes in place. Given a `Template`'s `id` output itself, a template whose `serverless`
   * is known to be false is refused at preview, naming it. Required with `api: "graphql"`;
   * refused with `api: "rest"`, which takes `container` instead.
   * @default none: required with `api: "graphql"` (the default), refused with `api: "rest"`
   */
  templateId?: pulumi.Input<string>;
  /**
   * The interface the endpoint is managed through: `graphql` (the platform's first, retiring in
   * early 2027) or `rest` (REST v2, its successor). Moving an existing endpoint from `graphql`
   * to `rest` updates it in place (same id, workers kept): give it `container` in place of
   * `templateId` in the same change (docs/serverless-endpoint.md, "Moving to REST v2").
   * Moving back to `graphql` is an update too.
   * @default "graphql"
   */
  api?: pulumi.Input<"graphql" | "rest">;
  /**
   * The workers' container, with `api: "rest"` (required there, refused over GraphQL): the
   * platform keeps it in a template bound to this endpoint alone, which a change of it updates
   * and the endpoint's delete deletes. `image` is required; a field removed once declared goes
   * back to the platform's default (`args` "", `ports` [], `env` {}, `registry` null). Changes in
   * place.
   * @default none: required with `api: "rest"`, refused with `api: "graphql"`
   */
  container?: pulumi.Input<{
    image: pulumi.Input<string>;
    args?: pulumi.Input<string>;
    disk?: pulumi.Input<number>;
    ports?: pulumi.Input<pulumi.Input<string>[]>;
    env?: pulumi.Input<Record<string, pulumi.Input<string>>>;
    registry?: pulumi.Input<string | null>;
  }>;
  /**
   * Preferred data centers of the workers, with `api: "rest"` (REST's own: over GraphQL use
   * `locations`, which REST can neither show nor change). Changes in place; removing it lets the
   * scheduler choose.
   * @default the scheduler's choice
   */
  dataCenterIds?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * `QB` (queue-based) or `LB` (load balancing). Fixed at creation: changing it replaces the
   * endpoint (a new one is made, then the old one is scaled to zero and deleted).
   * @default "QB"
   */
  type?: pulumi.Input<EndpointType>;
  /**
   * Seconds before an idle worker shuts down, an integer >= 0. Changes in place. Removing it
   * once declared is refused at preview: the platform has no default to go back to and keeps
   * its value, so declare the value you want instead.
   * @default the platform's choice (left out of the request)
   */
  idleTimeout?: pulumi.Input<number>;
  /**
   * Region restriction: `CZ`, `FR`, `GB`, `NO`, `RO` or `US`, or several distinct ones as a
   * comma-separated priority list with no spaces (`"US,RO"`); `""` or `null` means any region.
   * Changes in place; removing it once declared puts back any region.
   * @default the platform's choice (any region)
   */
  locations?: pulumi.Input<string | null>;
  /**
   * `FLASHBOOT` for faster cold starts, or `OFF`. Changes in place; removing it once declared
   * puts back `OFF`.
   * @default the platform's choice
   */
  flashBootType?: pulumi.Input<FlashBootType>;
  /**
   * Autoscaling strategy: `QUEUE_DELAY` or `REQUEST_COUNT`. Changes in place; removing it once
   * declared is refused at preview (the platform keeps its value).
   * @default the platform's choice
   */
  scalerType?: pulumi.Input<ScalerType>;
  /**
   * Target value for the scaler, an integer >= 1 (for `QUEUE_DELAY`, a delay in seconds).
   * Changes in place; removing it once declared is refused at preview (the platform keeps its
   * value).
   * @default the platform's choice
   */
  scalerValue?: pulumi.Input<number>;
  /**
   * Workers kept running at all times, an integer >= 0 and <= `workersMax`; 0 scales to zero.
   * Changes in place; removing it once declared puts back 0.
   * @default the platform's choice (0)
   */
  workersMin?: pulumi.Input<number>;
  /**
   * Most workers running at once, an integer >= `workersMin`. Changes in place; removing it
   * once declared puts back 0.
   * @default the platform's choice
   */
  workersMax?: pulumi.Input<number>;
  /**
   * ID of a network volume the workers mount; `null` for none. Changes in place; removing it
   * once declared detaches the volume.
   * @default none
   */
  networkVolumeId?: pulumi.Input<string | null>;
  /**
   * GPUs per worker, an integer >= 1: a worker costs this many times its GPU's price (the cost
   * line and the budget count it). Changes in place; removing it once declared puts back 1.
   * @default the platform's choice (1)
   */
  gpuCount?: pulumi.Input<number>;
  /**
   * How long one job may run, in ms, an integer >= 0; 0 for no limit. A job past it ends
   * TIMED_OUT. Changes in place; removing it once declared puts back 300000 (5 minutes).
   * @default the platform's choice (300000)
   */
  executionTimeoutMs?: pulumi.Input<number>;
  /**
   * Whether create and update wait until `workersMin` workers are RUNNING. With `false` they
   * return as soon as the platform has accepted the endpoint. Changes in place with no request.
   * @default true
   */
  waitForWorkers?: pulumi.Input<boolean>;
  /**
   * How long create and update wait for `workersMin` RUNNING workers, in seconds (1..86400).
   * When it runs out the endpoint is kept in state and the deployment fails; the next `up`
   * waits again. Changes in place with no request.
   * @default 600 (10 minutes)
   */
  readyTimeoutSeconds?: pulumi.Input<number>;
  /**
   * How long delete may take to scale the endpoint to zero and get the platform to accept the
   * deletion (it refuses while someone else raises the workers again), in seconds (1..86400).
   * Changes in place with no request.
   * @default 600 (10 minutes)
   */
  drainTimeoutSeconds?: pulumi.Input<number>;
  /**
   * Whether create and update wait, after a change that rolls the workers (the bound Template's
   * container, or this endpoint's `gpuIds`, `gpuCount`, `flashBootType`, `networkVolumeId`,
   * `locations`, `dataCenterIds`, `templateId`, `container`), until the rollout is over: every
   * worker runs the new release. A rollout whose new workers cannot start fails the deployment,
   * naming the release (docs/serverless-endpoint.md, "Releases and rollouts"). With `false` they
   * return once the platform has the change; `version` and `rollout` say how far it got. Changes
   * in place with no request.
   * @default true
   */
  waitForRollout?: pulumi.Input<boolean>;
  /**
   * How long create and update wait for a rollout, in seconds (1..86400). When it runs out the
   * endpoint is kept in state with its rollout in progress and the deployment fails; the next
   * `up` waits again. Changes in place with no request.
   * @default 1800 (30 minutes: about four worker starts in a row, a quarter of the workers at a time)
   */
  rolloutTimeoutSeconds?: pulumi.Input<number>;
  /**
   * ID of an existing endpoint to take under management instead of creating one (the way in,
   * since `pulumi import` does not work for dynamic resources: pulumi/pulumi#16175), made in
   * the console or over either API. The first `up` keeps its id, so its `requestUrls` and
   * every client that calls them keep working, and saves only what differs from the program,
   * through the API `api` names; its `type` must be declared as it is, which the preview
   * checks. Over REST the endpoint's container is its bound template's: a container change
   * PATCHes that template, and every endpoint bound to it: one that shares its template with
   * others is refused over REST at preview (adopt it over GraphQL). From then on the stack
   * owns it: `pulumi destroy` scales it to 0 and deletes it. Read at creation only: a later
   * change or removal shows no diff and sends nothing (it neither replaces nor updates the
   * endpoint).
   * @default undefined (create a new endpoint)
   */
  adopt?: pulumi.Input<string>;
}

/**
 * A Serverless endpoint of the Compute Platform: autoscaled workers behind one endpoint id.
 * Deleting it saves workersMin = workersMax = 0 first, as the platform requires, then deletes
 * it (workers still draining need no wait).
 *
 * @group Resources
 */
export class ServerlessEndpoint extends pulumi.dynamic.Resource {
  /** The endpoint's name on the platform. */
  declare readonly name: pulumi.Output<string>;
  /** GPU tier of the workers. */
  declare readonly gpuIds: pulumi.Output<string>;
  /** Serverless template of the workers; null for a REST-managed endpoint (REST does not show it). */
  declare readonly templateId: pulumi.Output<string | null>;
  /** `rest` when managed over REST v2; undefined over GraphQL. */
  declare readonly api: pulumi.Output<"rest" | undefined>;
  /** A REST-managed endpoint's container, as read back. */
  declare readonly container: pulumi.Output<{ image: string; args: string; disk: number; ports: string[]; env: Record<string, string>; registry: string | null } | undefined>;
  /** A REST-managed endpoint's preferred data centers. */
  declare readonly dataCenterIds: pulumi.Output<string[] | undefined>;
  /** `QB` or `LB`. */
  declare readonly type: pulumi.Output<string>;
  /** Seconds before idle workers shut down. */
  declare readonly idleTimeout: pulumi.Output<number | null>;
  /** Region restriction; null for any region. */
  declare readonly locations: pulumi.Output<string | null>;
  /** `OFF` or `FLASHBOOT`. */
  declare readonly flashBootType: pulumi.Output<string | null>;
  /** `QUEUE_DELAY` or `REQUEST_COUNT`. */
  declare readonly scalerType: pulumi.Output<string | null>;
  /** Target value of the scaler. */
  declare readonly scalerValue: pulumi.Output<number | null>;
  /** Minimum workers. */
  declare readonly workersMin: pulumi.Output<number | null>;
  /** Maximum workers. */
  declare readonly workersMax: pulumi.Output<number | null>;
  /** Mounted network volume; null for none. */
  declare readonly networkVolumeId: pulumi.Output<string | null>;
  /** GPUs per worker. */
  declare readonly gpuCount: pulumi.Output<number | null>;
  /** A job's limit in ms; 0 for none. */
  declare readonly executionTimeoutMs: pulumi.Output<number | null>;
  /** The workers when last read (create, update or refresh). */
  declare readonly pods: pulumi.Output<EndpointWorkerOutput[]>;
  /**
   * Where a client sends jobs: `run` and `runSync` of a queue-based endpoint (`runSyncSmokeTest`
   * takes its `id`); over REST `base` for a load-balancing one. Undefined over GraphQL for a
   * load-balancing endpoint.
   */
  declare readonly requestUrls: pulumi.Output<EndpointRequestUrls | undefined>;
  /** Whether create and update wait for `workersMin` RUNNING workers. */
  declare readonly waitForWorkers: pulumi.Output<boolean>;
  /** Seconds create and update wait for the workers. */
  declare readonly readyTimeoutSeconds: pulumi.Output<number>;
  /** Seconds delete may take. */
  declare readonly drainTimeoutSeconds: pulumi.Output<number>;
  /** Whether create and update wait for a rollout. */
  declare readonly waitForRollout: pulumi.Output<boolean>;
  /** Seconds create and update wait for a rollout. */
  declare readonly rolloutTimeoutSeconds: pulumi.Output<number>;
  /**
   * The endpoint's configuration version on the platform (its `endpointVersion`) as `up` last
   * read it: every change of the endpoint or of its bound template makes a new release.
   */
  declare readonly version: pulumi.Output<number | null | undefined>;
  /**
   * Its rollout as `up` last read it: `inProgress`, `workersOnLatest`, `workersTotal`,
   * `percentOnLatest`, and `serving` (the versions ready workers run) after a wait.
   */
  declare readonly rollout: pulumi.Output<EndpointRolloutOutput | undefined>;
  /**
   * USD per hour at `workersMin` and at `workersMax` workers: one worker is `gpuCount` GPUs at
   * the catalog price of the first tier of `gpuIds` (the highest price among that tier's GPU
   * types, since a worker may land on any of them). Absent when the catalog prices no GPU type of that tier.
   */
  declare readonly hourlyCost: pulumi.Output<{ min: number; max: number } | undefined>;

  /**
   * Read an existing endpoint by its ID without managing it: the stack records what the platform
   * holds, never changes it, and destroying the stack leaves it alone. `state.api` names the
   * interface it is read through, as `api` does for a managed endpoint.
   * @param state.api `graphql` (the default) or `rest`; over REST the outputs carry `container`
   *   and `dataCenterIds` and no `templateId`
   * @param state.account the account it is read from (see {@link ServerlessEndpointArgs.account})
   */
  static get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    state?: { api?: "graphql" | "rest"; account?: pulumi.Input<AccountInput> },
    opts?: pulumi.CustomResourceOptions,
  ): ServerlessEndpoint {
    checkGetState("ServerlessEndpoint", state, ["api", "account"]);
    return new ServerlessEndpoint(name, { api: state?.api, account: state?.account } as ServerlessEndpointArgs, { ...opts, id });
  }

  constructor(name: string, args: ServerlessEndpointArgs, givenOpts?: pulumi.CustomResourceOptions) {
    // A REST endpoint's `container` carries its `env`, credentials as often as not; read by `.get`,
    // `adopt` or refresh it comes from the platform, where no secret input marks it.
    const opts = withSecretOutputs(givenOpts, ["container", "account"]);
    const owner = ownerInputs(opts.parent, { organization: pulumi.getOrganization, project: pulumi.getProject, stack: pulumi.getStack });
    // In the stack's cost ledger: registered once the stack's cost has passed (cost/ledger.ts).
    // An argument it does not have keeps it out of the ledger: its check fails before the
    // stack's cost reads the catalog, so the preview sends no request.
    const joined =
      Object.keys(undeclaredArgs(args, ENDPOINT_ARGS)).length > 0
        ? opts
        : joinLedger(
            "endpoint",
            name,
            {
              gpuIds: args.gpuIds,
              gpuCount: args.gpuCount,
              workersMin: args.workersMin,
              workersMax: args.workersMax,
              declaredName: args.name,
              // A REST-managed endpoint is read over REST when the ledger prices what runs.
              api: args.api,
              account: accountName(args.account),
              ...ledgerIdentity(ENDPOINT_KIND, name, owner, opts, ["gpuIds", "gpuCount", "workersMin", "workersMax"]),
            },
            opts,
            args.account,
          );
    super(
      shimProvider("serverless-endpoint"),
      name,
      {
        // Every output must be named here (undefined when the program leaves it out) to
        // appear on the class.
        ...Object.fromEntries([...SAVED_FIELDS, ...LOCAL_FIELDS, "type", "pods", "requestUrls", "hourlyCost", "api", "container", "dataCenterIds", "version", "rollout"].map((k) => [k, undefined])),
        ...args,
        account: accountInput(args.account),
        ...templateCheckInput(args.templateId),
        [LOGICAL_NAME_KEY]: name,
        ...owner,
        ...stackAccountsInput(joined),
      },
      joined,
      "computeplatform",
      "ServerlessEndpoint",
    );
    noteWorkersRun(this, args);
  }
}

/**
 * The hidden inputs from the Template behind `templateId`: its `serverless`, for check(), and
 * what its workers run (TEMPLATE_ROLLS_KEY), whose change the diff shows on this endpoint as a
 * rollout of its workers.
 */
function templateCheckInput(templateId: unknown): Record<string, unknown> {
  const ref = templateBehind(templateId);
  if (!ref) return {};
  return { [TEMPLATE_CHECK_KEY]: { resourceName: ref.resourceName, serverless: ref.serverless }, ...(ref.rolls ? { [TEMPLATE_ROLLS_KEY]: ref.rolls } : {}) };
}

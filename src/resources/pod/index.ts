/*
 * Pod: the Pulumi class and its arguments. The lifecycle and its API calls are in provider.ts;
 * the check in schema.ts; the replace-or-update verdict and the create, update and adopt plans in plan.ts; the wire mapping in wire.ts.
 *
 * Bringing an existing pod under management: `pulumi import` does not work for dynamic
 * resources (pulumi/pulumi#16175). Declare the pod as it is with `adopt: "<pod id>"`; the
 * first `pulumi up` takes it over (PATCHing what differs) instead of creating one, and from
 * then on the resource owns it, including deletion. For read-only use, `Pod.get(name, id)`.
 */
import * as pulumi from "@pulumi/pulumi";
import { joinLedger, ledgerIdentity, stackAccountsInput } from "../cost/ledger";
import { checkGetState, undeclaredArgs } from "../inputs/arguments";
import { withSecretOutputs } from "../engine/secret-outputs";
import type { AccountInput } from "../engine/account";
import { accountInput, accountName } from "../engine/account-input";
import { shimProvider } from "../engine/shim";
import { LOGICAL_NAME_KEY, ownerInputs } from "../lifecycle/owner";
import type { PodOutputs } from "./outputs";
import { type Cloud, type DesiredStatus, POD_ARGS, type WaitFor } from "./schema";
import type { POD_CHANGE_VERDICTS } from "./plan";

export { type PodPlan, planPodChange, RECORDED_ONLY } from "./plan";
export { PodProvider, type PodProviderOptions } from "./provider";
export { type PodOutputs } from "./outputs";
export { checkPod, DEFAULT_WAIT_TIMEOUT_SECONDS, podArgsSchema, type PodInputs } from "./schema";
export { PodFailedError, PodInitError } from "./status";

/**
 * Arguments of a {@link Pod}: the platform's pod create fields plus what only this resource has.
 *
 * @group Resource arguments
 */
export interface PodArgs {
  /**
   * The account this resource lives on, `{ name, apiKey, apiUrl?, serverlessUrl? }` (the key is
   * made secret), as pulumi-command's `connection` names a command's host. A new `name` or
   * address replaces the resource: it is made on the new account, then deleted from the old with
   * the old key. A new `apiKey` under the same `name` (a rotated key) is recorded in place.
   * @default the stack's account: stack config `computeplatform:apiKey` and `apiUrl`, else the environment
   */
  account?: pulumi.Input<AccountInput>;
  /**
   * The pod's name on the platform. Changing it renames the pod in place.
   * @default the resource's logical name plus 7 hex characters of its owner token (e.g.
   * `trainer-1a2b3c4`): the same program in two stacks never collides, and a create retried after
   * an interrupted deployment picks the same name
   */
  name?: pulumi.Input<string>;
  /** Container image reference, e.g. `pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime`. Updates in place (restarts the container). */
  image: pulumi.Input<string>;
  /**
   * Arguments passed to the container entrypoint. Updates in place (restarts the container).
   * @default the platform's (no arguments)
   */
  args?: pulumi.Input<string>;
  /**
   * Container disk in GB, at least 1; ephemeral, wiped on restart. Updates in place.
   * @default the platform's (20 GB on the emulator); leaving it out later keeps the current size
   */
  disk?: pulumi.Input<number>;
  /**
   * Exposed ports, each `<port>/<protocol>`, e.g. `["8888/http", "22/tcp"]`. Updates in place;
   * order does not matter.
   * @default the platform's (none); leaving it out later keeps the current ports
   */
  ports?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Environment variables. Only the keys declared here are managed: keys the platform adds
   * (e.g. `COMPUTEPLATFORM_POD_ID`) and this provider's `COMPUTEPLATFORM_OWNER` (the owner
   * token, see the README's limits) are left alone, never show a diff, and may not be declared.
   * Removing a key removes it from the pod. Updates in place (restarts the container).
   * @default {}
   */
  env?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * ID of a container registry credential, for private images: a `RegistryCredential`'s
   * `id` (the pod then depends on it), or the ID of one made elsewhere; `null` for none.
   * A change updates the pod in place (its container restarts), so a replaced credential
   * moves its pods to the new one without replacing them.
   * @default null
   */
  registry?: pulumi.Input<string | null>;
  /**
   * A GPU pod: GPU type and count. Exactly one of `gpu` or `cpu`. A new `count`, or an `id`
   * that no longer names the GPU type the pod got, replaces the pod. Accepts no other properties.
   * @default none: give `cpu` instead for a CPU pod
   */
  gpu?: pulumi.Input<{
    /**
     * GPU type identifier (see the catalog's GPU list), or several in order of preference:
     * `["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"]`. Create asks for each in turn and
     * moves on only when the platform answers "no capacity" (in every data center
     * `dataCenterIds` allows); the GPU type the pod got is the output `gpu.id`. A later list
     * that still holds that type updates in place without a request; one without it replaces.
     */
    id: pulumi.Input<string> | pulumi.Input<pulumi.Input<string>[]>;
    /**
     * Number of GPUs, at least 1.
     * @default 1
     */
    count?: pulumi.Input<number>;
  }>;
  /**
   * A CPU pod: flavor and vCPU count. Exactly one of `gpu` or `cpu`. Changing it replaces the
   * pod. Memory follows from the flavor; it is an output (`cpu.memory`), not an input.
   * @default none: give `gpu` instead for a GPU pod
   */
  cpu?: pulumi.Input<{
    /** CPU flavor identifier (see the catalog's CPU list). */
    id: pulumi.Input<string>;
    /** vCPUs: at least 2, a power of two, and within the flavor's range. */
    vcpuCount: pulumi.Input<number>;
  }>;
  /**
   * Storage: at most one of `persistent` (host-local, GPU pods only, deprecated) or `network`
   * (one network volume). The kind of mount, a network mount's `volumeId` and a smaller
   * persistent `size` replace the pod; a `path` and a larger persistent `size` update in place
   * (the container restarts).
   * @default no mount
   */
  mounts?: pulumi.Input<{
    /** Host-local storage; data does not survive a host failure. Invalid on CPU pods. */
    persistent?: pulumi.Input<{
      /** Size in GB, at least 10. */
      size: pulumi.Input<number>;
      /** Mount path in the container. */
      path: pulumi.Input<string>;
    }>;
    /** At most one network volume, never `[]`. */
    network?: pulumi.Input<
      pulumi.Input<{
        /** ID of a network volume in the pod's data center. */
        volumeId: pulumi.Input<string>;
        /** Mount path in the container (no default). */
        path: pulumi.Input<string>;
      }>[]
    >;
  }>;
  /**
   * `SECURE` (provider-owned data centers) or `COMMUNITY` (community-hosted). Changing it replaces the pod.
   * @default "SECURE"
   */
  cloud?: pulumi.Input<Cloud>;
  /**
   * Preferred data centers; empty or left out lets the scheduler choose. The platform reads it
   * at creation only and a pod never moves: a new set that no longer allows the data center the
   * pod runs in replaces the pod; any other edit updates in place with no request (order does
   * not matter).
   * @default [] (any)
   */
  dataCenterIds?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * A global-network address reachable from your other globally networked pods. Needs an
   * NVIDIA GPU and a data center that supports it; preview refuses it with a `gpu.id` that
   * names another manufacturer (catalog ids start with it: `AMD Instinct MI300X`), the
   * platform checks the rest at `up`. Changing it updates in place and restarts
   * a running pod, since the platform applies it at the next start.
   * @default false
   */
  globalNetworking?: pulumi.Input<boolean>;
  /**
   * When true the pod cannot be stopped or restarted, so while it stays locked, preview refuses
   * a change that would restart or stop a running pod (set `locked: false` in the same change).
   * A pod this resource locked is unlocked before it is deleted. Updates in place.
   * @default false
   */
  locked?: pulumi.Input<boolean>;
  /**
   * `RUNNING`, or `EXITED` to stop the pod without deleting it (cost drops to 0; the container
   * disk is wiped); set it back to `RUNNING` to start it again. Updates in place (stops or
   * starts the pod).
   * @default "RUNNING"
   */
  desiredStatus?: pulumi.Input<DesiredStatus>;
  /**
   * What create and update wait for when the pod should run: `RUNNING` (the container is
   * healthy), or `PORTS` (RUNNING and every port in `ports` published, so it is reachable).
   * Updates in place with no request.
   * @default "RUNNING"
   */
  waitFor?: pulumi.Input<WaitFor>;
  /**
   * How long create, update and delete wait for the pod, in seconds (1 to 86400). Pulumi's
   * `customTimeouts` do not reach dynamic providers; this is the knob. A pod not ready in time
   * stays in the stack (with its ID) and the next `pulumi up` waits for it again. Updates in
   * place with no request.
   * @default 600
   */
  waitTimeoutSeconds?: pulumi.Input<number>;
  /**
   * ID of an existing pod to take under management instead of creating one (the way in,
   * since `pulumi import` does not work for dynamic resources: pulumi/pulumi#16175). Its
   * compute, cloud and mount must match the declaration; the rest is PATCHed to match.
   * Once adopted, the resource owns the pod: `pulumi destroy` terminates it. Read at creation
   * only: a later change or removal shows no diff and sends nothing (it neither replaces nor
   * updates the pod).
   * @default undefined (create a new pod)
   */
  adopt?: pulumi.Input<string>;
  /**
   * The most this pod may cost, in USD per hour at the catalog price of its compute for its
   * cloud: a GPU type of `gpu.id` whose price is above it is not tried, and a CPU pod priced
   * above it is not created (the create fails, nothing is made). Read at creation only
   * (a change updates in place without a request). For the whole stack's budget see the stack
   * config `computeplatform:maxHourlyCost`.
   * @default no limit
   */
  maxHourlyCost?: pulumi.Input<number>;
}

/** True when `A` and `B` are the same set of keys. */
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/**
 * The compiler keeps the preview's table of verdicts (plan.ts, what a change of each argument
 * takes when its value is unknown) and the arguments in line: every argument has a verdict but
 * `adopt`, which only a create reads, and `account`, which the registry's wrapper diffs for every
 * kind; and no verdict names an argument the class does not have.
 */
type PodVerdictsCoverArgs = SameKeys<keyof typeof POD_CHANGE_VERDICTS, Exclude<keyof PodArgs, "adopt" | "account">>;
// Stryker disable next-line BooleanLiteral: a check for the compiler; Babel strips the type, and nothing reads the value
true satisfies PodVerdictsCoverArgs;

/**
 * A Compute Platform pod: a dedicated GPU or CPU container. `pulumi up` returns once the pod
 * is RUNNING (or its ports are published, with `waitFor: "PORTS"`); a pod that fails to
 * start stays in the stack with its ID so the next `up` retries it.
 *
 * For read-only use of a pod made elsewhere: `Pod.get("name", podId)`. To take an existing
 * pod under management, declare it with `adopt: podId` (see {@link PodArgs.adopt}).
 *
 * @group Resources
 */
export class Pod extends pulumi.dynamic.Resource {
  /** The pod's name on the platform. */
  declare public readonly name: pulumi.Output<string>;
  /** PROVISIONING, STARTING, RUNNING, EXITED, ERROR or TERMINATED, as last read. */
  declare public readonly status: pulumi.Output<PodOutputs["status"]>;
  /** The actions valid in the current status (`start`, `stop`, `restart`, `terminate`). */
  declare public readonly actions: pulumi.Output<PodOutputs["actions"]>;
  /** Container image reference. */
  declare public readonly image: pulumi.Output<string>;
  /** Arguments passed to the container entrypoint. */
  declare public readonly args: pulumi.Output<string>;
  /** Container disk in GB. */
  declare public readonly disk: pulumi.Output<number>;
  /** The pod's mounts (`persistent` or `network`). */
  declare public readonly mounts: pulumi.Output<PodOutputs["mounts"]>;
  /** Exposed ports, `<port>/<protocol>`. */
  declare public readonly ports: pulumi.Output<string[]>;
  /** Environment variables, including those the platform adds. */
  declare public readonly env: pulumi.Output<Record<string, string>>;
  /** Registry credential ID, or null. */
  declare public readonly registry: pulumi.Output<string | null>;
  /** GPU type and count; absent on a CPU pod. */
  declare public readonly gpu: pulumi.Output<PodOutputs["gpu"]>;
  /** CPU flavor, vCPU count and memory (GB); absent on a GPU pod. */
  declare public readonly cpu: pulumi.Output<PodOutputs["cpu"]>;
  /** SECURE or COMMUNITY. */
  declare public readonly cloud: pulumi.Output<Cloud>;
  /** Data center the scheduler placed the pod in. */
  declare public readonly dataCenterId: pulumi.Output<string | null>;
  /** ID of the template the pod was created from, or null. */
  declare public readonly template: pulumi.Output<string | null>;
  /** Current cost in USD per hour, as the platform reports it; 0 when EXITED. */
  declare public readonly cost: pulumi.Output<number>;
  /**
   * What the pod costs per hour while it runs: the catalog price of its compute for its
   * cloud (GPU price times `count`, or vCPU price times `vcpuCount`), priced at creation.
   */
  declare public readonly hourlyCost: pulumi.Output<number | undefined>;
  /** Whether the pod is locked against stop and restart. */
  declare public readonly locked: pulumi.Output<boolean>;
  /** `enabled`, and when enabled the `ip` and `internalDns` of the global network. */
  declare public readonly globalNetworking: pulumi.Output<PodOutputs["globalNetworking"]>;
  /** Live utilization and published ports (`runtime.ports[].public`, `ip`); null unless RUNNING. */
  declare public readonly runtime: pulumi.Output<PodOutputs["runtime"]>;
  /** Creation timestamp. */
  declare public readonly createdAt: pulumi.Output<string>;
  /** Start timestamp; null before the first start. */
  declare public readonly startedAt: pulumi.Output<string | null>;
  /**
   * The status this resource keeps the pod in.
   * @default "RUNNING"
   */
  declare public readonly desiredStatus: pulumi.Output<DesiredStatus>;
  /**
   * What create and update wait for.
   * @default "RUNNING"
   */
  declare public readonly waitFor: pulumi.Output<WaitFor>;
  /**
   * How long waits last, in seconds.
   * @default 600
   */
  declare public readonly waitTimeoutSeconds: pulumi.Output<number>;

  /**
   * Reads an existing pod into the program without managing it: nothing is created, changed
   * or deleted. `id` is the platform's pod ID.
   * @param state.account the account it is read from (see {@link PodArgs.account}); the stack's when left out
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, state?: { account?: pulumi.Input<AccountInput> }, opts?: pulumi.CustomResourceOptions): Pod {
    checkGetState("Pod", state, ["account"]);
    return new Pod(name, state?.account === undefined ? undefined : ({ account: state.account } as PodArgs), { ...opts, id });
  }

  constructor(name: string, args: PodArgs | undefined, givenOpts?: pulumi.CustomResourceOptions) {
    const a: Partial<PodArgs> = args ?? {};
    // `env` holds credentials as often as not, and a pod read by `.get`, `adopt` or refresh has it
    // from the platform, where no secret input marks it.
    const opts = withSecretOutputs(givenOpts, ["env", "account"]);
    // An argument a Pod does not have goes on, so check() refuses it by name instead of it
    // being dropped. Such a pod stays out of the cost ledger: its check fails before the
    // stack's cost reads the catalog, so the preview sends no request.
    const undeclared = undeclaredArgs(a, POD_ARGS);
    const owner = ownerInputs(opts.parent, { organization: pulumi.getOrganization, project: pulumi.getProject, stack: pulumi.getStack });
    // In the stack's cost ledger: registered once the stack's cost has passed (cost/ledger.ts).
    const joined =
      Object.keys(undeclared).length > 0
        ? opts
        : joinLedger(
            "pod",
            name,
            {
              gpu: a.gpu,
              cpu: a.cpu,
              cloud: a.cloud,
              desiredStatus: a.desiredStatus,
              maxHourlyCost: a.maxHourlyCost,
              account: accountName(a.account),
              ...ledgerIdentity("Pod", name, owner, opts, ["gpu", "cpu", "cloud", "desiredStatus"]),
            },
            opts,
            a.account,
          );
    super(
      shimProvider("pod"),
      name,
      {
        // Output properties the engine fills in; declared so they are readable on the object.
        status: undefined,
        actions: undefined,
        dataCenterId: undefined,
        template: undefined,
        cost: undefined,
        hourlyCost: undefined,
        runtime: undefined,
        createdAt: undefined,
        startedAt: undefined,
        ...undeclared,
        name: a.name,
        image: a.image,
        args: a.args,
        disk: a.disk,
        ports: a.ports,
        env: a.env,
        registry: a.registry,
        gpu: a.gpu,
        cpu: a.cpu,
        mounts: a.mounts,
        cloud: a.cloud,
        dataCenterIds: a.dataCenterIds,
        globalNetworking: a.globalNetworking,
        locked: a.locked,
        desiredStatus: a.desiredStatus,
        waitFor: a.waitFor,
        waitTimeoutSeconds: a.waitTimeoutSeconds,
        adopt: a.adopt,
        maxHourlyCost: a.maxHourlyCost,
        account: accountInput(a.account),
        [LOGICAL_NAME_KEY]: name,
        ...owner,
        ...stackAccountsInput(joined),
      },
      joined,
      "computeplatform",
      "Pod",
    );
  }
}

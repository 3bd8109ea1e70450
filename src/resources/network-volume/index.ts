/*
 * NetworkVolume: the Pulumi class and its arguments. The lifecycle and its API calls are in
 * provider.ts; the check in schema.ts; the verdict and the wire mapping in plan.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { checkGetState, undeclaredArgs } from "../inputs/arguments";
import type { AccountInput } from "../engine/account";
import { accountInput } from "../engine/account-input";
import { withSecretOutputs } from "../engine/secret-outputs";
import { shimProvider } from "../engine/shim";
import { LOGICAL_NAME_KEY } from "../lifecycle/owner";
import { NETWORK_VOLUME_ARGS, type NetworkVolumeType } from "./schema";

export { endpointsMounting, type NetworkVolumePlan, planNetworkVolumeChange, podsMounting, type VolumeHolder } from "./plan";
export { NetworkVolumeProvider, type NetworkVolumeProviderOptions } from "./provider";
export {
  checkNetworkVolume,
  DEFAULT_DELETE_WAIT_SECONDS,
  MAX_DELETE_WAIT_SECONDS,
  NETWORK_VOLUME_MAX_GB,
  NETWORK_VOLUME_MIN_GB,
  NETWORK_VOLUME_TYPES,
  networkVolumeArgsSchema,
  type NetworkVolumeType,
  type NetworkVolumeInputs,
  type NetworkVolumeOutputs,
} from "./schema";

/**
 * Arguments of a {@link NetworkVolume}.
 *
 * @group Resource arguments
 */
export interface NetworkVolumeArgs {
  /**
   * The account this resource lives on, `{ name, apiKey, apiUrl?, serverlessUrl? }` (the key is
   * made secret), as pulumi-command's `connection` names a command's host. A new `name` or
   * address replaces the resource: it is made on the new account, then deleted from the old with
   * the old key. A new `apiKey` under the same `name` (a rotated key) is recorded in place.
   * @default the stack's account: stack config `computeplatform:apiKey` and `apiUrl`, else the environment
   */
  account?: pulumi.Input<AccountInput>;
  /**
   * The volume's name on the platform. Changing it renames the volume in place.
   * @default the resource's logical name plus a random 7-character suffix (e.g. `data-1a2b3c4`)
   */
  name?: pulumi.Input<string>;
  /**
   * Size in GB, an integer from 10 to 4096. It can grow in place; a smaller size than the
   * current one is refused at preview, because volumes only grow and a replacement would
   * lose the data on it.
   */
  size: pulumi.Input<number>;
  /**
   * ID of the data center the volume lives in (see `getDataCenters()`). A pod mounting the
   * volume runs in this data center. Changing it replaces the volume: a new, empty one is
   * made in the new data center and the old one is deleted.
   */
  dataCenter: pulumi.Input<string>;
  /**
   * Storage tier: `STANDARD` or `HIGH_PERFORMANCE` (see a data center's `networkVolumeTypes`).
   * Fixed once the volume exists: a different value replaces the volume (a new, empty one).
   * Leaving it out, or removing it later, replaces nothing: the volume keeps the tier it has.
   * @default the data center's first `networkVolumeTypes` entry, chosen by the platform
   */
  type?: pulumi.Input<NetworkVolumeType>;
  /**
   * How long delete waits, in seconds (0..3600), for pods and endpoints that still mount the
   * volume to go, before it fails naming them. Pulumi deletes the pods of this stack first; the
   * wait covers pods made outside the stack and ones still shutting down. Changes in place
   * with no request.
   * @default 120
   */
  deleteWaitSeconds?: pulumi.Input<number>;
  /**
   * ID of an existing volume to take under management instead of creating one (the way in,
   * since `pulumi import` does not work for dynamic resources: pulumi/pulumi#16175). The
   * first `up` keeps the volume and its data, and changes only what differs (a new name, a
   * larger size); its `dataCenter` and `type` must be declared as it has them, which the
   * preview checks. From then on the stack owns it: `pulumi destroy` deletes it (use
   * `protect` or `retainOnDelete` to keep it). Read at creation only: a later change or
   * removal shows no diff and sends nothing (it neither replaces nor updates the volume).
   * @default undefined (create a new volume)
   */
  adopt?: pulumi.Input<string>;
}

/**
 * A network volume: storage that outlives pods and lives in one data center. Mount it in a
 * pod with `mounts: { network: [{ volumeId: volume.id, path: "/workspace" }] }`; the pod then
 * depends on the volume and, without `dataCenterIds`, runs in the volume's data center.
 *
 * @group Resources
 */
export class NetworkVolume extends pulumi.dynamic.Resource {
  /** The volume's name on the platform. */
  declare public readonly name: pulumi.Output<string>;
  /** Size in GB. */
  declare public readonly size: pulumi.Output<number>;
  /** Data center the volume lives in. */
  declare public readonly dataCenter: pulumi.Output<string>;
  /** Storage tier, as the platform reports it. */
  declare public readonly type: pulumi.Output<NetworkVolumeType>;
  /**
   * Seconds delete waits for pods that mount the volume.
   * @default 120
   */
  declare public readonly deleteWaitSeconds: pulumi.Output<number>;

  /**
   * Read an existing volume by its ID without managing it: the stack records its outputs,
   * and destroying the stack leaves the volume alone.
   * @param state.account the account it is read from (see {@link NetworkVolumeArgs.account}); the stack's when left out
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, state?: { account?: pulumi.Input<AccountInput> }, opts?: pulumi.CustomResourceOptions): NetworkVolume {
    checkGetState("NetworkVolume", state, ["account"]);
    return new NetworkVolume(name, state?.account === undefined ? undefined : ({ account: state.account } as NetworkVolumeArgs), { ...opts, id });
  }

  constructor(name: string, args: NetworkVolumeArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const a: Partial<NetworkVolumeArgs> = args ?? {};
    super(
      shimProvider("network-volume"),
      name,
      {
        // An argument it does not have goes on, so check() refuses it by name (not dropped).
        ...undeclaredArgs(a, NETWORK_VOLUME_ARGS),
        name: a.name,
        size: a.size,
        dataCenter: a.dataCenter,
        type: a.type,
        deleteWaitSeconds: a.deleteWaitSeconds,
        adopt: a.adopt,
        account: accountInput(a.account),
        [LOGICAL_NAME_KEY]: name,
      },
      withSecretOutputs(opts, ["account"]),
      "computeplatform",
      "NetworkVolume",
    );
  }
}

/*
 * NetworkVolume: lifecycle -> API calls
 *
 *   check   no request. Size bounds (10..4096 GB), a smaller size than before is refused
 *           (volumes only grow), auto-name kept across updates.
 *   diff    no request. dataCenter -> replace; name, a larger size -> update in place.
 *   create  POST   /v2/network-volumes {name, size, dataCenter}
 *   read    GET    /v2/network-volumes/{id}      (404 -> gone)
 *   update  PATCH  /v2/network-volumes/{id} {name?, size?}  (nothing sent when only
 *           deleteWaitSeconds changed)
 *   delete  DELETE /v2/network-volumes/{id}      (404 -> already gone)
 *           409 (a pod still mounts it) -> GET /v2/pods every few seconds until no pod
 *           mounts it, then DELETE again; after deleteWaitSeconds, fail naming the pods.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { ComputePlatform } from "../client";
import { type Clock, systemClock } from "../client/core/clock";
import { ConflictError, NotFoundError } from "../client/core/errors";
import type { NetworkVolume as WireNetworkVolume, Pod as WirePod } from "../client/schemas";
import { checkFailures, isUnknown } from "./engine/check";
import { platform } from "./engine/settings";
import { shimProvider } from "./engine/shim";
import { resolveName } from "./lifecycle/owner";

/** Smallest network volume the platform makes, in GB. */
export const NETWORK_VOLUME_MIN_GB = 10;
/** Largest network volume the platform makes, in GB. */
export const NETWORK_VOLUME_MAX_GB = 4096;
/** How long delete waits, by default, for the pods that mount a volume to be gone. */
export const DEFAULT_DELETE_WAIT_SECONDS = 120;
/** Upper bound of `deleteWaitSeconds`: a wait longer than an hour is a stuck deployment. */
export const MAX_DELETE_WAIT_SECONDS = 3600;

/**
 * The input that carries the resource's logical name to `check()`, which receives only the
 * inputs and needs the logical name to auto-name the volume.
 */
export const LOGICAL_NAME_KEY = "__logicalName";

/** Arguments of a {@link NetworkVolume}. */
export interface NetworkVolumeArgs {
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
   * How long delete waits, in seconds (0..3600), for pods that still mount the volume to be
   * terminated, before it fails naming them. Pulumi deletes the pods of this stack first; the
   * wait covers pods made outside the stack and ones still shutting down.
   * @default 120
   */
  deleteWaitSeconds?: pulumi.Input<number>;
}

/** The checked inputs: what `check()` returns and `create`/`update`/`diff` receive. */
export interface NetworkVolumeInputs {
  name: string;
  size: number;
  dataCenter: string;
  deleteWaitSeconds?: number;
  [LOGICAL_NAME_KEY]?: string;
}

/** What a NetworkVolume holds in state. `id` is the resource ID (`volume.id`). */
export interface NetworkVolumeOutputs {
  /** The platform's volume ID; mount it with `mounts.network[0].volumeId`. */
  id: string;
  /** The volume's name on the platform. */
  name: string;
  /** Size in GB. */
  size: number;
  /** Data center the volume lives in. */
  dataCenter: string;
  /**
   * Seconds delete waits for pods that mount the volume.
   * @default 120
   */
  deleteWaitSeconds: number;
}

const sizeRule = `size must be an integer number of GB from ${NETWORK_VOLUME_MIN_GB} to ${NETWORK_VOLUME_MAX_GB}`;

/** The rules of {@link NetworkVolumeArgs} once every input is known and `name` is settled. */
export const networkVolumeArgsSchema = z
  .object({
    name: z
      .string({ error: "name must be a string" })
      .min(1, "name must be at least 1 character"),
    size: z
      .number({
        error: (iss) => (iss.input === undefined ? `size is required: ${sizeRule}` : sizeRule),
      })
      .int(sizeRule)
      .min(NETWORK_VOLUME_MIN_GB, sizeRule)
      .max(NETWORK_VOLUME_MAX_GB, sizeRule),
    dataCenter: z
      .string({
        error: (iss) =>
          iss.input === undefined
            ? "dataCenter is required: the ID of the data center the volume lives in (see getDataCenters())"
            : "dataCenter must be a string: a data center ID",
      })
      .min(1, "dataCenter must not be empty: a data center ID"),
    deleteWaitSeconds: z
      .number({ error: "deleteWaitSeconds must be a number of seconds" })
      .int("deleteWaitSeconds must be a whole number of seconds")
      .min(0, `deleteWaitSeconds must be from 0 to ${MAX_DELETE_WAIT_SECONDS}`)
      .max(MAX_DELETE_WAIT_SECONDS, `deleteWaitSeconds must be from 0 to ${MAX_DELETE_WAIT_SECONDS}`)
      .optional(),
  })
  .strict();

/** Properties the engine or the resource class add to the inputs; not the user's. */
const RESERVED_KEYS = new Set(["__provider", LOGICAL_NAME_KEY]);

/**
 * `check()` as a pure function of (old inputs, new inputs). `olds` are the inputs of the last
 * deployment (empty on create), so a shrink is caught before any request is sent.
 */
export function checkNetworkVolume(
  olds: Record<string, unknown> | undefined,
  news: Record<string, unknown>,
): pulumi.dynamic.CheckResult<NetworkVolumeInputs> {
  const logicalName = typeof news[LOGICAL_NAME_KEY] === "string" ? (news[LOGICAL_NAME_KEY] as string) : "volume";
  const inputs: Record<string, unknown> = { ...news, name: resolveName(news.name, olds as any, logicalName) };
  if (inputs.deleteWaitSeconds === undefined || inputs.deleteWaitSeconds === null) delete inputs.deleteWaitSeconds;

  const userInputs = Object.fromEntries(Object.entries(inputs).filter(([k]) => !RESERVED_KEYS.has(k)));
  const parsed = networkVolumeArgsSchema.safeParse(userInputs);
  const failures = parsed.success ? [] : checkFailures(parsed.error, userInputs);

  const shrink = shrinkRefusal(olds?.size, inputs.size, olds?.dataCenter, inputs.dataCenter);
  if (shrink) failures.push({ property: "size", reason: shrink });

  return { inputs: inputs as unknown as NetworkVolumeInputs, failures };
}

/**
 * Why a size change is refused, or undefined when it is fine. A volume only grows; moving it
 * to another data center makes a new volume, so any valid size is fine then.
 */
function shrinkRefusal(
  oldSize: unknown,
  newSize: unknown,
  oldDataCenter: unknown,
  newDataCenter: unknown,
): string | undefined {
  if (typeof oldSize !== "number" || typeof newSize !== "number" || newSize >= oldSize) return undefined;
  const movesDataCenter =
    typeof oldDataCenter === "string" &&
    typeof newDataCenter === "string" &&
    !isUnknown(newDataCenter) &&
    oldDataCenter !== newDataCenter;
  if (movesDataCenter) return undefined;
  return (
    `size cannot shrink from ${oldSize} to ${newSize} GB: network volumes only grow, and ` +
    `replacing the volume would destroy its data. Keep size at ${oldSize} or more, or ` +
    "create a new NetworkVolume and move the data yourself"
  );
}

/** What moving from the old outputs to the new inputs takes. */
export interface NetworkVolumePlan {
  /** Properties that force a new volume. */
  replaces: string[];
  /** Properties that change in place. */
  updates: string[];
  /** Set when the change must not happen at all (a shrink). */
  refused?: string;
}

/**
 * Replace-versus-update as a pure function of (old outputs, new inputs). A value unknown at
 * preview counts as changed, so the preview shows the worst case.
 */
export function planNetworkVolumeChange(
  olds: Partial<NetworkVolumeOutputs>,
  news: Partial<Record<keyof NetworkVolumeInputs, unknown>>,
): NetworkVolumePlan {
  const replaces: string[] = [];
  const updates: string[] = [];
  const differs = (a: unknown, b: unknown) => isUnknown(b) || a !== b;

  if (differs(olds.dataCenter, news.dataCenter)) replaces.push("dataCenter");
  if (differs(olds.name, news.name)) updates.push("name");
  const oldWait = olds.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS;
  if (differs(oldWait, news.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS)) updates.push("deleteWaitSeconds");

  let refused: string | undefined;
  if (differs(olds.size, news.size)) {
    if (replaces.length === 0) {
      refused = shrinkRefusal(olds.size, news.size, olds.dataCenter, news.dataCenter);
      if (!refused) updates.push("size");
    } else {
      // The replacement is a new volume: its size is whatever the inputs say.
      updates.push("size");
    }
  }
  return { replaces, updates: replaces.length > 0 ? [] : updates, refused };
}

/** Dependencies of the provider; tests inject a client, a fake clock and a signal. */
export interface NetworkVolumeProviderOptions {
  /**
   * The client to call.
   * @default the process-wide client of `runtime.ts` (stack config, then environment)
   */
  client?: () => ComputePlatform;
  /**
   * Time source for the delete wait.
   * @default the system clock
   */
  clock?: Clock;
  /**
   * How often delete looks again for the pods that mount a volume, in ms.
   * @default 5000
   */
  pollIntervalMs?: number;
  /** Cancels a delete that is waiting for pods. */
  signal?: AbortSignal;
}

/** One pod that still mounts a volume, as a delete failure reports it. */
export interface VolumeHolder {
  id: string;
  name: string;
  status: string;
}

/** The pods, among `pods`, whose network mount is the volume `volumeId`. */
export function podsMounting(pods: readonly WirePod[], volumeId: string): VolumeHolder[] {
  return pods
    .filter((p) => p.status !== "TERMINATED" && p.mounts?.network?.some((m) => m.volumeId === volumeId))
    .map((p) => ({ id: p.id, name: p.name, status: p.status }));
}

function outputsOf(volume: WireNetworkVolume, deleteWaitSeconds: number | undefined): Omit<NetworkVolumeOutputs, "id"> {
  return {
    name: volume.name,
    size: volume.size,
    dataCenter: volume.dataCenter,
    deleteWaitSeconds: deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS,
  };
}

/** The real provider behind `shimProvider("network-volume")`. */
export class NetworkVolumeProvider implements pulumi.dynamic.ResourceProvider<NetworkVolumeInputs, NetworkVolumeOutputs> {
  private readonly client: () => ComputePlatform;
  private readonly clock: Clock;
  private readonly pollIntervalMs: number;
  private readonly signal?: AbortSignal;

  constructor(options: NetworkVolumeProviderOptions = {}) {
    this.client = options.client ?? platform;
    this.clock = options.clock ?? systemClock;
    this.pollIntervalMs = Math.max(1, options.pollIntervalMs ?? 5000);
    this.signal = options.signal;
  }

  async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult<NetworkVolumeInputs>> {
    return checkNetworkVolume(olds, news);
  }

  async diff(_id: string, olds: NetworkVolumeOutputs, news: NetworkVolumeInputs): Promise<pulumi.dynamic.DiffResult> {
    const plan = planNetworkVolumeChange(olds, news);
    // check() refuses a shrink of the inputs; this catches one against state that a refresh
    // grew. Failing here stops the preview instead of a replace that loses the data.
    if (plan.refused) throw new Error(`NetworkVolume ${olds.name}: ${plan.refused}`);
    return {
      changes: plan.replaces.length > 0 || plan.updates.length > 0,
      replaces: plan.replaces,
      stables: plan.replaces.length > 0 ? [] : ["dataCenter"],
    };
  }

  async create(inputs: NetworkVolumeInputs): Promise<pulumi.dynamic.CreateResult<NetworkVolumeOutputs>> {
    const volume = await this.client().networkVolumes.create({
      name: inputs.name,
      size: inputs.size,
      dataCenter: inputs.dataCenter,
    });
    return { id: volume.id, outs: { id: volume.id, ...outputsOf(volume, inputs.deleteWaitSeconds) } };
  }

  async read(id: string, props?: NetworkVolumeOutputs): Promise<pulumi.dynamic.ReadResult<NetworkVolumeOutputs>> {
    try {
      const volume = await this.client().networkVolumes.get(id);
      return { id: volume.id, props: { id: volume.id, ...outputsOf(volume, props?.deleteWaitSeconds) } };
    } catch (err) {
      // An empty result tells the engine the volume is gone.
      if (err instanceof NotFoundError) return {};
      throw err;
    }
  }

  async update(
    id: string,
    olds: NetworkVolumeOutputs,
    news: NetworkVolumeInputs,
  ): Promise<pulumi.dynamic.UpdateResult<NetworkVolumeOutputs>> {
    const refused = shrinkRefusal(olds.size, news.size, olds.dataCenter, news.dataCenter);
    if (refused) throw new Error(`NetworkVolume ${olds.name}: ${refused}`);
    const body: { name?: string; size?: number } = {};
    if (news.name !== olds.name) body.name = news.name;
    if (news.size !== olds.size) body.size = news.size;
    if (body.name === undefined && body.size === undefined) {
      return { outs: { ...olds, id, deleteWaitSeconds: news.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS } };
    }
    const volume = await this.client().networkVolumes.update(id, body);
    return { outs: { id, ...outputsOf(volume, news.deleteWaitSeconds) } };
  }

  async delete(id: string, props: NetworkVolumeOutputs): Promise<void> {
    const waitMs = 1000 * (props?.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS);
    const deadline = this.clock.now() + waitMs;
    // The deadline ends the wait; the bound on rounds keeps the loop finite even under a
    // clock that does not advance.
    const maxRounds = Math.ceil(waitMs / this.pollIntervalMs) + 2;
    let holders: VolumeHolder[] = [];
    let conflict: ConflictError | undefined;
    for (let round = 0; round < maxRounds; round++) {
      // While a listed pod still mounts the volume a DELETE would only answer 409 again.
      if (holders.length === 0) {
        try {
          await this.client().networkVolumes.delete(id, { signal: this.signal });
          return;
        } catch (err) {
          if (err instanceof NotFoundError) return;
          if (!(err instanceof ConflictError)) throw err;
          conflict = err;
        }
      }
      const left = deadline - this.clock.now();
      if (left <= 0) break;
      await this.clock.sleep(Math.min(this.pollIntervalMs, left), this.signal);
      holders = podsMounting(await this.client().pods.list({ signal: this.signal }), id);
    }
    if (holders.length === 0) holders = podsMounting(await this.client().pods.list({ signal: this.signal }), id);
    throw mountedError(id, props, holders, waitMs, conflict);
  }
}

function mountedError(
  id: string,
  props: Partial<NetworkVolumeOutputs> | undefined,
  holders: VolumeHolder[],
  waitMs: number,
  conflict?: ConflictError,
): Error {
  const label = props?.name ? `${id} ("${props.name}")` : id;
  const waited = `${Math.round(waitMs / 1000)} s`;
  if (holders.length === 0) {
    return new Error(
      `network volume ${label} could not be deleted: the platform still reports it in use after ${waited} ` +
        `(${conflict?.detail ?? "409 Conflict"}), though no pod listed mounts it. Try again shortly.`,
    );
  }
  const pods = holders.map((h) => `${h.id} ("${h.name}", ${h.status})`).join(", ");
  return new Error(
    `network volume ${label} is still mounted by pod${holders.length > 1 ? "s" : ""} ${pods} after waiting ${waited}. ` +
      "Terminate the pod(s), or remove the mount, then run the deletion again " +
      "(deleteWaitSeconds sets how long delete waits).",
  );
}


/**
 * A network volume: storage that outlives pods and lives in one data center. Mount it in a
 * pod with `mounts: { network: [{ volumeId: volume.id, path: "/workspace" }] }`; the pod then
 * depends on the volume and, without `dataCenterIds`, runs in the volume's data center.
 */
export class NetworkVolume extends pulumi.dynamic.Resource {
  /** The volume's name on the platform. */
  declare public readonly name: pulumi.Output<string>;
  /** Size in GB. */
  declare public readonly size: pulumi.Output<number>;
  /** Data center the volume lives in. */
  declare public readonly dataCenter: pulumi.Output<string>;
  /**
   * Seconds delete waits for pods that mount the volume.
   * @default 120
   */
  declare public readonly deleteWaitSeconds: pulumi.Output<number>;

  constructor(name: string, args: NetworkVolumeArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      shimProvider("network-volume"),
      name,
      {
        name: args.name,
        size: args.size,
        dataCenter: args.dataCenter,
        deleteWaitSeconds: args.deleteWaitSeconds,
        [LOGICAL_NAME_KEY]: name,
      },
      opts,
      "computeplatform",
      "NetworkVolume",
    );
  }
}

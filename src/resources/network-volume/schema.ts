// NetworkVolume's check: the rules of its arguments, and the refusal of a shrink (volumes only grow).
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { checkNamedArgs, isUnknown } from "../inputs/check";
import { adoptId } from "../inputs/container";
import { DEFAULT_DELETE_WAIT_SECONDS, deleteWaitSecondsSchema, MAX_DELETE_WAIT_SECONDS } from "../lifecycle/in-use";
import type { LOGICAL_NAME_KEY } from "../lifecycle/owner";

export { DEFAULT_DELETE_WAIT_SECONDS, MAX_DELETE_WAIT_SECONDS };

/** Smallest network volume the platform makes, in GB. */
export const NETWORK_VOLUME_MIN_GB = 10;
/** Largest network volume the platform makes, in GB. */
export const NETWORK_VOLUME_MAX_GB = 4096;
/** The storage tiers of a network volume (contract `NetworkVolume.type`). */
export const NETWORK_VOLUME_TYPES = ["STANDARD", "HIGH_PERFORMANCE"] as const;
export type NetworkVolumeType = (typeof NETWORK_VOLUME_TYPES)[number];

/**
 * The checked inputs: what `check()` returns and `create`/`update`/`diff` receive.
 *
 * @group Providers and checks
 */
export interface NetworkVolumeInputs {
  name: string;
  size: number;
  dataCenter: string;
  type?: NetworkVolumeType;
  deleteWaitSeconds?: number;
  adopt?: string;
  [LOGICAL_NAME_KEY]?: string;
}

/**
 * What a NetworkVolume holds in state. `id` is the resource ID (`volume.id`).
 *
 * @group Resource outputs
 */
export interface NetworkVolumeOutputs {
  /** The platform's volume ID; mount it with `mounts.network[0].volumeId`. */
  id: string;
  /** The volume's name on the platform. */
  name: string;
  /** Size in GB. */
  size: number;
  /** Data center the volume lives in. */
  dataCenter: string;
  /** Storage tier, as the platform reports it (fixed after creation). */
  type?: NetworkVolumeType;
  /**
   * Seconds delete waits for pods that mount the volume.
   * @default 120
   */
  deleteWaitSeconds: number;
}

const sizeRule = `size must be an integer number of GB from ${NETWORK_VOLUME_MIN_GB} to ${NETWORK_VOLUME_MAX_GB}`;

/**
 * The rules of {@link NetworkVolumeArgs} once every input is known and `name` is settled.
 *
 * @group Providers and checks
 */
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
    type: z
      .enum(NETWORK_VOLUME_TYPES, { error: `type must be one of ${NETWORK_VOLUME_TYPES.join(", ")}` })
      .optional(),
    deleteWaitSeconds: deleteWaitSecondsSchema,
    adopt: adoptId("network volume"),
  })
  .strict();

/** The arguments a NetworkVolume has: any other is refused at check (inputs/arguments.ts). */
export const NETWORK_VOLUME_ARGS: readonly string[] = Object.keys(networkVolumeArgsSchema.shape);

/**
 * `check()` as a pure function of (old inputs, new inputs). `olds` are the inputs of the last
 * deployment (empty on create), so a shrink is caught before any request is sent.
 */
export function checkNetworkVolume(
  olds: Record<string, unknown> | undefined,
  news: Record<string, unknown>,
): pulumi.dynamic.CheckResult<NetworkVolumeInputs> {
  const result = checkNamedArgs<NetworkVolumeInputs>("NetworkVolume", networkVolumeArgsSchema, olds, news, "volume", ["deleteWaitSeconds", "type", "adopt"]);
  const shrink = shrinkRefusal(olds?.size, result.inputs?.size, olds?.dataCenter, result.inputs?.dataCenter);
  if (shrink) result.failures.push({ property: "size", reason: shrink });
  return result;
}

/**
 * Why a size change is refused, or undefined when it is fine. A volume only grows; moving it
 * to another data center makes a new volume, so any valid size is fine then.
 */
export function shrinkRefusal(
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


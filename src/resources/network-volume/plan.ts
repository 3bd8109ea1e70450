// NetworkVolume's plan, pure: replace-versus-update, and the volume on the wire (outputs, the
// PATCH body, the pods that still mount it).
import type { ApiError, NetworkVolume as WireNetworkVolume, NetworkVolumeUpdateParams, Pod as WirePod } from "../../client";
import { isUnknown } from "../engine/check";
import type { Holder } from "../lifecycle/in-use";
import { DEFAULT_DELETE_WAIT_SECONDS, type NetworkVolumeInputs, type NetworkVolumeOutputs, shrinkRefusal } from "./schema";

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

/** One pod that still mounts a volume, as a delete failure reports it. */
export type VolumeHolder = Holder;

/** The pods, among `pods`, whose network mount is the volume `volumeId`. */
export function podsMounting(pods: readonly WirePod[], volumeId: string): VolumeHolder[] {
  return pods
    .filter((p) => p.status !== "TERMINATED" && p.mounts?.network?.some((m) => m.volumeId === volumeId))
    .map((p) => ({ id: p.id, name: p.name, status: p.status }));
}

export function outputsOf(volume: WireNetworkVolume, deleteWaitSeconds: number | undefined): Omit<NetworkVolumeOutputs, "id"> {
  return {
    name: volume.name,
    size: volume.size,
    dataCenter: volume.dataCenter,
    deleteWaitSeconds: deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS,
  };
}

/** The PATCH body: the name and the size when they changed; undefined when nothing the platform keeps did. */
export function updateBody(olds: NetworkVolumeOutputs, news: NetworkVolumeInputs): NetworkVolumeUpdateParams | undefined {
  const body: NetworkVolumeUpdateParams = {};
  if (news.name !== olds.name) body.name = news.name;
  if (news.size !== olds.size) body.size = news.size;
  return body.name === undefined && body.size === undefined ? undefined : body;
}

export function mountedError(
  id: string,
  props: Partial<NetworkVolumeOutputs> | undefined,
  holders: VolumeHolder[],
  waitMs: number,
  conflict?: ApiError,
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

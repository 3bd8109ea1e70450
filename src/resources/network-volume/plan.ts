// NetworkVolume's plan, pure: replace-versus-update, and the volume on the wire (outputs, the
// PATCH body, the pods that still mount it).
import type { StepEffects } from "../lifecycle/step-line";
import type { Endpoint as WireEndpoint, NetworkVolume as WireNetworkVolume, NetworkVolumeUpdateParams, Pod as WirePod } from "../../client";
import { DEFAULT_DELETE_WAIT_SECONDS, type InUseHolder } from "../lifecycle/in-use";
import { type NetworkVolumeInputs, type NetworkVolumeOutputs, shrinkRefusal } from "./schema";

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
 * preview is never what state holds, so it counts as changed: the preview shows the worst case.
 */
export function planNetworkVolumeChange(
  olds: Partial<NetworkVolumeOutputs>,
  news: Partial<Record<keyof NetworkVolumeInputs, unknown>>,
): NetworkVolumePlan {
  const replaces: string[] = [];
  const updates: string[] = [];
  const differs = (a: unknown, b: unknown) => a !== b;

  if (differs(olds.dataCenter, news.dataCenter)) replaces.push("dataCenter");
  // `type` is fixed once the volume exists. Left out, it keeps whatever the platform chose (or
  // what an earlier deployment asked for): no replace. A state from before `type` was
  // recorded cannot tell, and is not replaced on a guess; the next refresh records it.
  if (news.type !== undefined && olds.type !== undefined && differs(olds.type, news.type)) replaces.push("type");
  if (differs(olds.name, news.name)) updates.push("name");
  const oldWait = olds.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS;
  if (differs(oldWait, news.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS)) updates.push("deleteWaitSeconds");

  let refused: string | undefined;
  // A replacement is a new volume: its size is whatever the inputs say, and no shrink.
  if (replaces.length === 0 && differs(olds.size, news.size)) {
    refused = shrinkRefusal(olds.size, news.size, olds.dataCenter, news.dataCenter);
    if (!refused) updates.push("size");
  }
  return { replaces, updates: replaces.length > 0 ? [] : updates, refused };
}

/** One object that still uses a volume, as a delete failure reports it. */
export type VolumeHolder = InUseHolder;

/** The pods, among `pods`, whose network mount is the volume `volumeId`. */
export function podsMounting(pods: readonly WirePod[], volumeId: string): VolumeHolder[] {
  return pods
    .filter((p) => p.status !== "TERMINATED" && p.mounts?.network?.some((m) => m.volumeId === volumeId))
    .map((p) => ({ kind: "pod", id: p.id, name: p.name, status: p.status }));
}

/** The serverless endpoints, among `endpoints`, whose workers mount the volume `volumeId`. */
export function endpointsMounting(endpoints: readonly WireEndpoint[], volumeId: string): VolumeHolder[] {
  return endpoints.filter((e) => e.networkVolumeId === volumeId).map((e) => ({ kind: "endpoint", id: e.id, name: e.name }));
}

export function outputsOf(volume: WireNetworkVolume, deleteWaitSeconds: number | undefined): Omit<NetworkVolumeOutputs, "id"> {
  return {
    name: volume.name,
    size: volume.size,
    dataCenter: volume.dataCenter,
    type: volume.type,
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

/**
 * What a NetworkVolume's changes do, for the step's line (lifecycle/step-line.ts): the plan's
 * in-place updates are PATCHes but deleteWaitSeconds, which only the provider reads; a
 * replacement is a new, empty volume: the old one's data is lost, as a delete loses it.
 */
export const VOLUME_STEP_EFFECTS: StepEffects = {
  noRequest: ["deleteWaitSeconds"],
  restarts: [],
  replaced: { lost: "its data (the new volume is empty; nothing is copied)", destroysData: true },
  deleted: { lost: "its data", destroysData: true },
};

/*
 * A Pod's update as requests, pure: the PATCH of the changed fields, the actions desiredStatus
 * and globalNetworking need, and what a locked pod refuses (at preview as at up). The verdict
 * it starts from (what changes, replace or update) is plan.ts.
 */
import type { PodUpdateParams } from "../../client";
import { containsUnknown, isUnknown } from "../inputs/check";
import type { StepEffects } from "../lifecycle/step-line";
import { declarationOf, nextEnv, type PodPlan, planKnownPodChange, RECORDED_ONLY } from "./plan";
import type { PodDeclaration, PodOutputs } from "./outputs";
import type { PodInputs } from "./schema";
import { STOPPED } from "./status";
import { declarationFor, mountsBody } from "./wire";

/** PATCH fields that restart a running container by themselves. */
export const RESTARTING_FIELDS: readonly string[] = ["image", "args", "disk", "ports", "env", "registry", "mounts"];

/**
 * The PATCH body that brings the pod from `olds` to `news`: only the changed fields, each
 * whole (the platform takes no partial mount entries). Call it only for a plan without
 * replaces; with one, the body could break a mount rule.
 */
export function podPatch(olds: PodOutputs, news: PodInputs, plan: PodPlan = planKnownPodChange(olds, news)): PodUpdateParams {
  if (plan.replaces.length > 0) {
    throw new Error(`a change of ${plan.replaces.join(", ")} needs a new pod, not a PATCH`);
  }
  const decl = declarationOf(olds, news);
  const changed = new Set(plan.updates);
  const body: PodUpdateParams = {};
  if (changed.has("name")) body.name = news.name;
  if (changed.has("image")) body.image = news.image;
  if (changed.has("args")) body.args = news.args ?? "";
  if (changed.has("disk")) body.disk = news.disk;
  if (changed.has("ports")) body.ports = news.ports;
  if (changed.has("env")) body.env = nextEnv(olds.env ?? {}, decl.envKeys, news.env);
  if (changed.has("registry")) body.registry = news.registry ?? null;
  if (changed.has("mounts")) body.mounts = mountsBody(news.mounts!);
  if (changed.has("locked")) body.locked = news.locked;
  if (changed.has("globalNetworking")) body.globalNetworking = news.globalNetworking;
  return body;
}

/** An update as requests: computed once from the plan, then carried out by the provider. */
export interface UpdateSteps {
  /** The first PATCH (empty: nothing to PATCH, the pod is read instead). */
  patch: PodUpdateParams;
  /** Restart after the PATCH: globalNetworking applies at the next start, and nothing else restarts the container. */
  restart: boolean;
  /** The PATCH itself restarts a running container: wait for the restart, whatever the answer says. */
  restarts: boolean;
  /** PATCH `{ locked: true }` last: the platform refuses a stop or restart on a locked pod. */
  lockLast: boolean;
  /** Nothing to send: only settings the platform does not hold after creation changed (dataCenterIds, the wait's bound). */
  recordOnly: boolean;
  declaration: PodDeclaration;
}

/**
 * The requests that bring pod `id` from `olds` (outputs) to the known `news`: one PATCH of
 * the changed fields, then the actions desiredStatus and globalNetworking need. Throws for a
 * change the platform would refuse (a replacing property, a stop or restart of a locked pod).
 */
export function planUpdate(id: string, olds: PodOutputs, news: PodInputs, change = planKnownPodChange(olds, news)): UpdateSteps {
  if (change.replaces.length > 0) {
    // The engine replaces on a plan with replaces; a PATCH here would be answered 400.
    throw new Error(`pod ${id}: ${change.replaces.join(", ")} cannot change in place; the pod must be replaced`);
  }
  const patch = podPatch(olds, news, change);
  const needsStop = news.desiredStatus === "EXITED" && !STOPPED.has(olds.status);
  const restart = patch.globalNetworking !== undefined && !patchRestarts(patch) && news.desiredStatus === "RUNNING";
  const refused = lockedRefusal(olds, news, patch);
  if (refused) throw new Error(`pod ${id} ${refused}`);
  // The platform refuses a stop, a restart and a restarting PATCH on a locked pod: the lock comes after them all.
  const lockLast = patch.locked === true && (needsStop || restart || patchRestarts(patch));
  if (lockLast) delete patch.locked;
  const recordOnly = change.updates.length > 0 && change.updates.every((k) => RECORDED_ONLY.includes(k));
  // The price was set at creation: the compute never changes in place.
  const declaration = declarationFor(news);
  if (olds.__declared?.hourlyCost !== undefined) declaration.hourlyCost = olds.__declared.hourlyCost;
  return { patch, restart, restarts: patchRestarts(patch), lockLast, recordOnly, declaration };
}

/**
 * Why a pod that stays locked cannot take this change, or undefined: the platform refuses to
 * stop or restart a locked pod (409), and a PATCH of a field that restarts the container of a
 * running one. Planned before any request, so preview (diff) fails as up would, naming what.
 */
export function lockedRefusal(olds: PodOutputs, news: PodInputs, patch: PodUpdateParams): string | undefined {
  const staysLocked =
    news.locked === true &&
    olds.locked &&
    // Stryker disable next-line ConditionalExpression: every caller's patch is made from olds and news, and holds no locked when both are locked
    patch.locked === undefined;
  if (!staysLocked) return undefined;
  const running = olds.status === "RUNNING" || olds.status === "STARTING";
  const restarting = Object.keys(patch).filter((k) => RESTARTING_FIELDS.includes(k));
  if (running && restarting.length > 0) {
    return (
      `is locked, and a change of ${restarting.join(", ")} restarts its container, which the platform refuses on a locked pod; ` +
      "set locked: false in the same change, or leave them as they are"
    );
  }
  const needsStop = news.desiredStatus === "EXITED" && !STOPPED.has(olds.status);
  const restart =
    patch.globalNetworking !== undefined &&
    // Stryker disable next-line ConditionalExpression: with a restarting field the pod is not running here (refused above), so restart is not read
    restarting.length === 0 &&
    // Stryker disable next-line ConditionalExpression: the other desiredStatus, EXITED, of a running pod is refused as a stop whatever restart says
    news.desiredStatus === "RUNNING";
  if (needsStop || (restart && olds.status === "RUNNING")) {
    return (
      `is locked, so it cannot be ${needsStop ? "stopped" : "restarted (globalNetworking applies at the next start)"}; ` +
      "set locked: false in the same change, or leave desiredStatus and globalNetworking as they are"
    );
  }
  return undefined;
}

/**
 * What `diff` refuses at preview, as up would: {@link lockedRefusal} of the known change. A
 * value unknown at preview may end up the same, so it is not counted, except where it is
 * certain to change: an unknown `registry` is the id of a credential being created or
 * replaced, which no existing id equals.
 */
export function previewRefusal(olds: PodOutputs, news: PodInputs): string | undefined {
  const certain: PodInputs = isUnknown(news.registry) ? { ...news, registry: NEW_ID } : news;
  if (!containsUnknown(certain)) return lockedRefusal(olds, certain, podPatch(olds, certain));
  if (certain.registry !== NEW_ID || isUnknown(news.locked)) return undefined;
  return lockedRefusal(olds, { ...olds, ...certain, locked: news.locked } as PodInputs, { registry: NEW_ID });
}

/** Stands for an id not made yet: equal to no existing one. */
// Stryker disable next-line StringLiteral: it is only compared with real ids and itself, so any text no id is (the empty one too) plans the same
const NEW_ID = "(the id of a resource being created or replaced)";

/** Whether a PATCH with these fields restarts a running container on its own. */
export function patchRestarts(body: PodUpdateParams): boolean {
  return Object.keys(body).some((k) => RESTARTING_FIELDS.includes(k));
}

/**
 * What a Pod's changes do to what runs, for the step's line (lifecycle/step-line.ts), from the
 * tables that decide them: RECORDED_ONLY sends nothing, RESTARTING_FIELDS (and globalNetworking,
 * which applies at a restart) restart the container, unless it is or is being stopped. A
 * replacement loses the container disk and the public address, and the volume on its own disk
 * when it has one; a network volume's data stays. With no network volume, all its data was on
 * its own disk: the replacement destroys it, as a delete does.
 */
export function podStepEffects(olds: Partial<Pick<PodOutputs, "mounts" | "status">>, news: { desiredStatus?: unknown } = {}): StepEffects {
  const onVolume = (olds.mounts?.network?.length ?? 0) > 0;
  // A stopped or failed container takes the change at its next start, and one being stopped
  // does not start again: nothing restarts now.
  const stopped = (olds.status !== undefined && STOPPED.has(olds.status)) || news.desiredStatus === "EXITED";
  const disks = olds.mounts?.persistent ? "its container disk, the volume on its own disk (mounts.persistent)" : "its container disk";
  return {
    noRequest: RECORDED_ONLY,
    // The one update the PATCH does not carry: up reads the pod and waits for it as now declared.
    readsOnly: ["waitFor"],
    restarts: stopped ? [] : [...RESTARTING_FIELDS, "globalNetworking"],
    replaced: {
      lost: `${disks} and its public address (IP and ports)`,
      ...(onVolume ? { kept: "the data on its network volume, mounted again" } : {}),
      destroysData: !onVolume,
    },
    deleted: {
      lost: `${disks} and its public address`,
      ...(onVolume ? { kept: "the data on its network volume" } : {}),
      destroysData: !onVolume,
    },
  };
}

/**
 * The line a step prints beside the engine's (issue 51): what the change does to what runs, for
 * a reviewer of the preview. Derived from the plan `diff` runs (which fields update, which
 * replace) and the kind's own tables of which updates send no request, which restart the
 * container and which roll workers; the kind says what a replacement or a delete loses and
 * keeps. Knows no kind.
 */
import { LOGICAL_NAME_KEY } from "./owner";

/** What an object's end (a replacement's old one, or a delete) loses and keeps. */
export interface Loss {
  /** What is gone with it. */
  lost: string;
  /** What outlives it. */
  kept?: string;
  /** Whether data is gone that nothing else holds: the line is marked [DESTROYS DATA]. */
  destroysData: boolean;
}

/** What a kind's changes do, from its own tables. */
export interface StepEffects {
  /** Updates recorded in state only: no request to the platform. */
  noRequest: readonly string[];
  /** Updates that send no write: `up` reads the object and waits on it again (a wait setting). */
  readsOnly?: readonly string[];
  /** Updates that restart a running container (its container disk starts empty). */
  restarts: readonly string[];
  /**
   * Updates that roll the workers of every endpoint running this object (a serverless
   * template's container): each worker is replaced by one of the new version.
   */
  rollsUsers?: readonly string[];
  /** What a replacement loses, keeps, and whether it destroys data. */
  replaced: Loss;
  /** What a delete loses and keeps. */
  deleted: Loss;
}

/** The plan `diff` runs, and, for a kind with workers, why they roll (as the platform's release will name it). */
export interface StepPlan {
  replaces: readonly string[];
  updates: readonly string[];
  /** Why this object's workers roll to a new version (a kind with workers; empty when none roll). */
  rolls?: readonly string[];
  /** Whether `up` waits for that rollout. */
  waitsForRollout?: boolean;
}

const DESTROYS = " [DESTROYS DATA]";

const lossText = (l: Loss) => `lost: ${l.lost}${l.kept ? `; kept: ${l.kept}` : ""}${l.destroysData ? DESTROYS : ""}`;

/** The step's line, or undefined when nothing changes (the engine's `same` says it). */
export function stepLine(who: string, plan: StepPlan, effects: StepEffects): string | undefined {
  if (plan.replaces.length > 0) return `${who}: replaced (${plan.replaces.join(", ")}): a new one is made, then the old deleted; ${lossText(effects.replaced)}`;
  const rolls = plan.rolls ?? [];
  const sent = plan.updates.filter((u) => !effects.noRequest.includes(u) && !effects.readsOnly?.includes(u));
  if (rolls.length > 0) {
    const head = sent.length > 0 ? `updated in place (${sent.join(", ")})` : "no request to it";
    const wait = plan.waitsForRollout ? "up waits for the rollout" : "up does not wait for it (waitForRollout: false)";
    return `${who}: ${head}; its workers roll, each replaced by one of the new version (${rolls.join("; ")}); ${wait}`;
  }
  if (plan.updates.length === 0) return undefined;
  if (sent.length === 0) {
    if (plan.updates.some((u) => effects.readsOnly?.includes(u))) return `${who}: no write (up reads it and waits again: ${plan.updates.join(", ")})`;
    return `${who}: no request (recorded in state only: ${plan.updates.join(", ")})`;
  }
  const restarting = sent.filter((u) => effects.restarts.includes(u));
  const rollingUsers = sent.filter((u) => effects.rollsUsers?.includes(u));
  const users = rollingUsers.length > 0 ? `; every endpoint running it rolls its workers (${rollingUsers.join(", ")})` : "";
  if (restarting.length === 0) return `${who}: updated in place (${plan.updates.join(", ")})${users}`;
  const rest = plan.updates.filter((u) => !restarting.includes(u));
  return `${who}: updated in place; the container restarts, its container disk wiped (${restarting.join(", ")})${rest.length > 0 ? `; also ${rest.join(", ")}` : ""}`;
}

/**
 * The line a delete prints once the platform has deleted the object, naming it by kind and id:
 * the engine hands a delete only the outputs, which hold no logical name.
 */
export function deleteLine(kind: string, id: string, effects: Pick<StepEffects, "deleted">): string {
  return `${kind} ${id}: deleted; ${lossText(effects.deleted)}`;
}

/**
 * Who a step's line is about: the kind and the resource's logical name (from the inputs the
 * engine hands `diff`), never a field's value, which may be secret; the id when no name came.
 */
export function stepSubject(kind: string, news: object, id: string): string {
  return `${kind} ${JSON.stringify((news as Record<string, unknown>)[LOGICAL_NAME_KEY] ?? id)}`;
}

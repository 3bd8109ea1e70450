/**
 * The line a step prints beside the engine's (issue 51): what the change does to what runs, for
 * a reviewer of the preview. Derived from the plan `diff` runs (which fields update, which
 * replace) and the kind's own tables of which updates send no request and which restart the
 * container; the kind says what a replacement loses and keeps. Knows no kind.
 */

/** What a kind's changes do, from its own tables. */
export interface StepEffects {
  /** Updates recorded in state only: no request to the platform. */
  noRequest: readonly string[];
  /** Updates that restart a running container (its container disk starts empty). */
  restarts: readonly string[];
  /** What a replacement loses, keeps, and whether it destroys data. */
  replaced: { lost: string; kept?: string; destroysData: boolean };
}

/** The step's line, or undefined when nothing changes (the engine's `same` says it). */
export function stepLine(who: string, plan: { replaces: readonly string[]; updates: readonly string[] }, effects: StepEffects): string | undefined {
  if (plan.replaces.length > 0) {
    const r = effects.replaced;
    return `${who}: replaced (${plan.replaces.join(", ")}): a new one is made, then the old deleted; lost: ${r.lost}${r.kept ? `; kept: ${r.kept}` : ""}${r.destroysData ? " [DESTROYS DATA]" : ""}`;
  }
  if (plan.updates.length === 0) return undefined;
  if (plan.updates.every((u) => effects.noRequest.includes(u))) return `${who}: no request (recorded in state only: ${plan.updates.join(", ")})`;
  const restarting = plan.updates.filter((u) => effects.restarts.includes(u));
  if (restarting.length === 0) return `${who}: updated in place (${plan.updates.join(", ")})`;
  const rest = plan.updates.filter((u) => !restarting.includes(u));
  return `${who}: updated in place; the container restarts, its container disk wiped (${restarting.join(", ")})${rest.length > 0 ? `; also ${rest.join(", ")}` : ""}`;
}

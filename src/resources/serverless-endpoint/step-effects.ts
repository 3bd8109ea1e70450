/**
 * What a ServerlessEndpoint's change does to what runs, for the step's line
 * (lifecycle/step-line.ts), pure: from the tables that decide the update (the wait settings
 * are the provider's own: no write) and the rollout's (rollout-plan.ts: which changes roll
 * the workers, and which come from the bound Template rather than the endpoint).
 */
import { isUnknown } from "../inputs/check";
import type { StepEffects, StepPlan } from "../lifecycle/step-line";
import { changedLocalFields, LOCAL_FIELDS } from "./plan";
import { rollingChanges, templateChanges } from "./rollout-plan";
import { TEMPLATE_CHECK_KEY, TEMPLATE_ROLLS_KEY } from "./schema";

/**
 * An endpoint keeps no data of its own (a network volume it mounts is a resource of its own):
 * a replacement or delete loses its workers and its id, so its request URLs.
 */
export const ENDPOINT_STEP_EFFECTS: StepEffects = {
  noRequest: [],
  // The wait settings are the provider's own: up reads the endpoint and waits as now declared.
  readsOnly: LOCAL_FIELDS,
  restarts: [],
  replaced: { lost: "its workers, its id and its request URLs (callers must use the new endpoint's)", destroysData: false },
  deleted: { lost: "its workers, its id and its request URLs", destroysData: false },
};

/**
 * The step's plan: `replaces` the dialect's verdict, `changes` the saved fields it sends, `rolls`
 * why `up` waits for a rollout (the dialect's rolls, in the release's names). The rolls the
 * bound Template's own update makes are named as its, the Template by its logical name; a
 * rollout the last `up` left unfinished is named so.
 */
export function endpointStepPlan(
  olds: Record<string, any>,
  news: Record<string, any>,
  replaces: readonly string[],
  changes: readonly string[],
  rolls: readonly string[],
): StepPlan {
  const own = new Set(rollingChanges(changes));
  const byTemplate = new Set(templateChanges(olds[TEMPLATE_ROLLS_KEY], news[TEMPLATE_ROLLS_KEY]).filter((r) => !own.has(r)));
  const template = news[TEMPLATE_CHECK_KEY]?.resourceName;
  const fromTemplate = rolls.filter((r) => byTemplate.has(r));
  const named = [
    ...rolls.filter((r) => !byTemplate.has(r) && r !== "rollout"),
    ...(fromTemplate.length > 0 ? [`${fromTemplate.join(", ")} by its Template${typeof template === "string" ? ` ${JSON.stringify(template)}` : ""}`] : []),
    ...(rolls.includes("rollout") ? ["the rollout the last up left unfinished"] : []),
  ];
  // The move between APIs is a change of its own (over REST it binds the endpoint to a template of its own).
  const moved = !isUnknown(news.api) && (olds.api === "rest") !== (news.api === "rest") ? ["api"] : [];
  return {
    replaces,
    updates: [...moved, ...changes, ...changedLocalFields(olds, news)],
    rolls: named,
    waitsForRollout: news.waitForRollout !== false,
  };
}

/**
 * When the smoke test runs again (pure): only when what it tests changed. Its subject is the
 * endpoint (its id, and what its workers run: the release a rollout brings), the job's input and
 * the triggers the program gives; anything else (how long it waits) is how it runs, not what it
 * tests, and an unchanged subject keeps the last answer and sends no paid job. What the workers
 * run is taken from the endpoint's inputs, not from its `version` output: an output is unknown
 * while the endpoint's own change is previewed, so every change of it (a scaling setting that
 * rolls nothing) would preview as a paid job that the up then does not send.
 */
import { canonical } from "../lifecycle/applied";

/** The inputs whose change runs the job again, each with the words a reason uses. */
export const SMOKE_SUBJECT: readonly { key: string; says: string }[] = [
  { key: "endpointId", says: "the endpoint changed" },
  { key: "workers", says: "what its workers run changed (a new release)" },
  { key: "input", says: "the job's input changed" },
  { key: "triggers", says: "a trigger changed" },
];

/** Why the job runs, from the last run's recorded inputs to the new ones: none when nothing it tests changed. */
export function smokeReasons(olds: Record<string, unknown> | undefined, news: Record<string, unknown>): string[] {
  if (!olds) return ["first run"];
  return SMOKE_SUBJECT.filter(({ key }) => canonical(olds[key] ?? null) !== canonical(news[key] ?? null)).map((s) => s.says);
}

/**
 * Which changes roll an endpoint's workers, pure. On the platform a save that changes the
 * endpoint makes a release; a release whose diff names a field that reaches the workers (the
 * bound template's container, the GPU pools and count, FlashBoot, the network volume, where the
 * workers may run, the template itself) replaces every worker with one of the new version, a
 * rollout that `up` waits for; the other fields (name, worker bounds, scaling, the job timeout)
 * take effect at once. One table, in the resource's names and in the release's.
 */
import type { ReleaseDiffEntry } from "../../client";
import { isUnknown } from "../inputs/check";
import { CONTAINER_KEYS, type TemplateRolls } from "../inputs/template-ref";

/**
 * The resource's fields (GraphQL's names; a REST endpoint's container as `container.<f>`) and
 * the release diff's name of each, with whether a change of it rolls the workers.
 */
export const RELEASE_FIELDS: Readonly<Record<string, { release: string; rolls: boolean }>> = {
  name: { release: "name", rolls: false },
  workersMin: { release: "workers.min", rolls: false },
  workersMax: { release: "workers.max", rolls: false },
  scalerType: { release: "scaling.type", rolls: false },
  scalerValue: { release: "scaling.value", rolls: false },
  idleTimeout: { release: "scaling.idleTimeout", rolls: false },
  executionTimeoutMs: { release: "timeout", rolls: false },
  gpuIds: { release: "gpu.pools", rolls: true },
  gpuCount: { release: "gpu.count", rolls: true },
  flashBootType: { release: "flashboot", rolls: true },
  networkVolumeId: { release: "networkVolumes", rolls: true },
  dataCenterIds: { release: "dataCenterIds", rolls: true },
  locations: { release: "locations", rolls: true },
  templateId: { release: "template.id", rolls: true },
  // A container whose value is unknown at preview: any of its fields may change.
  container: { release: "template", rolls: true },
  ...Object.fromEntries(CONTAINER_KEYS.map((k) => [`container.${k}`, { release: `template.${k}`, rolls: true }])),
};

/**
 * The changed fields (resource names) that roll the workers, as the release will name them
 * (`gpu.pools`, `template.image`, ...); a field this table does not know rolls (the careful
 * answer: `up` then waits for a rollout the platform may finish at once).
 */
export function rollingChanges(changed: readonly string[]): string[] {
  return changed.filter((f) => RELEASE_FIELDS[f]?.rolls ?? true).map((f) => RELEASE_FIELDS[f]?.release ?? f);
}

/** Whether a release the platform made rolls the workers: its diff names a field that reaches them. */
export function releaseRolls(diff: readonly Pick<ReleaseDiffEntry, "field">[]): boolean {
  const rolling = new Set(Object.values(RELEASE_FIELDS).filter((f) => f.rolls).map((f) => f.release));
  return diff.some((d) => d.field.startsWith("template.") || rolling.has(d.field));
}

/**
 * What changes in the workers' container when the Template bound to an endpoint changes, as the
 * release will name it (`template.image`, `template.env`, ...): the Template's fingerprint the
 * endpoint last applied (`olds`, its output) against the one the program has now (`news`, the
 * hidden input). Nothing without either (no Template of the program behind `templateId`, or
 * state written before the fingerprint existed); a field the program leaves to the platform
 * (`disk` left out) is no change; an unknown fingerprint (preview) may change anything.
 */
export function templateChanges(olds: unknown, news: unknown): string[] {
  if (news === undefined || olds === undefined || olds === null) return [];
  if (isUnknown(news)) return ["template"];
  const o = olds as Partial<TemplateRolls>;
  const n = news as Partial<TemplateRolls>;
  const out: string[] = [];
  for (const key of CONTAINER_KEYS) {
    const next = key === "env" ? [n.env, n.envDigest] : n[key];
    if (n[key] === undefined) continue;
    const prev = key === "env" ? [o.env, o.envDigest] : o[key];
    if (isUnknown(n[key]) || JSON.stringify(prev ?? null) !== JSON.stringify(next ?? null)) out.push(`template.${key}`);
  }
  return out;
}

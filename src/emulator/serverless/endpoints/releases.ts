// An endpoint's releases: what a save changed, in REST's names, and whether it rolls the
// workers. A save, or a change of the bound template, that changes at least one field makes a
// release (version + 1); the store keeps the newest 50. The rollout itself (stale workers
// replaced, jobs served meanwhile) is ../jobs/rollout.ts; this file only says what changed.

/** One changed field: `old` and `new` as REST shows them (`template.env`: the names only). */
export interface DiffEntry {
  field: string;
  old: unknown;
  new: unknown;
}

export interface ReleaseRecord {
  id: string;
  version: number;
  /** Clock ms of the save that made it. */
  createdAt: number;
  diff: DiffEntry[];
}

/** Releases an endpoint keeps (the oldest go first past it). */
export const MAX_RELEASES = 50;

/** The endpoint fields a release names, in REST's names, from the store's record. */
export interface ReleasedFields {
  gpuIds: string;
  gpuCount: number;
  workersMin: number;
  workersMax: number;
  scalerType: string;
  scalerValue: number;
  idleTimeout: number;
  flashBootType: string;
  networkVolumeId: string | null;
  executionTimeoutMs: number;
  dataCenterIds: string[];
  locations: string | null;
  name: string;
  templateId: string;
}

/** The bound template's fields a release names. */
export interface ReleasedTemplate {
  image: string;
  args: string;
  disk: number;
  ports: string[];
  registry: string | null;
  env: Record<string, string>;
}

/** Each endpoint field under its REST name, in the order a diff lists them. */
const ENDPOINT_FIELDS: [string, (e: ReleasedFields) => unknown][] = [
  ["gpu.pools", (e) => e.gpuIds.split(",")],
  ["gpu.count", (e) => e.gpuCount],
  ["workers.min", (e) => e.workersMin],
  ["workers.max", (e) => e.workersMax],
  ["scaling.type", (e) => e.scalerType],
  ["scaling.value", (e) => e.scalerValue],
  ["scaling.idleTimeout", (e) => e.idleTimeout],
  ["flashboot", (e) => e.flashBootType],
  ["networkVolumes", (e) => (e.networkVolumeId ? [e.networkVolumeId] : [])],
  ["timeout", (e) => e.executionTimeoutMs],
  ["dataCenterIds", (e) => [...e.dataCenterIds]],
  ["locations", (e) => e.locations],
  ["name", (e) => e.name],
  ["template.id", (e) => e.templateId],
];

/**
 * The template's fields; `env` shown by its variables' names, sorted (a release never shows a
 * value), and changed when any name or value changed: a new value is a new release too, which
 * then names the same variables on both sides.
 */
const TEMPLATE_FIELDS: [string, (t: ReleasedTemplate) => unknown, ((t: ReleasedTemplate) => unknown)?][] = [
  ["template.image", (t) => t.image],
  ["template.args", (t) => t.args],
  ["template.disk", (t) => t.disk],
  ["template.ports", (t) => [...t.ports]],
  ["template.registry", (t) => t.registry],
  ["template.env", (t) => Object.keys(t.env).sort(), (t) => Object.entries(t.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))],
];

/** Fields whose change the workers take at once, moving to the new version where they stand. */
const AT_ONCE = /^(name|workers\.|scaling\.|timeout$)/;

/** Whether a release with this diff replaces the workers (template, GPUs, FlashBoot, volume, placement). */
export function rolls(diff: readonly DiffEntry[]): boolean {
  return diff.some((d) => !AT_ONCE.test(d.field));
}

function diffOf<T>(fields: [string, (x: T) => unknown, ((x: T) => unknown)?][], before: T, after: T): DiffEntry[] {
  const out: DiffEntry[] = [];
  for (const [field, read, compared = read] of fields) {
    // Values are JSON (strings, numbers, null, arrays of strings): their text compares them.
    if (JSON.stringify(compared(before)) !== JSON.stringify(compared(after))) out.push({ field, old: read(before), new: read(after) });
  }
  return out;
}

/** What a save changed in the endpoint's own fields. */
export function endpointDiff(before: ReleasedFields, after: ReleasedFields): DiffEntry[] {
  return diffOf(ENDPOINT_FIELDS, before, after);
}

/** What a change of the bound template changed in the fields a release names. */
export function templateDiff(before: ReleasedTemplate, after: ReleasedTemplate): DiffEntry[] {
  return diffOf(TEMPLATE_FIELDS, before, after);
}

/** A template's change as a release names it, and the image it leaves. */
export function templateChange(before: ReleasedTemplate, after: ReleasedTemplate): { diff: DiffEntry[]; image: string } {
  return { diff: templateDiff(before, after), image: after.image };
}

/** A release's id: the endpoint's id and the version, so it is unique and survives a restart. */
export function releaseId(endpointId: string, version: number): string {
  return `rel-${endpointId}-v${version}`;
}

// Resource options the engine applies around a provider's answers: ignoreChanges before Check,
// replaceOnChanges after Diff (pkg/resource/deploy/step_generator.go).
import { isDeepStrictEqual } from "node:util";
import type { DiffResult } from "./plugin";
import { reveal } from "./wire";

/**
 * The engine's processIgnoreChanges: each listed property path (`a` or `a.b`) keeps its old
 * input value, or stays absent if it had none.
 */
export function ignoreChanges(news: Record<string, unknown>, olds: Record<string, unknown>, paths: string[]): Record<string, unknown> {
  const result = structuredClone(news);
  for (const p of paths) {
    const keys = p.split(".");
    let from: unknown = olds;
    let to: Record<string, unknown> | undefined = result;
    for (const [i, k] of keys.entries()) {
      from = typeof from === "object" && from !== null ? (from as Record<string, unknown>)[k] : undefined;
      if (i === keys.length - 1) {
        if (from === undefined) delete to[k];
        else to[k] = structuredClone(from);
      } else {
        const next: unknown = to[k];
        if (typeof next !== "object" || next === null) break;
        to = next as Record<string, unknown>;
      }
    }
  }
  return result;
}

/**
 * The engine's diffResource for a provider that answers DIFF_UNKNOWN: it compares the old and
 * new inputs itself (secrets unwrapped) and takes the top-level keys that differ as the
 * changed keys. A provider's DIFF_SOME or DIFF_NONE is kept as it is, with the changed keys it
 * sent (`diffs`), which Pulumi's Node.js dynamic-provider plugin never sends.
 */
export function settleUnknownDiff(diff: DiffResult, olds: Record<string, unknown>, news: Record<string, unknown>): DiffResult {
  if (diff.changes !== "unknown") return diff;
  const o = reveal(olds) as Record<string, unknown>;
  const n = reveal(news) as Record<string, unknown>;
  const changed = [...new Set([...Object.keys(o), ...Object.keys(n)])].filter((k) => !isDeepStrictEqual(o[k], n[k]));
  return { ...diff, changes: changed.length > 0 ? "some" : "none", diffs: changed };
}

/**
 * The engine's applyReplaceOnChanges: a changed key (`diffs`, the provider's or the engine's
 * own) that a `replaceOnChanges` path contains becomes a replace key; so does `#initerror` when
 * the old state has init errors and a path contains it. Paths contain a key when they are that
 * key or `*` (a longer path such as `a.b` contains only nested keys, which no changed key of a
 * dynamic provider names).
 */
export function applyReplaceOnChanges(diff: DiffResult, paths: readonly string[], hasInitErrors: boolean): DiffResult {
  if (diff.changes !== "some" && !hasInitErrors) return diff;
  const contains = (key: string) => paths.some((p) => p === "*" || p === key);
  const replaces = new Set(diff.replaces);
  for (const k of diff.diffs) if (contains(k)) replaces.add(k);
  let changes = diff.changes;
  if (hasInitErrors && contains("#initerror")) {
    replaces.add("#initerror");
    changes = "some";
  }
  return { ...diff, changes, replaces: [...replaces] };
}

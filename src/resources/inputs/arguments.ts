// The one rule for arguments a kind does not have, for every kind: the class passes them on
// (so a typo reaches check() instead of being dropped), and check() refuses each by name with
// the nearest argument the kind has: "imagee is not a Pod argument; did you mean image?".
// No I/O: the refusal comes at preview, before any request.
import type * as pulumi from "@pulumi/pulumi";
import { ACCOUNT_KEY } from "../engine/account";

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`, case ignored. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  // Row 0 is j edits (insert j letters); every other row starts at i, its cells past column 0
  // are filled below.
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : i)));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      // A swap of two neighbours. In row or column 1, s[i - 2] or t[j - 2] is undefined, which
      // equals no letter, so the test needs no bound of its own.
      if (s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[s.length]![t.length]!;
}

/**
 * The known name closest to `name`, when it is close enough to be the one meant: at most a
 * third of the longer name's letters edited (at least 2), or one name containing the other.
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  if (!best) return undefined;
  const limit = Math.max(2, Math.floor(Math.max(name.length, best.name.length) / 3));
  if (best.distance <= limit) return best.name;
  const lower = name.toLowerCase();
  return known.find((k) => name.length >= 3 && (k.toLowerCase().includes(lower) || lower.includes(k.toLowerCase())));
}

/**
 * The ids a refused id was probably meant to be (at most three), from a list already read (the
 * catalog's GPU types or CPU flavors, the GPU tiers): the ids holding every word of it, fewest
 * extra words first, so a missing word is found (`NVIDIA RTX 4090` → `NVIDIA GeForce RTX 4090`,
 * where the nearest by letters would be `NVIDIA RTX A6000`); else the nearest by `nearestName`'s rule.
 */
export function suggestIds(given: string, known: readonly string[]): string[] {
  // Stryker disable next-line MethodExpression: both sides are cased by this same function, so upper case matches as lower does
  const words = (s: string) => s.toLowerCase().split(/[\s_\-/]/).filter(Boolean);
  const wanted = words(given);
  const holding = known
    .map((id) => ({ id, words: words(id) }))
    .filter((k) => wanted.length > 0 && wanted.every((w) => k.words.includes(w)))
    .sort((a, b) => a.words.length - b.words.length);
  if (holding.length > 0) return holding.filter((k) => k.words.length === holding[0]!.words.length).slice(0, 3).map((k) => k.id);
  const near = nearestName(given, known);
  return near === undefined ? [] : [near];
}

/** `did you mean "a" or "b"?` for a refused id, or undefined when nothing is near. */
export function didYouMean(given: string, known: readonly string[]): string | undefined {
  const ids = suggestIds(given, known).map((id) => `"${id}"`);
  if (ids.length === 0) return undefined;
  return `did you mean ${ids.length === 1 ? ids[0] : `${ids.slice(0, -1).join(", ")} or ${ids.at(-1)}`}?`;
}

/** Why `name` is refused: what it is not, and the argument meant, or the arguments there are. */
export function unknownArgReason(kind: string, name: string, known: readonly string[]): string {
  const near = nearestName(name, known);
  return near !== undefined
    ? `${name} is not a ${kind} argument; did you mean ${near}?`
    : `${name} is not a ${kind} argument; its arguments are ${known.join(", ")}`;
}

/**
 * check()'s half: the inputs split into the kind's own arguments (`known`, and the keys the
 * engine or the class add, `reserved`), and one failure per other key, naming it and the
 * nearest argument. The schema then sees only the kind's own arguments.
 */
export function splitUnknownArgs(
  kind: string,
  inputs: Record<string, unknown>,
  known: readonly string[],
  reserved: ReadonlySet<string> = new Set(),
): { own: Record<string, unknown>; failures: pulumi.dynamic.CheckFailure[] } {
  const own: Record<string, unknown> = {};
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const [key, value] of Object.entries(inputs)) {
    if (reserved.has(key)) continue;
    if (known.includes(key)) own[key] = value;
    else failures.push({ property: key, reason: unknownArgReason(kind, key, known) });
  }
  return { own, failures };
}

/**
 * The class's half: the arguments a program gave that the kind does not have, to be passed
 * on with the known ones so check() can refuse them by name. `wrap` marks their values (a
 * credential's typo may hold a password: it stays secret).
 */
export function undeclaredArgs(
  args: object | undefined,
  known: readonly string[],
  wrap: (value: unknown) => unknown = (v) => v,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // `account` is every kind's argument, checked by the registry's wrapper, not by the kind.
  for (const [key, value] of Object.entries(args ?? {})) if (!known.includes(key) && key !== ACCOUNT_KEY) out[key] = wrap(value);
  return out;
}

/**
 * `Kind.get(name, id, state?, opts?)`'s `state`, as Pulumi's providers take it: refused, naming
 * the field, when it holds what is not one of `fields` (a resource option passed third, as the
 * two-argument form of 0.2.0 and earlier took it, most likely), before anything is registered.
 */
export function checkGetState(kind: string, state: object | undefined, fields: readonly string[]): void {
  const stray = Object.keys(state ?? {}).filter((k) => !fields.includes(k));
  if (stray.length === 0) return;
  throw new Error(
    `${kind}.get(name, id, state?, opts?): ${stray.map((k) => `"${k}"`).join(", ")} is not a field of its state (${fields.join(", ")}); ` +
      "resource options such as provider, protect or dependsOn go fourth",
  );
}

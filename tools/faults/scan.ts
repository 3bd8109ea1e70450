import { inspect } from "node:util";

/**
 * Every text an error shows anyone: message, stack, its JSON, its full inspection (hidden
 * properties included), and the same for each cause and each inner error, however deep.
 */
export function errorSurfaces(err: unknown, seen = new Set<unknown>()): string[] {
  if (err === null || err === undefined || seen.has(err)) return [];
  seen.add(err);
  const out = [inspect(err, { depth: 20, showHidden: true })];
  if (typeof err !== "object") return [...out, String(err)];
  const e = err as { message?: unknown; stack?: unknown; cause?: unknown; errors?: unknown };
  out.push(String(e.message ?? ""), String(e.stack ?? ""));
  try {
    out.push(JSON.stringify(err, Object.getOwnPropertyNames(err)));
    out.push(JSON.stringify(err));
  } catch {
    // A circular error is still inspected above.
  }
  out.push(...errorSurfaces(e.cause, seen));
  if (Array.isArray(e.errors)) for (const inner of e.errors) out.push(...errorSurfaces(inner, seen));
  return out;
}

/** Which of the named places contain `secret` (empty: none does). */
export function placesWith(secret: string, places: Record<string, string>): string[] {
  return Object.entries(places)
    .filter(([, text]) => text.includes(secret))
    .map(([name]) => name);
}

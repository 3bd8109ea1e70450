/**
 * What a resource's state records, written once for every kind.
 *
 * A dynamic provider's `diff` sees only the old outputs, so the outputs carry two things: the
 * platform's object as last read, and the record of what was last applied successfully (which
 * properties the program declared, the name it applied, a preference list, ...). The rule:
 *
 * - A step that succeeds records what it applied.
 * - A step that fails leaves the record of what it did not apply as it was, so the next preview
 *   still shows the change and the next up applies it. When the platform confirmed part of the
 *   step (its write answered, a later wait or action failed), only that part is recorded.
 *
 * Terraform's SDK once wrote the planned values into state when an update failed, and providers
 * had to stop persisting the diff on error; this module is where that cannot happen here.
 *
 * Second rule: nothing derived from an input is stored in plain text under another name (Pulumi
 * keeps a secret's mark only on the output of the input's own name). Where the bookkeeping only
 * compares a value, it keeps {@link recordKey} of it instead.
 */
import { shortHash } from "./owner";

/**
 * The record after a step: `attempted` where the platform confirmed it, `previous` elsewhere.
 * `confirmed` lists the fields of the record the platform took ("all" or "none" for the whole
 * record). With no previous record (state of an earlier release, or a create) the attempted
 * fields stand only where confirmed; the others are left out.
 */
export function recordAfterStep<R extends object>(previous: R | undefined, attempted: R, confirmed: "all" | "none" | readonly (keyof R)[]): R | undefined {
  if (confirmed === "all") return attempted;
  if (confirmed === "none") return previous;
  const out = { ...(previous ?? {}) } as R;
  for (const key of confirmed) {
    if (attempted[key] === undefined) delete out[key];
    else out[key] = attempted[key];
  }
  return out;
}

/**
 * A key of `value` for comparing a later declaration with it, without keeping the value: the
 * first 16 hex of the sha256 of its canonical JSON, with a fixed prefix naming the purpose.
 */
export function recordKey(value: unknown): string {
  return shortHash(`computeplatform/record/${canonical(value)}`);
}

/** A stable text of a JSON value: object keys sorted, so key order never counts. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

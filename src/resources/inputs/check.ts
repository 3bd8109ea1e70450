import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { LOGICAL_NAME_KEY, resolveName } from "../lifecycle/owner";
import { splitUnknownArgs } from "./arguments";

/**
 * The marker Pulumi's engine sends for a value not known yet (during preview, an input that
 * depends on another resource's output). `check()` lets it through; it is checked when known.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/** True when the value or anything inside it is unknown. */
export function containsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/**
 * The GPU types a `gpu.id` names, in order of preference: a single id is a list of one. A pod
 * declares it so, and the cost ledger records it as declared.
 */
export function gpuChoices<T>(id: T | T[]): T[] {
  return Array.isArray(id) ? id : [id];
}

/** What a change of each property takes: a new object, or an update in place. */
export type ChangeVerdicts = Readonly<Record<string, "replace" | "update">>;

/**
 * A plan at preview, where any input may still be unknown: `plan` runs over the inputs
 * without the properties that are wholly unknown, and each of those is added with its
 * verdict from `verdicts` (the worst case, since the value may turn out to be anything).
 * The planning code of each kind then deals only with known values and partly unknown ones.
 */
export function planWithUnknowns<T extends object, P extends { replaces: string[]; updates: string[] }>(
  news: T,
  verdicts: ChangeVerdicts,
  plan: (known: T) => P,
): P {
  const unknown = Object.keys(news).filter((k) => verdicts[k] !== undefined && isUnknown((news as Record<string, unknown>)[k]));
  if (unknown.length === 0) return plan(news);
  const known = Object.fromEntries(Object.entries(news).filter(([k]) => !unknown.includes(k))) as T;
  const result = plan(known);
  const verdict = (key: string) => verdicts[key] === "replace";
  // The planner saw the key as removed; the worst case of any value decides instead.
  const replaces = result.replaces.filter((k) => !unknown.includes(k) || verdict(k));
  const updates = result.updates.filter((k) => !unknown.includes(k));
  for (const key of unknown) {
    const list = verdict(key) ? replaces : updates;
    if (!list.includes(key)) list.push(key);
  }
  return { ...result, replaces, updates };
}

/** `a.b[0].c` for a zod issue path, the way a user writes the property in a program. */
export function propertyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/**
 * zod issues as Pulumi check failures. Issues whose input was unknown at preview are
 * dropped: the value is checked again when it is known.
 */
export function checkFailures(error: z.ZodError, inputs: unknown): pulumi.dynamic.CheckFailure[] {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const issue of error.issues) {
    if (containsUnknown(valueAt(inputs, issue.path))) continue;
    const property = propertyPath(issue.path);
    failures.push({ property: property || "(inputs)", reason: issue.message });
  }
  return failures;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: any = root;
  for (const part of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = cur[part as any];
  }
  return cur;
}

/** The value as JSON would carry it: keys with `undefined` left out, `undefined` in arrays null. */
export function defined<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : defined(v))) as T;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = defined(v);
    return out as T;
  }
  return value;
}

/** Properties the engine or a resource class add to the inputs; never the user's. */
const ENGINE_KEYS = new Set(["__provider", LOGICAL_NAME_KEY]);

/**
 * The `check()` of a kind whose inputs are flat and auto-named (a volume, a credential): the
 * name settled (given, else the old one, else auto-made from the logical name), optional
 * properties given as null or undefined left out, a property `kind` does not have refused by
 * name (arguments.ts), and the user's properties parsed by `schema`, failures as
 * `{ property, reason }`.
 */
export function checkNamedArgs<T>(
  kind: string,
  schema: z.ZodObject,
  olds: Record<string, unknown> | undefined,
  news: Record<string, unknown>,
  fallbackName: string,
  optional: readonly string[],
): pulumi.dynamic.CheckResult<T> & { failures: pulumi.dynamic.CheckFailure[] } {
  const logicalName = typeof news[LOGICAL_NAME_KEY] === "string" ? (news[LOGICAL_NAME_KEY] as string) : fallbackName;
  const inputs: Record<string, unknown> = { ...news, name: resolveName(news.name, olds as { name?: unknown }, logicalName) };
  for (const key of optional) if (inputs[key] === undefined || inputs[key] === null) delete inputs[key];
  const { own, failures } = splitUnknownArgs(kind, inputs, Object.keys(schema.shape), ENGINE_KEYS);
  const parsed = schema.safeParse(own);
  if (!parsed.success) failures.push(...checkFailures(parsed.error, own));
  return { inputs: inputs as T, failures };
}

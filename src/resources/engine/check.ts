import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";

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

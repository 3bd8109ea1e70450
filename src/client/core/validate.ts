import type { z } from "zod";
import type { FieldIssue } from "./errors";

/** `["mounts", "network", 0, "path"]` as `mounts.network[0].path`. */
export function dottedPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/**
 * zod issues as field issues whose message says what to change. With the checked `value`,
 * a missing enum or union field reads "is required" rather than "must be one of ...".
 */
export function fieldIssues(error: z.ZodError, value?: unknown): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    const path = dottedPath(issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        out.push({ path: path ? `${path}.${key}` : key, message: "is not an allowed property" });
      }
      continue;
    }
    let message: string;
    // (At the top level the checked value itself is never missing: it was given.)
    const missing = value !== undefined && at(value, issue.path) === undefined;
    if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) message = "is required";
    else if (missing && (issue.code === "invalid_value" || issue.code === "invalid_union")) message = "is required";
    else if (issue.code === "too_small") {
      message =
        issue.origin === "string"
          ? `must be at least ${issue.minimum} character(s) long`
          : issue.origin === "array"
            ? `must have at least ${issue.minimum} item(s)`
            : `must be >= ${issue.minimum}`;
    } else if (issue.code === "too_big") {
      message = issue.origin === "array" ? `must have at most ${issue.maximum} item(s)` : `must be <= ${issue.maximum}`;
    } else if (issue.code === "custom") {
      // Our own refinements are written as predicates of the field ("must be a power of two").
      message = issue.message;
    } else if (issue.code === "invalid_value") {
      message = `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    } else {
      message = path ? `is invalid (${issue.message})` : issue.message;
    }
    out.push({ path, message });
  }
  return out;
}

import { randomBytes } from "node:crypto";

/**
 * Pulumi-style auto-naming: the resource's logical name plus a random suffix, so the same
 * program deployed to two stacks (dev and prod) never collides on the platform.
 * The suffix is 7 lowercase hex characters, as Pulumi's own providers use.
 */
export function autoName(resourceName: string, random: () => Buffer = () => randomBytes(4)): string {
  return `${resourceName}-${random().toString("hex").slice(0, 7)}`;
}

/**
 * The name a `check()` settles on: the user's, else the one generated before (kept in the
 * old inputs, so an update never renames), else a new one.
 */
export function resolveName(
  given: unknown,
  oldInputs: { name?: unknown } | undefined,
  resourceName: string,
): unknown {
  if (given !== undefined && given !== null && given !== "") return given;
  if (typeof oldInputs?.name === "string" && oldInputs.name !== "") return oldInputs.name;
  return autoName(resourceName);
}

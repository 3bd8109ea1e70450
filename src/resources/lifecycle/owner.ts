import { createHash, randomBytes } from "node:crypto";

/**
 * Pulumi-style auto-naming: the resource's logical name plus a 7-hex suffix, so the same
 * program deployed to two stacks (dev and prod) never collides on the platform. The suffix
 * comes from the owner token when there is one (so a create retried after a crash picks the
 * same name), else it is random.
 */
export function autoName(resourceName: string, random: () => Buffer = () => randomBytes(4), token?: string): string {
  // Stryker disable next-line ConditionalExpression: the test of undefined reads "undefined", not hex, so the first test only says it
  const suffix = token !== undefined && /^[0-9a-f]{7,}$/.test(token) ? token : random().toString("hex");
  return `${resourceName}-${suffix.slice(0, 7)}`;
}

// ---------------------------------------------------------------------------------------------
// Unfinished creates versus objects handed to a stack
//
// An owned create names its object `<name>~creating` until it hands it to the engine, then
// gives it its name (a rename applies at once on the platform: a pod is not restarted). So an
// object with the pending name is a create that never finished (the plugin died, or its answer
// was lost), and only those are earlier tries a later create may take over or delete. An object
// that finished is the user's from then on: if it leaves the stack (`retainOnDelete`, `pulumi
// state delete`) and the program declares the same logical name again, the new create makes a
// new object and leaves that one alone.
// ---------------------------------------------------------------------------------------------

/** What an owned create adds to its object's name until the create finishes. */
export const PENDING_SUFFIX = "~creating";

/** The name an owned create gives its object until it hands it over. */
export function pendingName(name: string): string {
  return `${name}${PENDING_SUFFIX}`;
}

/** Whether `name` is a pending name: the object's create never finished. */
export function isPendingName(name: unknown): boolean {
  return typeof name === "string" && name.endsWith(PENDING_SUFFIX);
}

/** Whether checked `inputs` carry the auto-name of their owner token (not a name the program gave). */
export function isAutoNamed(inputs: Record<string, unknown> | undefined): boolean {
  const token = inputs?.[OWNER_TOKEN_KEY];
  const logical = inputs?.[LOGICAL_NAME_KEY];
  // Stryker disable next-line OptionalChaining: without inputs the token is undefined and the test ends before it
  return typeof token === "string" && typeof logical === "string" && inputs?.name === autoName(logical, undefined, token);
}

/**
 * The name a `check()` settles on: the user's, else the one generated before (kept in the
 * old inputs, so an update never renames), else a new one (from `token` when given).
 */
export function resolveName(
  given: unknown,
  oldInputs: { name?: unknown } | undefined,
  resourceName: string,
  token?: string,
): unknown {
  if (given !== undefined && given !== null && given !== "") return given;
  if (typeof oldInputs?.name === "string" && oldInputs.name !== "") return oldInputs.name;
  return autoName(resourceName, undefined, token);
}

// ---------------------------------------------------------------------------------------------
// Owner tokens: finding a create again after the plugin died mid-create
//
// When the plugin is killed after the platform made a pod but before Pulumi got its id, the
// engine's state has nothing, and the next `up` creates again. Only the platform and the
// program survive, so the create must be findable from what the program gives: its
// organization, project, stack, parents, kind and logical name (hidden inputs set by the
// resource class). The hash of those, the base token, goes on every pod (env) and into every
// auto-name.
//
// A dynamic provider sees no URN and no state, and Pulumi's engine checks every create with no
// old inputs (a new resource, the second check of a replacement, and `pulumi up --replace`
// alike), so the token alone cannot tell a pod left by a crash from the pod being replaced.
// What the engine does give, in the same plugin process: a replacement driven by `diff`
// (a replacing property, or `replaceOnChanges`) calls `diff` with the old id first. The
// provider remembers it, and the second check derives the token from (base, old id): the
// replacement's token differs from every older pod's, and a retry after a crash (which diffs
// the same old pod again) derives the same one. So:
//   - token from (base, old id): a live pod with it is an earlier try of this very
//     replacement, never in any state: adopt it.
//   - base token, no old id known (a new resource, or `--replace`): a live pod with it is
//     either a crash's leftover or the current pod of a forced replace, and nothing tells
//     which. Neither may be adopted (the engine deletes the current one next), so a new pod
//     is made and those are terminated once it exists: exactly what a replace does, and a
//     leftover is cleaned up.
// ---------------------------------------------------------------------------------------------

/** Hidden inputs the resource classes add next to `__logicalName`. */
export const OWNER_INPUT_KEYS = ["__organization", "__project", "__stack", "__parents"] as const;
/** The hidden input that carries the resource's logical name; every resource class sets it. */
export const LOGICAL_NAME_KEY = "__logicalName";
/** The input that carries the token `check()` settled on. */
export const OWNER_TOKEN_KEY = "__ownerToken";

/** sha256 hex, first 16 characters. */
export function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The base token of a resource: who declares it, as the program says. */
export function baseOwnerToken(kind: string, inputs: Record<string, unknown>, logicalName: string): string {
  const part = (k: string) => (typeof inputs[k] === "string" ? (inputs[k] as string) : "");
  return shortHash(
    JSON.stringify([kind, part("__organization"), part("__project"), part("__stack"), part("__parents"), logicalName]),
  );
}

/** The base token of checked inputs (undefined without a logical name). */
export function baseOf(kind: string, inputs: Record<string, unknown>): string | undefined {
  const logicalName = inputs[LOGICAL_NAME_KEY];
  return typeof logicalName === "string" && logicalName !== "" ? baseOwnerToken(kind, inputs, logicalName) : undefined;
}

/** The token of the pod that replaces the one with id `predecessor`. */
export function replacementToken(base: string, predecessor: string): string {
  return shortHash(`${base}/${predecessor}`);
}

/**
 * The owner token a `check()` settles on: the one already settled (old inputs carry it
 * through updates), else from (base, old id) when a `diff` in this process showed which
 * object is being replaced, else the base token.
 */
export function ownerToken(
  kind: string,
  olds: Record<string, unknown> | undefined,
  news: Record<string, unknown>,
  predecessorOf: (base: string) => string | undefined = () => undefined,
): string | undefined {
  const kept = olds !== null && typeof olds === "object" ? olds[OWNER_TOKEN_KEY] : undefined;
  if (typeof kept === "string" && kept !== "") return kept;
  // Without the resource's logical name (a provider driven directly, not through the resource
  // class) there is no identity to own anything by: no token, and nothing is looked for.
  const logicalName = news[LOGICAL_NAME_KEY];
  if (typeof logicalName !== "string" || logicalName === "") return undefined;
  const base = baseOwnerToken(kind, news, logicalName);
  const old = predecessorOf(base);
  return old === undefined ? base : replacementToken(base, old);
}

/**
 * The hidden inputs a resource class registers: organization, project and stack from the
 * running program, and the ancestry (type and name of each parent), so two resources of the
 * same logical name under different components never share a token.
 */
export function ownerInputs(
  parent: unknown,
  program: { organization(): string; project(): string; stack(): string },
): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (k: string, f: () => string) => {
    try {
      const v = f();
      if (typeof v === "string" && v !== "") out[k] = v;
    } catch {
      // Outside a Pulumi program (a unit test constructing a resource): nothing to add.
    }
  };
  put("__organization", program.organization);
  put("__project", program.project);
  put("__stack", program.stack);
  // The SDK keeps each resource's type and name on it; its own alias logic reads them too.
  const chain: string[] = [];
  let p = parent as { __pulumiType?: unknown; __name?: unknown; __parentResource?: unknown } | undefined;
  for (let depth = 0; p && depth < 64; depth++) {
    if (typeof p.__pulumiType === "string" && p.__pulumiType !== "pulumi:pulumi:Stack") chain.push(`${p.__pulumiType}::${String(p.__name)}`);
    p = p.__parentResource as typeof p;
  }
  if (chain.length > 0) out.__parents = chain.reverse().join("$");
  return out;
}

/**
 * What a `diff` saw, for the `check` and `create` of a replacement in the same process: the
 * old id behind each base token. Forgotten when that id is deleted.
 */
export class Predecessors {
  private readonly byBase = new Map<string, string>();

  record(base: string | undefined, id: string): void {
    if (base && id) this.byBase.set(base, id);
  }

  get(base: string | undefined): string | undefined {
    // Stryker disable next-line ConditionalExpression: the map has no undefined key either; the test is for the type
    return base === undefined ? undefined : this.byBase.get(base);
  }

  forget(id: string): void {
    for (const [base, known] of this.byBase) if (known === id) this.byBase.delete(base);
  }
}

// ---------------------------------------------------------------------------------------------
// Stack marks: whose stack an object is, readable on the platform
//
// An owner token is a hash: it finds a create again, but nobody reading the account can tell
// from it which stack made a pod. So a pod also carries its stack in clear (env
// `COMPUTEPLATFORM_STACK`, `<organization>/<project>/<stack>`): the budget kept at each write
// counts the stack's own pods by it, and the account's budget names the stack of each spender.
// Endpoints have no field to carry it (GraphQL's input has none), and pods made before the mark
// existed lack it: those are the account's, of no stack anyone can name.
// ---------------------------------------------------------------------------------------------

/** The env key a pod carries its stack in. */
export const STACK_MARK_ENV = "COMPUTEPLATFORM_STACK";

/**
 * The stack of checked inputs, `<organization>/<project>/<stack>` (`<project>/<stack>` where the
 * program knows no organization); undefined without the hidden inputs that say it.
 */
export function stackOf(inputs: Record<string, unknown> | undefined): string | undefined {
  // An empty part is no part: an empty project or stack says no stack, an empty organization is left out.
  const part = (k: string) => (typeof inputs?.[k] === "string" ? (inputs[k] as string) : undefined);
  const [organization, project, stack] = [part("__organization"), part("__project"), part("__stack")];
  if (!project || !stack) return undefined;
  return [organization, project, stack].filter(Boolean).join("/");
}

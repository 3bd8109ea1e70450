/*
 * Adoption: one way in for an object that already runs (`adopt: "<id>"`), written once for every
 * kind. `pulumi import` and the `import` option cannot work for dynamic resources
 * (pulumi/pulumi#16175), so the resource takes the object over in its create:
 *
 *   check   (a create only: no old inputs) reads the object once. A refusal is a check failure on
 *           `adopt`, so the preview stops before any write, naming the way out; otherwise the
 *           preview's log says that the resource adopts and which fields its first `up` changes.
 *   create  reads it again and refuses the same way (the object may have changed since), then
 *           hands the kind its baseline (the object as state would hold it had this resource made
 *           it): the kind's own update sends only what differs. Nothing is ever created.
 *   diff    a replacement while `adopt` still names the object in state is refused: the new
 *           resource would adopt the same object, and the engine would then delete it as the old.
 *
 * What the platform lets the provider know about ownership, each kind says in `refuse` (a pod's
 * owner mark, the pending name of an unfinished create); within one plugin process (one
 * deployment), two resources adopting one object are refused here.
 */
import * as pulumi from "@pulumi/pulumi";
import { type ComputePlatform, NotFoundError } from "../../client";
import { isPendingName, PENDING_SUFFIX } from "./owner";

/** The input that names the object to adopt. */
export const ADOPT_KEY = "adopt";

/** What one kind brings to adoption. `T`: the object as read; `O`: its state; `I`: checked inputs. */
export interface Adoptable<T, O, I> {
  /** The resource kind, as messages name it: `NetworkVolume`. */
  kind: string;
  /** The object, as messages name it: `network volume`. */
  noun: string;
  /** The object by id; undefined when the platform has none. */
  find(id: string): Promise<T | undefined>;
  /** The object as state would hold it had this resource made it. */
  baseline(live: T, inputs: I): O;
  /** The change from the baseline to the inputs (the kind's own verdict). */
  plan(baseline: O, inputs: I): { replaces: string[]; updates: string[]; refused?: string };
  /** The fields that cannot change, as the object has them: `dataCenter: "EU-RO-1"`. */
  fixed(live: T): string;
  /** What to do instead of changing a fixed field, e.g. `remove adopt to create a new volume`. */
  wayOut: string;
  /** Why this object may not be adopted although it exists (owned elsewhere, say), or undefined. */
  refuse?(live: T, inputs: I): string | undefined | Promise<string | undefined>;
  /** What the preview's note adds about this kind's adoption (what cannot be read back, say). */
  caveat?: string;
  /**
   * The account the other kinds are asked on when there is no object of this kind with the id,
   * so the refusal can say which kind has it (`kindOfId`).
   */
  account?: { client: KindLookup; signal?: AbortSignal };
}

/** What {@link kindOfId} asks of the client: the read of each kind it has. */
export type KindLookup = Partial<Pick<ComputePlatform, "pods" | "networkVolumes" | "templates" | "registries" | "serverless">>;

/** An adoption the kind's rules or the platform refuse; the message says why and what to do. */
export class AdoptionRefused extends Error {
  constructor(message: string) {
    super(`adopt: ${message}`);
    this.name = "AdoptionRefused";
  }
}

/** The object found and what the first `up` changes on it. */
export interface Adoption<T, O> {
  /** The object's id: the resource's from now on. */
  id: string;
  live: T;
  baseline: O;
  updates: string[];
  /** Fields not known yet (a preview): checked, and updated if they differ, at up. */
  deferred: string[];
}

/** Whether a value holds one not known until another resource is made (a preview's inputs). */
function holdsUnknown(v: unknown): boolean {
  if (v === pulumi.runtime.unknownValue) return true;
  return v !== null && typeof v === "object" && Object.values(v).some(holdsUnknown);
}

/**
 * Read the object and apply every rule; throws {@link AdoptionRefused}. At a preview a field that
 * takes another resource's output not made yet (an adopted volume's id) is unknown: it is not
 * refused then (`deferred` names it), and create checks it once known.
 */
export async function lookAdoption<T, O, I>(a: Adoptable<T, O, I>, id: string, inputs: I): Promise<Adoption<T, O>> {
  const live = await a.find(id);
  if (live === undefined) {
    const other = a.account ? await kindOfId(a.account.client, id, a.kind, a.account.signal) : undefined;
    throw new AdoptionRefused(
      `there is no ${a.noun} with ID ${id}` + (other ? `: ${id} is ${other} ID; declare it with that kind's resource` : ""),
    );
  }
  const refused = await a.refuse?.(live, inputs);
  if (refused) throw new AdoptionRefused(`${a.noun} ${id} ${refused}`);
  const baseline = a.baseline(live, inputs);
  const change = a.plan(baseline, inputs);
  if (change.refused) throw new AdoptionRefused(`${a.noun} ${id}: ${change.refused}`);
  const given = inputs as Record<string, unknown>;
  const deferred = change.replaces.filter((p) => holdsUnknown(given[p]));
  const replaces = change.replaces.filter((p) => !deferred.includes(p));
  if (replaces.length > 0) {
    throw new AdoptionRefused(
      `${a.noun} ${id} differs from the declaration in ${replaces.join(", ")}, which cannot change on an existing ` +
        `${a.noun}; declare ${replaces.length > 1 ? "them" : "it"} as the ${a.noun} has ${replaces.length > 1 ? "them" : "it"} (${a.fixed(live)}), or ${a.wayOut}`,
    );
  }
  return { id, live, baseline, updates: change.updates.filter((p) => !holdsUnknown(given[p])), deferred: [...deferred, ...change.updates.filter((p) => holdsUnknown(given[p]))] };
}

// Objects adopted in this plugin process (one deployment), by kind and id: who took each.
const claims = new Map<string, string>();

/** Hold `id` for `claimant`; a refusal when another resource of this deployment holds it. */
function claim(kind: string, id: string, claimant: string): void {
  const key = `${kind}/${id}`;
  const held = claims.get(key);
  if (held !== undefined && held !== claimant) {
    throw new AdoptionRefused(`${kind} ${id} is adopted by another resource of this deployment (${held}): one object, one resource`);
  }
  claims.set(key, claimant);
}

/** The resource's object was deleted (or the adoption failed): another resource may adopt that id now. */
export function releaseClaim(kind: string, id: string): void {
  claims.delete(`${kind}/${id}`);
}

/** The refusal of an object whose create never finished (owner.ts), or undefined. */
export function unfinishedCreate(name: unknown): string | undefined {
  if (!isPendingName(name)) return undefined;
  return (
    `is an unfinished create of a stack (its name ends in ${PENDING_SUFFIX}): that stack's next up takes it over or ` +
    "deletes it. Adopt it once that create has finished, or delete it by hand"
  );
}

/** How a resource is named in messages and claims: its logical name when the class gave one. */
function who(a: { kind: string }, inputs: unknown): string {
  const logical = (inputs as Record<string, unknown> | undefined)?.__logicalName;
  return typeof logical === "string" ? `${a.kind} "${logical}"` : a.kind;
}

/** Where a preview's note goes: the plugin's log, shown beside the resource's step. */
export type Note = (line: string) => void;
export const logNote: Note = (line) => void pulumi.log.info(line);

/**
 * `check()` of a create that adopts: read the object once; a refusal is a failure on `adopt`, else
 * a note that says what the first `up` does to it. Not a create (old inputs), nothing known to
 * adopt yet (`id` undefined), or failures already: no request.
 */
export async function checkAdoption<T, O, I>(
  a: Adoptable<T, O, I>,
  olds: Record<string, unknown> | undefined,
  id: string | undefined,
  result: pulumi.dynamic.CheckResult<I>,
  note: Note = logNote,
): Promise<pulumi.dynamic.CheckResult<I>> {
  const failures = result.failures ?? [];
  if (id === undefined || failures.length > 0 || (olds !== undefined && Object.keys(olds).length > 0)) return result;
  const inputs = result.inputs as I;
  try {
    const { updates, deferred } = await lookAdoption(a, id, inputs);
    claim(a.kind, id, who(a, inputs));
    note(
      `${who(a, inputs)} adopts ${a.noun} ${id}: nothing is created; ` +
        (updates.length > 0 ? `the first up updates ${updates.join(", ")} in place` : "the first up changes nothing on it") +
        (deferred.length > 0 ? ` (${deferred.join(", ")}: known at up, from resources not made yet)` : "") +
        (a.caveat ? `; ${a.caveat}` : ""),
    );
    return result;
  } catch (err) {
    if (!(err instanceof AdoptionRefused)) throw err;
    return { ...result, failures: [...failures, { property: ADOPT_KEY, reason: err.message }] };
  }
}

/**
 * `create()` of a resource that adopts: read and refuse as at check, then `takeOver` from the
 * baseline (the kind's update: only what differs is sent). The id is the object's own.
 */
export async function adopt<T, O, I, R>(a: Adoptable<T, O, I>, id: string, inputs: I, takeOver: (found: Adoption<T, O>) => Promise<R>): Promise<R> {
  const found = await lookAdoption(a, id, inputs);
  claim(a.kind, id, who(a, inputs));
  try {
    return await takeOver(found);
  } catch (err) {
    // The object stays the user's as it was found, unless the kind's error handed its id to the engine.
    releaseClaim(a.kind, id);
    throw err;
  }
}

/**
 * `diff()`: a replacement while `adopt` names the object in state would adopt that same object
 * again, and the engine would then delete it as the old one. Refused, with the way out.
 */
export function refuseReplaceWhileAdopted(kind: string, name: string, id: string, news: Record<string, unknown>, replaces: readonly string[]): void {
  if (replaces.length === 0 || news[ADOPT_KEY] !== id) return;
  throw new Error(
    `${kind} ${name}: ${replaces.join(", ")} cannot change on an adopted object while adopt is set (a new one would adopt ` +
      `${id} again, then delete it). Remove adopt to let Pulumi create a new one and delete this one, or change the program back.`,
  );
}

/**
 * The kind whose object has this id, as `a template's`, looked up only after the kind asked for
 * had none: one GET per other kind (an endpoint over REST), each 404 meaning no.
 */
export async function kindOfId(
  client: KindLookup,
  id: string,
  except: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const opts = signal ? { signal } : {};
  // A client made for some kinds alone (a test's) is asked only about those.
  const kinds: [string, (() => Promise<unknown>) | undefined][] = [
    ["Pod", client.pods && (() => client.pods!.get(id, opts))],
    ["NetworkVolume", client.networkVolumes && (() => client.networkVolumes!.get(id, opts))],
    ["Template", client.templates && (() => client.templates!.get(id, opts))],
    ["RegistryCredential", client.registries && (() => client.registries!.get(id, opts))],
    ["ServerlessEndpoint", client.serverless && (() => client.serverless!.get(id, opts))],
  ];
  for (const [kind, get] of kinds) {
    if (kind === except || get === undefined) continue;
    try {
      const found = (await get()) as { status?: string } | undefined;
      if (found && found.status !== "TERMINATED") return `a ${kind}'s`;
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  return undefined;
}

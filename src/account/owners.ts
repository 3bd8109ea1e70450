/*
 * Who owns an object of the account. The strongest answer is a stack's own state (`pulumi stack
 * export`): it names the stack and the resource. Without it, the platform carries two marks the
 * resources write: a pod a stack made holds its stack in env (`COMPUTEPLATFORM_STACK`; one made
 * before that mark existed, only its owner mark, a hash that cannot be read back), and an
 * unfinished create's object carries the pending name. Everything
 * else cannot be told apart from a hand-made object, and the sweep says so.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { isPendingName, PENDING_SUFFIX, STACK_MARK_ENV } from "../resources/lifecycle/owner";
import { OWNER_ENV } from "../resources/pod/schema";
import type { Kind } from "./kinds";

/** Who owns an object, and how the sweep knows. */
export interface Owner {
  /** `state`: a given stack's state holds it; `mark`: a stack made it (pod owner mark); `unfinished`: a create that never finished; `unmarked`: a pod with no mark; `unknown`: the platform keeps no mark on this kind. */
  by: "state" | "mark" | "unfinished" | "unmarked" | "unknown";
  /** The stacks whose state holds it (`project/stack`), when known. */
  stacks?: string[];
  /** The resource that holds it (`Kind::name`), when a state names it. */
  resource?: string;
  /** What a reader is told. */
  text: string;
}

/** Object id -> the stacks (and resources) whose state holds it. */
export type StateOwners = Map<string, { stack: string; resource: string }[]>;

/** A resource of a state, as `pulumi stack export` writes it (and the engine rig's state). */
interface StateResource {
  urn?: string;
  type?: string;
  id?: string;
}

/** The resources of a state file: an export (`deployment.resources`), a checkpoint, or a bare list. */
function resourcesOf(doc: unknown): StateResource[] {
  const d = doc as { deployment?: { resources?: unknown }; checkpoint?: { latest?: { resources?: unknown } } } | unknown[];
  const list = Array.isArray(d) ? d : (d?.deployment?.resources ?? d?.checkpoint?.latest?.resources);
  if (!Array.isArray(list)) throw new Error("not a Pulumi state: expected `pulumi stack export` output (deployment.resources)");
  return list as StateResource[];
}

/** `project/stack` and `Kind::name` of a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`). */
function fromUrn(urn: string | undefined, fallback: string): { stack: string; resource: string } {
  const m = /^urn:pulumi:([^:]+)::([^:]+)::(.+)::([^:]*)$/.exec(urn ?? "");
  if (!m) return { stack: fallback, resource: urn ?? "" };
  const kind = m[3]!.split("$").at(-1)!.split(":").at(-1)!;
  return { stack: `${m[2]}/${m[1]}`, resource: `${kind}::${m[4]}` };
}

/** Read state files (exported states): which stack holds which object id. */
export function readStates(files: readonly string[], read: (file: string) => string = (f) => readFileSync(f, "utf8")): StateOwners {
  const owners: StateOwners = new Map();
  for (const file of files) {
    let doc: unknown;
    try {
      doc = JSON.parse(read(file));
    } catch (err) {
      throw new Error(`--state ${file}: ${(err as { message?: unknown })?.message ?? String(err)}`);
    }
    for (const r of resourcesOf(doc)) {
      if (typeof r.id !== "string" || r.id === "" || !(r.type ?? r.urn ?? "").includes("computeplatform")) continue;
      const held = fromUrn(r.urn, basename(file));
      owners.set(r.id, [...(owners.get(r.id) ?? []), held]);
    }
  }
  return owners;
}

const NOUNS: Record<Kind, string> = {
  Pod: "pods",
  ServerlessEndpoint: "endpoints",
  NetworkVolume: "volumes",
  Template: "templates",
  RegistryCredential: "credentials",
};

/** Who owns `o` of `kind`, from the states given, else the platform's marks. */
export function ownerOf(kind: Kind, o: { id: string; name?: string | null; env?: Record<string, string> | null }, states: StateOwners): Owner {
  const held = states.get(o.id);
  if (held && held.length > 0) {
    const stacks = [...new Set(held.map((h) => h.stack))];
    const text = stacks.length > 1 ? `${stacks.length} stacks: ${stacks.join(", ")} (each would change and delete it)` : `stack ${stacks[0]} (${held[0]!.resource})`;
    return { by: "state", stacks, resource: held[0]!.resource, text };
  }
  if (isPendingName(o.name)) {
    return { by: "unfinished", text: `an unfinished create (name ends in ${PENDING_SUFFIX}): its stack's next up takes it over or deletes it; else delete it` };
  }
  if (kind === "Pod") {
    const stack = o.env?.[STACK_MARK_ENV];
    if (typeof stack === "string" && stack !== "") return { by: "mark", stacks: [stack], text: `stack ${stack} (its pod's stack mark)` };
    const mark = o.env?.[OWNER_ENV];
    if (typeof mark === "string" && mark !== "") {
      return { by: "mark", text: `a Pulumi stack (owner mark ${mark.split(".")[0]}; --state names it)` };
    }
    return { by: "unmarked", text: "no stack mark (by hand, or adopted; --state tells)" };
  }
  return { by: "unknown", text: `cannot tell (no owner mark on ${NOUNS[kind]}; --state tells)` };
}

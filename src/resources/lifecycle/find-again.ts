import { AmbiguousRequestError, type CreateOptions, unreadableOf } from "../../client";
import { lookAgain, type Looking, lookPauseMs, LOOKUPS } from "./look";
import type { SharedList } from "./shared-list";

/*
 * Finding a create again: the one rule of every kind (Pod, NetworkVolume, Template,
 * RegistryCredential, ServerlessEndpoint over GraphQL and over REST).
 *
 * A create whose answer proves nothing (a 5xx, a connection cut after the request was sent, a
 * timeout) may or may not have made its object, so the object is looked for. The look takes only
 * an object this very create made: one matching what the create sent whose id was NOT in a list
 * of the kind sent before the create began ("ids seen before"). Another stack's object of the
 * same given name, one the user kept (retainOnDelete) whose name returns, one a person made by
 * hand: each was there before, so none is ever taken, and no later destroy of this stack deletes
 * it. That is why one program may give the same names in several stacks of one account.
 *
 * Why ids seen before, and not a pending name carrying an attempt token, for every kind:
 *  - it asks nothing of the object but its id: a registry credential cannot be renamed (the
 *    platform has no PATCH for it) and a volume has no field to carry a token, so no marker on
 *    the object fits every kind;
 *  - the object has its final name from its first moment: no rename to pay for or to fail;
 *  - it costs at most one list per create, and the creates of one command share one (SharedList);
 *    kinds that look for earlier tries before creating (Pod, ServerlessEndpoint) reuse that list,
 *    so for them it costs nothing more.
 * Its limit, stated: an object of the same name and fields that another program makes between
 * that list and an ambiguous create cannot be told from this create's own. When two such
 * candidates are found the create fails ("unknown") rather than guess; nothing rests on the
 * order of a list, which the platform does not promise.
 *
 * A plugin killed mid-create is the other half (recovery.ts): the next `up` has no ids seen
 * before. Pods and endpoints find such an unfinished create by the pending name and owner token
 * that only this resource's creates carry (owner.ts), and adopt or retire it.
 */

const text = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const article = (noun: string) => (/^[aeiou]/.test(noun) ? "an" : "a");

/** The ids of a list answer, the records the client could not read included: all were there before. */
export function idsOf(items: readonly { id: string }[]): Set<string> {
  return new Set([...items.map((i) => i.id), ...unreadableOf(items).flatMap((r) => (r.id === undefined ? [] : [r.id]))]);
}

/**
 * The list a create's "seen before" comes from: the kind's shared list, sent in the current run
 * of creates (one command's: `SharedList.before`) after the last create of that name in this
 * process ended (`key`), a few tries since a failed list proves nothing. A failure here is
 * before any create: nothing was made.
 *
 * Why one list for a whole run is as sound as one sent a moment before: what the rule cannot
 * tell apart is an object matching the create that another program makes between the list and
 * the create, and that window already lasted until the POST, which the quota's pacer may hold
 * for minutes behind a fleet's other creates. Sharing the run's list widens it from the look to
 * the run's start, within one command; a later command starts a new run (a new list). The look
 * after an ambiguous answer (`findMade`) always sends its own list.
 */
export async function listBefore<T extends { id: string }>(list: SharedList<T>, key: string, what: { noun: string; name: string } & Looking): Promise<T[]> {
  try {
    return await lookAgain(() => list.before(key), { ...what, attempts: LOOKUPS });
  } catch (err) {
    throw new Error(
      `creating ${what.noun} "${what.name}": nothing was created, because listing the ${what.noun}s there before it ` +
        `failed (${text(err)}); run the deployment again`,
      { cause: err },
    );
  }
}

/** What {@link findMade} and {@link createFoundAgain} are told about one create. */
export interface MadeLook<T extends { id: string }> extends Looking {
  noun: string;
  name: string;
  list: () => Promise<T[]>;
  /** Matches what the create sent (its fixed fields, and its owner mark where it has one). */
  isOurs: (item: T) => boolean;
  /** Objects that cannot be this create's: the ids seen before it, and those other creates of this process made. */
  excluded: ReadonlySet<string>;
  /** What to do before running again when nothing tells whether the object exists. */
  unknownHint: string;
  /** Of several candidates, the one made last, when the kind records a creation time; else several are "unknown". */
  newest?: (items: T[]) => T | undefined;
}

/**
 * After a create whose outcome the client could not settle (`cause`), or whose look-up found an
 * object that cannot be its own (`cause` undefined), the object this create made: a few looks,
 * since throwing without an id would leave an object the next `pulumi up` duplicates. A list
 * that answers without it proves the create did not happen.
 */
export async function findMade<T extends { id: string }>(find: MadeLook<T> & { cause?: AmbiguousRequestError }): Promise<T> {
  const { noun, name, cause } = find;
  let lastError: unknown = cause;
  for (let attempt = 1; attempt <= LOOKUPS; attempt++) {
    if (cause) await find.clock.sleep(lookPauseMs(attempt), find.signal);
    let items: T[];
    try {
      items = await find.list();
    } catch (e) {
      lastError = e;
      continue;
    }
    const candidates = items.filter((i) => !find.excluded.has(i.id) && find.isOurs(i));
    const found = candidates.length === 1 ? candidates[0] : find.newest?.(candidates);
    if (found) return found;
    if (candidates.length > 1) {
      lastError = new Error(`${candidates.length} ${noun}s that match it appeared since it began (${candidates.map((c) => c.id).join(", ")})`);
      break;
    }
    // A record the client cannot read may be the one this create made: nothing is proven.
    const odd = unreadableOf(items).find((r) => (r.name === name || r.name === undefined) && !(r.id !== undefined && find.excluded.has(r.id)));
    if (odd) {
      lastError = new Error(`${noun} record ${odd.id ?? `#${odd.index}`} cannot be read (${odd.issues.map((i) => `${i.path} ${i.message}`).join("; ")})`);
      continue;
    }
    const why = cause ? cause.message : `the ${noun} found by name existed before this create`;
    throw new Error(`creating ${noun} "${name}" failed and no ${noun} was made (${why}); run the deployment again`, { cause });
  }
  throw new Error(
    `creating ${noun} "${name}" failed and whether the ${noun} exists is unknown (${text(lastError)}); ` +
      `the stack's state holds no ${noun} for it. Before running the deployment again, look for ${article(noun)} ${noun} named "${name}" and ${find.unknownHint}.`,
    { cause },
  );
}

/**
 * Send a create (`create`, handed `seenBefore` for the client's own look-up) and settle an
 * ambiguous answer by the rule above. The id made is added to `claimed`, so no other create of
 * this process takes it for its own.
 */
export async function createFoundAgain<T extends { id: string }>(
  s: MadeLook<T> & { create: (opts: CreateOptions) => Promise<T>; claimed: Set<string> },
): Promise<T> {
  const excluded = new Set([...s.excluded, ...s.claimed]);
  const look = { ...s, excluded };
  let made: T;
  try {
    made = await s.create({ ...(s.signal ? { signal: s.signal } : {}), seenBefore: excluded });
  } catch (err) {
    if (!(err instanceof AmbiguousRequestError)) throw err;
    made = await findMade({ ...look, cause: err });
  }
  if (excluded.has(made.id) || !s.isOurs(made)) made = await findMade(look);
  s.claimed.add(made.id);
  return made;
}

/**
 * A create of a kind that looks for no earlier tries (NetworkVolume, Template,
 * RegistryCredential): the list before it (shared), then {@link createFoundAgain}.
 */
export async function createListedFirst<T extends { id: string }>(
  s: Omit<MadeLook<T>, "excluded"> & { before: SharedList<T>; create: (opts: CreateOptions) => Promise<T>; claimed: Set<string> },
): Promise<T> {
  const key = `create:${s.noun}:${s.name}`;
  try {
    const seen = idsOf(await listBefore(s.before, key, s));
    return await createFoundAgain({ ...s, excluded: seen });
  } finally {
    // A later create of this name in this process needs a list sent after this one ended.
    s.before.fence(key);
  }
}

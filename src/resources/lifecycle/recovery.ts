import { type AmbiguousRequestError, backoffMs, type Clock, systemClock, unreadableOf } from "../../client";
import type { ProviderOptions } from "../engine/settings";
import { Predecessors } from "./owner";
import { isFatal, type Polled, type PollerOptions, type StatusRead } from "./poller";
import { ClientLists, type SharedList } from "./shared-list";
import { ClientReads } from "./shared-reads";

/*
 * One create-with-recovery flow for every kind that owns what it makes (owner.ts says why):
 *
 *   look    earlier tries of this create (its owner token) before the create when the kind
 *           can take one over, else after it, from a list sent after the create began;
 *   make    take the best earlier try over (a replacement diffed in this process), or create;
 *           after an ambiguous answer, look the object up by name (`findMade`);
 *   retire  delete the earlier tries that did not become the resource's object.
 *
 * A failure after the object exists keeps its id (the kind's partial-state error), so the
 * engine records it instead of forgetting it.
 */

/** Looks after an answer that proves nothing (a failed list, an ambiguous create). */
export const LOOKUPS = 3;
/** Tries to delete one earlier try. */
export const RETIRE_ATTEMPTS = 3;

/**
 * The pause before look number `attempt` (0.5, 1, 2 s, at most 5): the client's backoff at
 * its ceiling. No jitter: these are a few looks of one deployment, not a crowd of clients.
 */
export function lookPauseMs(attempt: number): number {
  return backoffMs(attempt + 1, () => 1, { baseDelayMs: 250, maxBackoffMs: 5000 });
}

export interface Looking {
  clock: Pick<Clock, "sleep">;
  signal?: AbortSignal;
}

/**
 * A look-up tried up to `attempts` times (a failed list proves nothing); a client error no
 * retry fixes (bad key, missing permission) is passed on at once.
 */
export async function lookAgain<T>(look: () => Promise<T>, opts: Looking & { attempts: number }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await look();
    } catch (err) {
      if (attempt >= opts.attempts || isFatal(err)) throw err;
      await opts.clock.sleep(lookPauseMs(attempt), opts.signal);
    }
  }
}

const text = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * After a create whose outcome the client could not settle (`cause`), or whose look-up by
 * name found an object that existed before (`cause` undefined), the object this create made:
 * a few looks, since throwing without an id would leave an object the next `pulumi up`
 * duplicates. A list that answers without it proves the create did not happen.
 */
export async function findMade<T extends { id: string }>(find: {
  noun: string;
  name: string;
  list: () => Promise<T[]>;
  /** Made by this create: the fixed fields (and owner mark) of the request. */
  isOurs: (item: T) => boolean;
  /** Objects that existed before this create. */
  excluded: ReadonlySet<string>;
  cause?: AmbiguousRequestError;
  /** What to do before running again when nothing tells whether the object exists. */
  unknownHint: string;
  newest: (items: T[]) => T | undefined;
} & Looking): Promise<T> {
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
    const found = find.newest(items.filter((i) => !find.excluded.has(i.id) && find.isOurs(i)));
    if (found) return found;
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
    `creating ${noun} "${name}" failed and whether the ${noun} exists is unknown (${text(lastError)}). ` +
      `Before running the deployment again, look for ${article(noun)} ${noun} named "${name}" and ${find.unknownHint}.`,
    { cause },
  );
}

const article = (noun: string) => (/^[aeiou]/.test(noun) ? "an" : "a");

/** What one kind brings to {@link createWithRecovery}. */
export interface RecoverySteps<T extends { id: string }, R extends { id: string }> {
  noun: string;
  name: string;
  token: string;
  /** Where a user finds this create's objects by hand, e.g. `pods whose env X starts with <token>`. */
  findByHand: string;
  /** The list the look-ups share (fenced for `token` when the create ends). */
  list: SharedList<T>;
  /** Look before the create (the kind may take an earlier try over); else after it. */
  lookFirst: boolean;
  /** Earlier tries of this create now; `afterList`: from a list sent after list number `afterList`. */
  earlierTries: (afterList?: number) => Promise<T[]>;
  /** The earlier try to take over, if any. */
  fit: (earlier: T[]) => T | undefined;
  takeOver: (item: T) => Promise<R>;
  /** Create a new object; `earlier` as looked up first, if it was. */
  createNew: (earlier: T[] | undefined) => Promise<R>;
  /** The id a failed create or take-over kept (its partial-state error), if any. */
  keptId: (failure: unknown) => string | undefined;
  /** Delete one earlier try; done when it resolves (gone already counts). */
  remove: (item: T) => Promise<void>;
  /** The partial-state error for an object made whose earlier tries are left. */
  partial: (id: string, result: R, reason: string) => Error;
  /** Ids this process handed to the engine: in its state, never an earlier try. */
  handedOver: Set<string>;
}

/** Look, make, retire: the create of every kind that owns what it makes. */
export async function createWithRecovery<T extends { id: string }, R extends { id: string }>(s: RecoverySteps<T, R>): Promise<R> {
  try {
    let earlier: T[] | undefined;
    if (s.lookFirst) {
      try {
        earlier = await s.earlierTries();
      } catch (err) {
        throw new Error(
          `creating ${s.noun} "${s.name}": nothing was created, because looking for earlier tries of this create ` +
            `failed (${text(err)}); run the deployment again`,
          { cause: err },
        );
      }
    }
    const fit = earlier && s.fit(earlier);
    // Lists sent from here on were sent after this create began.
    const beforeCreate = s.list.calls;
    let result: R | undefined;
    let failure: unknown;
    try {
      result = fit ? await s.takeOver(fit) : await s.createNew(earlier);
    } catch (err) {
      failure = err;
    }
    const made = result?.id ?? s.keptId(failure);
    // Nothing made: the earlier tries stay for the next try, which finds them again.
    if (made === undefined) throw failure;
    s.handedOver.add(made);
    let left: string | undefined;
    try {
      const others = (earlier ?? (await s.earlierTries(beforeCreate))).filter((i) => i.id !== made && !s.handedOver.has(i.id));
      left = await retire(others, s);
    } catch (err) {
      left =
        `the ${s.noun} was made, but looking for earlier tries of this create (left by an interrupted deployment) ` +
        `failed: ${text(err)}. Look for ${s.findByHand} other than this one, and delete them.`;
    }
    if (failure !== undefined) throw failure;
    if (left) throw s.partial(made, result!, left);
    return result!;
  } finally {
    s.list.fence(s.token);
  }
}

/** Delete the earlier tries, a few attempts each; a message naming what is left, or undefined. */
async function retire<T extends { id: string; name?: string }>(
  items: T[],
  s: Pick<RecoverySteps<T, { id: string }>, "noun" | "remove">,
): Promise<string | undefined> {
  const left: string[] = [];
  for (const item of items) {
    let last: unknown;
    let done = false;
    for (let attempt = 1; attempt <= RETIRE_ATTEMPTS && !done; attempt++) {
      try {
        await s.remove(item);
        done = true;
      } catch (e) {
        last = e;
      }
    }
    if (!done) left.push(`${item.id} ("${item.name}"): ${text(last)}`);
  }
  if (left.length === 0) return undefined;
  return `the ${s.noun} was made, but an earlier try of this create could not be deleted: ${left.join("; ")}. Delete it by hand: no stack knows it.`;
}

/** What a provider that owns what it makes keeps across the calls of one plugin process. */
export abstract class OwningProvider<C extends object, T extends Polled> {
  protected readonly client: () => C;
  protected readonly clock: Clock;
  protected readonly signal?: AbortSignal;
  /** Per client: the list every owner look-up and every wait of this kind share, and the poller over it. */
  protected readonly lists: ClientLists<C, T>;
  /** Per client, the reads (refresh) of this kind, answered from that same list when they come together. */
  protected readonly reads: ClientReads<C, T>;
  /** What `diff` saw: the object each resource's replacement replaces (owner.ts). */
  protected readonly predecessors = new Predecessors();
  /** Objects this process's creates handed to the engine: in its state, never an earlier try. */
  protected readonly handedOver = new Set<string>();

  constructor(
    options: ProviderOptions<C>,
    defaultClient: () => C,
    list: (client: C, signal: AbortSignal | undefined, how?: StatusRead) => Promise<T[]>,
    poller: PollerOptions<T>,
  ) {
    this.client = options.client ?? defaultClient;
    this.clock = options.clock ?? systemClock;
    this.signal = options.signal;
    this.lists = new ClientLists((client, how) => list(client, this.signal, how), this.clock, poller);
    this.reads = new ClientReads((client) => this.lists.of(client).list, this.clock);
  }
}

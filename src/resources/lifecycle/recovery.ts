import { type Clock, systemClock } from "../../client";
import type { ProviderOptions } from "../engine/settings";
import { idsOf, listBefore } from "./find-again";
import { type Looking, RETIRE_ATTEMPTS } from "./look";
import { Predecessors } from "./owner";
import type { Polled, PollerOptions, StatusRead } from "./poller";
import { ClientLists, type SharedList } from "./shared-list";
import { ClientReads } from "./shared-reads";

export { findMade } from "./find-again";
export { lookAgain, type Looking, lookPauseMs, LOOKUPS, RETIRE_ATTEMPTS } from "./look";

/*
 * One create-with-recovery flow for every kind that owns what it makes (owner.ts says why):
 *
 *   look    one list of the kind before the create (the shared one: a fleet's creates read
 *           the same): its ids are the ids seen before (find-again.ts), and among them the
 *           earlier tries of this create (pending name, owner token) a killed plugin left;
 *   make    take the best earlier try over (a replacement diffed in this process), or create;
 *           after an ambiguous answer only an object not seen before is taken (find-again.ts);
 *   retire  delete the earlier tries that did not become the resource's object.
 *
 * A failure after the object exists keeps its id (the kind's partial-state error), so the
 * engine records it instead of forgetting it.
 */

const text = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** What one kind brings to {@link createWithRecovery}. */
export interface RecoverySteps<T extends { id: string }, R extends { id: string }> extends Looking {
  noun: string;
  name: string;
  token: string;
  /** Where a user finds this create's objects by hand, e.g. `pods whose env X starts with <token>`. */
  findByHand: string;
  /** The list the look-ups share (fenced for `token` when the create ends). */
  list: SharedList<T>;
  /** The earlier tries of this create among the objects listed before it. */
  earlierTries: (listed: T[]) => T[];
  /** The earlier try to take over, if any. */
  fit: (earlier: T[]) => T | undefined;
  takeOver: (item: T) => Promise<R>;
  /** Create a new object; `seenBefore`: the ids listed before it began, never its own (find-again.ts). */
  createNew: (seenBefore: ReadonlySet<string>) => Promise<R>;
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
    const listed = await listBefore(s.list, s.token, s);
    const earlier = s.earlierTries(listed).filter((i) => !s.handedOver.has(i.id));
    const fit = s.fit(earlier);
    let result: R | undefined;
    let failure: unknown;
    try {
      result = fit ? await s.takeOver(fit) : await s.createNew(idsOf(listed));
    } catch (err) {
      failure = err;
    }
    const made = result?.id ?? s.keptId(failure);
    // Nothing made: the earlier tries stay for the next try, which finds them again.
    if (made === undefined) throw failure;
    s.handedOver.add(made);
    const left = await retire(
      earlier.filter((i) => i.id !== made && !s.handedOver.has(i.id)),
      s,
    );
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

import type { Clock } from "../../client";
import { type Polled, Poller, type PollerOptions, type StatusRead } from "./poller";

/**
 * Looks before a create (of a kind, per client) closer than this to the one before them belong to
 * one run, in ms: the creates of one command, which the engine sends as fast as the plugin takes
 * them, share the run's list.
 */
export const RUN_GAP_MS = 2000;

/**
 * One list call shared by every owner look-up that can use it: the creates of a fleet start
 * together and all read the same answer, and the shared poller's own lists (sent through
 * `fresh`) serve them too, so a look-up after a wait usually costs no call at all. A list is
 * good for a token when it was sent after the last create with that token ended (in this
 * process; a crash ends every earlier one). Nothing here ages a list by the clock: each caller
 * says which lists are recent enough for it (a run of creates, a run of reads, a wait's POST).
 */
export class SharedList<T> {
  private current: { seq: number; items: Promise<T[]> } | undefined;
  private seq = 0;
  private readonly fences = new Map<string, number>();
  /** The current run of looks before creates: lists up to `from` are older than it. */
  private run = { from: 0, lastAt: Number.NEGATIVE_INFINITY };

  constructor(
    private readonly list: (how?: StatusRead) => Promise<T[]>,
    private readonly clock: Pick<Clock, "now">,
    private readonly runGapMs = RUN_GAP_MS,
  ) {}

  /** Lists sent so far say nothing about what a create with `token` did: it just ended. */
  fence(token: string): void {
    this.fences.set(token, this.seq);
  }

  /**
   * The list a read of `key` would answer with, and its number: the newest one if it was sent
   * after the fence of `key` and after list number `after` (in flight or answered), else a new one.
   */
  entry(key: string, after = 0): { seq: number; items: Promise<T[]> } {
    if (!this.answers(key, after)) this.fresh();
    return this.current!;
  }

  /** Whether `key` was fenced in this process (a create with that token ended, or a read or write of that object did). */
  fenced(key: string): boolean {
    return this.fences.has(key);
  }

  /** Whether the newest list answers a read of `key` after list number `after` (in flight or answered): `entry` would send none. */
  answers(key: string, after = 0): boolean {
    const c = this.current;
    return c !== undefined && c.seq > Math.max(after, this.fences.get(key) ?? 0);
  }

  /**
   * For a create's look before it (find-again.ts): the newest list sent in the current run of
   * looks and after the fence of `key`, else a new one. A look more than `runGapMs` after the
   * previous one starts a new run, so a run never takes what an earlier command listed, whose
   * list might miss an object another program made since; within a run (one command's creates)
   * every create shares one list, whatever the run's length, since its create is paced after
   * its look anyway (find-again.ts says why that is sound).
   */
  before(key: string): Promise<T[]> {
    const now = this.clock.now();
    if (now - this.run.lastAt > this.runGapMs) this.run.from = this.seq;
    this.run.lastAt = now;
    return this.entry(key, this.run.from).items;
  }

  /**
   * The newest list if it was sent after list number `seq`, whatever its age, else a new one.
   * After a create's wait, the list that saw the new pod was sent after its POST, so it shows
   * every earlier try (all older than the POST): no list of its own is needed.
   */
  since(seq: number): Promise<T[]> {
    const c = this.current;
    if (c && c.seq > seq) return c.items;
    return this.fresh();
  }

  /** A new list call, which later look-ups may share (`how`: the poller's, a status read). */
  fresh(how?: StatusRead): Promise<T[]> {
    const entry = { seq: ++this.seq, items: this.list(how) };
    // A failed list is not shared with later callers.
    entry.items.catch(() => {
      if (this.current === entry) this.current = undefined;
    });
    this.current = entry;
    return entry.items;
  }

  /** List calls made so far. */
  get calls(): number {
    return this.seq;
  }
}

/**
 * Per client, the shared list of one kind and the poller over it: every owner look-up, every
 * wait and every read (refresh, shared-reads.ts) of that kind in this process read the same
 * list calls, so a look-up after a wait usually costs no call. A new client (new settings)
 * gets its own.
 */
export class ClientLists<C extends object, T extends Polled> {
  private readonly byClient = new WeakMap<C, { list: SharedList<T>; poller: Poller<T> }>();

  constructor(
    private readonly list: (client: C, how?: StatusRead) => Promise<T[]>,
    private readonly clock: Clock,
    private readonly poller: PollerOptions<T>,
  ) {}

  of(client: C): { list: SharedList<T>; poller: Poller<T> } {
    let s = this.byClient.get(client);
    if (!s) {
      const list = new SharedList<T>((how) => this.list(client, how), this.clock);
      s = { list, poller: new Poller<T>((how) => list.fresh(how), this.clock, this.poller) };
      this.byClient.set(client, s);
    }
    return s;
  }
}

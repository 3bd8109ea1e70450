import { type Clock, NotFoundError, unreadableRecord } from "../../client";
import { isFatal } from "./poller";
import { SharedList } from "./shared-list";

/*
 * Reads of one kind share one list call. `pulumi refresh` (and `pulumi up --refresh`) sends a
 * Read per resource, many at once; each used to cost a GET by id, so a refresh of a stack of
 * 100 pods and 100 volumes spent 200 requests of the key's quota before any change was made.
 *
 * How reads are found to come together: a read that finds no other read of its kind (per
 * client) in flight and none begun within `togetherMs` (a quiet spell) opens a short window
 * (`windowMs`, 15 ms: the engine sends a refresh's reads in one burst, and a GET by id takes
 * longer than that anyway). If no other read of its kind arrives in the window, it is a lone
 * read: the GET by id it always was. Every other read takes the object from the kind's shared
 * list: the newest list sent since the run of reads began and after this process last wrote or
 * read the object (the one in flight counts), else a new one, sent at once, that later reads
 * share; a read after a quiet spell that such a list answers takes it at once, with no window.
 *
 * A run of reads begins at the process's first read. A read after a quiet spell begins a new
 * one, which never takes a list sent before it, only when the process wrote an object of the kind
 * since the run began (so a refresh never reads what the waits of an earlier `up` in the same
 * process listed) or read or wrote this very object before (a refresh reads each object once: a
 * second read after a pause is a later command's, in a process that lives on, or a lone look). The
 * engine starts a plugin per command, so under the CLI a refresh is one run however long the
 * engine takes to hand over its reads: a stack of thousands interleaves the kinds' reads over
 * tens of seconds, and a kind's reads pause for seconds while the others' are handed over (at
 * N = 1,000 the endpoints' came 102, then 7.6 s of pods, then 98: when any pause ended a run,
 * that was a second list, issue 50). A second read of the same object is answered by a list sent
 * after the first one ended, so it sees what changed meanwhile. Lists are not aged by the clock: a refresh is the state at one
 * moment, and the list of its run is such a moment for every object it has not read yet. So N
 * reads of a command cost one list, whatever N and however they arrive; and a read that comes
 * alone costs one GET, 15 ms later than it would have.
 *
 * An object the list holds but the client cannot read (its `unreadable` records) is read alone,
 * never taken for gone: a refresh must not drop a resource because its record is odd.
 *
 * An object missing from the list is confirmed before it is reported gone, since the list may
 * lag: by its own GET (a terminated pod is left out of GET /v2/pods but still reads by id, as
 * TERMINATED), or, for a kind read only through its list (endpoints: `myself`), by a list sent
 * after the one that missed it, which every read that missed shares.
 */

/** Reads closer than this to another read of their kind count as together, in ms. */
export const TOGETHER_MS = 2000;
/** How long the first read of a possible batch waits for a second one, in ms. */
export const WINDOW_MS = 15;

/** How a kind reads one object and confirms one missing from its list. */
export interface ReadWays<T> {
  /** The object by id (the lone read); undefined when the platform does not have it (404). */
  one: (id: string) => Promise<T | undefined>;
  /**
   * Whether an object missing from the list sent as number `seq` is really gone: undefined
   * when it is, else the object.
   * @default `one(id)`
   */
  confirm?: (id: string, seq: number) => Promise<T | undefined>;
}

/** Reads of one kind for one client: see the comment at the top of this file. */
export class SharedReads<T extends { id: string }> {
  private active = 0;
  private lastAt = Number.NEGATIVE_INFINITY;
  /** Reads that arrived while the newest window was open (or after: no one reads it then). */
  private window: { joined: number } | undefined;
  /** Lists sent up to this number are older than the current run of reads. */
  private runFrom = 0;
  /** Whether the next read after a quiet spell begins a new run: before the first read, and once this process wrote an object of the kind. */
  private runOver = true;
  /** Reads answered so far, by how: a lone GET, from a list, and the confirmations of missing ones. */
  readonly counts = { lone: 0, listed: 0, confirmed: 0 };

  constructor(
    readonly list: SharedList<T>,
    private readonly clock: Clock,
    private readonly timing: { togetherMs: number; windowMs: number } = { togetherMs: TOGETHER_MS, windowMs: WINDOW_MS },
  ) {}

  /** The object `id` as the platform has it now, or undefined when it has it no longer. */
  async read(id: string, ways: ReadWays<T>): Promise<T | undefined> {
    const now = this.clock.now();
    const key = readKey(id);
    const quiet = this.active === 0 && now - this.lastAt > this.timing.togetherMs;
    if (quiet && (this.runOver || this.list.fenced(key))) {
      this.runFrom = this.list.calls;
      this.runOver = false;
    }
    this.active++;
    this.lastAt = now;
    if (this.window) this.window.joined++;
    try {
      if (quiet && !this.list.answers(key, this.runFrom) && (await this.alone())) {
        this.counts.lone++;
        return await ways.one(id);
      }
      const { seq, items } = this.list.entry(key, this.runFrom);
      let listed: T[];
      try {
        listed = await items;
      } catch (err) {
        // A list that failed for a reason a retry may fix says nothing: read this one alone.
        if (isFatal(err)) throw err;
        this.counts.lone++;
        return await ways.one(id);
      }
      const found = listed.find((item) => item.id === id);
      if (found) {
        this.counts.listed++;
        return found;
      }
      // In the list but unreadable (a status this release does not know, a number out of
      // range): never "gone". Its own read says what is wrong with it, or reads it after all.
      if (unreadableRecord(listed, id)) {
        this.counts.lone++;
        return await ways.one(id);
      }
      this.counts.confirmed++;
      return await (ways.confirm ? ways.confirm(id, seq) : ways.one(id));
    } finally {
      this.active--;
      // What this read saw is known now: a later read of the object needs a later list.
      this.list.fence(key);
    }
  }

  /**
   * Open a window for other reads of the kind; true when none came. A window is left in place once
   * closed: the reads that count into it after are in the run it began, and no one reads it again.
   */
  private async alone(): Promise<boolean> {
    if (this.timing.windowMs <= 0) return true;
    const window = { joined: 0 };
    this.window = window;
    await this.clock.sleep(this.timing.windowMs);
    return window.joined === 0;
  }

  /**
   * This process just changed object `id`: lists sent before now no longer answer its reads, and
   * the run of reads is over (the objects its writes touched besides `id`, and the lists its waits
   * send, belong to the write, not to the state the run read).
   */
  wrote(id: string): void {
    this.list.fence(readKey(id));
    this.runOver = true;
  }
}

/** Fences of reads and of owner tokens share one map: a prefix keeps them apart. */
const readKey = (id: string) => `read:${id}`;

/**
 * Per client, the shared reads of one kind over the kind's shared list (`listOf`): kinds with
 * a poller pass the poller's (`ClientLists`), the others a list of their own. A new client
 * (new settings) gets its own.
 */
export class ClientReads<C extends object, T extends { id: string }> {
  private readonly byClient = new WeakMap<C, SharedReads<T>>();

  constructor(
    private readonly listOf: (client: C) => SharedList<T>,
    private readonly clock: Clock,
  ) {}

  /** For a kind without a poller: each client's reads over a list of their own made by `list`. */
  static listing<C extends object, T extends { id: string }>(list: (client: C) => Promise<T[]>, clock: Clock): ClientReads<C, T> {
    return new ClientReads<C, T>((client) => new SharedList<T>(() => list(client), clock), clock);
  }

  of(client: C): SharedReads<T> {
    let r = this.byClient.get(client);
    if (!r) {
      r = new SharedReads<T>(this.listOf(client), this.clock);
      this.byClient.set(client, r);
    }
    return r;
  }
}

/** A GET by id as a read wants it: undefined for a 404, anything else thrown. */
export async function orGone<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

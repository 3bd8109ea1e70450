// The request log: the last `capacity` requests in a ring, and a count per operation since
// start. Keys appear only as fingerprints; paths never carry the query (it may hold `api_key`).

import { createHash } from "node:crypto";

/** One request as the log keeps it; `key` is a fingerprint, never the key. */
export interface RequestLogEntry {
  at: string;
  method: string;
  /** Without the query string (which may carry `api_key`). */
  path: string;
  status: number;
  key: string | null;
  /** The operation name; GraphQL requests list the root fields that ran, comma-separated. */
  op: string;
  /** True when the `dropAfterProcessRate` fault destroyed the socket instead of answering. */
  dropped: boolean;
  /** The injected fault that shaped the answer, when one did (a 429 of the quota is not one). */
  fault?: "rate429" | "rate5xx" | "dropAfterProcess" | "slow";
  /** The account of the key, when the emulator holds more than one. */
  account?: string;
  /** "console" for the console's sign-in, sign-out and controls. */
  via?: "console";
}

export function fingerprint(key: string): string {
  return `key_${createHash("sha256").update(key).digest("hex").slice(0, 8)}`;
}

/** A ring of the last `capacity` entries, each with its place in the order of arrival. */
class Ring {
  private readonly items: { seq: number; entry: RequestLogEntry }[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  add(seq: number, entry: RequestLogEntry): void {
    if (this.items.length < this.capacity) this.items.push({ seq, entry });
    else this.items[this.next] = { seq, entry };
    this.next = (this.next + 1) % this.capacity;
  }

  /** Oldest first. */
  all(): { seq: number; entry: RequestLogEntry }[] {
    return this.items.length < this.capacity ? [...this.items] : [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }
}

/**
 * The last `capacity` requests made with a key and, apart, the last `capacity` without one (a
 * missing or unknown key, an unrouted path, a wrong sign-in): requests anyone can send without a
 * key never push an authenticated entry out. `entries()` gives both in the order they came.
 */
export class RequestLog {
  private readonly keyed: Ring;
  private readonly keyless: Ring;
  private seq = 0;
  private readonly opCounts = new Map<string, number>();

  constructor(capacity: number) {
    this.keyed = new Ring(capacity);
    this.keyless = new Ring(capacity);
  }

  record(entry: RequestLogEntry, ops: readonly string[]): void {
    (entry.key === null ? this.keyless : this.keyed).add(this.seq++, entry);
    for (const op of ops) this.opCounts.set(op, (this.opCounts.get(op) ?? 0) + 1);
  }

  /** Oldest first, copies. */
  entries(): RequestLogEntry[] {
    const a = this.keyed.all();
    const b = this.keyless.all();
    const out: RequestLogEntry[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      const takeA = j >= b.length || (i < a.length && a[i].seq < b[j].seq);
      out.push({ ...(takeA ? a[i++] : b[j++]).entry });
    }
    return out;
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.opCounts);
  }
}

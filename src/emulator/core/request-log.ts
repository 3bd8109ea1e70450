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
  /** "console" for the console's sign-in, sign-out and controls. */
  via?: "console";
}

export function fingerprint(key: string): string {
  return `key_${createHash("sha256").update(key).digest("hex").slice(0, 8)}`;
}

export class RequestLog {
  private readonly ring: RequestLogEntry[] = [];
  private next = 0;
  private readonly opCounts = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  record(entry: RequestLogEntry, ops: readonly string[]): void {
    if (this.ring.length < this.capacity) this.ring.push(entry);
    else this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    for (const op of ops) this.opCounts.set(op, (this.opCounts.get(op) ?? 0) + 1);
  }

  /** Oldest first, copies. */
  entries(): RequestLogEntry[] {
    const ordered =
      this.ring.length < this.capacity ? this.ring : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    return ordered.map((e) => ({ ...e }));
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.opCounts);
  }
}

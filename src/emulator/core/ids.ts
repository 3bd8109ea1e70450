// Ids and numbers handed out by the platform: one counter for ids (so they sort by creation)
// and one for everything numbered (addresses, public ports). Both survive a restart.

import { randomBytes } from "node:crypto";
import type { StatePart } from "./persistence";

function randomTail(n: number): string {
  return randomBytes(n)
    .toString("base64")
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .padEnd(n, "0")
    .slice(0, n);
}

export class Ids {
  private idCounter = 0;
  private numberCounter = 0;

  newId(prefix: string): string {
    return `${prefix}${(++this.idCounter).toString(36).padStart(4, "0")}${randomTail(8)}`;
  }

  nextNumber(): number {
    return ++this.numberCounter;
  }

  /** Two parts under the file's historic top-level keys. */
  stateParts(): StatePart[] {
    return [
      { key: "idCounter", snapshot: () => this.idCounter, restore: (v) => (this.idCounter = counter("idCounter", v)) },
      {
        key: "numberCounter",
        snapshot: () => this.numberCounter,
        restore: (v) => (this.numberCounter = counter("numberCounter", v)),
      },
    ];
  }
}

function counter(name: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new Error(`state file: ${name} must be an integer >= 0`);
  return v;
}

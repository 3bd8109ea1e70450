// The state file: one JSON object with a version and one entry per registered part. It knows
// no record types: every group saves and restores its own part, and a part missing from an
// older file is left as the group started it.

import { readStateFile, sweepTempFiles, writeFileAtomic } from "./state-file";
import { StateFileLock } from "./state-lock";

export const STATE_VERSION = 1;

/** One named part of the state file; a group restores exactly what it saved. */
export interface StatePart {
  key: string;
  snapshot(): unknown;
  restore(saved: unknown): void;
}

export class Persistence {
  private readonly parts: StatePart[] = [];
  private lock: StateFileLock | undefined;

  constructor(private readonly file: string | undefined) {}

  register(parts: readonly StatePart[]): void {
    for (const part of parts) {
      if (part.key === "version" || part.key === "savedAt" || this.parts.some((p) => p.key === part.key)) {
        throw new Error(`state part '${part.key}' is registered twice or reserved`);
      }
      this.parts.push(part);
    }
  }

  /**
   * Takes the file for this emulator (its lock: a second emulator is refused), sweeps what saves
   * cut short left beside it, restores every part from it, if there is one, and writes it once,
   * so an unwritable path fails at start rather than on the first change. On any failure the
   * lock is let go and the file is left as it was.
   */
  open(): void {
    if (!this.file) return;
    this.lock = StateFileLock.acquire(this.file);
    try {
      sweepTempFiles(this.file);
      this.load(this.file);
      this.save();
    } catch (err) {
      this.lock.release();
      this.lock = undefined;
      throw err;
    }
  }

  /** Names the address this emulator listens on in the lock, for a second start's refusal. */
  announce(url: string): void {
    this.lock?.announce(url);
  }

  /** Writes the state a last time and lets go of the file. */
  close(): void {
    try {
      this.save();
    } finally {
      this.lock?.release();
      this.lock = undefined;
    }
  }

  private load(file: string): void {
    const saved = readStateFile(file) as Record<string, unknown> | undefined;
    if (saved === undefined) return;
    if (saved.version !== STATE_VERSION) {
      throw new Error(`state file ${this.file} has version ${saved.version}; this emulator reads version ${STATE_VERSION}`);
    }
    for (const part of this.parts) if (saved[part.key] !== undefined) part.restore(saved[part.key]);
  }

  /** Writes the whole state atomically; called after every change, before the reply. */
  save(): void {
    if (!this.file) return;
    const data: Record<string, unknown> = { version: STATE_VERSION, savedAt: new Date().toISOString() };
    for (const part of this.parts) data[part.key] = part.snapshot();
    writeFileAtomic(this.file, `${JSON.stringify(data, null, 1)}\n`);
  }
}

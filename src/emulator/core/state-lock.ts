// The state file's lock: one emulator at a time per state file. Two emulators on one file both
// start from it, hand out the same ids, and the last to save wins, losing the other's
// acknowledged changes. The lock is `<state file>.lock` beside it, made with its content in one
// step (written to a temporary file, then hard-linked to the lock's name, which fails when the
// name exists), so a reader never sees a lock half written.
//
// A lock whose holder is dead is taken over. Dead means, on the same host: no process has the
// holder's pid (signal 0 answers ESRCH); or the pid is this process's own but no emulator of
// this process holds the lock (a restart that got the same pid, common in containers); or
// (Linux) the process with that pid started at another moment than the holder did (the pid was
// reused). A lock of another host, or one that does not read as a lock, is never taken over:
// the start is refused, naming the lock file to remove once no emulator uses it.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { hostname } from "node:os";
import * as path from "node:path";
import { sweepTempFiles, tempFileFor, writeFileAtomic } from "./state-file";

interface Holder {
  pid: number;
  hostname: string;
  /** The holder's start, as /proc/<pid>/stat counts it (Linux); null elsewhere. */
  processStart: string | null;
  /** The holder's address once it listens; null while it starts. */
  url: string | null;
  since: string;
  /** Tells this lock from a later one of the same process. */
  token: string;
}

/** Lock files held by emulators of this process (absolute paths). */
const heldHere = new Set<string>();

/** Attempts at taking a lock that keeps changing hands; each one reads the lock anew. */
const ATTEMPTS = 5;

export class StateFileLock {
  private constructor(
    readonly path: string,
    private holder: Holder,
  ) {}

  /** Takes the lock of `stateFile`, or throws naming the emulator that holds it. */
  static acquire(stateFile: string): StateFileLock {
    const lockPath = path.resolve(`${stateFile}.lock`);
    const me: Holder = {
      pid: process.pid,
      hostname: hostname(),
      processStart: processStart(process.pid),
      url: null,
      since: new Date().toISOString(),
      token: randomBytes(8).toString("hex"),
    };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (create(lockPath, me)) {
        heldHere.add(lockPath);
        // A lock's own temporary files, left by a start killed before it linked one. Held now,
        // so a live start of this file that is between its write and its link fails its link
        // (ENOENT), tries again and finds this lock.
        sweepTempFiles(lockPath);
        return new StateFileLock(lockPath, me);
      }
      const text = readIfExists(lockPath);
      if (text === undefined) continue; // let go meanwhile: try again
      const holder = parseHolder(text);
      if (holder === undefined) {
        throw new Error(`state file ${stateFile} has a lock that is not an emulator's (${lockPath}); remove it if no emulator uses this state file`);
      }
      if (alive(holder, lockPath)) throw new Error(inUse(stateFile, holder, lockPath));
      takeOver(lockPath, text);
    }
    throw new Error(`state file ${stateFile}: its lock ${lockPath} kept changing hands; try again`);
  }

  /** Writes the address the holder now listens on into the lock, for the refusal of a second start. */
  announce(url: string): void {
    this.holder = { ...this.holder, url };
    writeFileAtomic(this.path, JSON.stringify(this.holder));
  }

  /** Lets go of the lock, if it is still this one's (removed by hand and taken by another, it is left). */
  release(): void {
    heldHere.delete(this.path);
    const current = parseHolder(readIfExists(this.path) ?? "");
    if (current?.token === this.holder.token) fs.rmSync(this.path, { force: true });
  }
}

/** Makes the lock with `holder` in it; false when a lock is already there. */
function create(lockPath: string, holder: Holder): boolean {
  const temp = tempFileFor(lockPath);
  const fd = fs.openSync(temp, "w", 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(holder));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(temp, lockPath);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOENT: the holder swept this temporary file before the link; the next attempt reads its lock.
    if (code === "EEXIST" || code === "ENOENT") return false;
    throw err;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * Moves a dead holder's lock out of the way, unless another start took it over first: the lock
 * is renamed aside, and if what was moved is not the dead lock that was read, it is linked back
 * (link never replaces a lock made meanwhile).
 */
function takeOver(lockPath: string, dead: string): void {
  const aside = tempFileFor(lockPath);
  try {
    fs.renameSync(lockPath, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  try {
    if (fs.readFileSync(aside, "utf8") !== dead) fs.linkSync(aside, lockPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

function alive(holder: Holder, lockPath: string): boolean {
  if (holder.hostname !== hostname()) return true; // nothing here can tell
  if (holder.pid === process.pid) return heldHere.has(lockPath);
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: a process of another user has the pid; it may be the holder.
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const started = processStart(holder.pid);
  return started === null || holder.processStart === null || started === holder.processStart;
}

function inUse(stateFile: string, holder: Holder, lockPath: string): string {
  const where = holder.hostname === hostname() ? "" : ` on host ${holder.hostname}`;
  return (
    `state file ${stateFile} is in use by another emulator (pid ${holder.pid}${where}, ${holder.url ?? "still starting"}, since ${holder.since}); ` +
    `stop it, or give this one another state file (its lock is ${lockPath}: remove that only if no emulator uses the file)`
  );
}

/** When the process `pid` started, in clock ticks since boot (Linux's /proc); null where unknown. */
function processStart(pid: number): string | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // Field 22 (starttime); counted after the command name, which may itself hold spaces or ')'.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
}

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function parseHolder(text: string): Holder | undefined {
  try {
    const h = JSON.parse(text) as Partial<Holder>;
    if (!(Number.isInteger(h.pid) && typeof h.hostname === "string" && typeof h.token === "string")) return undefined;
    return { processStart: null, url: null, since: "?", ...h } as Holder;
  } catch {
    return undefined;
  }
}

import * as fs from "node:fs";
import * as path from "node:path";

/** The fs calls an atomic write needs; tests replace one to simulate a crash mid-write. */
export interface AtomicFs {
  openSync: typeof fs.openSync;
  writeSync: (fd: number, data: string) => number;
  fsyncSync: typeof fs.fsyncSync;
  closeSync: typeof fs.closeSync;
  renameSync: typeof fs.renameSync;
  rmSync: typeof fs.rmSync;
}

const realFs: AtomicFs = {
  openSync: fs.openSync,
  writeSync: (fd, data) => fs.writeSync(fd, data),
  fsyncSync: fs.fsyncSync,
  closeSync: fs.closeSync,
  renameSync: fs.renameSync,
  rmSync: fs.rmSync,
};

let tempCounter = 0;

/** The temporary file a write of `file` goes through: `.<name>.<pid>.<n>.tmp` beside it. */
export function tempFileFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${++tempCounter}.tmp`);
}

/**
 * Removes what writes of `file` left behind when their process was killed between creating the
 * temporary file and renaming it: files named as `tempFileFor` names them for this very file,
 * nothing else in the directory. Called at start, under the state file's lock, so no live
 * writer of the file can own one. Returns the names removed.
 */
export function sweepTempFiles(file: string): string[] {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.`;
  const own = (name: string) => name.startsWith(prefix) && name.endsWith(".tmp") && /^\d+\.\d+$/.test(name.slice(prefix.length, -".tmp".length));
  const removed = fs.readdirSync(dir).filter(own);
  for (const name of removed) fs.rmSync(path.join(dir, name), { force: true });
  return removed;
}

/**
 * Writes `data` to `file` so a reader only ever sees the old or the new content: the bytes go
 * to a temporary file in the same directory (rename is atomic only within one file system),
 * are flushed to disk, and the temporary file is renamed over the target. On any failure the
 * temporary file is removed and the target is left as it was.
 */
export function writeFileAtomic(file: string, data: string, io: AtomicFs = realFs): void {
  const temp = tempFileFor(file);
  let fd: number | undefined;
  try {
    fd = io.openSync(temp, "w", 0o600);
    io.writeSync(fd, data);
    io.fsyncSync(fd);
    io.closeSync(fd);
    fd = undefined;
    io.renameSync(temp, file);
  } catch (err) {
    if (fd !== undefined) {
      try {
        io.closeSync(fd);
      } catch {
        // The write already failed; that error is the one to report.
      }
    }
    io.rmSync(temp, { force: true });
    throw err;
  }
}

/** Reads a state file; undefined when there is none yet. A torn or foreign file is an error. */
export function readStateFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`state file ${file} is not valid JSON (${(err as Error).message}); move it away to start fresh`);
  }
}

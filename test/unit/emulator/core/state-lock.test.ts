// The state file's lock taken in-process (docs/emulator.md, "Limits": one emulator per
// --state-file): a lock of another host, or one that is not an emulator's, is never taken over;
// a dead holder's is; a release leaves a lock that is no longer its own. The HTTP side (a second
// emulator refused, naming the first's address) is test/integration/emulator/core/state-lock.test.ts.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { StateFileLock } from "../../../../src/emulator/core/state-lock";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(join(tmpdir(), "cp-state-lock-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const holder = (over: Record<string, unknown>) => JSON.stringify({ pid: process.pid, hostname: hostname(), token: "t", since: "then", ...over });

test("a lock is made beside the file naming this process, and released", () => {
  const file = join(dir, "plain.json");
  const lock = StateFileLock.acquire(file);
  expect(lock.path).toBe(`${file}.lock`);
  expect(JSON.parse(fs.readFileSync(lock.path, "utf8"))).toMatchObject({ pid: process.pid, hostname: hostname(), url: null });
  lock.release();
  expect(fs.existsSync(`${file}.lock`)).toBe(false);
});

test("a second take in this process is refused while the first holds it, naming pid and that it is still starting", () => {
  const file = join(dir, "twice.json");
  const first = StateFileLock.acquire(file);
  try {
    expect(() => StateFileLock.acquire(file)).toThrow(`state file ${file} is in use by another emulator (pid ${process.pid}, still starting`);
    first.announce("http://127.0.0.1:9");
    expect(() => StateFileLock.acquire(file)).toThrow(`(pid ${process.pid}, http://127.0.0.1:9, since`);
  } finally {
    first.release();
  }
});

test("a lock that does not read as an emulator's is refused, naming the lock file to remove", () => {
  const file = join(dir, "foreign.json");
  fs.writeFileSync(`${file}.lock`, "not json");
  expect(() => StateFileLock.acquire(file)).toThrow(`has a lock that is not an emulator's (${file}.lock)`);
  expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe("not json");
});

test("another host's lock is never taken over: nothing here can tell whether its holder lives", () => {
  const file = join(dir, "remote.json");
  fs.writeFileSync(`${file}.lock`, holder({ pid: 1, hostname: "elsewhere.example" }));
  expect(() => StateFileLock.acquire(file)).toThrow("(pid 1 on host elsewhere.example, still starting, since then)");
});

test("the lock of a pid no process has is taken over", () => {
  const file = join(dir, "dead.json");
  const gone = spawnSync(process.execPath, ["-e", ""]).pid;
  fs.writeFileSync(`${file}.lock`, holder({ pid: gone }));
  const lock = StateFileLock.acquire(file);
  try {
    expect(JSON.parse(fs.readFileSync(lock.path, "utf8")).pid).toBe(process.pid);
  } finally {
    lock.release();
  }
});

test("a release leaves a lock that is no longer its own (removed by hand and taken by another)", () => {
  const file = join(dir, "stolen.json");
  const lock = StateFileLock.acquire(file);
  fs.writeFileSync(lock.path, holder({ pid: 1, hostname: "elsewhere.example", token: "other" }));
  lock.release();
  expect(JSON.parse(fs.readFileSync(`${file}.lock`, "utf8")).token).toBe("other");
});

// The state file as one object of named parts (docs/emulator.md, "Options": --state-file): each
// group restores exactly the part it saved, a part an older file lacks is left as the group made
// it, and the file is one emulator's (its lock) from open to close.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Persistence, STATE_VERSION, type StatePart } from "../../../../src/emulator/core/persistence";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(join(tmpdir(), "cp-persistence-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A part holding one value, as a group's store would. */
function part(key: string, value: unknown): StatePart & { value: unknown } {
  const p = {
    key,
    value,
    snapshot: () => p.value,
    restore: (saved: unknown) => {
      p.value = saved;
    },
  };
  return p;
}

test("a key registered twice, or one of the file's own (version, savedAt), is refused", () => {
  const p = new Persistence(undefined);
  p.register([part("pods", [])]);
  expect(() => p.register([part("pods", [])])).toThrow("state part 'pods' is registered twice or reserved");
  expect(() => p.register([part("version", 2)])).toThrow("state part 'version' is registered twice or reserved");
  expect(() => p.register([part("savedAt", "")])).toThrow("state part 'savedAt' is registered twice or reserved");
});

test("without a file, open, save and close touch nothing", () => {
  const p = new Persistence(undefined);
  const pods = part("pods", ["a"]);
  p.register([pods]);
  p.open();
  p.save();
  p.close();
  expect(pods.value).toEqual(["a"]);
});

test("the first open writes the file: its version, when, and every part", () => {
  const file = join(dir, "first.json");
  const p = new Persistence(file);
  p.register([part("pods", [{ id: "p1" }]), part("idCounter", 1)]);
  p.open();
  try {
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(saved).toEqual({ version: STATE_VERSION, savedAt: expect.any(String), pods: [{ id: "p1" }], idCounter: 1 });
    expect(Number.isNaN(Date.parse(saved.savedAt))).toBe(false);
  } finally {
    p.close();
  }
});

test("a restart restores each part from the file; a part the file lacks keeps what its group started with", () => {
  const file = join(dir, "restart.json");
  const before = new Persistence(file);
  const pods = part("pods", []);
  before.register([pods]);
  before.open();
  pods.value = [{ id: "p1" }];
  before.close();

  const after = new Persistence(file);
  const podsAgain = part("pods", []);
  const clock = part("clock", { advancedMs: 0 });
  after.register([podsAgain, clock]);
  after.open();
  try {
    expect(podsAgain.value).toEqual([{ id: "p1" }]);
    expect(clock.value).toEqual({ advancedMs: 0 });
  } finally {
    after.close();
  }
});

test("the file is one emulator's from open to close: a second open on it is refused until the first closes", () => {
  const file = join(dir, "one.json");
  const first = new Persistence(file);
  first.open();
  const second = new Persistence(file);
  expect(() => second.open()).toThrow(/is in use by another emulator/);
  first.close();
  second.open();
  second.close();
  expect(fs.existsSync(`${file}.lock`)).toBe(false);
});

test("a file of another version is refused, left as it was, and its lock let go", () => {
  const file = join(dir, "v99.json");
  fs.writeFileSync(file, '{"version":99,"pods":[]}');
  const p = new Persistence(file);
  p.register([part("pods", [])]);
  expect(() => p.open()).toThrow(`state file ${file} has version 99; this emulator reads version ${STATE_VERSION}`);
  expect(fs.readFileSync(file, "utf8")).toBe('{"version":99,"pods":[]}');
  expect(fs.existsSync(`${file}.lock`)).toBe(false);
});

test("a part that refuses what was saved stops the open, and the lock is let go", () => {
  const file = join(dir, "bad-part.json");
  fs.writeFileSync(file, JSON.stringify({ version: STATE_VERSION, meter: {} }));
  const p = new Persistence(file);
  p.register([
    {
      key: "meter",
      snapshot: () => [],
      restore: () => {
        throw new Error("state file: meter must be an array");
      },
    },
  ]);
  expect(() => p.open()).toThrow("state file: meter must be an array");
  expect(fs.existsSync(`${file}.lock`)).toBe(false);
});

test("announce names the address in the lock; close writes the state a last time", () => {
  const file = join(dir, "announce.json");
  const p = new Persistence(file);
  const pods = part("pods", []);
  p.register([pods]);
  p.open();
  p.announce("http://127.0.0.1:1234");
  expect(JSON.parse(fs.readFileSync(`${file}.lock`, "utf8")).url).toBe("http://127.0.0.1:1234");
  pods.value = ["last"];
  p.close();
  expect(JSON.parse(fs.readFileSync(file, "utf8")).pods).toEqual(["last"]);
});

// The state file's lock (docs/emulator.md, "Options": --state-file): one emulator at a time per
// state file; a second start is refused naming the first, and a lock its holder left behind is
// taken over.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, RTX4090, start } from "../../../helpers/emulator-rest";

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(join(tmpdir(), "cp-emu-lock-"));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the state file's lock", () => {
  test("two emulators on one state file: the second refuses to start, naming the first's pid and address", async () => {
    const file = join(dir, "shared.json");
    const first = await start({ stateFile: file });
    let pod: { id: string };
    try {
      const refused = start({ stateFile: file });
      await expect(refused).rejects.toThrow(`in use by another emulator (pid ${process.pid}, ${first.url}`);
      // The refused start changed nothing: the first keeps the file, and its creates survive.
      pod = await client(() => first).createPod({ name: "first", gpu: { id: RTX4090 } });
    } finally {
      await first.close();
    }
    const second = await start({ stateFile: file });
    try {
      expect((await client(() => second).get(`/v2/pods/${pod.id}`)).body.name).toBe("first");
    } finally {
      await second.close();
    }
  });

  test("a lock its holder left behind is taken over: same pid as this process, but no emulator here holds it", async () => {
    const file = join(dir, "left.json");
    const lock = `${file}.lock`;
    const first = await start({ stateFile: file });
    const held = fs.readFileSync(lock, "utf8");
    await first.close();
    expect(fs.existsSync(lock)).toBe(false);
    // As if the first had been cut off before it let go (a restart that got the same pid).
    fs.writeFileSync(lock, held);
    const second = await start({ stateFile: file });
    try {
      expect(JSON.parse(fs.readFileSync(lock, "utf8"))).toMatchObject({ pid: process.pid, url: second.url });
    } finally {
      await second.close();
    }
  });
});

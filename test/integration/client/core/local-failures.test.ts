// Failures of this process, not of the platform (issue 50): a create that could not leave must
// never be reported as one that "may exist". A client whose process has no file descriptor left
// (EMFILE, met under many sockets) cannot open a connection: nothing was sent, so the create is
// retried and, when the process stays out of descriptors, fails as not sent, not as ambiguous.
// The client runs in a child with a low descriptor limit; the emulator here, in the test's process.
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { type Emulator, startEmulator } from "../../../../src/emulator";

const KEY = "cp_test_local_failures_81c0";
const ROOT = path.resolve(__dirname, "../../../..");

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }] });
});
afterAll(async () => {
  await emu?.close();
});

// Loads the client and reads once (undici loaded, its pool made), then holds every descriptor
// left and creates a pod: each connect fails with EMFILE.
const SCRIPT = `
  const fs = require("node:fs");
  const { ComputePlatform } = require(${JSON.stringify(path.join(ROOT, "dist/client"))});
  const c = new ComputePlatform({ apiKey: process.env.KEY, apiUrl: process.env.URL, maxRetries: 2, baseDelayMs: 1 });
  (async () => {
    await c.catalog.cpus();
    await c.close();
    const held = [];
    try { for (;;) held.push(fs.openSync(process.execPath, "r")); } catch {}
    const outcome = await c.pods.create({ name: "held", image: "bench/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } }).then(
      () => ({ made: true }),
      (e) => ({ name: e.name, code: e.code, requestSent: e.requestSent, message: e.message }),
    );
    for (const fd of held) fs.closeSync(fd);
    console.log(JSON.stringify(outcome));
  })();
`;

test("a create this process cannot send (EMFILE) fails as not sent, never 'may exist'", async () => {
  const creates = () => emu.counts().createPod ?? 0;
  const before = creates();
  const run = await promisify(execFile)("/bin/sh", ["-c", `ulimit -n 64 && exec "${process.execPath}" -e "$SCRIPT"`], {
    env: { ...process.env, SCRIPT, KEY, URL: emu.url },
  });
  const outcome = JSON.parse(run.stdout.trim());
  expect(outcome).toMatchObject({ name: "ConnectionError", code: "EMFILE", requestSent: false });
  expect(outcome.message).not.toContain("may exist");
  expect(creates()).toBe(before);
  expect(emu.state().pods).toEqual([]);
}, 30_000);

// A Node.js the client cannot run on (issue 50). undici 8, the client's HTTP client, does not load
// on a Node.js without zlib's zstd (before 22.15): its load throws "Cannot read properties of
// undefined (reading 'bind')". That TypeError used to reach callers as a connection cut after
// sending, so a pod create that never left was "ambiguous", its look-up failed the same way,
// and the error said the pod "may exist". Here the plugin, and a client on its own, run in a
// process given exactly what such a Node.js lacks (fixtures/node-before-zstd.js): the up must
// fail saying why and that nothing was sent, with no request reaching the platform and no pod.
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { type Emulator, startEmulator } from "../../src/emulator";
import { capturePods, EngineStack, PROJECT, type ProviderPlugin } from "../../tools/engine";
import { emulatorConfig, ENGINE_QUOTAS, ENGINE_TIMINGS, startPlugin } from "../../tools/engine/rig";

const KEY = "cp_sentinel_old_node_2c41d9e7";
const BEFORE_ZSTD = path.join(__dirname, "fixtures/node-before-zstd.js");
const ROOT = path.resolve(__dirname, "../..");

let emu: Emulator;
let plugin: ProviderPlugin;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], quotas: ENGINE_QUOTAS, timings: ENGINE_TIMINGS });
  plugin = await startPlugin(emulatorConfig(emu, KEY), { env: { NODE_OPTIONS: `--require ${BEFORE_ZSTD}` } });
}, 60_000);

afterAll(async () => {
  await plugin?.stop();
  await emu?.close();
});

const requests = () => Object.values(emu.counts()).reduce((a, b) => a + b, 0);

test("an up on a Node.js whose HTTP client cannot load: the error says so, nothing was sent, no pod", async () => {
  const config = emulatorConfig(emu, KEY);
  const regs = await capturePods({ a: { image: "bench/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } }, b: { image: "bench/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } } }, config);
  const before = requests();
  const up = await new EngineStack(plugin, { project: PROJECT, stack: "dev" }).up(regs);
  expect(up.error).toBeDefined();
  const message = up.error!.message;
  expect(message).toContain("HTTP client (undici) does not load on Node.js");
  expect(message).toContain("Cannot read properties of undefined (reading 'bind')");
  expect(message).toContain("no request was sent");
  expect(message).toContain("Pulumi runs a program and its providers with the node first on PATH");
  expect(message).not.toMatch(/may exist|ambiguous|unknown/);
  expect(requests()).toBe(before);
  expect(emu.state().pods).toEqual([]);
}, 90_000);

test("a client on its own there: a create is refused as not sent, never 'may exist'", async () => {
  // The benchmark's own creates took this path: the client's look-up after an "ambiguous" create.
  const script = `
    const { ComputePlatform } = require(${JSON.stringify(path.join(ROOT, "dist/client"))});
    const c = new ComputePlatform({ apiKey: process.env.KEY, apiUrl: process.env.URL, baseDelayMs: 1 });
    c.pods.create({ name: "base1", image: "bench/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } })
      .then(() => console.log(JSON.stringify({ made: true })), (e) => console.log(JSON.stringify({ name: e.name, message: e.message })));
  `;
  const before = requests();
  const run = await promisify(execFile)(process.execPath, ["--require", BEFORE_ZSTD, "-e", script], { env: { ...process.env, KEY, URL: emu.url } });
  const outcome = JSON.parse(run.stdout.trim());
  expect(outcome.name).toBe("UnsupportedRuntimeError");
  expect(outcome.message).toContain("no request was sent");
  expect(outcome.message).not.toContain("may exist");
  expect(requests()).toBe(before);
  expect(emu.state().pods).toEqual([]);
}, 60_000);

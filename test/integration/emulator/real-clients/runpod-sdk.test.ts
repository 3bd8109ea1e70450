// The platform's own JavaScript SDK (runpod-sdk, pinned in devDependencies) drives every job
// call against an account's own endpoint of the emulator: run, status, runSync (following its
// job through status-sync past its wait), stream, cancel, health, purgeQueue. Each call runs in
// a child process, as a user's script would.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { type Emulator, startEmulator } from "../../../../src/emulator";

const KEY = "cp_test_sdk_jobs_0123456789";
const REPO = join(__dirname, "../../../..");

let emu: Emulator;
let endpointId: string;

beforeAll(async () => {
  // 100 emulated ms per real ms: a worker starts in 30 ms, sleep_ms 30000 lasts 300 ms.
  emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], quotas: { minute: 100000, hour: 1000000, day: 10000000 }, timeScale: 100 });
  const res = await fetch(`${emu.url}/v2/serverless`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "sdk", image: "worker:1", gpu: { pools: ["ADA_24"] }, workers: { min: 1, max: 1 } }),
  });
  endpointId = ((await res.json()) as { id: string }).id;
});

afterAll(async () => {
  await emu?.close();
});

function runModule(script: string): Promise<any> {
  const sdk = `
    import runpodSdk from "runpod-sdk";
    const sdk = runpodSdk(process.env.KEY, { baseUrl: process.env.BASE + "/v2" });
    const endpoint = sdk.endpoint(process.env.ENDPOINT);
  `;
  return new Promise((resolve, reject) => {
    const env = { ...process.env, KEY, BASE: emu.url, ENDPOINT: endpointId };
    execFile(process.execPath, ["--input-type=module", "-e", sdk + script], { cwd: REPO, env, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stdout}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split("\n").at(-1)!));
    });
  });
}

test("runSync of a job that outlasts its wait follows it to COMPLETED with the echoed output; one submission", async () => {
  const before = emu.counts();
  const r = await runModule(`
    // timeout 5000: runsync?wait=5000 (50 real ms here, short of the 300 ms job), then status-sync until done.
    const r = await endpoint.runSync({ input: { sleep_ms: 30000, word: "hi" } }, 5000);
    console.log(JSON.stringify(r));`);
  expect(r).toMatchObject({ status: "COMPLETED", completed: true, succeeded: true, output: { sleep_ms: 30000, word: "hi" }, executionTime: 30000 });
  expect((emu.counts().runSync ?? 0) - (before.runSync ?? 0)).toBe(1);
});

test("run, status, stream, health", async () => {
  const r = await runModule(`
    const job = await endpoint.run({ input: { stream: ["a", "b", "c"], sleep_ms: 30000 } });
    const first = await endpoint.status(job.id);
    const chunks = [];
    for await (const c of endpoint.stream(job.id)) chunks.push(c.output);
    const done = await endpoint.status(job.id);
    const health = await endpoint.health();
    console.log(JSON.stringify({ job, first, chunks, done, health }));`);
  expect(r.job).toEqual({ id: expect.any(String), status: "IN_QUEUE" });
  expect(["IN_QUEUE", "IN_PROGRESS", "COMPLETED"]).toContain(r.first.status);
  expect(r.chunks).toEqual(["a", "b", "c"]);
  expect(r.done).toMatchObject({ status: "COMPLETED", completed: true, output: ["a", "b", "c"] });
  expect(r.health).toMatchObject({ jobs: { inQueue: 0, inProgress: 0 }, workers: { ready: 1, initializing: 0 } });
});

test("cancel a running job and purgeQueue the queued one", async () => {
  const r = await runModule(`
    const a = await endpoint.run({ input: { sleep_ms: 100000000 } });
    const b = await endpoint.run({ input: {} });
    const purged = await endpoint.purgeQueue();
    const cancelled = await endpoint.cancel(a.id);
    const gone = await endpoint.status(b.id).catch((e) => ({ httpStatus: e.response?.status }));
    console.log(JSON.stringify({ purged, cancelled, a, gone }));`);
  expect(r.purged).toEqual({ removed: 1, status: "completed" });
  expect(r.cancelled).toEqual({ id: r.a.id, status: "CANCELLED" });
  expect(r.gone).toMatchObject({ httpStatus: 404 });
});

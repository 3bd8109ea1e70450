// The client's job API (client.jobs) against the emulator's endpoint jobs over real HTTP: each
// call, runSync following its own job (one submission however long the job), stream as an
// async iterator, and options refused before any request.
import { ComputePlatform, ModelJobFailedError, PacingRegistry, RequestValidationError } from "../../../src/client";
import { type Emulator, startEmulator } from "../../../src/emulator";

let emu: Emulator;
let cp: ComputePlatform;
let endpointId: string;

beforeAll(async () => {
  // 1000 emulated ms per real ms: a worker starts in 3 ms, sleep_ms 200000 lasts 200 ms.
  emu = await startEmulator({ port: 0, timeScale: 1000, quotas: { minute: 100000, hour: 1000000, day: 10000000 } });
  cp = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: new PacingRegistry(), env: {} });
  const ep = await cp.serverless.create({ name: "jobs", image: "worker:1", gpu: { pools: ["ADA_24"] }, workers: { min: 1, max: 2 } });
  endpointId = ep.id;
});

afterAll(async () => {
  await cp?.close();
  await emu?.close();
});

test("runSync returns the output; a job longer than the wait is followed with status-sync, submitted once", async () => {
  expect(await cp.jobs.runSync(endpointId, { hello: "world" })).toMatchObject({ status: "COMPLETED", output: { hello: "world" } });
  const before = emu.counts();
  const long = await cp.jobs.runSync(endpointId, { sleep_ms: 200_000 }, { wait: 1000 });
  expect(long).toMatchObject({ status: "COMPLETED", output: { sleep_ms: 200_000 } });
  const after = emu.counts();
  expect((after.runSync ?? 0) - (before.runSync ?? 0)).toBe(1);
  expect((after.statusSync ?? 0) - (before.statusSync ?? 0)).toBeGreaterThanOrEqual(1);
});

test("run, status, stream as an async iterator", async () => {
  const job = await cp.jobs.run(endpointId, { stream: ["a", "b", "c"], sleep_ms: 100_000 });
  expect(job.status).toBe("IN_QUEUE");
  const chunks: unknown[] = [];
  for await (const c of cp.jobs.stream(endpointId, job.id, { pollMs: 10 })) chunks.push(c);
  expect(chunks).toEqual(["a", "b", "c"]);
  expect(await cp.jobs.status(endpointId, job.id)).toMatchObject({ status: "COMPLETED", output: ["a", "b", "c"] });
});

test("a failed job throws ModelJobFailedError with its id; retry, cancel, purgeQueue, health", async () => {
  const err = await cp.jobs.runSync(endpointId, { fail: "bad input" }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ModelJobFailedError);
  expect(err).toMatchObject({ jobError: "bad input", jobStatus: "FAILED" });
  const jobId = (err as ModelJobFailedError).jobId;
  expect(await cp.jobs.retry(endpointId, jobId)).toEqual({ id: jobId, status: "IN_QUEUE" });
  const long = await cp.jobs.run(endpointId, { sleep_ms: 10_000_000 });
  expect(await cp.jobs.cancel(endpointId, long.id)).toEqual({ id: long.id, status: "CANCELLED" });
  expect(await cp.jobs.purgeQueue(endpointId)).toEqual({ removed: 0, status: "completed" });
  const health = await cp.jobs.health(endpointId);
  expect(health.jobs.failed).toBeGreaterThanOrEqual(2);
  expect(health.jobs.retried).toBe(1);
  expect(health.workers.ready).toBeGreaterThanOrEqual(1);
});

test("bad input and options are refused before any request, naming the field", async () => {
  const before = emu.counts().run ?? 0;
  await expect(cp.jobs.run(endpointId, [] as never)).rejects.toThrow(RequestValidationError);
  await expect(cp.jobs.run(endpointId, {}, { policy: { ttl: 5 } })).rejects.toThrow(/policy\.ttl/);
  await expect(cp.jobs.run(endpointId, {}, { webhook: "ftp://x" })).rejects.toThrow(/webhook/);
  expect(emu.counts().run ?? 0).toBe(before);
});

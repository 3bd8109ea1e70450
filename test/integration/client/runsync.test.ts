// Issue 14 #10: a hosted-model call is a paid job: the client never sends it twice on its
// own, passes `wait`, and tells IN_PROGRESS and FAILED apart from a result.
// Against a scripted loopback server that counts every call.
import {
  ComputePlatform,
  type ComputePlatformOptions,
  ConnectionError,
  InternalServerError,
  ModelJobFailedError,
  ModelJobInProgressError,
  PacingRegistry,
  RequestValidationError,
  TimeoutError,
} from "../../../src/client";
import { startEmulator } from "../../../src/emulator";
import { FakeClock } from "../../helpers/fake-clock";
import { type Handler, loopbackClients } from "../../helpers/loopback";

const KEY = "cp_test_runsync_key_000111";
const { setup: start, track } = loopbackClients(KEY);

async function setup(handler: Handler, opts: Partial<ComputePlatformOptions> = {}) {
  const { srv, cp } = await start(handler, opts);
  return { srv, cp, calls: () => srv.count("POST", "/v2/sdxl-turbo/runsync") };
}

const INPUT = { prompt: "a lighthouse", seed: 7 };
const done = { status: 200, body: { id: "job-1", status: "COMPLETED", output: { image_url: "http://x/i.png" } } };

describe("never resent after the job may have run", () => {
  test.each([
    ["a 500", { status: 500, body: { title: "Internal Server Error", status: 500, detail: "boom" } }, InternalServerError],
    ["a 503", { status: 503, body: { title: "Service Unavailable", status: 503, detail: "busy" } }, InternalServerError],
    ["a connection cut after the request", { destroy: true as const }, ConnectionError],
  ])("%s fails the call after one request", async (_what, reply, type) => {
    const { cp, calls } = await setup(() => reply);
    await expect(cp.models.runSync("sdxl-turbo", INPUT)).rejects.toBeInstanceOf(type);
    expect(calls()).toBe(1);
  });

  test("a timeout fails the call after one request, and the timeout outlasts the wait", async () => {
    const { cp, calls } = await setup(() => ({ hang: true }), { timeoutMs: 50 });
    const err = await cp.models.runSync("sdxl-turbo", INPUT, { wait: 1000 }).catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    // The per-attempt limit grows past the wait, so the server can answer IN_PROGRESS first.
    expect((err as TimeoutError).timeoutMs).toBeGreaterThan(1000);
    expect(calls()).toBe(1);
  }, 20_000);

  test("a 429 (provably not processed) is retried, and the job runs once", async () => {
    const { cp, calls } = await setup((_r, i) =>
      i === 0
        ? { status: 429, headers: { "retry-after": "1" }, body: { title: "Too Many Requests", status: 429, detail: "minute" } }
        : done,
    );
    await expect(cp.models.runSync("sdxl-turbo", INPUT)).resolves.toMatchObject({ id: "job-1", status: "COMPLETED" });
    expect(calls()).toBe(2);
  });
});

describe("wait and the job's outcome", () => {
  test("wait is sent as the query value; without it the platform's default applies (no query)", async () => {
    const { cp, srv } = await setup(() => done);
    await cp.models.runSync("sdxl-turbo", INPUT, { wait: 120000 });
    await cp.models.runSync("sdxl-turbo", INPUT);
    expect(srv.seen.map((r) => r.url)).toEqual(["/v2/sdxl-turbo/runsync?wait=120000", "/v2/sdxl-turbo/runsync"]);
    expect(JSON.parse(srv.seen[0].body)).toEqual({ input: INPUT });
  });

  test.each([999, 300001, 1.5])("wait %p is refused before sending", async (wait) => {
    const { cp, calls } = await setup(() => done);
    const err = await cp.models.runSync("sdxl-turbo", INPUT, { wait }).catch((e) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.message).toMatch(/wait.*1000.*300000/);
    expect(calls()).toBe(0);
  });

  test("a job still IN_PROGRESS at the deadline -> ModelJobInProgressError with the job id, saying what to do; submitted once", async () => {
    const clock = new FakeClock();
    const { cp, calls, srv } = await setup(() => ({ status: 200, body: { id: "job-9", status: "IN_PROGRESS" } }), { clock });
    const err = await cp.models.runSync("sdxl-turbo", INPUT, { wait: 1000, deadlineMs: 5000 }).catch((e) => e);
    expect(err).toBeInstanceOf(ModelJobInProgressError);
    expect(err).toMatchObject({ jobId: "job-9", modelId: "sdxl-turbo", jobStatus: "IN_PROGRESS" });
    expect(err.waitMs).toBeGreaterThanOrEqual(5000);
    expect(err.message).toMatch(/still IN_PROGRESS after \d+ ms.*not submitted again.*models\.status\("sdxl-turbo", "job-9"\).*deadlineMs/);
    expect(calls()).toBe(1);
    // Followed, not resent: every later request reads the same job, each held for the wait.
    const follows = srv.seen.slice(1).map((r) => r.url);
    expect(follows.length).toBeGreaterThan(0);
    for (const url of follows) expect(url).toBe("/v2/sdxl-turbo/status-sync/job-9?wait=1000");
    // An answer that came back at once was spaced out, so a server that does not hold is not flooded.
    expect(clock.sleeps.every((ms) => ms <= 1000)).toBe(true);
    expect(follows.length).toBeLessThanOrEqual(6);
  });

  test("FAILED -> ModelJobFailedError carrying the platform's error; not resent", async () => {
    const { cp, calls } = await setup(() => ({ status: 200, body: { id: "job-3", status: "FAILED", error: "CUDA out of memory" } }));
    const err = await cp.models.runSync("sdxl-turbo", INPUT).catch((e) => e);
    expect(err).toBeInstanceOf(ModelJobFailedError);
    expect(err).toMatchObject({ jobId: "job-3", modelId: "sdxl-turbo", jobError: "CUDA out of memory" });
    expect(err.message).toContain("CUDA out of memory");
    expect(calls()).toBe(1);
  });
});

describe("against the emulator's slow and failing jobs", () => {
  test("a job longer than wait is followed to COMPLETED; a failing prompt -> ModelJobFailedError; one submission each", async () => {
    // Time scale 10: the 5 s job lasts 500 real ms and the 1 s wait 100 ms. At 100 (50 ms for the
    // job) a loaded 2-core machine reached the server's first look after the job had ended, so
    // runsync answered COMPLETED and no status-sync was sent.
    const emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], timeScale: 10 });
    const cp = track(new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, serverlessUrl: emu.url, pacing: new PacingRegistry(), env: {} }));
    try {
      emu.setFaults({ modelJobMs: 5000, failingPrompts: ["^boom"] });
      const slow = await cp.models.runSync("sdxl-turbo", INPUT, { wait: 1000 });
      expect(slow).toMatchObject({ status: "COMPLETED", output: { image_url: expect.any(String) }, executionTime: 5000 });
      expect(emu.counts().statusSync).toBeGreaterThanOrEqual(1);
      await expect(cp.models.runSync("sdxl-turbo", { prompt: "boom" }, { wait: 10000 })).rejects.toBeInstanceOf(ModelJobFailedError);
      await expect(cp.models.runSync("sdxl-turbo", INPUT, { wait: 10000 })).resolves.toMatchObject({ status: "COMPLETED" });
      // Paid submissions: exactly one per runSync.
      expect(emu.counts().runSync).toBe(3);
    } finally {
      await emu.close();
    }
  });
});

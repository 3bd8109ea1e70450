// The client follows its own hosted-model job after IN_PROGRESS (status-sync), never submitting
// it again, until it finishes or the caller's deadline passes; `run` + `status` for callers who
// want the job asynchronously. Scripted loopback servers count every request; the emulator
// shows the same over its real job routes.
import {
  ComputePlatform,
  ModelJobFailedError,
  ModelJobInProgressError,
  NotFoundError,
  PacingRegistry,
  RequestValidationError,
} from "../../../src/client";
import { startEmulator } from "../../../src/emulator";
import { FakeClock } from "../../helpers/fake-clock";
import { type Handler, loopbackClients } from "../../helpers/loopback";

const KEY = "cp_test_jobs_key_000111222";
const { setup: start, track } = loopbackClients(KEY);

async function setup(handler: Handler, clock = new FakeClock()) {
  const { srv, cp } = await start(handler, { clock });
  return { srv, cp, clock, submissions: () => srv.seen.filter((r) => r.method === "POST").length };
}

const INPUT = { prompt: "a lighthouse" };
const done = (id: string) => ({
  status: 200,
  body: { id, status: "COMPLETED", output: { image_url: "http://x/i.png" }, delayTime: 12, executionTime: 3400 },
});
const running = (id: string, status = "IN_PROGRESS") => ({ status: 200, body: { id, status } });

describe("runSync follows its own job", () => {
  test("IN_QUEUE, IN_PROGRESS, then COMPLETED through status-sync: the finished answer, one submission", async () => {
    const { cp, srv, submissions } = await setup((_r, i) => (i === 0 ? running("job-1", "IN_QUEUE") : i === 1 ? running("job-1") : done("job-1")));
    const r = await cp.models.runSync("sdxl-turbo", INPUT, { wait: 2000 });
    expect(r).toEqual({ id: "job-1", status: "COMPLETED", output: { image_url: "http://x/i.png" }, delayTime: 12, executionTime: 3400 });
    expect(submissions()).toBe(1);
    expect(srv.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "POST /v2/sdxl-turbo/runsync?wait=2000",
      "GET /v2/sdxl-turbo/status-sync/job-1?wait=2000",
      "GET /v2/sdxl-turbo/status-sync/job-1?wait=2000",
    ]);
    // The follow-ups carry the key as the submission did, and no body.
    for (const s of srv.seen) expect(s.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(srv.seen[1].body).toBe("");
  });

  test("a follow-up that fails with a 5xx is read again (reading a job costs nothing); still one submission", async () => {
    const { cp, submissions, srv } = await setup((_r, i) =>
      i === 0 ? running("job-2") : i === 1 ? { status: 503, body: { title: "Service Unavailable", status: 503, detail: "busy" } } : done("job-2"),
    );
    await expect(cp.models.runSync("sdxl-turbo", INPUT)).resolves.toMatchObject({ status: "COMPLETED" });
    expect(submissions()).toBe(1);
    expect(srv.seen).toHaveLength(3);
  });

  test("without wait, the follow-ups hold for the platform's default, and the first call sends none", async () => {
    const { cp, srv } = await setup((_r, i) => (i === 0 ? running("job-3") : done("job-3")));
    await cp.models.runSync("sdxl-turbo", INPUT);
    expect(srv.seen.map((s) => s.url)).toEqual(["/v2/sdxl-turbo/runsync", "/v2/sdxl-turbo/status-sync/job-3?wait=90000"]);
  });

  test("a deadline shorter than the default wait shortens the holds to what is left", async () => {
    const { cp, srv } = await setup(() => done("job-4"));
    await cp.models.runSync("sdxl-turbo", INPUT, { deadlineMs: 5000 });
    expect(srv.seen.map((s) => s.url)).toEqual(["/v2/sdxl-turbo/runsync?wait=5000"]);
  });

  test.each([
    ["CANCELLED", {}, "the job ended CANCELLED without a result"],
    ["TIMED_OUT", { error: "execution timeout of 300000 ms exceeded" }, "execution timeout of 300000 ms exceeded"],
    ["FAILED", { error: "CUDA out of memory" }, "CUDA out of memory"],
  ])("a job that ends %s during the follow-up -> ModelJobFailedError naming it; one submission", async (status, extra, reason) => {
    const { cp, submissions } = await setup((_r, i) => (i === 0 ? running("job-5") : { status: 200, body: { id: "job-5", status, ...extra } }));
    const err = await cp.models.runSync("sdxl-turbo", INPUT).catch((e) => e);
    expect(err).toBeInstanceOf(ModelJobFailedError);
    expect(err).toMatchObject({ jobId: "job-5", jobStatus: status, jobError: reason });
    expect(err.message).toContain(status);
    expect(submissions()).toBe(1);
  });

  test("a job the platform no longer has (404 on status-sync) fails with NotFoundError, not a new submission", async () => {
    const { cp, submissions } = await setup((_r, i) =>
      i === 0 ? running("job-6") : { status: 404, body: { title: "Not Found", status: 404, detail: "no job job-6" } },
    );
    await expect(cp.models.runSync("sdxl-turbo", INPUT)).rejects.toBeInstanceOf(NotFoundError);
    expect(submissions()).toBe(1);
  });

  test("the caller's signal stops the follow-up; nothing is submitted again", async () => {
    const ac = new AbortController();
    const { cp, submissions } = await setup((_r, i) => {
      if (i === 1) ac.abort(new Error("caller gave up"));
      return running("job-7");
    });
    await expect(cp.models.runSync("sdxl-turbo", INPUT, { signal: ac.signal })).rejects.toThrow(/caller gave up|abort/i);
    expect(submissions()).toBe(1);
  });

  test.each([999, 1.5, -1])("deadlineMs %p is refused before sending", async (deadlineMs) => {
    const { cp, srv } = await setup(() => done("x"));
    const err = await cp.models.runSync("sdxl-turbo", INPUT, { deadlineMs }).catch((e) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.message).toMatch(/deadlineMs must be an integer of at least 1000/);
    expect(srv.seen).toHaveLength(0);
  });
});

describe("run and status: the job asynchronously", () => {
  test("run submits once and answers IN_QUEUE; status reads it; status with wait holds through status-sync", async () => {
    const { cp, srv } = await setup((r) =>
      r.path.endsWith("/run") ? running("job-8", "IN_QUEUE") : r.path.includes("/status-sync/") ? done("job-8") : running("job-8"),
    );
    await expect(cp.models.run("flux-schnell", INPUT)).resolves.toEqual({ id: "job-8", status: "IN_QUEUE" });
    await expect(cp.models.status("flux-schnell", "job-8")).resolves.toEqual({ id: "job-8", status: "IN_PROGRESS" });
    await expect(cp.models.status("flux-schnell", "job-8", { wait: 30000 })).resolves.toMatchObject({ status: "COMPLETED" });
    expect(srv.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "POST /v2/flux-schnell/run",
      "GET /v2/flux-schnell/status/job-8",
      "GET /v2/flux-schnell/status-sync/job-8?wait=30000",
    ]);
    expect(JSON.parse(srv.seen[0].body)).toEqual({ input: INPUT });
  });

  test("a FAILED job is an answer of status, not an error", async () => {
    const { cp } = await setup(() => ({ status: 200, body: { id: "job-9", status: "FAILED", error: "bad input", delayTime: 1, executionTime: 2 } }));
    await expect(cp.models.status("sdxl-turbo", "job-9")).resolves.toMatchObject({ status: "FAILED", error: "bad input" });
  });

  test("run is a paid job: a 503 fails it after one request", async () => {
    const { cp, srv } = await setup(() => ({ status: 503, body: { title: "Service Unavailable", status: 503, detail: "busy" } }));
    await expect(cp.models.run("sdxl-turbo", INPUT)).rejects.toThrow();
    expect(srv.seen).toHaveLength(1);
  });
});

describe("against the emulator", () => {
  test("a runsync that outlasts wait is followed to COMPLETED: one paid submission, counted by the emulator and its bill", async () => {
    const emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], timeScale: 100 });
    const cp = track(new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, serverlessUrl: emu.url, pacing: new PacingRegistry(), env: {} }));
    try {
      // 300 real ms against holds of 10: several status-sync follow-ups.
      emu.setFaults({ modelJobMs: 30000 });
      const r = await cp.models.runSync("sdxl-turbo", INPUT, { wait: 1000 });
      expect(r).toMatchObject({ status: "COMPLETED", output: { image_url: expect.stringMatching(/\.png$/) }, executionTime: 30000 });
      const counts = emu.counts();
      expect(counts.runSync).toBe(1);
      expect(counts.run ?? 0).toBe(0);
      expect(counts.statusSync).toBeGreaterThanOrEqual(1);
      const bill = await cp.billing.endpoints({ bucketSize: "year" });
      expect(bill.metadata.totals.totalAmount).toBeCloseTo(0.002, 6);

      const job = await cp.models.run("flux-schnell", INPUT);
      expect(job.status).toBe("IN_QUEUE");
      const finished = await cp.models.status("flux-schnell", job.id, { wait: 300000 });
      expect(finished).toMatchObject({ id: job.id, status: "COMPLETED", delayTime: 0, executionTime: 30000 });
    } finally {
      await emu.close();
    }
  });

  test("a cold job past the deadline: ModelJobInProgressError after one submission; the job is still readable", async () => {
    const emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], timeScale: 100 });
    const cp = track(new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, serverlessUrl: emu.url, pacing: new PacingRegistry(), env: {} }));
    try {
      emu.setFaults({ modelJobMs: 300000 });
      const err = await cp.models.runSync("sdxl-turbo", INPUT, { wait: 1000, deadlineMs: 1000 }).catch((e) => e);
      expect(err).toBeInstanceOf(ModelJobInProgressError);
      expect(emu.counts().runSync).toBe(1);
      await expect(cp.models.status("sdxl-turbo", err.jobId)).resolves.toEqual({ id: err.jobId, status: "IN_PROGRESS" });
    } finally {
      await emu.close();
    }
  });
});

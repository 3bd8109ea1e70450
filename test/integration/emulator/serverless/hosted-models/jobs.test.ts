// Over real HTTP: one hosted-model job store behind runsync, run, status and status-sync: a job
// is followed, never submitted again; a finished one carries delayTime and executionTime and
// stays readable; the same auth, scopes and rate limits as runsync.
import { type Emulator, startEmulator } from "../../../../../src/emulator";

const FULL = "cp_test_jobs_full_0123456789";
const READ_ONLY = "cp_test_jobs_read_0123456789";
const KEYS = [
  { key: FULL, scopes: ["read" as const, "write" as const] },
  { key: READ_ONLY, scopes: ["read" as const] },
];
const QUOTAS = { minute: 100000, hour: 1000000, day: 10000000 };
// 100 emulated ms per real ms: a 5 s job lasts 50 ms, the shortest wait (1000) 10 ms.
const TIME_SCALE = 100;

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: KEYS, quotas: QUOTAS, timeScale: TIME_SCALE });
});

afterAll(async () => {
  await emu?.close();
});

afterEach(() => emu.setFaults({}));

async function call(method: "GET" | "POST", path: string, { key = FULL as string | null, body = undefined as unknown, base = emu.url } = {}) {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, type: res.headers.get("content-type"), body: (await res.json()) as any };
}

const INPUT = { input: { prompt: "a lighthouse at dusk" } };
const FINISHED = {
  id: expect.any(String),
  status: "COMPLETED",
  output: { image_url: expect.stringMatching(/\/images\/[0-9a-f]{32}-64x64\.png$/) },
  delayTime: expect.any(Number),
  executionTime: expect.any(Number),
};

describe("a runsync that outlasts wait is followed to the end, never submitted again", () => {
  test("IN_PROGRESS, then status-sync past its own wait, then COMPLETED with the job's times; one paid job", async () => {
    // 300 real ms against waits of 10: the follow-up must outlast several waits.
    emu.setFaults({ modelJobMs: 30000 });
    const before = emu.counts();
    const first = await call("POST", "/v2/sdxl-turbo/runsync?wait=1000", { body: INPUT });
    expect(first.body).toEqual({ id: expect.stringMatching(/^sync-/), status: "IN_PROGRESS" });
    const id = first.body.id as string;

    let answer = first.body;
    const seen: string[] = [];
    for (let i = 0; i < 200 && answer.status !== "COMPLETED"; i++) {
      answer = (await call("GET", `/v2/sdxl-turbo/status-sync/${id}?wait=1000`)).body;
      seen.push(answer.status);
    }
    expect(answer).toEqual({ ...FINISHED, id });
    expect(Number.isInteger(answer.delayTime) && Number.isInteger(answer.executionTime)).toBe(true);
    expect(answer.executionTime).toBe(30000);
    // A 1000 ms wait ends before a 5000 ms job: at least one status-sync came back IN_PROGRESS.
    expect(seen[0]).toBe("IN_PROGRESS");
    const after = emu.counts();
    expect((after.runSync ?? 0) - (before.runSync ?? 0)).toBe(1);
    expect((after.statusSync ?? 0) - (before.statusSync ?? 0)).toBe(seen.length);
    // status answers the same finished job again, as often as asked.
    expect((await call("GET", `/v2/sdxl-turbo/status/${id}`)).body).toEqual(answer);
  });

  test("status-sync with the default wait holds until the job finishes", async () => {
    emu.setFaults({ modelJobMs: 5000 });
    const first = await call("POST", "/v2/sdxl-turbo/runsync?wait=1000", { body: INPUT });
    const r = await call("GET", `/v2/sdxl-turbo/status-sync/${first.body.id}`);
    expect(r.body).toEqual({ ...FINISHED, id: first.body.id });
  });
});

describe("run: an asynchronous job followed with status", () => {
  test("run answers IN_QUEUE before the job ends (status then reads IN_PROGRESS)", async () => {
    // 3 real seconds: far longer than any stall between the two requests.
    emu.setFaults({ modelJobMs: 300000 });
    const r = await call("POST", "/v2/flux-schnell/run", { body: INPUT });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: expect.stringMatching(/^async-/), status: "IN_QUEUE" });
    expect((await call("GET", `/v2/flux-schnell/status/${r.body.id}`)).body).toEqual({ id: r.body.id, status: "IN_PROGRESS" });
  });

  test("status polled after run reads COMPLETED once the job ends", async () => {
    emu.setFaults({ modelJobMs: 5000 });
    const r = await call("POST", "/v2/flux-schnell/run", { body: INPUT });
    let answer: any;
    for (let i = 0; i < 200; i++) {
      answer = (await call("GET", `/v2/flux-schnell/status/${r.body.id}`)).body;
      if (answer.status !== "IN_PROGRESS") break;
      await new Promise((done) => setTimeout(done, 10));
    }
    expect(answer).toEqual({ ...FINISHED, id: r.body.id, executionTime: 5000 });
  });

  test("a failing job reads FAILED with its error and times, no output", async () => {
    emu.setFaults({ failingPrompts: ["^boom"] });
    const r = await call("POST", "/v2/sdxl-turbo/run", { body: { input: { prompt: "boom" } } });
    const s = await call("GET", `/v2/sdxl-turbo/status-sync/${r.body.id}?wait=1000`);
    expect(s.body).toEqual({ id: r.body.id, status: "FAILED", error: expect.stringMatching(/\S/), delayTime: 0, executionTime: 0 });
  });

  test("run refuses what runsync refuses: 422 listing the input's failures, nothing submitted", async () => {
    const before = emu.counts().run ?? 0;
    const r = await call("POST", "/v2/sdxl-turbo/run", { body: { input: { width: 0 } } });
    expect(r.status).toBe(422);
    expect(r.type).toContain("application/problem+json");
    expect(r.body.errors).toContain("$.input: missing property 'prompt'");
    expect((emu.counts().run ?? 0) - before).toBe(1); // the request is logged; no job id came back
  });
});

describe("status and status-sync: what they refuse", () => {
  test("a job id the model never had, or another model's job: 404 problem+json", async () => {
    const r = await call("POST", "/v2/sdxl-turbo/run", { body: INPUT });
    for (const path of ["/v2/sdxl-turbo/status/async-999-zzzzzzzz", `/v2/flux-schnell/status/${r.body.id}`, `/v2/flux-schnell/status-sync/${r.body.id}`]) {
      const s = await call("GET", path);
      expect(s.status).toBe(404);
      expect(s.type).toContain("application/problem+json");
      expect(s.body).toEqual({ title: "Not Found", status: 404, detail: expect.any(String) });
    }
    expect((await call("GET", `/v2/no-such-model/status/${r.body.id}`)).status).toBe(404);
  });

  test("the same auth and scopes as runsync: no key 401, a read-only key 403", async () => {
    const r = await call("POST", "/v2/sdxl-turbo/run", { body: INPUT });
    expect((await call("GET", `/v2/sdxl-turbo/status/${r.body.id}`, { key: null })).status).toBe(401);
    expect((await call("GET", `/v2/sdxl-turbo/status-sync/${r.body.id}`, { key: READ_ONLY })).status).toBe(403);
    expect((await call("POST", "/v2/sdxl-turbo/run", { key: READ_ONLY, body: INPUT })).status).toBe(403);
  });

  test("status-sync's wait has runsync's rule: 400 naming it", async () => {
    const r = await call("POST", "/v2/sdxl-turbo/run", { body: INPUT });
    const s = await call("GET", `/v2/sdxl-turbo/status-sync/${r.body.id}?wait=999`);
    expect(s.status).toBe(400);
    expect(s.body.detail).toMatch(/wait must be an integer from 1000 to 300000/);
  });

  test("the same rate limits: each follow-up counts against the key's quota", async () => {
    const small = await startEmulator({ port: 0, keys: KEYS, quotas: { minute: 2 } });
    try {
      const r = await call("POST", "/v2/sdxl-turbo/run", { body: INPUT, base: small.url });
      expect((await call("GET", `/v2/sdxl-turbo/status/${r.body.id}`, { base: small.url })).status).toBe(200);
      const limited = await call("GET", `/v2/sdxl-turbo/status/${r.body.id}`, { base: small.url });
      expect(limited.status).toBe(429);
      expect(limited.body.detail).toMatch(/minute/);
    } finally {
      await small.close();
    }
  });
});

test("a finished job stays readable for at least 10 minutes, however many jobs come after it", async () => {
  let t = Date.parse("2026-11-01T00:00:00Z");
  const clocked = await startEmulator({ port: 0, keys: KEYS, quotas: QUOTAS, clock: { now: () => t } });
  try {
    const first = await call("POST", "/v2/sdxl-turbo/runsync", { body: INPUT, base: clocked.url });
    expect(first.body.status).toBe("COMPLETED");
    t += 10 * 60_000;
    // New submissions prune expired jobs: this one is not expired yet.
    await call("POST", "/v2/sdxl-turbo/run", { body: INPUT, base: clocked.url });
    expect((await call("GET", `/v2/sdxl-turbo/status/${first.body.id}`, { base: clocked.url })).body).toEqual(first.body);
  } finally {
    await clocked.close();
  }
});

test("billing: each submitted job is charged once, however often it is followed", async () => {
  emu.setFaults({ modelJobMs: 5000 });
  const billed = async () => (await call("GET", "/v2/billing/endpoints?bucketSize=year")).body.metadata.totals.totalAmount as number;
  const before = await billed();
  const r = await call("POST", "/v2/sdxl-turbo/runsync?wait=1000", { body: INPUT });
  for (let i = 0; i < 3; i++) await call("GET", `/v2/sdxl-turbo/status-sync/${r.body.id}?wait=1000`);
  expect(Math.round(((await billed()) - before) * 1e6) / 1e6).toBe(0.002);
});

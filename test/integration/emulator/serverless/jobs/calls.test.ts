// Jobs on the account's own endpoints over real HTTP (docs/emulator.md, "Jobs on the account's own
// endpoints"): every route and rule, scaling and billing, on a manual clock moved forward by the
// control plane (POST /emulator/clock), so idle timeouts, ttl and an hour of billing take no wait.
import * as http from "node:http";
import { type Emulator, startEmulator } from "../../../../../src/emulator";

const KEY = "cp_test_endpoint_jobs_0123";
const QUOTAS = { minute: 100000, hour: 1000000, day: 10000000 };
const START = Date.UTC(2026, 5, 1, 10, 0, 0);

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    keys: [{ key: KEY, scopes: ["read", "write"] }],
    quotas: QUOTAS,
    timings: { startingMs: 3000, drainMs: 1000 },
    // A clock that moves only when the test moves it.
    clock: { now: () => START },
  });
});

afterAll(async () => {
  await emu?.close();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; type: string | null; text: string }> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, type: res.headers.get("content-type"), text };
}

/** Moves the emulator's clock through the control plane. */
async function advance(ms: number): Promise<void> {
  const r = await call("POST", "/emulator/clock", { advanceMs: ms });
  expect(r.status).toBe(200);
}

async function endpoint(fields: Record<string, unknown> = {}): Promise<string> {
  const r = await call("POST", "/v2/serverless", {
    name: "jobs",
    image: "worker:1",
    gpu: { pools: ["ADA_24"], count: 1 },
    workers: { min: 0, max: 3 },
    scaling: { type: "REQUEST_COUNT", value: 1, idleTimeout: 5 },
    ...fields,
  });
  expect(r.status).toBe(201);
  return r.body.id;
}

const workers = async (id: string) => (await call("GET", `/v2/serverless/${id}/workers`)).body;
const health = async (id: string) => (await call("GET", `/v2/${id}/health`)).body;

describe("run, status and the test worker", () => {
  test("a job waits IN_QUEUE while the first worker starts, then the test worker echoes its input", async () => {
    const id = await endpoint();
    const run = await call("POST", `/v2/${id}/run`, { input: { hello: "world", n: 1 } });
    expect(run.status).toBe(200);
    expect(run.body).toEqual({ id: expect.any(String), status: "IN_QUEUE" });
    expect((await call("GET", `/v2/${id}/status/${run.body.id}`)).body).toEqual({ id: run.body.id, status: "IN_QUEUE" });
    expect((await health(id)).workers).toMatchObject({ initializing: 1, ready: 0 });
    expect((await workers(id)).workers.map((w: any) => w.status)).toEqual(["INITIALIZING"]);
    await advance(3000);
    const done = await call("GET", `/v2/${id}/status/${run.body.id}`);
    const [worker] = (await workers(id)).workers;
    expect(done.body).toEqual({ id: run.body.id, status: "COMPLETED", output: { hello: "world", n: 1 }, delayTime: 3000, executionTime: 0, workerId: worker.id });
    expect((await health(id)).jobs).toMatchObject({ completed: 1, inQueue: 0, inProgress: 0 });
  });

  test("runsync answers a started worker's job at once; status-sync follows it", async () => {
    const id = await endpoint({ workers: { min: 1, max: 1 } });
    await advance(3000);
    const r = await call("POST", `/v2/${id}/runsync`, { input: { x: [1, 2] } });
    expect(r.body).toMatchObject({ status: "COMPLETED", output: { x: [1, 2] }, delayTime: 0 });
    const s = await call("GET", `/v2/${id}/status-sync/${r.body.id}?wait=1000`);
    expect(s.body).toMatchObject({ id: r.body.id, status: "COMPLETED" });
    expect((await call("GET", `/v2/${id}/status-sync/${r.body.id}?wait=5`)).status).toBe(400);
  });

  test("sleep_ms holds the job IN_PROGRESS (its worker RUNNING), then it completes with sleep_ms in the output", async () => {
    const id = await endpoint({ workers: { min: 1, max: 1 } });
    await advance(3000);
    const run = await call("POST", `/v2/${id}/run`, { input: { sleep_ms: 2000 } });
    expect((await call("GET", `/v2/${id}/status/${run.body.id}`)).body).toMatchObject({ status: "IN_PROGRESS", delayTime: 0, executionTime: 0 });
    expect((await workers(id)).summary).toMatchObject({ running: 1, idle: 0, total: 1 });
    expect((await health(id)).workers).toMatchObject({ running: 1, ready: 1, idle: 0 });
    await advance(2000);
    expect((await call("GET", `/v2/${id}/status/${run.body.id}`)).body).toMatchObject({ status: "COMPLETED", output: { sleep_ms: 2000 }, executionTime: 2000 });
  });

  test("fail ends the job FAILED; retry queues it again (409 for a job that did not fail); health counts both failures", async () => {
    const id = await endpoint({ workers: { min: 1, max: 1 } });
    await advance(3000);
    const r = await call("POST", `/v2/${id}/runsync`, { input: { fail: "boom" } });
    expect(r.body).toMatchObject({ status: "FAILED", error: "boom" });
    const retry = await call("POST", `/v2/${id}/retry/${r.body.id}`);
    expect(retry.body).toEqual({ id: r.body.id, status: "IN_QUEUE" });
    expect((await call("GET", `/v2/${id}/status/${r.body.id}`)).body).toMatchObject({ status: "FAILED", error: "boom" });
    expect((await health(id)).jobs).toMatchObject({ failed: 2, retried: 1 });
    const ok = await call("POST", `/v2/${id}/runsync`, { input: {} });
    const refused = await call("POST", `/v2/${id}/retry/${ok.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.type).toContain("application/problem+json");
  });

  test("stream yields the chunks produced since the last read, then the list is the output", async () => {
    const id = await endpoint({ workers: { min: 1, max: 1 } });
    await advance(3000);
    const run = await call("POST", `/v2/${id}/run`, { input: { stream: ["a", "b", "c"], sleep_ms: 3000 } });
    await advance(1000);
    expect((await call("GET", `/v2/${id}/stream/${run.body.id}`)).body).toEqual({ status: "IN_PROGRESS", stream: [{ output: "a" }] });
    expect((await call("GET", `/v2/${id}/stream/${run.body.id}`)).body).toEqual({ status: "IN_PROGRESS", stream: [] });
    await advance(2000);
    expect((await call("GET", `/v2/${id}/stream/${run.body.id}`)).body).toEqual({ status: "COMPLETED", stream: [{ output: "b" }, { output: "c" }] });
    expect((await call("GET", `/v2/${id}/status/${run.body.id}`)).body.output).toEqual(["a", "b", "c"]);
  });
});

describe("body rules", () => {
  test("422 naming each field and rule; nothing queued", async () => {
    const id = await endpoint({ workers: { min: 0, max: 0 } });
    const bad = await call("POST", `/v2/${id}/run`, { input: [1], extra: 1, webhook: 5, policy: { ttl: 5, executionTimeout: 1000, lowPriority: "no", other: 1 } });
    expect(bad.status).toBe(422);
    expect(bad.type).toContain("application/problem+json");
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        "$: additional properties 'extra' not allowed",
        "$.input: must be an object",
        "$.webhook: must be a string",
        "$.policy: additional properties 'other' not allowed",
        "$.policy.executionTimeout: must be between 5000 and 604800000 ms, got 1000",
        "$.policy.ttl: must be at least 10000 ms, got 5",
        "$.policy.lowPriority: must be a boolean",
      ]),
    );
    expect((await call("POST", `/v2/${id}/run`, {})).body.errors).toEqual(["$: missing property 'input'"]);
    expect((await call("POST", `/v2/${id}/run`, { input: {}, s3Config: { bucket: "b" } })).status).toBe(200);
    expect((await health(id)).jobs.inQueue).toBe(1);
  });

  test("hosted models accept the same envelope", async () => {
    const r = await call("POST", "/v2/sdxl-turbo/runsync", { input: { prompt: "a cat" }, policy: { ttl: 60000 }, s3Config: {} });
    expect(r.body.status).toBe("COMPLETED");
  });
});

describe("timeouts, cancel and purge", () => {
  test("the endpoint's executionTimeoutMs, or the job's policy.executionTimeout, ends a job TIMED_OUT", async () => {
    const id = await endpoint({ workers: { min: 2, max: 2 }, timeout: 10000 });
    await advance(3000);
    const long = await call("POST", `/v2/${id}/run`, { input: { sleep_ms: 20000 } });
    const short = await call("POST", `/v2/${id}/run`, { input: { sleep_ms: 20000 }, policy: { executionTimeout: 5000 } });
    await advance(5000);
    expect((await call("GET", `/v2/${id}/status/${short.body.id}`)).body).toMatchObject({ status: "TIMED_OUT", executionTime: 5000 });
    expect((await call("GET", `/v2/${id}/status/${long.body.id}`)).body.status).toBe("IN_PROGRESS");
    await advance(5000);
    expect((await call("GET", `/v2/${id}/status/${long.body.id}`)).body).toMatchObject({ status: "TIMED_OUT", executionTime: 10000 });
    expect((await health(id)).jobs.failed).toBe(2);
  });

  test("with workersMax 0 jobs stay queued until their ttl; purge-queue removes the queued ones", async () => {
    const id = await endpoint({ workers: { min: 0, max: 0 } });
    const a = await call("POST", `/v2/${id}/run`, { input: {}, policy: { ttl: 10000 } });
    const b = await call("POST", `/v2/${id}/run`, { input: {} });
    await advance(10000);
    expect((await call("GET", `/v2/${id}/status/${a.body.id}`)).body.status).toBe("TIMED_OUT");
    expect((await call("GET", `/v2/${id}/status/${b.body.id}`)).body.status).toBe("IN_QUEUE");
    expect((await workers(id)).workers).toEqual([]);
    expect((await call("POST", `/v2/${id}/purge-queue`)).body).toEqual({ removed: 1, status: "completed" });
    expect((await call("GET", `/v2/${id}/status/${b.body.id}`)).status).toBe(404);
    expect((await call("GET", `/v2/${id}/status/${a.body.id}`)).body.status).toBe("TIMED_OUT");
  });

  test("cancel ends a queued or running job CANCELLED and frees its worker; a finished job keeps its status", async () => {
    const id = await endpoint({ workers: { min: 1, max: 1 } });
    await advance(3000);
    const running = await call("POST", `/v2/${id}/run`, { input: { sleep_ms: 60000 } });
    const queued = await call("POST", `/v2/${id}/run`, { input: { sleep_ms: 60000 } });
    expect((await call("POST", `/v2/${id}/cancel/${queued.body.id}`)).body).toEqual({ id: queued.body.id, status: "CANCELLED" });
    expect((await call("POST", `/v2/${id}/cancel/${running.body.id}`)).body).toEqual({ id: running.body.id, status: "CANCELLED" });
    expect((await workers(id)).summary).toMatchObject({ idle: 1, running: 0 });
    const done = await call("POST", `/v2/${id}/runsync`, { input: {} });
    expect((await call("POST", `/v2/${id}/cancel/${done.body.id}`)).body).toEqual({ id: done.body.id, status: "COMPLETED" });
  });

  test("404 for a job the endpoint never had, another endpoint's job, and every route of a deleted endpoint", async () => {
    const id = await endpoint({ workers: { min: 0, max: 0 } });
    const other = await endpoint({ workers: { min: 0, max: 0 } });
    const job = await call("POST", `/v2/${id}/run`, { input: {} });
    expect((await call("GET", `/v2/${id}/status/nope`)).status).toBe(404);
    expect((await call("GET", `/v2/${other}/status/${job.body.id}`)).status).toBe(404);
    expect((await call("GET", `/v2/${id}/stream/nope`)).status).toBe(404);
    expect((await call("POST", `/v2/${id}/cancel/nope`)).status).toBe(404);
    expect((await call("DELETE", `/v2/serverless/${id}`)).status).toBe(204);
    for (const [m, p] of [["GET", `/status/${job.body.id}`], ["POST", "/run"], ["GET", "/health"], ["POST", "/purge-queue"], ["GET", "/openai/v1/models"]])
      expect((await call(m, `/v2/${id}${p}`, m === "POST" ? { input: {} } : undefined)).status).toBe(404);
  });
});

describe("workers and scaling", () => {
  test("REQUEST_COUNT scalerValue 1, workersMax 3: three long jobs bring three running workers, the same in listEndpointWorkers and GraphQL pods; back to workersMin after the idle timeout", async () => {
    const id = await endpoint({ workers: { min: 1, max: 3 }, scaling: { type: "REQUEST_COUNT", value: 1, idleTimeout: 5 } });
    await advance(3000);
    for (let i = 0; i < 4; i++) expect((await call("POST", `/v2/${id}/run`, { input: { sleep_ms: 60000, i } })).status).toBe(200);
    // One worker was ready; two more start (never more than workersMax, though four jobs wait).
    expect((await workers(id)).summary).toMatchObject({ running: 1, initializing: 2, total: 3 });
    await advance(3000);
    const listed = await workers(id);
    expect(listed.summary).toMatchObject({ running: 3, idle: 0, initializing: 0, total: 3 });
    const gql = await call("POST", "/graphql", { query: "{ myself { endpoints { id pods { id desiredStatus } } } }" });
    const pods = gql.body.data.myself.endpoints.find((e: any) => e.id === id).pods;
    expect(pods.map((p: any) => p.id).sort()).toEqual(listed.workers.map((w: any) => w.id).sort());
    expect(pods.every((p: any) => p.desiredStatus === "RUNNING")).toBe(true);
    expect((await health(id)).jobs).toMatchObject({ inProgress: 3, inQueue: 1 });
    // The first three end; the fourth runs on a freed worker; two are idle and leave 5 s later.
    await advance(60000);
    expect((await workers(id)).summary).toMatchObject({ running: 1, idle: 2, total: 3 });
    await advance(5000);
    expect((await workers(id)).summary).toMatchObject({ running: 1, idle: 0, total: 1 });
    await advance(60000);
    expect((await workers(id)).summary).toMatchObject({ idle: 1, total: 1 });
    expect((await health(id)).jobs).toMatchObject({ completed: 4, inProgress: 0 });
  });

  test("QUEUE_DELAY adds a worker once the oldest queued job has waited more than scalerValue seconds", async () => {
    const id = await endpoint({ workers: { min: 1, max: 3 }, scaling: { type: "QUEUE_DELAY", value: 4, idleTimeout: 5 } });
    await advance(3000);
    await call("POST", `/v2/${id}/run`, { input: { sleep_ms: 60000 } });
    await call("POST", `/v2/${id}/run`, { input: { sleep_ms: 60000 } });
    await advance(4000);
    expect((await workers(id)).summary.total).toBe(1);
    await advance(1);
    expect((await workers(id)).summary).toMatchObject({ initializing: 1, total: 2 });
    await advance(3000);
    expect((await workers(id)).summary).toMatchObject({ running: 2, total: 2 });
  });

  test("FlashBoot starts a worker in a tenth of the starting time", async () => {
    const id = await endpoint({ flashboot: "FLASHBOOT" });
    const run = await call("POST", `/v2/${id}/run`, { input: {} });
    await advance(300);
    expect((await call("GET", `/v2/${id}/status/${run.body.id}`)).body).toMatchObject({ status: "COMPLETED", delayTime: 300 });
  });
});

describe("billing", () => {
  test("a worker bills gpuCount x its tier's price per second from start to leave: gpuCount 2 bills twice gpuCount 1", async () => {
    const one = await endpoint({ workers: { min: 1, max: 1 }, gpu: { pools: ["ADA_24"], count: 1 } });
    const two = await endpoint({ workers: { min: 1, max: 1 }, gpu: { pools: ["ADA_24"], count: 2 } });
    await advance(3_600_000);
    const bill = async (id: string) => (await call("GET", `/v2/billing/serverless?serverlessId=${id}&bucketSize=year`)).body;
    const a = await bill(one);
    const b = await bill(two);
    expect(a.records).toHaveLength(1);
    expect(a.records[0]).toMatchObject({ serverlessId: one, cpuAmount: 0, diskAmount: 0, feeAmount: 0 });
    // ADA_24's price (RTX 4090, 0.69 USD/h) for the hour.
    expect(a.records[0].gpuAmount).toBeCloseTo(0.69, 6);
    expect(b.records[0].gpuAmount).toBeCloseTo(2 * a.records[0].gpuAmount, 6);
    expect(a.metadata).toMatchObject({ uniqueServerlessCount: 1, recordCount: 1 });
    // The workers stop billing when they leave; the spend stays billed after a delete.
    await call("PATCH", `/v2/serverless/${one}`, { workers: { min: 0, max: 0 } });
    expect((await call("DELETE", `/v2/serverless/${one}`)).status).toBe(204);
    await advance(3_600_000);
    expect((await bill(one)).records[0].gpuAmount).toBeCloseTo(0.69, 6);
    expect((await bill(two)).records[0].gpuAmount).toBeCloseTo(4 * 0.69, 6);
    const all = (await call("GET", "/v2/billing?bucketSize=year")).body;
    const served = (await call("GET", "/v2/billing/serverless?bucketSize=year")).body.metadata.totals.gpuAmount;
    // Sums of per-bucket and per-endpoint amounts each rounded to micro-dollars.
    expect(all.metadata.totals.serverlessGpuAmount).toBeCloseTo(served, 4);
  });
});

describe("webhooks", () => {
  test("a job's final answer is POSTed once to a loopback webhook", async () => {
    const got: any[] = [];
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        got.push(JSON.parse(body));
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as { port: number }).port;
      const id = await endpoint({ workers: { min: 1, max: 1 } });
      await advance(3000);
      const r = await call("POST", `/v2/${id}/runsync`, { input: { a: 1 }, webhook: `http://127.0.0.1:${port}/hook` });
      const far = await call("POST", `/v2/${id}/runsync`, { input: { a: 2 }, webhook: "http://192.0.2.1/hook" });
      expect(far.body.status).toBe("COMPLETED");
      for (let i = 0; i < 200 && got.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
      expect(got).toEqual([{ id: r.body.id, status: "COMPLETED", output: { a: 1 }, delayTime: 0, executionTime: 0, workerId: r.body.workerId }]);
      expect((await workers(id)).workers.map((w: any) => w.id)).toEqual([r.body.workerId]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("OpenAI-compatible routes", () => {
  test("models lists the endpoint; chat completions and completions echo, plain and streamed, each a job", async () => {
    const id = await endpoint({ workers: { min: 1, max: 1 } });
    await advance(3000);
    expect((await call("GET", `/v2/${id}/openai/v1/models`)).body.data).toEqual([expect.objectContaining({ id, object: "model" })]);
    const messages = [{ role: "system", content: "be brief" }, { role: "user", content: "hello there" }];
    const chat = await call("POST", `/v2/${id}/openai/v1/chat/completions`, { model: id, messages });
    expect(chat.body).toMatchObject({ object: "chat.completion", choices: [{ message: { role: "assistant", content: "hello there" }, finish_reason: "stop" }] });
    // A completion's id names its job, whose answer names the worker that served it.
    const served = await call("GET", `/v2/${id}/status/${chat.body.id.replace(/^cmpl-/, "")}`);
    expect(served.body).toMatchObject({ status: "COMPLETED", workerId: (await workers(id)).workers[0].id });
    const streamed = await call("POST", `/v2/${id}/openai/v1/chat/completions`, { model: id, messages, stream: true });
    expect(streamed.type).toContain("text/event-stream");
    const events = streamed.text.split("\n\n").filter((e) => e.startsWith("data: ")).map((e) => e.slice(6));
    expect(events.at(-1)).toBe("[DONE]");
    const text = events.slice(0, -1).map((e) => JSON.parse(e).choices[0].delta.content ?? "").join("");
    expect(text).toBe("hello there");
    const completion = await call("POST", `/v2/${id}/openai/v1/completions`, { model: id, prompt: "say this" });
    expect(completion.body.choices[0].text).toBe("say this");
    expect((await call("POST", `/v2/${id}/openai/v1/chat/completions`, { messages: [] })).status).toBe(422);
    expect((await health(id)).jobs.completed).toBe(3);
  });
});

describe("the clock", () => {
  test("GET and POST /emulator/clock; a bad step is 422 naming the field; advanceClock in code", async () => {
    const before = (await call("GET", "/emulator/clock")).body;
    expect(before).toMatchObject({ timeScale: 1, epochMs: emu.now() });
    const bad = await call("POST", "/emulator/clock", { advanceMs: -1 });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatch(/^advanceMs: /);
    emu.advanceClock(1000);
    expect((await call("GET", "/emulator/clock")).body.advancedMs).toBe(before.advancedMs + 1000);
  });
});

describe("the handler option", () => {
  test("an embedder's function answers the jobs and fails them by throwing", async () => {
    const e = await startEmulator({
      port: 0,
      keys: [{ key: KEY, scopes: ["read", "write"] }],
      timings: { startingMs: 0 },
      handler: async (job) => {
        if (job.input.bad) throw new Error("handler refused");
        return { doubled: (job.input.n as number) * 2, endpointId: job.endpointId };
      },
    });
    try {
      const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
      const created: any = await (await fetch(`${e.url}/v2/serverless`, { method: "POST", headers, body: JSON.stringify({ name: "h", image: "worker:1", gpu: { pools: ["ADA_24"] }, workers: { min: 1, max: 1 } }) })).json();
      const runsync = async (input: unknown) => (await fetch(`${e.url}/v2/${created.id}/runsync`, { method: "POST", headers, body: JSON.stringify({ input }) })).json();
      expect(await runsync({ n: 21 })).toMatchObject({ status: "COMPLETED", output: { doubled: 42, endpointId: created.id } });
      expect(await runsync({ bad: true })).toMatchObject({ status: "FAILED", error: "handler refused" });
    } finally {
      await e.close();
    }
  });
});

describe("the console", () => {
  test("the endpoints page shows each endpoint's queue, workers by state, spend and recent jobs, each answer one click away; the money page lists the workers", async () => {
    const id = await endpoint({ name: "console-ep", workers: { min: 1, max: 1 } });
    await advance(3000);
    const done = await call("POST", `/v2/${id}/runsync`, { input: { shown: "in the console" } });
    await call("POST", `/v2/${id}/run`, { input: { sleep_ms: 60000 } });
    await call("POST", `/v2/${id}/run`, { input: {} });
    await advance(3_600_000 / 2);
    const signIn = await fetch(`${emu.url}/console/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key: KEY }).toString(),
      redirect: "manual",
    });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0];
    const page = await (await fetch(`${emu.url}/console/endpoints`, { headers: { cookie } })).text();
    const section = page.slice(page.indexOf(`<section class="endpoint-jobs" data-endpoint-id="${id}"`));
    expect(section).toMatch(/Queue: 0 waiting, 0 running; 3 completed/);
    expect(section).toMatch(/Workers: 0 initializing, 1 idle, 0 running/);
    // Half an hour and a bit of one ADA_24 worker (0.69 USD/h).
    expect(section).toMatch(/data-figure="spent">\$0\.3\d+/);
    expect(section).toContain(`<summary>${done.body.id}</summary>`);
    expect(section).toContain("&quot;shown&quot;: &quot;in the console&quot;");
    const money = await (await fetch(`${emu.url}/console/money`, { headers: { cookie } })).text();
    expect(money).toContain(`<td>serverless</td><td>${id}-w`);
  });
});

// Hostile input against the jobs surface, over real HTTP (issue 53): job input too deep or too
// large refused at submission naming the rule (account endpoints, hosted models, OpenAI routes),
// and the emulator still answering afterwards.
import * as http from "node:http";
import { type Emulator, startEmulator } from "../../../../../src/emulator";

const KEY = "cp_test_hostile_jobs_0123";
const QUOTAS = { minute: 100000, hour: 1000000, day: 10000000 };

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], quotas: QUOTAS, timings: { startingMs: 0 } });
});

afterAll(async () => {
  await emu?.close();
});

/** A request whose body is sent as given (a nesting JSON.stringify could not write). */
async function send(method: string, path: string, body?: string | unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

async function endpoint(workers: { min: number; max: number } = { min: 1, max: 1 }): Promise<string> {
  const r = await send("POST", "/v2/serverless", { name: "hostile", image: "worker:1", gpu: { pools: ["ADA_24"] }, workers });
  expect(r.status).toBe(201);
  return r.body.id;
}

/** `{"a":{"a":...1...}}`, `levels` objects deep, as text. */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"a":1}${"}".repeat(levels - 1)}`;

/** A loopback server that counts the POSTs it gets. */
async function hookServer(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, hits: () => hits, close: () => new Promise((r) => server.close(() => r())) };
}

describe("job input: a depth and size rule at submission", () => {
  test("input 20,000 levels deep with a loopback webhook -> 422 naming the rule; the emulator keeps answering", async () => {
    const id = await endpoint();
    const hook = await hookServer();
    try {
      for (const route of ["run", "runsync"]) {
        const r = await send("POST", `/v2/${id}/${route}`, `{"webhook":${JSON.stringify(hook.url)},"input":${nested(20_000)}}`);
        expect(r.status).toBe(422);
        expect(r.headers.get("content-type")).toContain("application/problem+json");
        expect(r.body).toMatchObject({ title: "Unprocessable Entity", status: 422, errors: ["$.input: must nest at most 64 levels deep"] });
      }
      // The webhook's timer had nothing to write; the emulator still serves.
      await new Promise((r) => setTimeout(r, 50));
      expect(hook.hits()).toBe(0);
      expect((await send("GET", `/v2/${id}/health`)).status).toBe(200);
    } finally {
      await hook.close();
    }
  });

  test("at the limit the input is taken and read back whole; one level more is refused", async () => {
    const id = await endpoint();
    const ok = await send("POST", `/v2/${id}/runsync`, `{"input":${nested(64)}}`);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe("COMPLETED");
    expect(JSON.stringify(ok.body.output)).toBe(nested(64));
    const status = await send("GET", `/v2/${id}/status/${ok.body.id}`);
    expect(status.status).toBe(200);
    const over = await send("POST", `/v2/${id}/run`, `{"input":${nested(65)}}`);
    expect(over.status).toBe(422);
  });

  test("input over 262,144 bytes as JSON -> 422 naming the size", async () => {
    const id = await endpoint();
    const r = await send("POST", `/v2/${id}/run`, { input: { text: "x".repeat(300_000) } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual(["$.input: must take at most 262144 bytes as JSON, got 300011"]);
  });

  test("a hosted model refuses the same input", async () => {
    const r = await send("POST", "/v2/sdxl-turbo/runsync", `{"input":{"prompt":"p","extra":${nested(20_000)}}}`);
    expect(r.status).toBe(422);
    expect(r.body.errors).toContain("$.input: must nest at most 64 levels deep");
  });

  test("an OpenAI completion whose message nests too deep -> 422 before any job runs", async () => {
    const id = await endpoint();
    const body = `{"messages":[{"role":"user","content":"hi","extra":${nested(20_000)}}]}`;
    const r = await send("POST", `/v2/${id}/openai/v1/chat/completions`, body);
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual(["$: must nest at most 63 levels deep"]);
    expect((await send("GET", `/v2/${id}/health`)).body.jobs).toMatchObject({ completed: 0, inQueue: 0, inProgress: 0 });
  });
});

describe("webhooks never follow a redirect", () => {
  test("a loopback webhook answering 307 is not followed: its target gets nothing", async () => {
    const hits: string[] = [];
    const server = http.createServer((req, res) => {
      hits.push(req.url!);
      req.resume();
      if (req.url === "/hook") res.writeHead(307, { location: "/landed" }).end();
      else res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const until = async (path: string) => {
      for (let i = 0; i < 300 && !hits.includes(path); i++) await new Promise((r) => setTimeout(r, 10));
    };
    try {
      const id = await endpoint();
      expect((await send("POST", `/v2/${id}/runsync`, { input: { secret: "answer" }, webhook: `${base}/hook` })).body.status).toBe("COMPLETED");
      await until("/hook");
      // A second job's webhook, called after the first one's answer came back: a followed redirect
      // would have reached /landed before it.
      expect((await send("POST", `/v2/${id}/runsync`, { input: { n: 2 }, webhook: `${base}/after` })).body.status).toBe("COMPLETED");
      await until("/after");
      expect(hits).toEqual(["/hook", "/after"]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("held calls and queues are bounded; waits are woken by events", () => {
  let small: Emulator;
  /** Reads of the emulator's clock: what a polling wait would multiply. */
  let reads = 0;
  const T0 = Date.UTC(2026, 5, 1, 10, 0, 0);

  beforeAll(async () => {
    small = await startEmulator({
      port: 0,
      keys: [{ key: KEY, scopes: ["read", "write"] }],
      quotas: QUOTAS,
      timings: { startingMs: 0 },
      // A clock that never moves on its own: every wait below ends by the job's events or its real bound.
      clock: { now: () => (reads++, T0) },
      jobLimits: { queuedJobs: 3, queuedBytes: 1000, heldCalls: 3 },
    });
  });

  afterAll(async () => {
    await small?.close();
  });

  const on = (path: string, method = "GET", body?: unknown) =>
    fetch(`${small.url}${path}`, { method, headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => ({
      status: r.status,
      headers: r.headers,
      body: (await r.json()) as any,
    }));
  const idle = async () => (await on("/v2/serverless", "POST", { name: "idle", image: "worker:1", gpu: { pools: ["ADA_24"] }, workers: { min: 0, max: 0 } })).body.id as string;
  const counted = async (id: string) => (await on(`/v2/${id}/health`)).body.jobs.inQueue as number;

  test("a held runsync ends when its job is purged: 404, as its status reads", async () => {
    const id = await idle();
    const held = on(`/v2/${id}/runsync?wait=20000`, "POST", { input: { n: 1 } });
    for (let i = 0; i < 200 && (await counted(id)) === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect((await on(`/v2/${id}/purge-queue`, "POST")).body).toEqual({ removed: 1, status: "completed" });
    const r = await held;
    expect(r.status).toBe(404);
    expect(r.body.detail).toContain("purged");
  });

  test("past heldCalls a held call is answered 503 with Retry-After, at once; the held ones are not disturbed", async () => {
    const id = await idle();
    const held = [1, 2, 3].map((n) => on(`/v2/${id}/runsync?wait=20000`, "POST", { input: { n } }));
    for (let i = 0; i < 200 && (await counted(id)) < 3; i++) await new Promise((r) => setTimeout(r, 5));
    const extra = await on(`/v2/${id}/runsync?wait=20000`, "POST", { input: { n: 4 } });
    expect(extra.status).toBe(503);
    expect(extra.headers.get("retry-after")).toBe("1");
    expect(extra.body).toMatchObject({ title: "Service Unavailable", status: 503 });
    expect(extra.body.detail).toContain("3 calls are held open");
    // Nothing was queued for the refused call.
    expect(await counted(id)).toBe(3);
    await on(`/v2/${id}/purge-queue`, "POST");
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([404, 404, 404]);
  });

  test("a hosted model's held calls count against the same limit", async () => {
    // Hosted jobs take 20 s on a clock that never moves: each runsync is held its whole wait.
    small.setFaults({ modelJobMs: 20_000 });
    try {
      const held = [1, 2, 3].map((n) => on("/v2/sdxl-turbo/runsync?wait=1000", "POST", { input: { prompt: `p${n}` } }));
      const id = await idle();
      await new Promise((r) => setTimeout(r, 100));
      const extra = await on(`/v2/${id}/runsync?wait=1000`, "POST", { input: { n: 4 } });
      expect(extra.status).toBe(503);
      expect((await Promise.all(held)).map((r) => r.body.status)).toEqual(["IN_PROGRESS", "IN_PROGRESS", "IN_PROGRESS"]);
      // Their calls ended: room again.
      expect((await on("/v2/sdxl-turbo/runsync?wait=1000", "POST", { input: { prompt: "p" } })).status).toBe(200);
    } finally {
      small.setFaults({});
    }
  });

  test("past queuedJobs or queuedBytes a submission is answered 429 with Retry-After naming the limit", async () => {
    const id = await idle();
    for (const n of [1, 2, 3]) expect((await on(`/v2/${id}/run`, "POST", { input: { n } })).status).toBe(200);
    const full = await on(`/v2/${id}/run`, "POST", { input: { n: 4 } });
    expect(full.status).toBe(429);
    expect(full.headers.get("retry-after")).toBe("1");
    expect(full.body.detail).toContain("at most 3 jobs and 1000 bytes");
    await on(`/v2/${id}/purge-queue`, "POST");
    expect((await on(`/v2/${id}/run`, "POST", { input: { text: "x".repeat(600) } })).status).toBe(200);
    const bytes = await on(`/v2/${id}/run`, "POST", { input: { text: "y".repeat(600) } });
    expect(bytes.status).toBe(429);
    await on(`/v2/${id}/purge-queue`, "POST");
  });

  test("held calls do not poll: three calls held a second read the clock a bounded number of times", async () => {
    const id = await idle();
    const before = reads;
    const answers = await Promise.all([1, 2, 3].map((n) => on(`/v2/${id}/runsync?wait=1000`, "POST", { input: { n } })));
    expect(answers.map((a) => a.body.status)).toEqual(["IN_QUEUE", "IN_QUEUE", "IN_QUEUE"]);
    // Polling every 50 ms read it 88 times here (the requests' own reads included); woken by events, 27.
    expect(reads - before).toBeLessThan(45);
    await on(`/v2/${id}/purge-queue`, "POST");
  });
});

describe("OpenAI streams are bounded by what was asked and written as produced", () => {
  const stream = async (id: string, body: unknown) => {
    const res = await fetch(`${emu.url}/v2/${id}/openai/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const events = text.split("\n\n").filter((e) => e.startsWith("data: ")).map((e) => e.slice(6));
    return { res, text, events };
  };

  test("a long message with max_tokens 50 streams 50 words, finish_reason length, written as it goes (chunked)", async () => {
    const id = await endpoint();
    const message = "w ".repeat(10_000);
    const { res, text, events } = await stream(id, { model: id, stream: true, max_tokens: 50, messages: [{ role: "user", content: message }] });
    expect(res.status).toBe(200);
    expect(res.headers.get("transfer-encoding")).toBe("chunked");
    expect(res.headers.get("content-length")).toBeNull();
    expect(events.at(-1)).toBe("[DONE]");
    const parsed = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(parsed.filter((e) => e.choices[0].delta.content?.trim())).toHaveLength(50);
    expect(parsed.at(-1)).toMatchObject({ choices: [{ finish_reason: "length" }], usage: { completion_tokens: 50 } });
    expect(text.length).toBeLessThan(20_000);
  });

  test("without max_tokens the answer stops at the emulator's 4096 words; a plain answer too", async () => {
    const id = await endpoint();
    const messages = [{ role: "user", content: "w ".repeat(10_000) }];
    const { events } = await stream(id, { stream: true, messages });
    expect(events.length).toBe(4096 + 3);
    const plain = await send("POST", `/v2/${id}/openai/v1/chat/completions`, { messages });
    expect(plain.body.choices[0]).toMatchObject({ finish_reason: "length" });
    expect(plain.body.usage.completion_tokens).toBe(4096);
  });

  test("a model the endpoint does not serve is 404 and not echoed whole; a bad max_tokens is 422", async () => {
    const id = await endpoint();
    const model = "m".repeat(20_000);
    const r = await send("POST", `/v2/${id}/openai/v1/chat/completions`, { model, stream: true, messages: [{ role: "user", content: "hi" }] });
    expect(r.status).toBe(404);
    expect(r.body.detail).toContain(`one model is "${id}"`);
    expect(r.body.detail.length).toBeLessThan(300);
    const bad = await send("POST", `/v2/${id}/openai/v1/completions`, { prompt: "hi", max_tokens: 0 });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual(["$.max_tokens: must be an integer from 1 to 4096"]);
  });
});

import { createServer as httpServer } from "node:http";
import { createServer } from "node:net";
import { z } from "zod";
import {
  AmbiguousRequestError,
  type ApiError,
  ComputePlatform,
  type ComputePlatformOptions,
  ConnectionError,
  DEFAULT_URL,
  InternalServerError,
  PacingRegistry,
  RateLimitError,
  sharedPacing,
  systemClock,
  TimeoutError,
} from "../../../../src/client";
import { MissingApiKeyError } from "../../../../src/client/core/errors";
import { type HttpRequest, Transport } from "../../../../src/client/core/transport";
import { FakeClock } from "../../../helpers/fake-clock";
import { type Handler, startLoopback, wirePod } from "../../../helpers/loopback";

// Real HTTP on a loopback port, with answers scripted to the fault under test.

const KEY = "cp_test_loopback_key_0001";
const CREATE = { name: "trainer", image: "img:1", gpu: { id: "NVIDIA A100" } };
const servers: { close(): Promise<void> }[] = [];
const clients: ComputePlatform[] = [];

async function setup(handler: Handler, opts: Partial<ComputePlatformOptions> = {}) {
  const srv = await startLoopback(handler);
  servers.push(srv);
  const clock = (opts.clock as FakeClock | undefined) ?? new FakeClock();
  const cp = new ComputePlatform({
    apiKey: KEY,
    apiUrl: srv.url,
    serverlessUrl: srv.url,
    clock,
    pacing: new PacingRegistry(),
    random: () => 0.5,
    env: {},
    ...opts,
  });
  clients.push(cp);
  return { srv, cp, clock };
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("idempotent calls retry on 5xx, 429 and dropped connections", () => {
  test("GET: 503, dropped socket, then 200: three requests, backoff waits", async () => {
    const { srv, cp, clock } = await setup((_r, i) =>
      i === 0 ? { status: 503, body: { title: "x", status: 503, detail: "down" } } : i === 1 ? { destroy: true } : { status: 200, body: wirePod() },
    );
    const pod = await cp.pods.get("pod-1");
    expect(pod.id).toBe("pod-1");
    expect(srv.count("GET", "/v2/pods/pod-1")).toBe(3);
    // random 0.5 of ceilings 500 and 1000: exactly the jittered backoff, nothing else.
    expect(clock.sleeps).toEqual([250, 500]);
  });

  test("429 with Retry-After waits exactly what the server said, no jitter", async () => {
    const { srv, cp, clock } = await setup((_r, i) =>
      i === 0
        ? { status: 429, headers: { "retry-after": "3" }, body: { title: "Too Many Requests", status: 429, detail: "minute window" } }
        : { status: 200, body: { cpus: [] } },
    );
    await expect(cp.catalog.cpus()).resolves.toEqual([]);
    expect(srv.count("GET", "/v2/catalog/cpus")).toBe(2);
    expect(clock.sleeps).toEqual([3000]);
  });

  test("a malformed Retry-After means backoff, not failure", async () => {
    const { cp, clock } = await setup((_r, i) =>
      i === 0 ? { status: 429, headers: { "retry-after": "soon", ratelimit: "{{" }, body: { title: "t", status: 429, detail: "d" } } : { status: 200, body: { gpus: [] } },
    );
    await expect(cp.catalog.gpus()).resolves.toEqual([]);
    expect(clock.sleeps).toEqual([250]);
  });

  test("the budget is bounded: maxRetries + 1 requests, then the last error", async () => {
    const { srv, cp } = await setup(() => ({ status: 500, body: { title: "x", status: 500, detail: "boom" } }), { maxRetries: 2 });
    await expect(cp.pods.list()).rejects.toBeInstanceOf(InternalServerError);
    expect(srv.count("GET", "/v2/pods")).toBe(3);
  });

  test("a server delay longer than maxRetryDelayMs fails at once instead of hanging", async () => {
    const { srv, cp, clock } = await setup(
      () => ({ status: 429, headers: { "retry-after": "86400" }, body: { title: "t", status: 429, detail: "day window" } }),
      { maxRetryDelayMs: 60_000 },
    );
    const err = await cp.pods.list().catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.message).toMatch(/day window.*retry after 86400 s/);
    expect(srv.seen).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  test("a timeout is a TimeoutError, retried for a GET, bounded", async () => {
    const { srv, cp } = await setup(() => ({ hang: true }), { timeoutMs: 80, maxRetries: 1 });
    const err = await cp.pods.get("p").catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toContain("within 80 ms");
    expect(srv.seen).toHaveLength(2);
  });

  test("runsync goes to the serverless address and is not resent after a 502 (a paid job, issue 14)", async () => {
    const { srv, cp } = await setup((_r, i) =>
      i === 0 ? { status: 502, body: { title: "x", status: 502, detail: "gw" } } : { status: 200, body: { id: "r1", status: "COMPLETED", output: { image_url: "http://x/i.png" } } },
    );
    await expect(cp.models.runSync("sdxl", { prompt: "a cat", width: 64, height: 64 })).rejects.toBeInstanceOf(InternalServerError);
    expect(srv.count("POST", "/v2/sdxl/runsync")).toBe(1);
    expect(JSON.parse(srv.seen[0].body)).toEqual({ input: { prompt: "a cat", width: 64, height: 64 } });
  });

  test("a DELETE whose first answer was lost and whose retry finds the pod gone succeeds", async () => {
    let deleted = false;
    const { srv, cp } = await setup(() => {
      if (!deleted) {
        deleted = true;
        return { destroy: true };
      }
      return { status: 404, body: { title: "Not Found", status: 404, detail: "no pod" } };
    });
    await expect(cp.pods.delete("pod-1")).resolves.toBeUndefined();
    expect(srv.count("DELETE", "/v2/pods/pod-1")).toBe(2);
  });

  test("a 404 on the first DELETE is still a NotFoundError", async () => {
    const { cp } = await setup(() => ({ status: 404, body: { title: "Not Found", status: 404, detail: "no pod" } }));
    await expect(cp.pods.delete("nope")).rejects.toMatchObject({ name: "NotFoundError", status: 404 });
  });
});

describe("pacing: an exhausted window holds the next request instead of earning a 429", () => {
  /**
   * A server that enforces a one-request window per key on the shared fake clock and says
   * r=0 after each admitted request.
   */
  function windowed(clock: FakeClock, resetSeconds: number) {
    const windowEnds = new Map<string, number>();
    let violations = 0;
    const handler: Handler = (req) => {
      const who = String(req.headers.authorization);
      if (clock.now() < (windowEnds.get(who) ?? 0)) {
        violations++;
        return { status: 429, headers: { "retry-after": "1" }, body: { title: "t", status: 429, detail: "minute" } };
      }
      windowEnds.set(who, clock.now() + resetSeconds * 1000);
      return {
        status: 200,
        headers: {
          ratelimit: `"minute";r=0;t=${resetSeconds}, "hour";r=2800;t=1812`,
          "ratelimit-policy": '"minute";q=1;w=60, "hour";q=3000;w=3600',
        },
        body: { dataCenters: [] },
      };
    };
    return { handler, violations: () => violations };
  }

  test("the second request waits t seconds and is not refused", async () => {
    const clock = new FakeClock();
    const w = windowed(clock, 7);
    const { srv, cp } = await setup(w.handler, { clock });
    await cp.catalog.dataCenters();
    await cp.catalog.dataCenters();
    expect(srv.seen).toHaveLength(2);
    expect(w.violations()).toBe(0);
    expect(clock.sleeps).toEqual([7000]);
  });

  test("the budget is per key and shared by every client of that key", async () => {
    const clock = new FakeClock();
    const registry = new PacingRegistry();
    const w = windowed(clock, 5);
    const { srv, cp } = await setup(w.handler, { clock, pacing: registry });
    const sameKey = new ComputePlatform({ apiKey: KEY, apiUrl: srv.url, clock, pacing: registry, env: {} });
    const otherKey = new ComputePlatform({ apiKey: "cp_other_key_0002", apiUrl: srv.url, clock, pacing: registry, env: {} });
    clients.push(sameKey, otherKey);
    await cp.catalog.dataCenters();
    await otherKey.catalog.dataCenters(); // another key, another budget: not held
    expect(clock.sleeps).toEqual([]);
    await sameKey.catalog.dataCenters(); // another client, same key: held
    expect(clock.sleeps).toEqual([5000]);
    expect(srv.seen).toHaveLength(3);
    expect(w.violations()).toBe(0);
  });

  test("the registry holds a fingerprint of the key, never the key", () => {
    expect(PacingRegistry.keyId(KEY)).toMatch(/^[0-9a-f]{16}$/);
    expect(PacingRegistry.keyId(KEY)).not.toContain(KEY.slice(0, 8));
  });

  test("a pacing wait is cancellable", async () => {
    const clock = new FakeClock();
    const registry = new PacingRegistry();
    const { cp, srv } = await setup(() => ({ status: 200, body: { cpus: [] } }), { clock, pacing: registry });
    registry.holdUntil(PacingRegistry.keyId(KEY), clock.now() + 30_000);
    const ac = new AbortController();
    ac.abort(new Error("stop"));
    await expect(cp.catalog.cpus({}, { signal: ac.signal })).rejects.toThrow("stop");
    expect(srv.seen).toHaveLength(0);
  });
});

describe("create never makes two pods", () => {
  /** A fake pod store behind POST/GET /v2/pods; `onCreate` decides the fate of each create. */
  function store(onCreate: (i: number) => "ok" | "drop-after" | "drop-before" | "500-after" | "429") {
    const pods: Record<string, unknown>[] = [];
    let creates = 0;
    const handler: Handler = (req) => {
      if (req.method === "GET" && req.path === "/v2/pods") return { status: 200, body: { pods } };
      if (req.method === "POST" && req.path === "/v2/pods") {
        const fate = onCreate(creates++);
        if (fate === "429") return { status: 429, headers: { "retry-after": "2" }, body: { title: "t", status: 429, detail: "minute" } };
        if (fate === "drop-before") return { destroy: true };
        const body = JSON.parse(req.body);
        const pod = wirePod({ id: `pod-${pods.length + 1}`, name: body.name, image: body.image });
        pods.push(pod);
        if (fate === "drop-after") return { destroy: true };
        if (fate === "500-after") return { status: 500, body: { title: "x", status: 500, detail: "oops" } };
        return { status: 201, body: pod };
      }
      return { status: 404, body: { title: "nf", status: 404, detail: "no route" } };
    };
    return { handler, pods };
  }

  test("processed, then the socket dropped: found by name, not created again", async () => {
    const s = store(() => "drop-after");
    const { srv, cp } = await setup(s.handler);
    const pod = await cp.pods.create(CREATE);
    expect(pod.id).toBe("pod-1");
    expect(s.pods).toHaveLength(1);
    expect(srv.count("POST", "/v2/pods")).toBe(1);
    expect(srv.count("GET", "/v2/pods")).toBe(1);
  });

  test("a 500 after processing: found by name", async () => {
    const s = store(() => "500-after");
    const { srv, cp } = await setup(s.handler);
    await expect(cp.pods.create(CREATE)).resolves.toMatchObject({ id: "pod-1", name: "trainer" });
    expect(srv.count("POST", "/v2/pods")).toBe(1);
  });

  test("dropped before processing: not found, so created once more", async () => {
    const s = store((i) => (i === 0 ? "drop-before" : "ok"));
    const { srv, cp } = await setup(s.handler);
    await expect(cp.pods.create(CREATE)).resolves.toMatchObject({ id: "pod-1" });
    expect(s.pods).toHaveLength(1);
    expect(srv.count("POST", "/v2/pods")).toBe(2);
    expect(srv.count("GET", "/v2/pods")).toBe(1);
  });

  test("429 is retried blindly (the server did nothing), with no look-up", async () => {
    const s = store((i) => (i === 0 ? "429" : "ok"));
    const { srv, cp, clock } = await setup(s.handler);
    await cp.pods.create(CREATE);
    expect(srv.count("POST", "/v2/pods")).toBe(2);
    expect(srv.count("GET", "/v2/pods")).toBe(0);
    expect(clock.sleeps).toEqual([2000]);
  });

  test("a pre-existing pod with another image is not mistaken for ours", async () => {
    const s = store((i) => (i === 0 ? "drop-before" : "ok"));
    s.pods.push(wirePod({ id: "old", name: "trainer", image: "other:2" }));
    const { cp } = await setup(s.handler);
    await expect(cp.pods.create(CREATE)).resolves.toMatchObject({ image: "img:1" });
  });

  test("when the look-up fails too, the error says the outcome is unknown", async () => {
    const { srv, cp } = await setup((req) => (req.method === "POST" ? { destroy: true } : { status: 503, body: { title: "x", status: 503, detail: "down" } }), {
      maxRetries: 1,
    });
    const err = await cp.pods.create(CREATE).catch((e) => e);
    expect(err).toBeInstanceOf(AmbiguousRequestError);
    expect(err.message).toMatch(/pod "trainer".*may exist/);
    expect(err.cause).toBeInstanceOf(ConnectionError);
    expect(srv.count("POST", "/v2/pods")).toBe(1);
    expect(srv.count("GET", "/v2/pods")).toBe(2);
  });

  test("bounded: creates that keep vanishing stop after maxRetries + 1", async () => {
    const s = store(() => "drop-before");
    const { srv, cp } = await setup(s.handler, { maxRetries: 2 });
    await expect(cp.pods.create(CREATE)).rejects.toBeInstanceOf(ConnectionError);
    expect(srv.count("POST", "/v2/pods")).toBe(3);
    expect(s.pods).toHaveLength(0);
  });

  test("a pod action is not retried after an ambiguous failure", async () => {
    const { srv, cp } = await setup(() => ({ status: 502, body: { title: "x", status: 502, detail: "gw" } }));
    await expect(cp.pods.action("pod-1", "stop")).rejects.toBeInstanceOf(InternalServerError);
    expect(srv.seen).toHaveLength(1);
    expect(JSON.parse(srv.seen[0].body)).toEqual({ action: "stop" });
  });

  test("network volumes: dropped after processing, found by name", async () => {
    const vols: Record<string, unknown>[] = [];
    const { srv, cp } = await setup((req) => {
      if (req.method === "GET") return { status: 200, body: { networkVolumes: vols } };
      vols.push({ id: "vol-1", type: "STANDARD", ...JSON.parse(req.body) });
      return { destroy: true };
    });
    await expect(cp.networkVolumes.create({ name: "data", size: 50, dataCenter: "US-1" })).resolves.toMatchObject({ id: "vol-1" });
    expect(srv.count("POST", "/v2/network-volumes")).toBe(1);
  });
});

test("bad params never reach the server", async () => {
  const { srv, cp } = await setup(() => ({ status: 201, body: wirePod() }));
  await expect(cp.pods.create({ ...CREATE, mounts: { network: [{ volumeId: "v" } as never] } })).rejects.toThrow(
    "mounts.network[0].path is required",
  );
  expect(srv.seen).toHaveLength(0);
});

test("a 422 from the server reads as what to change, raw errors kept", async () => {
  const raw = ["$.mounts.network[0]: missing property 'path'"];
  const { cp } = await setup(() => ({ status: 422, body: { title: "Unprocessable Entity", status: 422, detail: "invalid", errors: raw } }));
  const err = await cp.pods.update("pod-1", { image: "x" }).catch((e) => e);
  expect(err.name).toBe("UnprocessableEntityError");
  expect(err.message).toMatch(/^mounts\.network\[0\]\.path is required \[422 from PATCH \/v2\/pods\/pod-1\]$/);
  expect(err.errors).toEqual(raw);
});

test("a response that breaks the schema is a ResponseValidationError naming the field", async () => {
  const { cp } = await setup(() => ({ status: 200, body: wirePod({ status: "NAPPING" }) }));
  await expect(cp.pods.get("pod-1")).rejects.toMatchObject({
    name: "ResponseValidationError",
    message: expect.stringContaining("status must be one of"),
  });
});

test("ids are percent-encoded into one path segment", async () => {
  const { srv, cp } = await setup(() => ({ status: 200, body: wirePod() }));
  await cp.pods.get("../../v2/catalog/cpus?x=1");
  expect(srv.seen[0].url).toBe("/v2/pods/..%2F..%2Fv2%2Fcatalog%2Fcpus%3Fx%3D1");
});

test("keep-alive: sequential calls reuse the pool's connections", async () => {
  const { srv, cp } = await setup(() => ({ status: 200, body: { cpus: [] } }));
  for (let i = 0; i < 6; i++) await cp.catalog.cpus();
  const ports = new Set(srv.seen.map((r) => r.remotePort));
  expect(srv.seen[0].remotePort).toEqual(expect.any(Number));
  expect(srv.seen).toHaveLength(6);
  // undici may open a second socket while the first is being released; it never opens one per call.
  expect(ports.size).toBeLessThanOrEqual(2);
});

test("response data is not redacted: an env value that looks like a token comes back as sent", async () => {
  const env = { AUTH: "Bearer abc.def", URL: "http://h/?api_key=zzz", KEY };
  const { cp } = await setup(() => ({ status: 200, body: wirePod({ env }) }));
  expect((await cp.pods.get("pod-1")).env).toEqual(env);
});

test("a retry backoff is cancellable: abort ends the call during the wait", async () => {
  const { srv, cp } = await setup(() => ({ status: 503, body: { title: "x", status: 503, detail: "down" } }), {
    clock: systemClock,
    baseDelayMs: 60_000,
    maxBackoffMs: 60_000,
    random: () => 0.99,
  });
  const ac = new AbortController();
  const pending = cp.pods.list({ signal: ac.signal });
  while (srv.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 20));
  ac.abort(new Error("cancelled by the test"));
  await expect(pending).rejects.toThrow("cancelled by the test");
  expect(srv.seen).toHaveLength(1);
});

describe("connection failures say how to fix them", () => {
  async function portFree(port: number): Promise<boolean> {
    return new Promise((resolve) => {
      const s = createServer();
      s.once("error", () => resolve(false));
      s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
    });
  }

  test("refused at the emulator's address: start the emulator, or point at the platform", async () => {
    if (!(await portFree(8787))) {
      // Someone runs an emulator on the default port right now; the hint cannot be provoked.
      return;
    }
    const cp = new ComputePlatform({ apiKey: KEY, apiUrl: DEFAULT_URL, env: {}, maxRetries: 0, pacing: false });
    clients.push(cp);
    expect(cp.serverlessUrl).toBe(DEFAULT_URL);
    const err = await cp.pods.list().catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.code).toBe("ECONNREFUSED");
    expect(err.requestSent).toBe(false);
    expect(err.message).toContain("npx computeplatform-emulator");
    expect(err.message).toContain("COMPUTEPLATFORM_API_URL");
    expect(err.message).toContain("computeplatform:apiUrl");
    const sls = await cp.models.runSync("m", {}).catch((e) => e);
    expect(sls.message).toContain("COMPUTEPLATFORM_SERVERLESS_URL");
  });

  test("refused elsewhere: names the setting to check; retried, since nothing was sent", async () => {
    const cp = new ComputePlatform({ apiKey: KEY, apiUrl: "http://127.0.0.1:9", env: {}, maxRetries: 2, clock: new FakeClock(), pacing: false, random: () => 0 });
    clients.push(cp);
    const err = await cp.pods.create({ name: "p", image: "i", gpu: { id: "g" } }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toContain("Check COMPUTEPLATFORM_API_URL");
    expect(err.message).not.toContain("npx computeplatform-emulator");
  });

  test("without a pacing option every client shares the process-wide registry", async () => {
    const srv = await startLoopback(() => ({ status: 200, body: { cpus: [] } }));
    servers.push(srv);
    const a = new ComputePlatform({ apiKey: KEY, apiUrl: srv.url, env: {}, maxRetryDelayMs: 1000 });
    const b = new ComputePlatform({ apiKey: KEY, apiUrl: srv.url, env: {}, maxRetryDelayMs: 1000 });
    clients.push(a, b);
    sharedPacing.holdUntil(PacingRegistry.keyId(KEY), Date.now() + 60_000);
    try {
      await expect(a.catalog.cpus()).rejects.toBeInstanceOf(RateLimitError);
      await expect(b.catalog.cpus()).rejects.toBeInstanceOf(RateLimitError);
      expect(srv.seen).toHaveLength(0);
    } finally {
      sharedPacing.clear();
    }
    await expect(b.catalog.cpus()).resolves.toEqual([]);
  });

  test("a rate-limit hold longer than maxRetryDelayMs fails before sending", async () => {
    const registry = new PacingRegistry();
    const { srv, cp, clock } = await setup(() => ({ status: 200, body: { cpus: [] } }), { pacing: registry, maxRetryDelayMs: 1000 });
    registry.holdUntil(PacingRegistry.keyId(KEY), clock.now() + 45_000);
    const err = await cp.catalog.cpus().catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.message).toContain("resets in 45 s");
    expect(srv.seen).toHaveLength(0);
  });
});

describe("one exchange, as the transport sends it, reads it and tells of it", () => {
  /** A transport of its own (a registry of its own when paced), its debug lines kept. */
  function direct(opts: { apiKey?: string; pacing?: PacingRegistry | false; maxRetries?: number; maxRetryDelayMs?: number; timeoutMs?: number } = {}) {
    const clock = new FakeClock();
    const lines: string[] = [];
    const transport = new Transport({
      apiKey: "apiKey" in opts ? opts.apiKey : KEY,
      timeoutMs: opts.timeoutMs ?? 5000,
      maxRetries: opts.maxRetries ?? 2,
      maxRetryDelayMs: opts.maxRetryDelayMs ?? 60_000,
      clock,
      pacing: opts.pacing ?? new PacingRegistry(),
      logger: { debug: (l) => lines.push(l) },
      random: () => 0.5,
      backoff: { baseDelayMs: 100, maxBackoffMs: 1000 },
    });
    transports.push(transport);
    return { transport, clock, lines };
  }
  const transports: Transport[] = [];
  afterEach(async () => {
    await Promise.all(transports.splice(0).map((t) => t.close()));
  });
  const get = (url: string, over: Partial<HttpRequest> = {}): HttpRequest => ({ method: "GET", url, auth: "bearer", setting: "apiUrl", ...over });

  test("a GET carries accept and the bearer key, no content-type; its answer's headers are read, repeated ones joined", async () => {
    const srv = await startLoopback(() => ({ status: 200, body: { ok: true }, headers: { "X-Count": "3" } }));
    servers.push(srv);
    const { transport, lines } = direct({ pacing: false });
    const res = await transport.send(get(`${srv.url}/v2/pods?x=1`, { headers: { "x-trace": "t1" } }));
    expect(res).toEqual({ status: 200, headers: expect.objectContaining({ "content-type": "application/json", "x-count": "3" }), body: '{"ok":true}' });
    expect(srv.seen[0]).toMatchObject({ method: "GET", url: "/v2/pods?x=1" });
    expect(srv.seen[0].headers).toMatchObject({ accept: "application/json", authorization: `Bearer ${KEY}`, "x-trace": "t1" });
    expect(srv.seen[0].headers["content-type"]).toBeUndefined();
    expect(lines).toEqual(["computeplatform: GET /v2/pods -> 200 (attempt 1, 0 ms)"]);
  });

  test("a body goes as JSON unless the caller named its type; a key in the query sends no bearer header", async () => {
    const srv = await startLoopback(() => ({ status: 204 }));
    servers.push(srv);
    const { transport } = direct({ pacing: false });
    await transport.send({ method: "POST", url: `${srv.url}/a`, body: "{}", auth: "bearer", setting: "apiUrl" });
    await transport.send({ method: "POST", url: `${srv.url}/b?api_key=${KEY}`, body: "q", auth: "query", setting: "apiUrl", headers: { "content-type": "text/plain" } });
    expect(srv.seen[0].headers["content-type"]).toBe("application/json");
    expect(srv.seen[1].headers["content-type"]).toBe("text/plain");
    expect(srv.seen[1].headers.authorization).toBeUndefined();
    expect(srv.seen.map((r) => r.body)).toEqual(["{}", "q"]);
  });

  test("repeated answer headers are joined with a comma", async () => {
    const server = httpServer((_req, res) => {
      res.writeHead(200, [["x-multi", "a"], ["x-multi", "b"]].flat() as unknown as Record<string, string>);
      res.end("");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push({ close: () => new Promise<void>((r) => server.close(() => r())) });
    const { transport } = direct({ pacing: false });
    const res = await transport.send(get(`http://127.0.0.1:${(server.address() as { port: number }).port}/`));
    expect(res.headers["x-multi"]).toBe("a, b");
  });

  test("no key: refused before anything is sent", async () => {
    const srv = await startLoopback(() => ({ status: 200, body: {} }));
    servers.push(srv);
    const { transport } = direct({ apiKey: undefined });
    await expect(transport.send(get(`${srv.url}/v2/pods`))).rejects.toBeInstanceOf(MissingApiKeyError);
    expect(srv.seen).toEqual([]);
  });

  test("a refused connection: named, with its code and the setting to check, retried as never sent, each attempt told", async () => {
    const { transport, clock, lines } = direct({ pacing: false });
    const req = get("http://127.0.0.1:9/v2/pods", { setting: "serverlessUrl" });
    const err = (await transport.json(req, undefined, "pods", "unsafe").catch((e) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ code: "ECONNREFUSED", requestSent: false, url: "http://127.0.0.1:9/v2/pods" });
    expect(err.message).toMatch(/^GET \/v2\/pods to http:\/\/127\.0\.0\.1:9 failed: .*ECONNREFUSED.* \(ECONNREFUSED\)\. Check COMPUTEPLATFORM_SERVERLESS_URL \(stack config computeplatform:serverlessUrl\)$/);
    expect(clock.sleeps).toEqual([50, 100]);
    expect(lines).toEqual([
      "computeplatform: GET /v2/pods -> ConnectionError (attempt 1)",
      "computeplatform: retry 1/2 after ConnectionError in 50 ms (backoff)",
      "computeplatform: GET /v2/pods -> ConnectionError (attempt 2)",
      "computeplatform: retry 2/2 after ConnectionError in 100 ms (backoff)",
      "computeplatform: GET /v2/pods -> ConnectionError (attempt 3)",
    ]);
  });

  test("a socket cut after the request was read: the request may have reached the server, and a create is not sent again", async () => {
    const srv = await startLoopback(() => ({ destroy: true }));
    servers.push(srv);
    const { transport } = direct({ pacing: false });
    const err = (await transport.json({ ...get(`${srv.url}/v2/pods`), method: "POST", body: "{}" }, undefined, "pod", "unsafe").catch((e) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.requestSent).toBe(true);
    expect(err.message).toMatch(new RegExp(`^POST /v2/pods to ${srv.url} failed: .* \\(${err.code}\\)$`));
    expect(srv.seen).toHaveLength(1);
  });

  test("a caller's abort ends a hanging exchange with the caller's reason, not a timeout", async () => {
    const srv = await startLoopback(() => ({ hang: true }));
    servers.push(srv);
    const { transport } = direct({ timeoutMs: 3000 });
    const ac = new AbortController();
    const reason = new Error("stop");
    const pending = transport.send(get(`${srv.url}/v2/pods`, { signal: ac.signal }));
    while (srv.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);
    // The key's budget is handed back: the next request goes at once.
    const next = await startLoopback(() => ({ status: 200, body: {} }));
    servers.push(next);
    await expect(transport.send(get(`${next.url}/v2/pods`))).resolves.toMatchObject({ status: 200 });
  });

  test("a window held past maxRetryDelayMs fails before sending, saying when it resets; one held up to it waits, and says so", async () => {
    const srv = await startLoopback(() => ({ status: 200, body: {} }));
    servers.push(srv);
    const registry = new PacingRegistry();
    const { transport, clock, lines } = direct({ pacing: registry, maxRetryDelayMs: 1000 });
    registry.holdUntil(PacingRegistry.keyId(KEY), clock.now() + 1500);
    const err = (await transport.send(get(`${srv.url}/v2/pods`)).catch((e) => e)) as ApiError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({
      status: 429,
      title: "Rate limit window exhausted",
      detail: "a rate-limit window for this API key resets in 2 s, longer than maxRetryDelayMs (1000 ms); not sent",
      errors: [],
      retryAfterMs: 1500,
    });
    expect(srv.seen).toEqual([]);
    registry.holdUntil(PacingRegistry.keyId(KEY), clock.now() + 1000 - 500);
    clock.current += 500;
    registry.holdUntil(PacingRegistry.keyId(KEY), clock.now() + 1000);
    const waitedFrom = clock.now();
    await transport.send(get(`${srv.url}/v2/pods`));
    expect(clock.now() - waitedFrom).toBe(1000);
    expect(lines[0]).toBe("computeplatform: GET /v2/pods paced for 1000 ms (rate-limit window exhausted)");
    expect(srv.seen).toHaveLength(1);
  });

  test("a 429 holds the key for the delay it names; a 503's Retry-After does not", async () => {
    const answers = [
      { status: 503, body: { title: "x", status: 503, detail: "busy" }, headers: { "retry-after": "30" } },
      { status: 200, body: {} },
      { status: 429, body: { title: "x", status: 429, detail: "slow" }, headers: { "retry-after": "30" } },
      { status: 200, body: {} },
    ];
    const srv = await startLoopback((_, i) => answers[i]);
    servers.push(srv);
    const { transport, clock } = direct({ maxRetryDelayMs: 10_000 });
    await transport.send(get(`${srv.url}/a`));
    await expect(transport.send(get(`${srv.url}/b`))).resolves.toMatchObject({ status: 200 });
    await transport.send(get(`${srv.url}/c`));
    const t0 = clock.now();
    await expect(transport.send(get(`${srv.url}/d`))).rejects.toMatchObject({ name: "RateLimitError", detail: expect.stringContaining("resets in 30 s") });
    expect(clock.now()).toBe(t0);
    expect(srv.seen.map((r) => r.path)).toEqual(["/a", "/b", "/c"]);
  });

  test.each([
    [429, 7000],
    [500, 7000],
    [503, 7000],
    [499, undefined],
    [404, undefined],
  ])("a %i's Retry-After is the error's delay: %p", async (status, delay) => {
    const srv = await startLoopback(() => ({ status, body: { title: "t", status, detail: "d" }, headers: { "retry-after": "7" } }));
    servers.push(srv);
    const { transport } = direct({ maxRetries: 0, pacing: false });
    await expect(transport.json(get(`${srv.url}/v2/pods`), undefined, "pods", "idempotent")).rejects.toMatchObject({ status, retryAfterMs: delay });
  });

  test("a server delay at maxRetryDelayMs is waited; over it, the error comes back at once", async () => {
    const srv = await startLoopback(() => ({ status: 503, body: { title: "t", status: 503, detail: "d" }, headers: { "retry-after": "1" } }));
    servers.push(srv);
    const { transport, clock, lines } = direct({ maxRetries: 1, maxRetryDelayMs: 1000, pacing: false });
    await expect(transport.json(get(`${srv.url}/v2/pods`), undefined, "pods", "idempotent")).rejects.toBeInstanceOf(InternalServerError);
    expect(clock.sleeps).toEqual([1000]);
    expect(lines).toContain("computeplatform: retry 1/1 after InternalServerError in 1000 ms (server)");
    const strict = direct({ maxRetries: 1, maxRetryDelayMs: 999, pacing: false });
    await expect(strict.transport.json(get(`${srv.url}/v2/pods`), undefined, "pods", "idempotent")).rejects.toBeInstanceOf(InternalServerError);
    expect(strict.clock.sleeps).toEqual([]);
    expect(srv.seen).toHaveLength(3);
  });

  test("json: a 404 is our delete's only on a retry that asks so; a 400 is an error; no schema reads nothing; an empty body is undefined; text is not JSON", async () => {
    const script: Record<string, Array<{ status: number; body?: unknown; raw?: string }>> = {
      "/gone": [{ status: 503, body: { title: "t", status: 503, detail: "d" } }, { status: 404, body: { title: "t", status: 404, detail: "d" } }],
      "/missing": [{ status: 404, body: { title: "t", status: 404, detail: "d" } }],
      "/bad": [{ status: 400, body: { title: "t", status: 400, detail: "no" } }],
      "/any": [{ status: 200, body: { a: 1 } }],
      "/empty": [{ status: 200, raw: "" }],
      "/text": [{ status: 200, raw: "<html>" }],
    };
    const count: Record<string, number> = {};
    const srv = await startLoopback((r) => {
      const i = (count[r.path] = (count[r.path] ?? 0) + 1) - 1;
      return script[r.path][Math.min(i, script[r.path].length - 1)];
    });
    servers.push(srv);
    const { transport } = direct({ pacing: false });
    const del = (path: string) => transport.json({ ...get(`${srv.url}${path}`), method: "DELETE" }, undefined, "pod", "idempotent", { notFoundOnRetryIsSuccess: true });
    await expect(del("/gone")).resolves.toBeUndefined();
    await expect(del("/missing")).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(transport.json(get(`${srv.url}/gone`), undefined, "pod", "idempotent")).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(transport.json(get(`${srv.url}/bad`), z.unknown(), "pod", "idempotent")).rejects.toMatchObject({ name: "BadRequestError", status: 400 });
    await expect(transport.json(get(`${srv.url}/any`), undefined, "pod", "idempotent")).resolves.toBeUndefined();
    await expect(transport.json(get(`${srv.url}/any`), z.object({ a: z.number() }), "pod", "idempotent")).resolves.toEqual({ a: 1 });
    await expect(transport.json(get(`${srv.url}/empty`), z.undefined(), "pod", "idempotent")).resolves.toBeUndefined();
    const notJson = await transport.json(get(`${srv.url}/text`), z.unknown(), "pod", "idempotent").catch((e) => e);
    expect(notJson).toMatchObject({ name: "ResponseValidationError", issues: [{ path: "", message: "body is not JSON (status 200)" }] });
  });

  test("an error's text and a log line never hold the key or the write-only values, echoed or not", async () => {
    const srv = await startLoopback((r) => ({ status: 422, body: { title: `bad ${KEY}`, status: 422, detail: `got ${r.body}`, errors: [`$.password: ${r.body}`] } }));
    servers.push(srv);
    const { transport, lines } = direct({ pacing: false });
    const req = { method: "POST", url: `${srv.url}/v2/registries`, body: "hunter2-secret", auth: "bearer" as const, setting: "apiUrl" as const, writeOnly: ["hunter2-secret"] };
    const err = (await transport.json(req, undefined, "registry", "unsafe").catch((e) => e)) as ApiError;
    const texts = [err.message, err.title, err.detail, ...err.errors, ...lines];
    expect(texts.join("\n")).not.toMatch(/hunter2-secret|cp_test_loopback_key/);
    expect(err.title).toBe("bad [REDACTED]");
    expect(transport.redact(`a ${KEY} b`)).toBe("a [REDACTED] b");
    expect(String(transport.sanitize(new Error(`x ${KEY}`)).message)).toBe("x [REDACTED]");
  });

  test("close closes the pool's kept-alive connections", async () => {
    const open = new Set<unknown>();
    const server = httpServer((_req, res) => res.end("{}"));
    server.keepAliveTimeout = 60_000;
    server.on("connection", (s) => {
      open.add(s);
      s.on("close", () => open.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push({ close: () => new Promise<void>((r) => server.close(() => r())) });
    const { transport } = direct({ pacing: false });
    await transport.send(get(`http://127.0.0.1:${(server.address() as { port: number }).port}/`));
    expect(open.size).toBe(1);
    await transport.close();
    for (let i = 0; i < 100 && open.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(open.size).toBe(0);
  });
});

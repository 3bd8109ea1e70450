import {
  AmbiguousRequestError,
  ComputePlatform,
  type ComputePlatformOptions,
  ConnectionError,
  InternalServerError,
  PacingRegistry,
  RateLimitError,
  systemClock,
  TimeoutError,
} from "../../../../src/client";
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

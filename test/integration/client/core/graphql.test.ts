import { inspect } from "node:util";
import {
  AuthenticationError,
  ComputePlatform,
  type ComputePlatformOptions,
  ConflictError,
  PacingRegistry,
  PlatformError,
  ResponseValidationError,
} from "../../../../src/client";
import { FakeClock } from "../../../helpers/fake-clock";
import { type Handler, startLoopback } from "../../../helpers/loopback";

// A key with characters that change under percent-encoding, so both forms are searched for.
const KEY = "cp_live_Zx9+/Key=Secret_000111";
const servers: { close(): Promise<void> }[] = [];
const clients: ComputePlatform[] = [];

async function setup(handler: Handler, opts: Partial<ComputePlatformOptions> = {}) {
  const srv = await startLoopback(handler);
  servers.push(srv);
  const clock = new FakeClock();
  const cp = new ComputePlatform({ apiKey: KEY, apiUrl: srv.url, clock, pacing: new PacingRegistry(), random: () => 0.5, env: {}, ...opts });
  clients.push(cp);
  return { srv, cp, clock };
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const endpoint = (over: Record<string, unknown> = {}) => ({
  id: "ep-1",
  name: "api",
  gpuIds: "AMPERE_16",
  templateId: "tpl",
  type: "QB",
  idleTimeout: 5,
  locations: null,
  flashBootType: "FLASHBOOT",
  scalerType: "QUEUE_DELAY",
  scalerValue: 4,
  workersMin: 0,
  workersMax: 2,
  networkVolumeId: null,
  pods: [],
  ...over,
});

describe("GraphQL over graphql-request", () => {
  test("the body is exactly { query }, the key rides in api_key, no bearer header", async () => {
    const { srv, cp } = await setup(() => ({ status: 200, body: { data: { myself: { endpoints: [endpoint()], serverlessDiscount: null } } } }));
    await expect(cp.endpoints.list()).resolves.toHaveLength(1);
    const req = srv.seen[0];
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/graphql");
    expect(new URL(req.url, "http://x").searchParams.get("api_key")).toBe(KEY);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers.authorization).toBeUndefined();
    const body = JSON.parse(req.body);
    expect(Object.keys(body)).toEqual(["query"]);
    expect(typeof body.query).toBe("string");
  });

  test("get(id) reads through myself; an unknown id is a NotFoundError", async () => {
    const { cp } = await setup(() => ({ status: 200, body: { data: { myself: { endpoints: [endpoint()], serverlessDiscount: null } } } }));
    await expect(cp.endpoints.get("ep-1")).resolves.toMatchObject({ id: "ep-1", flashBootType: "FLASHBOOT" });
    await expect(cp.endpoints.get("nope")).rejects.toMatchObject({ name: "NotFoundError", status: 404 });
  });

  test("HTTP 401 UNAUTHENTICATED is an AuthenticationError, and no graphql-request error leaks", async () => {
    const { cp } = await setup(() => ({ status: 401, body: { errors: [{ message: "invalid api key", extensions: { code: "UNAUTHENTICATED" } }] } }));
    const err = await cp.endpoints.list().catch((e) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.constructor.name).not.toBe("ClientError");
    expect(err.message).toContain("invalid api key");
    expect(err.message).not.toContain("myself"); // ClientError would embed the whole request
    expect(err.message).not.toContain("serverlessDiscount");
  });

  test("FAILED_PRECONDITION in a 200 is a ConflictError, not retried", async () => {
    const { srv, cp } = await setup(() => ({
      status: 200,
      body: { data: { deleteEndpoint: null }, errors: [{ message: "workersMin and workersMax must be 0", path: ["deleteEndpoint"], extensions: { code: "FAILED_PRECONDITION" } }] },
    }));
    const err = await cp.endpoints.delete("ep-1").catch((e) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.message).toContain("deleteEndpoint: workersMin and workersMax must be 0");
    expect(srv.seen).toHaveLength(1);
  });

  test("an HTTP 429 problem on /graphql is a RateLimitError honoured for a query", async () => {
    const { srv, cp, clock } = await setup((_r, i) =>
      i === 0
        ? { status: 429, headers: { "retry-after": "4" }, body: { title: "Too Many Requests", status: 429, detail: "minute" } }
        : { status: 200, body: { data: { myself: { endpoints: [], serverlessDiscount: null } } } },
    );
    await expect(cp.endpoints.list()).resolves.toEqual([]);
    expect(clock.sleeps).toEqual([4000]);
    expect(srv.seen).toHaveLength(2);
  });

  test("a create whose answer is lost is found by name in myself, not saved twice", async () => {
    const saved: Record<string, unknown>[] = [];
    const { srv, cp } = await setup((req) => {
      const q = JSON.parse(req.body).query as string;
      if (q.includes("saveEndpoint")) {
        saved.push(endpoint({ id: `ep-${saved.length + 1}`, name: 'we"ird}\nname' }));
        return { destroy: true };
      }
      return { status: 200, body: { data: { myself: { endpoints: saved, serverlessDiscount: null } } } };
    });
    const ep = await cp.endpoints.save({ name: 'we"ird}\nname', gpuIds: "AMPERE_16", templateId: "tpl", flashBootType: "FLASHBOOT" });
    expect(ep.id).toBe("ep-1");
    expect(saved).toHaveLength(1);
    expect(srv.seen).toHaveLength(2);
  });

  test("a modify (with id) is retried on a 503", async () => {
    const { srv, cp } = await setup((_r, i) =>
      i === 0 ? { status: 503, body: { title: "x", status: 503, detail: "down" } } : { status: 200, body: { data: { saveEndpoint: endpoint({ workersMax: 0 }) } } },
    );
    await expect(cp.endpoints.save({ id: "ep-1", name: "api", gpuIds: "AMPERE_16", templateId: "tpl", workersMax: 0 })).resolves.toMatchObject({ workersMax: 0 });
    expect(srv.seen).toHaveLength(2);
  });

  test("a delete whose answer was lost, then NOT_FOUND on the retry, is done", async () => {
    const { srv, cp } = await setup((_r, i) =>
      i === 0 ? { destroy: true } : { status: 200, body: { data: { deleteEndpoint: null }, errors: [{ message: "no such endpoint", extensions: { code: "NOT_FOUND" } }] } },
    );
    await expect(cp.endpoints.delete("ep-1")).resolves.toBeUndefined();
    expect(srv.seen).toHaveLength(2);
  });

  test("a 200 that is not a GraphQL result is a ResponseValidationError", async () => {
    const { cp } = await setup(() => ({ status: 200, raw: "<html>proxy</html>", headers: { "content-type": "text/html" } }));
    await expect(cp.endpoints.list()).rejects.toBeInstanceOf(ResponseValidationError);
  });

  test("data that breaks the Endpoint schema names the field", async () => {
    const { cp } = await setup(() => ({ status: 200, body: { data: { myself: { endpoints: [endpoint({ gpuIds: 16 })], serverlessDiscount: null } } } }));
    // The list answers without it (one odd record does not blind the others); its own read names the field.
    await expect(cp.endpoints.list()).resolves.toEqual([]);
    await expect(cp.endpoints.get("ep-1")).rejects.toThrow(/gpuIds is invalid/);
  });
});

/** Every string an error can show: message, String(), stack, JSON, inspect, and the same for each cause. */
function surfaces(err: unknown, depth = 0): string[] {
  if (!(err instanceof Error) || depth > 5) return [String(err)];
  return [
    err.message,
    String(err),
    err.stack ?? "",
    JSON.stringify(err),
    inspect(err, { depth: 10, showHidden: true }),
    ...surfaces(err.cause, depth + 1),
  ];
}

function expectNoKey(texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(encodeURIComponent(KEY));
  }
}

describe("the key never reaches an error, a URL on an error, a cause or a log line", () => {
  test("errors from every path, including a server that echoes the key back", async () => {
    const lines: string[] = [];
    const logger = { debug: (l: string) => lines.push(l) };
    const echo: Handler = (req) => {
      const said = `${req.headers.authorization ?? ""} ${req.url}`;
      if (req.path === "/graphql") return { status: 401, body: { errors: [{ message: `bad key in ${said}`, extensions: { code: "UNAUTHENTICATED" } }] } };
      if (req.path === "/v2/pods") return { status: 422, body: { title: "t", status: 422, detail: said, errors: [`$: you sent ${said}`] } };
      if (req.path === "/v2/pods/x") return { status: 200, body: { id: said } };
      return { status: 401, body: { title: "Unauthorized", status: 401, detail: `token ${said} rejected` } };
    };
    const { cp } = await setup(echo, { logger, maxRetries: 0 });
    const errors: unknown[] = [];
    for (const call of [
      () => cp.endpoints.list(),
      () => cp.pods.list(),
      () => cp.pods.update("pod-1", { name: "n" }),
      () => cp.pods.get("x"),
      () => cp.endpoints.save({ name: "n", gpuIds: "AMPERE_16", templateId: "t" }),
      () => cp.catalog.cpus(),
    ]) {
      errors.push(await call().catch((e) => e));
    }
    // A timeout and a refused connection, for the transport-level errors.
    const hang = await setup(() => ({ hang: true }), { logger, timeoutMs: 50, maxRetries: 0 });
    errors.push(await hang.cp.endpoints.list().catch((e) => e));
    const closed = new ComputePlatform({ apiKey: KEY, apiUrl: "http://127.0.0.1:9", env: {}, logger, maxRetries: 0, pacing: false });
    clients.push(closed);
    errors.push(await closed.endpoints.list().catch((e) => e));
    errors.push(await closed.pods.create({ name: "p", image: "i", gpu: { id: "g" } }).catch((e) => e));

    expect(errors.map((e) => (e as Error).name)).toEqual([
      "AuthenticationError",
      "UnprocessableEntityError",
      "AuthenticationError",
      "ResponseValidationError",
      "AuthenticationError",
      "AuthenticationError",
      "TimeoutError",
      "ConnectionError",
      "ConnectionError",
    ]);
    for (const e of errors) {
      expect(e).toBeInstanceOf(PlatformError);
      expectNoKey(surfaces(e));
      const url = (e as { url?: string }).url;
      expect(url).toEqual(expect.any(String));
      if (url?.includes("/graphql")) expect(url).toContain("api_key=[REDACTED]");
    }
    // The server did echo it: the redaction is what kept it out.
    expect((errors[5] as Error).message).toContain("Bearer [REDACTED]");
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.some((l) => /GET \/v2\/pods -> 422 \(attempt 1/.test(l))).toBe(true);
    expectNoKey(lines);
  });
});

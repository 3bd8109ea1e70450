/**
 * The emulator given garbage (fast-check, seeded): malformed JSON, JSON of the wrong shape,
 * wrong or missing content types, huge bodies, unknown paths and methods, bad or missing keys.
 * Every answer has the platform's error shape (REST: application/problem+json with title, status,
 * detail and optional errors[] of strings; GraphQL: errors[] with message and
 * extensions.code), none is a 500, and the emulator keeps serving afterwards. Then well-formed
 * bodies with oversized integers and counts: refused past the platform's limits, and every list
 * still answers 200 for every key afterwards.
 */
import * as http from "node:http";
import fc from "fast-check";
import { type Emulator, startEmulator } from "../../src/emulator";
import { SENTINEL_KEY } from "../../tools/faults";

let emu: Emulator;
let podId: string;
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: [{ key: SENTINEL_KEY, scopes: ["read", "write"] }], quotas: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 } });
  const made = await send("POST", "/v2/pods", { authorization: `Bearer ${SENTINEL_KEY}`, "content-type": "application/json" }, Buffer.from(JSON.stringify({ name: "target", image: "img/app:1", gpu: { id: "NVIDIA L40S" } })));
  podId = JSON.parse(made.body).id;
});
afterAll(async () => {
  agent.destroy();
  await emu?.close();
});

interface Answer {
  status: number;
  type: string;
  body: string;
}

function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  const { hostname, port } = new URL(emu.url);
  // Well-formed HTTP around a malformed body: without a length, a GET's body would be read as the next request.
  if (body !== undefined) headers = { ...headers, "content-length": String(body.length) };
  return new Promise((resolve, reject) => {
    // The path goes out as given (no URL normalisation), as a hostile client would send it.
    const req = http.request({ hostname, port, path, method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The platform's error shape for the path, or a text saying what is wrong with it. */
function shapeProblem(path: string, a: Answer): string | undefined {
  let json: any;
  try {
    json = JSON.parse(a.body);
  } catch {
    return `body is not JSON: ${a.body.slice(0, 80)}`;
  }
  // A wrong method never reaches GraphQL: its 405 is problem+json, as docs/emulator.md says.
  if (path.split("?")[0] === "/graphql" && a.status !== 405) {
    const e = json?.errors?.[0];
    return typeof e?.message === "string" && typeof e?.extensions?.code === "string" ? undefined : `not a GraphQL error: ${a.body.slice(0, 120)}`;
  }
  if (!a.type.startsWith("application/problem+json")) return `content-type ${a.type}`;
  const ok =
    typeof json.title === "string" &&
    json.status === a.status &&
    typeof json.detail === "string" &&
    json.detail.length > 0 &&
    (json.errors === undefined || (Array.isArray(json.errors) && json.errors.every((x: unknown) => typeof x === "string")));
  return ok ? undefined : `not problem+json: ${a.body.slice(0, 120)}`;
}

const PATHS = [
  "/v2/pods",
  "/v2/pods/p0001nothere",
  "/v2/pods/p0001nothere/action",
  "/v2/network-volumes",
  "/v2/network-volumes/nv-nope",
  "/v2/catalog/cpus",
  "/v2/catalog/nothing",
  "/v2/model-x/runsync",
  "/graphql",
  "/v3/pods",
  "/v2/pods/%E2%80%AE/action",
  "/v2/pods/a/b/c/d",
  "/",
  "/v2",
  "/v2/pods?x=1&api_key=nope",
];

const jsonText = fc.oneof(
  fc.json(),
  fc.constantFrom("{", '{"name":', "[1,2", '{"name":"x","image":"y"', "nul", "\u0000", "{'a':1}", '{"a":1}}', "", "   "),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.record({ name: fc.anything(), image: fc.anything(), gpu: fc.anything(), mounts: fc.anything(), query: fc.anything(), input: fc.anything() }).map((o) => {
    try {
      return JSON.stringify(o);
    } catch {
      return "{}";
    }
  }),
);

/** Routes that read a body, where malformed JSON and wrong content types matter; `{pod}` is a live pod. */
const BODY_ROUTES: [string, string][] = [
  ["POST", "/v2/pods"],
  ["PATCH", "/v2/pods/{pod}"],
  ["POST", "/v2/pods/{pod}/action"],
  ["POST", "/v2/network-volumes"],
  ["POST", "/graphql"],
  ["POST", "/v2/sdxl-turbo/runsync"],
];

const request = fc.record({
  route: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...BODY_ROUTES) },
    {
      weight: 2,
      arbitrary: fc.tuple(
        fc.constantFrom("GET", "POST", "PATCH", "DELETE", "PUT", "OPTIONS"),
        fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PATHS) }, { weight: 1, arbitrary: fc.webPath() }),
      ),
    },
  ),
  contentType: fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "", "APPLICATION/JSON", "application/jsonx"),
  auth: fc.oneof({ weight: 5, arbitrary: fc.constant("good") }, { weight: 1, arbitrary: fc.constantFrom("none", "bad", "malformed") }),
  body: fc.option(jsonText, { nil: undefined }),
});

test("every garbage request gets the platform's error shape, never a 500, and the emulator keeps serving", async () => {
  let tried = 0;
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      tried++;
      const headers: Record<string, string> = {};
      if (r.contentType) headers["content-type"] = r.contentType;
      if (r.auth === "good") headers.authorization = `Bearer ${SENTINEL_KEY}`;
      if (r.auth === "bad") headers.authorization = "Bearer cp_wrong_key";
      if (r.auth === "malformed") headers.authorization = "Token {}";
      const [method, raw] = r.route;
      let path = (raw.startsWith("/") ? raw : `/${raw}`).replace("{pod}", podId);
      if (path.split("?")[0] === "/graphql" && r.auth === "good") path = `/graphql?api_key=${SENTINEL_KEY}`;
      const a = await send(method, path, headers, r.body === undefined ? undefined : Buffer.from(r.body, "utf8"));
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      expect(a.status).not.toBe(500);
      if (a.status >= 400) {
        const wrong = shapeProblem(path, a);
        if (wrong) throw new Error(`${method} ${path} -> ${a.status}: ${wrong}`);
      }
      // The key never comes back in an answer, even to a request that carried it in the query.
      expect(a.body).not.toContain(SENTINEL_KEY);
    }),
    { seed: 424242, numRuns: 400 },
  );
  const alive = await send("GET", "/v2/catalog/gpus", { authorization: `Bearer ${SENTINEL_KEY}` });
  expect(alive.status).toBe(200);
  console.log(`emulator garbage: ${tried} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  // The garbage reached the interesting answers, not only 404s.
  for (const status of [400, 401, 404, 405, 415, 422]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
});

test("huge bodies are refused with 413 in the error shape, on REST and GraphQL, and the emulator keeps serving", async () => {
  const auth = { authorization: `Bearer ${SENTINEL_KEY}`, "content-type": "application/json" };
  for (const size of [1024 * 1024 + 1, 8 * 1024 * 1024]) {
    const big = Buffer.alloc(size, "a");
    const rest = await send("POST", "/v2/pods", auth, big);
    expect(rest.status).toBe(413);
    expect(shapeProblem("/v2/pods", rest)).toBeUndefined();
    const gql = await send("POST", `/graphql?api_key=${SENTINEL_KEY}`, { "content-type": "application/json" }, big);
    expect(gql.status).toBe(413);
    expect(shapeProblem("/graphql", gql)).toBeUndefined();
  }
  expect(emu.state().pods.map((p) => p.name)).not.toContain("a".repeat(10));
  expect((await send("GET", "/v2/pods", { authorization: `Bearer ${SENTINEL_KEY}` })).status).toBe(200);
});

/**
 * Well-formed bodies whose integers are oversized (counts, disks, mounts, sizes, endpoint
 * fields): what the platform's limits refuse is refused (never a 500), what is accepted stays
 * within them, and afterwards every list answers 200 for every key, with the pods running.
 */
describe("oversized integers and counts", () => {
  const OTHER = "cp_test_other_key_0025_prop";
  let e2: Emulator;
  beforeAll(async () => {
    e2 = await startEmulator({
      port: 0,
      keys: [
        { key: SENTINEL_KEY, scopes: ["read", "write"] },
        { key: OTHER, scopes: ["read", "write"] },
      ],
      quotas: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 },
      timings: { provisioningMs: 5, startingMs: 5, restartDelayMs: 5, drainMs: 5 },
    });
  });
  afterAll(async () => {
    await e2?.close();
  });

  const call = async (method: string, path: string, body?: unknown, key = SENTINEL_KEY) => {
    const res = await fetch(`${e2.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  /** Mostly past any limit, some at or near one, some ordinary. */
  const big = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(9, 4097, 3601, 1001, 2 ** 31 - 1, 2 ** 32, 4_294_967_296, 50_000_000, 1e20, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e308) },
    { weight: 2, arbitrary: fc.integer({ min: 9, max: 2 ** 31 - 1 }) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 8 }) },
  );
  const gpuId = fc.constantFrom("NVIDIA L40S", "NVIDIA GeForce RTX 4090", "AMD Instinct MI300X");
  const body = fc.oneof(
    fc.record({ count: big, id: gpuId, disk: fc.option(big, { nil: undefined }), size: fc.option(big, { nil: undefined }) }).map((v) => ({
      method: "POST",
      path: "/v2/pods",
      body: { name: "big", image: "img:1", gpu: { id: v.id, count: v.count }, ...(v.disk === undefined ? {} : { disk: v.disk }), ...(v.size === undefined ? {} : { mounts: { persistent: { size: v.size, path: "/w" } } }) },
    })),
    big.map((n) => ({ method: "POST", path: "/v2/pods", body: { name: "cpu", image: "img:1", cpu: { id: "cpu3c", vcpuCount: n } } })),
    fc.record({ disk: big, size: big }).map((v) => ({ method: "POST", path: "/v2/templates", body: { name: "t", image: "img:1", disk: v.disk, mounts: { persistent: { size: v.size, path: "/w" } } } })),
    big.map((n) => ({ method: "POST", path: "/v2/network-volumes", body: { name: "v", size: n, dataCenter: "US-TX-3" } })),
    fc.record({ field: fc.constantFrom("idleTimeout", "scalerValue", "workersMin", "workersMax", "gpuCount", "executionTimeoutMs"), n: big }).map((v) => ({
      method: "POST",
      path: "/graphql",
      // GraphQL's Int is 32 bits: larger literals are refused by the schema, which is fine too.
      body: { query: `mutation { saveEndpoint(input: { name: "ep", gpuIds: "ADA_24", templateId: "none", ${v.field}: ${v.n > 2 ** 31 - 1 ? 2 ** 31 - 1 : v.n} }) { id } }` },
    })),
    fc.record({ count: big, timeout: big, max: big }).map((v) => ({
      method: "POST",
      path: "/v2/serverless",
      body: { name: "s", image: "img:1", gpu: { pools: ["ADA_24"], count: v.count }, timeout: v.timeout, workers: { min: 0, max: v.max } },
    })),
  );

  test("refused or within the limits, never a 500; every list answers 200 for every key afterwards", async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(body, async (r) => {
        const a = await call(r.method, r.path, r.body);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        expect([r.path, a.status]).not.toEqual([r.path, 500]);
        if (r.path === "/v2/pods" && a.status === 201) {
          expect(a.body.gpu?.count ?? 1).toBeLessThanOrEqual(8);
          expect(a.body.disk).toBeLessThanOrEqual(4096);
        }
      }),
      { seed: 252525, numRuns: 250 },
    );
    // Past the limits there were refusals, within them creates.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(201) ?? 0).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 50)); // every pod made is RUNNING by now
    const lists = ["/v2/pods", "/v2/templates", "/v2/network-volumes", "/v2/registries", "/v2/serverless", "/v2/catalog/gpus", "/v2/catalog/cpus", "/v2/catalog/datacenters", "/v2/billing/pods"];
    for (const key of [SENTINEL_KEY, OTHER]) {
      for (const path of lists) expect([key === OTHER, path, (await call("GET", path, undefined, key)).status]).toEqual([key === OTHER, path, 200]);
      const gql = await call("POST", "/graphql", { query: "{ myself { endpoints { id gpuCount workersMax } } }" }, key);
      expect(gql.status).toBe(200);
    }
    const pods = (await call("GET", "/v2/pods")).body.pods as { id: string; status: string }[];
    expect(pods.some((p) => p.status === "RUNNING")).toBe(true);
    for (const p of pods) expect((await call("GET", `/v2/pods/${p.id}`)).status).toBe(200);
    expect(() => e2.state()).not.toThrow();
    console.log(`emulator oversized integers: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}, ${pods.length} pods listed`);
  });
});

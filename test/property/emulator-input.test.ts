/**
 * The emulator given garbage (fast-check, seeded): malformed JSON, JSON of the wrong shape,
 * wrong or missing content types, huge bodies, unknown paths and methods, bad or missing keys.
 * Every answer has the platform's error shape (REST: application/problem+json with title, status,
 * detail and optional errors[] of strings; GraphQL: errors[] with message and
 * extensions.code), none is a 500, and the emulator keeps serving afterwards.
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

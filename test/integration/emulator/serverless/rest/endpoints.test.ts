// REST v2's /v2/serverless over real HTTP, over the same endpoints as GraphQL: an endpoint made
// either way is seen and managed the other way, with its bound template; workers INITIALIZING
// then IDLE; delete refused while workers.min or max is not 0. Every answer is checked against
// the public contract by the suite's hook (test/helpers/contract-hook.ts).
import { type Emulator, startEmulator } from "../../../../../src/emulator";
import { createRegistry, createServerlessTemplate } from "../../../../helpers/emulator-fixtures";

const KEY = "cp_test_rest_serverless_0123";
const QUOTAS = { minute: 100000, hour: 1000000, day: 10000000 };

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    keys: [{ key: KEY, scopes: ["read", "write"] }],
    quotas: QUOTAS,
    timings: { provisioningMs: 10, startingMs: 150, drainMs: 30 },
  });
});

afterAll(async () => {
  await emu?.close();
});

async function rest(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function gql(query: string): Promise<any> {
  const res = await fetch(`${emu.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  return res.json();
}

const GQL_FIELDS =
  "id name gpuIds gpuCount templateId type idleTimeout locations flashBootType scalerType scalerValue workersMin workersMax networkVolumeId executionTimeoutMs";

async function gqlEndpoint(id: string): Promise<any> {
  const body = await gql(`{ myself { endpoints { ${GQL_FIELDS} } } }`);
  return body.data.myself.endpoints.find((e: any) => e.id === id);
}

const templateIds = async () => ((await rest("GET", "/v2/templates")).body.templates as any[]).map((t) => t.id);

/** Poll until `done` holds; bounded, so a broken emulator fails instead of hanging. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, limitMs = 5000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`not reached within ${limitMs} ms; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const CREATE = {
  name: "rest-ep",
  image: "worker:1",
  env: { MODEL: "sdxl" },
  ports: ["8000/http"],
  gpu: { pools: ["ADA_24", "AMPERE_24"], count: 2 },
  workers: { min: 0, max: 4 },
  scaling: { type: "REQUEST_COUNT", value: 2.5, idleTimeout: 9 },
  dataCenterIds: ["US-KS-2"],
  timeout: 120000,
  flashboot: "PRIORITY_FLASHBOOT",
};

describe("createEndpoint and the GraphQL view of it", () => {
  test("201 with the contract's Endpoint; a serverless template named after it is made and bound", async () => {
    const before = await templateIds();
    const { status, body } = await rest("POST", "/v2/serverless", CREATE);
    expect(status).toBe(201);
    expect(body).toMatchObject({
      name: "rest-ep",
      type: "QUEUE_BASED",
      requestUrls: { run: `${emu.url}/v2/${body.id}/run`, runSync: `${emu.url}/v2/${body.id}/runsync` },
      image: "worker:1",
      args: "",
      env: { MODEL: "sdxl" },
      ports: ["8000/http"],
      registry: null,
      gpu: { pools: ["ADA_24", "AMPERE_24"], count: 2 },
      workers: { min: 0, max: 4 },
      scaling: { type: "REQUEST_COUNT", value: 2.5, idleTimeout: 9 },
      dataCenterIds: ["US-KS-2"],
      networkVolumes: [],
      timeout: 120000,
      flashboot: "PRIORITY_FLASHBOOT",
    });
    const made = (await templateIds()).filter((id) => !before.includes(id));
    expect(made).toHaveLength(1);
    const tpl = (await rest("GET", `/v2/templates/${made[0]}`)).body;
    expect(tpl).toMatchObject({ image: "worker:1", env: { MODEL: "sdxl" }, serverless: true });
    expect(tpl.name).toMatch(/^rest-ep/);

    // GraphQL reads the same endpoint in its own names.
    expect(await gqlEndpoint(body.id)).toEqual({
      id: body.id,
      name: "rest-ep",
      gpuIds: "ADA_24,AMPERE_24",
      gpuCount: 2,
      templateId: made[0],
      type: "QB",
      idleTimeout: 9,
      locations: null,
      flashBootType: "FLASHBOOT",
      scalerType: "REQUEST_COUNT",
      scalerValue: 3,
      workersMin: 0,
      workersMax: 4,
      networkVolumeId: null,
      executionTimeoutMs: 120000,
    });
    expect((await rest("GET", "/v2/serverless")).body.endpoints.map((e: any) => e.id)).toContain(body.id);
  });

  test("defaults of a minimal body: 0..3 workers, QUEUE_DELAY 4, idle 5 s, 300000 ms, OFF, one GPU", async () => {
    const { status, body } = await rest("POST", "/v2/serverless", { name: "min", image: "w:1", gpu: { pools: ["ADA_24"] } });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      gpu: { pools: ["ADA_24"], count: 1 },
      workers: { min: 0, max: 3 },
      scaling: { type: "QUEUE_DELAY", value: 4, idleTimeout: 5 },
      dataCenterIds: [],
      timeout: 300000,
      flashboot: "OFF",
    });
  });

  test("schema failures are 422 listing each; cross-field rules are 400; nothing is made either way", async () => {
    const before = await templateIds();
    const eps = (await rest("GET", "/v2/serverless")).body.endpoints.length;
    const schema = await rest("POST", "/v2/serverless", {
      name: "bad",
      gpu: { pools: [] },
      type: "LOAD_BALANCING",
      scaling: { value: 0.2 },
    });
    expect(schema.status).toBe(422);
    expect(schema.body.errors).toEqual(
      expect.arrayContaining([
        "$: additional properties 'type' not allowed",
        "$: missing property 'image'",
        "$.gpu.pools: must have at least 1 items, but found 0",
        "$.scaling.value: must be >= 0.5 but found 0.2",
      ]),
    );
    const twoVolumes = await rest("POST", "/v2/serverless", { ...CREATE, networkVolumes: ["a", "b"] });
    expect(twoVolumes.status).toBe(400);
    expect(twoVolumes.body.detail).toMatch(/networkVolumes: an endpoint takes at most one network volume, got 2/);
    const pools = await rest("POST", "/v2/serverless", { ...CREATE, gpu: { pools: ["H100"] } });
    expect(pools.status).toBe(400);
    expect(pools.body.detail).toMatch(/gpu\.pools: 'H100' not a serverless GPU pool/);
    const workers = await rest("POST", "/v2/serverless", { ...CREATE, workers: { min: 3, max: 1 } });
    expect(workers.body.detail).toMatch(/workers\.min \(3\) must not exceed workers\.max \(1\)/);
    const registry = await rest("POST", "/v2/serverless", { ...CREATE, registry: "reg-nope" });
    expect(registry.status).toBe(400);
    expect(registry.body.detail).toMatch(/registry 'reg-nope' does not exist/);
    expect(await templateIds()).toEqual(before);
    expect((await rest("GET", "/v2/serverless")).body.endpoints).toHaveLength(eps);
  });

  test("the later revision's spellings the platform's MCP server sends are taken; a load-balancing create is 400, a mix 422", async () => {
    const later = await rest("POST", "/v2/serverless", {
      name: "later",
      type: "QUEUE",
      image: "w:later",
      gpu: { pools: ["ADA_24"] },
      workers: { max: 2, idleTimeout: 11 },
      scaling: { type: "REQUEST_COUNT", requestCount: 3 },
    });
    expect(later.status).toBe(201);
    expect(later.body).toMatchObject({ workers: { min: 0, max: 2 }, scaling: { type: "REQUEST_COUNT", value: 3, idleTimeout: 11 } });
    const patched = await rest("PATCH", `/v2/serverless/${later.body.id}`, { scaling: { type: "QUEUE_DELAY", queueDelay: 0.5 } });
    expect(patched.body.scaling).toEqual({ type: "QUEUE_DELAY", value: 0.5, idleTimeout: 11 });
    const lb = await rest("POST", "/v2/serverless", { name: "lb", type: "LOAD_BALANCER", image: "w:1", gpu: { pools: ["ADA_24"] } });
    expect(lb.status).toBe(400);
    expect(lb.body.detail).toMatch(/queue-based endpoints only; make a load-balancing endpoint over GraphQL/);
    const mixed = await rest("POST", "/v2/serverless", {
      name: "mixed",
      image: "w:1",
      gpu: { pools: ["ADA_24"] },
      scaling: { type: "QUEUE_DELAY", value: 2, queueDelay: 3 },
    });
    expect(mixed.status).toBe(422);
    expect(mixed.body.errors).toContain("$.scaling: additional properties 'queueDelay' not allowed");
  });

  test("an unknown id is 404 on every operation that names one", async () => {
    for (const [method, path, body] of [
      ["GET", "/v2/serverless/nope"],
      ["PATCH", "/v2/serverless/nope", { name: "x" }],
      ["DELETE", "/v2/serverless/nope"],
      ["GET", "/v2/serverless/nope/workers"],
      ["GET", "/v2/serverless/nope/releases"],
    ] as const) {
      expect((await rest(method, path, body)).status).toBe(404);
    }
  });
});

describe("one endpoint, two interfaces", () => {
  test("a GraphQL endpoint reads over REST with its template's container; a sparse PATCH changes only what it names", async () => {
    const tpl = await createServerlessTemplate(emu.url, KEY, { image: "gql:1", env: { A: "1" } });
    const saved = await gql(
      `mutation { saveEndpoint(input: { name: "from-gql", gpuIds: "AMPERE_24", templateId: "${tpl}", locations: "US", workersMax: 2 }) { id } }`,
    );
    const id = saved.data.saveEndpoint.id;
    const got = await rest("GET", `/v2/serverless/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ name: "from-gql", image: "gql:1", env: { A: "1" }, gpu: { pools: ["AMPERE_24"] }, dataCenterIds: [] });

    const patched = await rest("PATCH", `/v2/serverless/${id}`, { workers: { max: 5 }, dataCenterIds: ["EU-RO-1"], env: { A: "2" } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: "from-gql",
      workers: { min: 0, max: 5 },
      gpu: { pools: ["AMPERE_24"], count: 1 },
      dataCenterIds: ["EU-RO-1"],
      env: { A: "2" },
      image: "gql:1",
    });
    // The container change went to the bound template; `locations` (GraphQL's own) is kept.
    expect((await rest("GET", `/v2/templates/${tpl}`)).body.env).toEqual({ A: "2" });
    expect(await gqlEndpoint(id)).toMatchObject({ workersMax: 5, locations: "US", templateId: tpl });

    // A GraphQL save keeps REST's dataCenterIds.
    await gql(
      `mutation { saveEndpoint(input: { id: "${id}", name: "from-gql", gpuIds: "AMPERE_24", templateId: "${tpl}", workersMax: 0 }) { id } }`,
    );
    expect((await rest("GET", `/v2/serverless/${id}`)).body).toMatchObject({ dataCenterIds: ["EU-RO-1"], workers: { max: 0 } });

    // GraphQL's delete leaves the template.
    const del = await gql(`mutation { deleteEndpoint(id: "${id}") }`);
    expect(del.errors).toBeUndefined();
    expect((await rest("GET", `/v2/templates/${tpl}`)).status).toBe(200);
  });

  test("a REST-made endpoint is changed and deleted over GraphQL; its scalerValue below 1 is refused there", async () => {
    const made = (await rest("POST", "/v2/serverless", { name: "to-gql", image: "w:2", gpu: { pools: ["ADA_24"] } })).body;
    const low = await gql(
      `mutation { saveEndpoint(input: { id: "${made.id}", name: "to-gql", gpuIds: "ADA_24", templateId: "x", scalerValue: 0 }) { id } }`,
    );
    expect(low.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    expect(low.errors[0].message).toMatch(/scalerValue must be >= 1/);
    const ep = await gqlEndpoint(made.id);
    const save = await gql(
      `mutation { saveEndpoint(input: { id: "${made.id}", name: "renamed", gpuIds: "ADA_24", templateId: "${ep.templateId}", workersMax: 0 }) { id } }`,
    );
    expect(save.errors).toBeUndefined();
    expect((await rest("GET", `/v2/serverless/${made.id}`)).body).toMatchObject({ name: "renamed", image: "w:2", workers: { max: 0 } });
    expect((await gql(`mutation { deleteEndpoint(id: "${made.id}") }`)).errors).toBeUndefined();
    expect((await rest("GET", `/v2/serverless/${made.id}`)).status).toBe(404);
  });

  test("a PATCH naming an unknown registry or volume changes nothing", async () => {
    const made = (await rest("POST", "/v2/serverless", { name: "atomic", image: "w:3", gpu: { pools: ["ADA_24"] } })).body;
    const bad = await rest("PATCH", `/v2/serverless/${made.id}`, { image: "w:4", registry: "reg-none", workers: { max: 1 } });
    expect(bad.status).toBe(400);
    const vol = await rest("PATCH", `/v2/serverless/${made.id}`, { image: "w:4", networkVolumes: ["vol-none"] });
    expect(vol.status).toBe(400);
    expect(vol.body.detail).toMatch(/networkVolumes\[0\]: network volume 'vol-none' does not exist/);
    expect((await rest("GET", `/v2/serverless/${made.id}`)).body).toMatchObject({ image: "w:3", workers: { max: 3 } });
    const reg = await createRegistry(emu.url, KEY, "rest-reg");
    const good = await rest("PATCH", `/v2/serverless/${made.id}`, { registry: reg });
    expect(good.body.registry).toBe(reg);
  });
});

describe("workers and delete", () => {
  // FlashBoot off: with it a worker starts in a tenth of the starting time, too short to read.
  test("workers are INITIALIZING, then IDLE, counted in summary; a scale-down takes them off the list", async () => {
    const made = (await rest("POST", "/v2/serverless", { ...CREATE, name: "scaled", workers: { min: 2, max: 2 }, flashboot: "OFF" })).body;
    const first = (await rest("GET", `/v2/serverless/${made.id}/workers`)).body;
    expect(first.workers.map((w: any) => w.status)).toEqual(["INITIALIZING", "INITIALIZING"]);
    expect(first.summary).toEqual({ running: 0, idle: 0, initializing: 2, throttled: 0, unhealthy: 0, total: 2 });
    expect(first.workers[0]).toMatchObject({ isStale: false, gpuCount: 2, image: "worker:1", startedAt: null, uptimeSeconds: null });
    const idle = await until(
      async () => (await rest("GET", `/v2/serverless/${made.id}/workers`)).body,
      (b) => b.summary.idle === 2,
    );
    expect(idle.workers[0]).toMatchObject({ status: "IDLE", dataCenterId: "US-KS-2", gpuTypeId: "NVIDIA GeForce RTX 4090" });
    expect(idle.workers[0].startedAt).toEqual(expect.any(String));
    const releases = (await rest("GET", `/v2/serverless/${made.id}/releases`)).body;
    expect(releases.rollout).toEqual({ inProgress: false, workersOnLatest: 2, workersTotal: 2, percentOnLatest: 100 });

    await rest("PATCH", `/v2/serverless/${made.id}`, { workers: { min: 0, max: 2 } });
    expect((await rest("GET", `/v2/serverless/${made.id}/workers`)).body.summary.total).toBe(0);
  });

  test("delete is 409 while workers.min or max is not 0, even with no worker listed; 204 at 0/0 takes the bound template", async () => {
    const made = (await rest("POST", "/v2/serverless", { name: "doomed", image: "w:5", gpu: { pools: ["ADA_24"] } })).body;
    const tpl = (await gqlEndpoint(made.id)).templateId;
    expect((await rest("GET", `/v2/serverless/${made.id}/workers`)).body.workers).toEqual([]);
    const refused = await rest("DELETE", `/v2/serverless/${made.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/workers\.min=0 and workers\.max=3; set both to 0/);
    await rest("PATCH", `/v2/serverless/${made.id}`, { workers: { max: 0 } });
    const done = await rest("DELETE", `/v2/serverless/${made.id}`);
    expect(done.status).toBe(204);
    expect(done.body).toBeUndefined();
    expect((await rest("GET", `/v2/serverless/${made.id}`)).status).toBe(404);
    expect((await rest("GET", `/v2/templates/${tpl}`)).status).toBe(404);
  });

  test("a REST delete keeps a template another endpoint is still bound to", async () => {
    const tpl = await createServerlessTemplate(emu.url, KEY, { image: "shared:1" });
    const ids: string[] = [];
    for (const name of ["a", "b"]) {
      const r = await gql(`mutation { saveEndpoint(input: { name: "${name}", gpuIds: "ADA_24", templateId: "${tpl}", workersMax: 0 }) { id } }`);
      ids.push(r.data.saveEndpoint.id);
    }
    expect((await rest("DELETE", `/v2/serverless/${ids[0]}`)).status).toBe(204);
    expect((await rest("GET", `/v2/templates/${tpl}`)).status).toBe(200);
    expect((await rest("DELETE", `/v2/serverless/${ids[1]}`)).status).toBe(204);
    expect((await rest("GET", `/v2/templates/${tpl}`)).status).toBe(404);
  });
});

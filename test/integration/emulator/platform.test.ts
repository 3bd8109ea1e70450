// Conformance of the emulator outside pods: auth (spec 5), errors (7), catalog and network
// volumes (open-parts), rate limits (8), the routes to ServerlessService, and HTTP hygiene.
import { parseList } from "structured-headers";
import type { Emulator } from "../../../src/emulator";
import { createServerlessTemplate } from "../../helpers/emulator-fixtures";
import { client, FULL, READ_ONLY, RTX4090, start } from "./rest-helpers";

let emu: Emulator;
const api = client(() => emu);

beforeAll(async () => {
  emu = await start();
});

afterAll(async () => {
  await emu?.close();
});

function expectProblem(r: { status: number; headers: Headers; body: any }, status: number): void {
  expect(r.status).toBe(status);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.body).toEqual(
    expect.objectContaining({ title: expect.any(String), status, detail: expect.any(String) }),
  );
}

describe("auth (spec 5)", () => {
  test("5.1/5.3: no Authorization header -> 401 problem+json", async () => {
    const r = await api.get("/v2/pods", { key: null });
    expectProblem(r, 401);
    expect(r.headers.get("www-authenticate")).toBe("Bearer");
  });

  test("5.3: a malformed Authorization header -> 401", async () => {
    for (const value of [`Basic ${FULL}`, "Bearer", `Bearer ${FULL} extra`, FULL]) {
      const r = await api.get("/v2/pods", { key: null, headers: { authorization: value } });
      expectProblem(r, 401);
      expect(r.body.detail).toMatch(/Authorization/);
    }
  });

  test("5.3: an unknown key -> 401, and the detail does not echo the key", async () => {
    const r = await api.get("/v2/pods", { key: "cp_not_a_key_42" });
    expectProblem(r, 401);
    expect(JSON.stringify(r.body)).not.toContain("cp_not_a_key_42");
  });

  test("5.1: the Bearer scheme name is case-insensitive", async () => {
    const r = await api.get("/v2/pods", { key: null, headers: { authorization: `bearer ${FULL}` } });
    expect(r.status).toBe(200);
  });

  test("5.2: a read-only key reads (200) but gets 403 on every mutating REST call", async () => {
    const pod = await api.createPod({ gpu: { id: RTX4090 } });
    const vol = await api.createVolume();
    expect((await api.get("/v2/pods", { key: READ_ONLY })).status).toBe(200);
    expect((await api.get(`/v2/pods/${pod.id}`, { key: READ_ONLY })).status).toBe(200);
    const calls = [
      api.post("/v2/pods", { name: "x", image: "i", gpu: { id: RTX4090 } }, { key: READ_ONLY }),
      api.patch(`/v2/pods/${pod.id}`, { name: "y" }, { key: READ_ONLY }),
      api.post(`/v2/pods/${pod.id}/action`, { action: "stop" }, { key: READ_ONLY }),
      api.del(`/v2/pods/${pod.id}`, { key: READ_ONLY }),
      api.post("/v2/network-volumes", { name: "v", size: 10, dataCenter: "US-TX-3" }, { key: READ_ONLY }),
      api.patch(`/v2/network-volumes/${vol.id}`, { size: 20 }, { key: READ_ONLY }),
      api.del(`/v2/network-volumes/${vol.id}`, { key: READ_ONLY }),
    ];
    for (const r of await Promise.all(calls)) {
      expectProblem(r, 403);
      expect(r.body.detail).toMatch(/'write' scope/);
    }
    expect((await api.get(`/v2/pods/${pod.id}`)).body.name).toBe("p");
  });

  test("5.2: a write-only key gets 403 on reads", async () => {
    const writer = await start({ keys: [{ key: "cp_writer_only_1", scopes: ["write"] }] });
    try {
      const w = client(() => writer);
      expectProblem(await w.get("/v2/pods", { key: "cp_writer_only_1" }), 403);
    } finally {
      await writer.close();
    }
  });

  test("5.4: GraphQL without api_key -> 401 with errors[].extensions.code UNAUTHENTICATED", async () => {
    const res = await fetch(`${emu.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
    });
    expect(res.status).toBe(401);
    const body = (await res.json()) as any;
    expect(body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: "UNAUTHENTICATED" } }] });
  });

  test("5.4: GraphQL with an unknown api_key -> 401 UNAUTHENTICATED", async () => {
    const res = await fetch(`${emu.url}/graphql?api_key=wrong`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });

  test("5.4: GraphQL ignores a bearer header: the key must be the api_key parameter", async () => {
    const res = await fetch(`${emu.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${FULL}` },
      body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
    });
    expect(res.status).toBe(401);
  });

  test("5.5: runsync without a bearer key -> 401", async () => {
    expectProblem(await api.post("/v2/sdxl-turbo/runsync", { input: { prompt: "x", width: 8, height: 8 } }, { key: null }), 401);
  });

  test("5: the request log keeps a key fingerprint, never the key or the api_key query value", async () => {
    await fetch(`${emu.url}/graphql?api_key=${FULL}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
    });
    const log = emu.requestLog();
    const text = JSON.stringify(log);
    expect(text).not.toContain(FULL);
    expect(text).not.toContain(READ_ONLY);
    expect(text).not.toContain("api_key");
    const last = log[log.length - 1];
    expect(last).toMatchObject({ method: "POST", path: "/graphql", status: 200, op: "myself" });
    expect(last.key).toMatch(/^key_[0-9a-f]{8}$/);
  });
});

describe("catalog (open-parts)", () => {
  test("GET /v2/catalog/cpus -> { cpus: [CpuType] } with group and per-vCPU prices", async () => {
    const r = await api.get("/v2/catalog/cpus");
    expect(r.status).toBe(200);
    expect(r.body.cpus.length).toBeGreaterThanOrEqual(2);
    for (const c of r.body.cpus) {
      expect(c).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        group: expect.any(String),
        vcpu: { min: expect.any(Number), max: expect.any(Number) },
        ramGbPerVcpu: expect.any(Number),
        price: { securePerVcpu: expect.any(Number), serverlessPerVcpu: expect.any(Number) },
      });
      expect(c.vcpu.min).toBeGreaterThanOrEqual(2);
    }
  });

  test("GET /v2/catalog/gpus -> { gpus: [GpuType] } with NVIDIA and AMD types, memory and prices", async () => {
    const r = await api.get("/v2/catalog/gpus");
    expect(r.status).toBe(200);
    for (const g of r.body.gpus) {
      expect(g).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        pool: g.manufacturer === "AMD" ? null : expect.any(String),
        manufacturer: expect.stringMatching(/^(NVIDIA|AMD)$/),
        memory: expect.any(Number),
        secure: true,
        community: expect.any(Boolean),
        price: { secure: expect.any(Number), community: expect.any(Number) },
        maxCount: { secure: expect.any(Number), community: expect.any(Number) },
      });
    }
    const ids = r.body.gpus.map((g: any) => g.id);
    expect(ids).toEqual(expect.arrayContaining(["NVIDIA A100 80GB PCIe", "NVIDIA GeForce RTX 4090", "AMD Instinct MI300X"]));
  });

  test("4.2: GET /v2/catalog/datacenters -> { dataCenters: [DataCenter] }, some flagged globalNetwork", async () => {
    const r = await api.get("/v2/catalog/datacenters");
    expect(r.status).toBe(200);
    for (const d of r.body.dataCenters) {
      expect(d).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        region: expect.stringMatching(/^(NORTH_AMERICA|EUROPE)$/),
        globalNetwork: expect.any(Boolean),
        networkVolumeTypes: expect.arrayContaining([expect.stringMatching(/^(STANDARD|HIGH_PERFORMANCE)$/)]),
        compliance: expect.any(Array),
      });
    }
    const flags = r.body.dataCenters.map((d: any) => d.globalNetwork);
    expect(flags).toContain(true);
    expect(flags).toContain(false);
  });

  test("catalog calls need auth like every /v2 call", async () => {
    expectProblem(await api.get("/v2/catalog/gpus", { key: null }), 401);
  });
});

describe("network volumes (open-parts)", () => {
  test("POST /v2/network-volumes -> 201 { id, name, size, dataCenter, type }; type defaults to the data center's first tier", async () => {
    const r = await api.post("/v2/network-volumes", { name: "data", size: 50, dataCenter: "EU-RO-1" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.any(String), name: "data", size: 50, dataCenter: "EU-RO-1", type: "STANDARD" });
    const fast = await api.post("/v2/network-volumes", { name: "d", size: 10, dataCenter: "US-TX-3" });
    expect(fast.body.type).toBe("HIGH_PERFORMANCE");
    const asked = await api.post("/v2/network-volumes", { name: "d", size: 10, dataCenter: "US-TX-3", type: "STANDARD" });
    expect(asked.body.type).toBe("STANDARD");
  });

  test("a type the data center does not offer -> 400; a type outside the enum -> 422; type is fixed -> 422", async () => {
    const r = await api.post("/v2/network-volumes", { name: "d", size: 10, dataCenter: "EU-CZ-1", type: "HIGH_PERFORMANCE" });
    expectProblem(r, 400);
    expect(r.body.detail).toMatch(/EU-CZ-1 offers STANDARD network volumes, not HIGH_PERFORMANCE/);
    const bad = await api.post("/v2/network-volumes", { name: "d", size: 10, dataCenter: "EU-CZ-1", type: "fast" });
    expectProblem(bad, 422);
    expect(bad.body.errors).toEqual(["$.type: value must be one of 'STANDARD', 'HIGH_PERFORMANCE', but got 'fast'"]);
    const vol = await api.createVolume();
    const patch = await api.patch(`/v2/network-volumes/${vol.id}`, { type: "STANDARD" });
    expectProblem(patch, 422);
    expect(patch.body.errors).toEqual(["$: additional properties 'type' not allowed"]);
  });

  test("PATCH with an empty body -> 422 (the contract's minProperties 1)", async () => {
    const vol = await api.createVolume();
    const r = await api.patch(`/v2/network-volumes/${vol.id}`, {});
    expectProblem(r, 422);
    expect(r.body.errors).toEqual(["$: must have at least 1 properties, but found 0"]);
  });

  test("size must be 10..4096 -> 422", async () => {
    for (const [size, error] of [
      [9, "$.size: must be >= 10 but found 9"],
      [4097, "$.size: must be <= 4096 but found 4097"],
    ] as const) {
      const r = await api.post("/v2/network-volumes", { name: "v", size, dataCenter: "US-TX-3" });
      expectProblem(r, 422);
      expect(r.body.errors).toEqual([error]);
    }
  });

  test("name, size and dataCenter are required; nothing unknown is accepted -> 422", async () => {
    const r = await api.post("/v2/network-volumes", { bogus: "fast" });
    expectProblem(r, 422);
    expect(r.body.errors).toEqual([
      "$: additional properties 'bogus' not allowed",
      "$: missing property 'name'",
      "$: missing property 'size'",
      "$: missing property 'dataCenter'",
    ]);
  });

  test("an unknown dataCenter -> 400", async () => {
    const r = await api.post("/v2/network-volumes", { name: "v", size: 10, dataCenter: "MARS-1" });
    expectProblem(r, 400);
    expect(r.body.detail).toMatch(/unknown data center 'MARS-1'/);
  });

  test("GET one and GET the list { networkVolumes: [...] }", async () => {
    const vol = await api.createVolume("US-KS-2", 30);
    expect((await api.get(`/v2/network-volumes/${vol.id}`)).body).toEqual(vol);
    const list = await api.get("/v2/network-volumes");
    expect(list.status).toBe(200);
    expect(list.body.networkVolumes).toContainEqual(vol);
  });

  test("an unknown volume id -> 404 for get, patch and delete", async () => {
    expectProblem(await api.get("/v2/network-volumes/nv-none"), 404);
    expectProblem(await api.patch("/v2/network-volumes/nv-none", { name: "x" }), 404);
    expectProblem(await api.del("/v2/network-volumes/nv-none"), 404);
  });

  test("PATCH { name?, size? } -> 200; the volume grows", async () => {
    const vol = await api.createVolume("US-TX-3", 10);
    const r = await api.patch(`/v2/network-volumes/${vol.id}`, { name: "renamed", size: 100 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...vol, name: "renamed", size: 100 });
  });

  test("PATCH with a smaller size -> 400 (volumes only grow)", async () => {
    const vol = await api.createVolume("US-TX-3", 40);
    const r = await api.patch(`/v2/network-volumes/${vol.id}`, { size: 20 });
    expectProblem(r, 400);
    expect(r.body.detail).toMatch(/only grows/);
  });

  test("PATCH of dataCenter -> 422 (the data center is fixed)", async () => {
    const vol = await api.createVolume();
    const r = await api.patch(`/v2/network-volumes/${vol.id}`, { dataCenter: "EU-RO-1" });
    expectProblem(r, 422);
    expect(r.body.errors).toEqual(["$: additional properties 'dataCenter' not allowed"]);
  });

  test("DELETE -> 204, then 404", async () => {
    const vol = await api.createVolume();
    const r = await api.del(`/v2/network-volumes/${vol.id}`);
    expect(r.status).toBe(204);
    expectProblem(await api.get(`/v2/network-volumes/${vol.id}`), 404);
  });

  test("DELETE while a pod that is not TERMINATED mounts it -> 409; after terminate -> 204", async () => {
    const vol = await api.createVolume("US-TX-3");
    const pod = await api.createPod({ gpu: { id: RTX4090 }, mounts: { network: [{ volumeId: vol.id, path: "/d" }] } });
    await api.waitFor(pod.id, "RUNNING");
    await api.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    const r = await api.del(`/v2/network-volumes/${vol.id}`);
    expectProblem(r, 409);
    expect(r.body.detail).toBe(`network volume '${vol.id}' is in use by pod '${pod.id}'; remove that first`);
    await api.del(`/v2/pods/${pod.id}`);
    expect((await api.del(`/v2/network-volumes/${vol.id}`)).status).toBe(204);
  });
});

describe("rate limits (spec 8, open-parts)", () => {
  const LIMITED = { minute: 5, hour: 7, day: 50 };

  test("8: RateLimit and RateLimit-Policy accompany a successful response, in the exact format", async () => {
    const r = await api.get("/v2/catalog/gpus");
    expect(r.headers.get("ratelimit-policy")).toBe(
      '"minute";q=1000000;w=60, "hour";q=10000000;w=3600, "day";q=100000000;w=86400',
    );
    expect(r.headers.get("ratelimit")).toMatch(/^"minute";r=\d+;t=\d+, "hour";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
    // A structured-field parser reads them as a list with one member per window.
    const list = parseList(r.headers.get("ratelimit")!);
    expect(list.map(([name]) => name)).toEqual(["minute", "hour", "day"]);
  });

  test("8: every authenticated response carries the headers: 4xx, GraphQL and runsync too", async () => {
    const responses = [
      await fetch(`${emu.url}/v2/pods/none`, { headers: { authorization: `Bearer ${FULL}` } }),
      await fetch(`${emu.url}/graphql?api_key=${FULL}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
      }),
      await fetch(`${emu.url}/v2/sdxl-turbo/runsync`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${FULL}` },
        body: JSON.stringify({ input: { prompt: "a cat", width: 8, height: 8 } }),
      }),
    ];
    for (const res of responses) {
      expect(res.headers.get("ratelimit")).toMatch(/^"minute";r=/);
      expect(res.headers.get("ratelimit-policy")).toMatch(/^"minute";q=/);
    }
  });

  test("8: r counts down per request and key", async () => {
    const limited = await start({ quotas: LIMITED });
    try {
      const l = client(() => limited);
      const a = await l.get("/v2/catalog/cpus");
      const b = await l.get("/v2/catalog/cpus");
      expect(a.headers.get("ratelimit")).toMatch(/^"minute";r=4;t=60, "hour";r=6;t=3600, "day";r=49;t=86400$/);
      expect(b.headers.get("ratelimit")).toMatch(/^"minute";r=3;t=\d+, "hour";r=5;t=\d+, "day";r=48;t=\d+$/);
      // Another key has its own budget.
      expect((await l.get("/v2/catalog/cpus", { key: READ_ONLY })).headers.get("ratelimit")).toMatch(/^"minute";r=4;/);
    } finally {
      await limited.close();
    }
  });

  test("8: the minute quota exceeded -> 429 problem+json, Retry-After, detail names 'minute'", async () => {
    const limited = await start({ quotas: LIMITED });
    try {
      const l = client(() => limited);
      for (let i = 0; i < 5; i++) expect((await l.get("/v2/catalog/cpus")).status).toBe(200);
      const r = await l.get("/v2/catalog/cpus");
      expectProblem(r, 429);
      expect(r.body.detail).toMatch(/minute/);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      expect(r.headers.get("ratelimit")).toMatch(/^"minute";r=0;t=\d+/);
      expect(r.headers.get("ratelimit-policy")).toBe('"minute";q=5;w=60, "hour";q=7;w=3600, "day";q=50;w=86400');
    } finally {
      await limited.close();
    }
  });

  test("8: the hour quota exceeded -> 429 whose detail names 'hour' and Retry-After waits for the hour", async () => {
    let now = 1_000_000;
    const limited = await start({ quotas: LIMITED, clock: { now: () => now } });
    try {
      const l = client(() => limited);
      for (let i = 0; i < 5; i++) await l.get("/v2/catalog/cpus");
      now += 60_000; // a new minute; the hour still counts 5
      await l.get("/v2/catalog/cpus");
      await l.get("/v2/catalog/cpus");
      const r = await l.get("/v2/catalog/cpus");
      expectProblem(r, 429);
      expect(r.body.detail).toMatch(/hour/);
      expect(Number(r.headers.get("retry-after"))).toBe(3540);
    } finally {
      await limited.close();
    }
  });

  test("8: a 429 does not spend quota, and the window resets after its length", async () => {
    let now = 5_000_000;
    const limited = await start({ quotas: LIMITED, clock: { now: () => now } });
    try {
      const l = client(() => limited);
      for (let i = 0; i < 5; i++) await l.get("/v2/catalog/cpus");
      for (let i = 0; i < 3; i++) expect((await l.get("/v2/catalog/cpus")).status).toBe(429);
      now += 59_999;
      expect((await l.get("/v2/catalog/cpus")).status).toBe(429);
      now += 1;
      const ok = await l.get("/v2/catalog/cpus");
      expect(ok.status).toBe(200);
      expect(ok.headers.get("ratelimit")).toMatch(/^"minute";r=4;t=60, "hour";r=1;/);
    } finally {
      await limited.close();
    }
  });

  test("8: timeScale 10 shrinks the windows: w=6 for the minute, and it resets after 6 real seconds", async () => {
    let now = 0;
    const fast = await start({ quotas: LIMITED, timeScale: 10, clock: { now: () => now } });
    try {
      const f = client(() => fast);
      const first = await f.get("/v2/catalog/cpus");
      expect(first.headers.get("ratelimit-policy")).toBe('"minute";q=5;w=6, "hour";q=7;w=360, "day";q=50;w=8640');
      for (let i = 0; i < 4; i++) await f.get("/v2/catalog/cpus");
      const limited = await f.get("/v2/catalog/cpus");
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("6");
      now += 6000;
      expect((await f.get("/v2/catalog/cpus")).status).toBe(200);
    } finally {
      await fast.close();
    }
  });

  test("8: GraphQL over quota -> HTTP 429 with the rate-limit headers", async () => {
    const limited = await start({ quotas: { minute: 1 } });
    try {
      const post = () =>
        fetch(`${limited.url}/graphql?api_key=${FULL}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
        });
      expect((await post()).status).toBe(200);
      const r = await post();
      expect(r.status).toBe(429);
      expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(((await r.json()) as any).errors[0].message).toMatch(/minute/);
    } finally {
      await limited.close();
    }
  });
});

describe("GraphQL and hosted models are served through ServerlessService", () => {
  test("4.3: POST /graphql runs the document; counts() names the root field", async () => {
    const tpl = await createServerlessTemplate(emu.url, FULL);
    const before = emu.counts().saveEndpoint ?? 0;
    const res = await fetch(`${emu.url}/graphql?api_key=${FULL}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: `mutation { saveEndpoint(input: { name: "e", gpuIds: "ADA_24", templateId: "${tpl}" }) { id name } }`,
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.saveEndpoint).toMatchObject({ id: expect.any(String), name: "e" });
    expect(emu.counts().saveEndpoint).toBe(before + 1);
    expect(emu.state().endpoints.length).toBeGreaterThan(0);
  });

  test("5.2: a read-only key's GraphQL mutation -> FORBIDDEN", async () => {
    const res = await fetch(`${emu.url}/graphql?api_key=${READ_ONLY}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: 'mutation { deleteEndpoint(id: "x") }' }),
    });
    const body = (await res.json()) as any;
    expect(body.errors[0].extensions.code).toBe("FORBIDDEN");
  });

  test("4.4: runsync -> output.image_url, which the emulator serves as a real PNG", async () => {
    const r = await api.post("/v2/sdxl-turbo/runsync", { input: { prompt: "a red fox", width: 16, height: 16 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "COMPLETED", output: { image_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/) } });
    const img = await fetch(r.body.output.image_url);
    expect(img.status).toBe(200);
    expect(img.headers.get("content-type")).toBe("image/png");
    const bytes = Buffer.from(await img.arrayBuffer());
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(emu.counts().runSync).toBeGreaterThanOrEqual(1);
  });

  test("timeScale shrinks serverless worker timers too (startingMs 1000 at timeScale 10: RUNNING after 100 ms)", async () => {
    let now = 0;
    const fast = await start({ clock: { now: () => now }, timeScale: 10, timings: { startingMs: 1000, drainMs: 1000 } });
    try {
      const tpl = await createServerlessTemplate(fast.url, FULL);
      const res = await fetch(`${fast.url}/graphql?api_key=${FULL}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          query: `mutation { saveEndpoint(input: { name: "w", gpuIds: "ADA_24", templateId: "${tpl}", workersMin: 1, workersMax: 1 }) { id } }`,
        }),
      });
      expect(res.status).toBe(200);
      const workers = () => (fast.state().endpoints[0] as any).pods.map((p: any) => p.desiredStatus);
      now += 99;
      expect(workers()).toEqual(["STARTING"]);
      now += 1;
      expect(workers()).toEqual(["RUNNING"]);
    } finally {
      await fast.close();
    }
  });

  test("faults apply to GraphQL and runsync as to REST", async () => {
    const faulty = await start({ faults: { rate5xx: 1 } });
    try {
      const g = await fetch(`${faulty.url}/graphql?api_key=${FULL}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
      });
      expect([500, 502, 503]).toContain(g.status);
      expect(((await g.json()) as any).errors[0].extensions.code).toBe("INTERNAL_SERVER_ERROR");
      const r = await client(() => faulty).post("/v2/sdxl-turbo/runsync", { input: { prompt: "x", width: 8, height: 8 } });
      expect([500, 502, 503]).toContain(r.status);
    } finally {
      await faulty.close();
    }
  });

  test("open-parts: runsync on an unknown model -> 404", async () => {
    expect((await api.post("/v2/no-such-model/runsync", { input: {} })).status).toBe(404);
  });
});

describe("HTTP hygiene: the server answers and keeps serving", () => {
  test("an unknown path -> 404 problem+json", async () => {
    expectProblem(await api.get("/v3/pods"), 404);
    expectProblem(await api.get("/v2/nothing/here/at/all"), 404);
  });

  test("a malformed %-escape in the path -> 404, not a crash", async () => {
    expectProblem(await api.get("/v2/pods/%E0%A4%A"), 404);
  });

  test("a method the path does not serve -> 405 with Allow", async () => {
    const r = await api.call("PUT", "/v2/pods", { name: "x" });
    expectProblem(r, 405);
    expect(r.headers.get("allow")).toBe("GET, POST");
  });

  test("malformed JSON -> 400 problem+json", async () => {
    const r = await api.call("POST", "/v2/pods", undefined, { raw: '{"name": "x",' });
    expectProblem(r, 400);
    expect(r.body.detail).toMatch(/not valid JSON/);
  });

  test("a body that is not application/json -> 415", async () => {
    const r = await api.call("POST", "/v2/pods", undefined, { raw: "name=x", headers: { "content-type": "text/plain" } });
    expectProblem(r, 415);
  });

  test("application/json with a charset parameter is accepted", async () => {
    const r = await api.call("POST", "/v2/network-volumes", undefined, {
      raw: JSON.stringify({ name: "v", size: 10, dataCenter: "US-TX-3" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(r.status).toBe(201);
  });

  test("a body over 1 MiB -> 413, and the next request is served", async () => {
    const huge = JSON.stringify({ name: "x", image: "i", args: "a".repeat(1024 * 1024 + 10) });
    const r = await api.call("POST", "/v2/pods", undefined, { raw: huge });
    expectProblem(r, 413);
    expect((await api.get("/v2/catalog/gpus")).status).toBe(200);
  });

  test("after every kind of bad request the server still serves", async () => {
    await api.call("POST", "/v2/pods", undefined, { raw: "{" });
    await api.get("/nowhere");
    await api.call("POST", "/v2/pods", undefined, { raw: "x", headers: { "content-type": "text/plain" } });
    expect((await api.get("/v2/pods")).status).toBe(200);
  });

  test("counts() tallies every op by name", async () => {
    const c0 = emu.counts();
    await api.get("/v2/catalog/cpus");
    await api.get("/v2/catalog/gpus");
    await api.get("/v2/catalog/datacenters");
    await api.get("/v2/network-volumes");
    const c1 = emu.counts();
    for (const op of ["listCpus", "listGpus", "listDataCenters", "listNetworkVolumes"]) {
      expect(c1[op]).toBe((c0[op] ?? 0) + 1);
    }
  });
});

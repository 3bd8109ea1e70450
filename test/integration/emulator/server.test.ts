// The emulator's server outside any one REST group: auth and its errors, the
// routes to ServerlessService, and HTTP hygiene.
import { client, expectProblem, FULL, READ_ONLY, RTX4090, sharedEmulator, start } from "../../helpers/emulator-rest";

import { createServerlessTemplate } from "../../helpers/emulator-fixtures";
const { api, emu } = sharedEmulator();

describe("auth", () => {
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
    const res = await fetch(`${emu().url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
    });
    expect(res.status).toBe(401);
    const body = (await res.json()) as any;
    expect(body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: "UNAUTHENTICATED" } }] });
  });

  test("5.4: GraphQL with an unknown api_key -> 401 UNAUTHENTICATED", async () => {
    const res = await fetch(`${emu().url}/graphql?api_key=wrong`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });

  test("5.4: GraphQL also takes the key as a bearer header, as the platform's own clients send it", async () => {
    const res = await fetch(`${emu().url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${FULL}` },
      body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).errors).toBeUndefined();
  });

  test("5.5: runsync without a bearer key -> 401", async () => {
    expectProblem(await api.post("/v2/sdxl-turbo/runsync", { input: { prompt: "x", width: 8, height: 8 } }, { key: null }), 401);
  });

  test("5: the request log keeps a key fingerprint, never the key or the api_key query value", async () => {
    await fetch(`${emu().url}/graphql?api_key=${FULL}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ myself { endpoints { id } } }" }),
    });
    const log = emu().requestLog();
    const text = JSON.stringify(log);
    expect(text).not.toContain(FULL);
    expect(text).not.toContain(READ_ONLY);
    expect(text).not.toContain("api_key");
    const last = log[log.length - 1];
    expect(last).toMatchObject({ method: "POST", path: "/graphql", status: 200, op: "myself" });
    expect(last.key).toMatch(/^key_[0-9a-f]{8}$/);
  });
});

describe("GraphQL and hosted models are served through ServerlessService", () => {
  test("4.3: POST /graphql runs the document; counts() names the root field", async () => {
    const tpl = await createServerlessTemplate(emu().url, FULL);
    const before = emu().counts().saveEndpoint ?? 0;
    const res = await fetch(`${emu().url}/graphql?api_key=${FULL}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: `mutation { saveEndpoint(input: { name: "e", gpuIds: "ADA_24", templateId: "${tpl}" }) { id name } }`,
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.saveEndpoint).toMatchObject({ id: expect.any(String), name: "e" });
    expect(emu().counts().saveEndpoint).toBe(before + 1);
    expect(emu().state().endpoints.length).toBeGreaterThan(0);
  });

  test("5.2: a read-only key's GraphQL mutation -> FORBIDDEN", async () => {
    const res = await fetch(`${emu().url}/graphql?api_key=${READ_ONLY}`, {
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
    expect(emu().counts().runSync).toBeGreaterThanOrEqual(1);
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

  test("runsync on an unknown model -> 404", async () => {
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
    const c0 = emu().counts();
    await api.get("/v2/catalog/cpus");
    await api.get("/v2/catalog/gpus");
    await api.get("/v2/catalog/datacenters");
    await api.get("/v2/network-volumes");
    const c1 = emu().counts();
    for (const op of ["listCpus", "listGpus", "listDataCenters", "listNetworkVolumes"]) {
      expect(c1[op]).toBe((c0[op] ?? 0) + 1);
    }
  });
});

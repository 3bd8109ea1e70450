// The GraphQL side and hosted models of the emulator over real HTTP on a loopback port:
// auth shapes, rate-limit headers, endpoint life, runsync and the PNG its URL serves.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseList } from "structured-headers";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../../../src/emulator";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";

const FULL = "cp_test_full_0123456789";
const READ_ONLY = "cp_test_read_0123456789";
// Generous quotas: these tests are not about running out, and polling spends requests.
const QUOTAS = { minute: 100000, hour: 1000000, day: 10000000 };

const start = (more: EmulatorOptions = {}) =>
  startEmulator({
    port: 0,
    keys: [
      { key: FULL, scopes: ["read", "write"] },
      { key: READ_ONLY, scopes: ["read"] },
    ],
    quotas: QUOTAS,
    timings: { provisioningMs: 10, startingMs: 30, drainMs: 30 },
    ...more,
  });

let emu: Emulator;
/** The serverless template every endpoint here names (it must exist). */
let TPL: string;

beforeAll(async () => {
  emu = await start();
  TPL = await createServerlessTemplate(emu.url, FULL);
});

afterAll(async () => {
  await emu?.close();
});

async function gql(query: string, key: string | null = FULL, base = emu.url) {
  const qs = key === null ? "" : `?api_key=${encodeURIComponent(key)}`;
  const res = await fetch(`${base}/graphql${qs}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  return { res, body: (await res.json()) as any };
}

const CREATE = (more = "", tpl = TPL) =>
  `mutation { saveEndpoint(input: { name: "http-ep", gpuIds: "ADA_24", templateId: "${tpl}" ${more} }) { id name type workersMin workersMax pods { desiredStatus } } }`;

/** Poll `read` until `done` holds; bounded, so a broken emulator fails instead of hanging. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, limitMs = 5000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${limitMs} ms; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function runsync(model: string, body: unknown, key: string | null = FULL) {
  return fetch(`${emu.url}/v2/${model}/runsync`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify(body),
  });
}

describe("GraphQL over HTTP", () => {
  test("without api_key: 401 with a GraphQL-shaped UNAUTHENTICATED error", async () => {
    const { res, body } = await gql("{ myself { endpoints { id } } }", null);
    expect(res.status).toBe(401);
    expect(body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: "UNAUTHENTICATED" } }] });
  });

  test("with an unknown api_key: 401 UNAUTHENTICATED, the key not echoed", async () => {
    const bogus = "cp_test_not_a_key_42";
    const { res, body } = await gql("{ myself { endpoints { id } } }", bogus);
    expect(res.status).toBe(401);
    expect(body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
    expect(JSON.stringify(body)).not.toContain(bogus);
  });

  test("an authenticated answer carries RateLimit and RateLimit-Policy for minute, hour and day", async () => {
    const { res } = await gql("{ myself { endpoints { id } } }");
    expect(res.status).toBe(200);
    const limit = parseList(res.headers.get("ratelimit") ?? "");
    const policy = parseList(res.headers.get("ratelimit-policy") ?? "");
    expect(limit.map(([name]) => name)).toEqual(["minute", "hour", "day"]);
    for (const [, params] of limit) {
      expect(Number.isInteger(params.get("r"))).toBe(true);
      expect(Number.isInteger(params.get("t"))).toBe(true);
    }
    expect(policy.map(([name, params]) => [name, params.get("q"), params.get("w")])).toEqual([
      ["minute", QUOTAS.minute, 60],
      ["hour", QUOTAS.hour, 3600],
      ["day", QUOTAS.day, 86400],
    ]);
  });

  test("saveEndpoint creates an endpoint that myself lists, emu.state() shows and counts record", async () => {
    const before = emu.counts().saveEndpoint ?? 0;
    const { res, body } = await gql(CREATE());
    expect(res.status).toBe(200);
    expect(body.errors).toBeUndefined();
    const ep = body.data.saveEndpoint;
    expect(ep).toMatchObject({ name: "http-ep", type: "QB", workersMin: 0, workersMax: 3, pods: [] });
    const listed = await gql("{ myself { endpoints { id name } } }");
    expect(listed.body.data.myself.endpoints).toContainEqual({ id: ep.id, name: "http-ep" });
    expect(emu.state().endpoints.map((e: any) => e.id)).toContain(ep.id);
    expect(emu.counts().saveEndpoint).toBe(before + 1);
    expect(emu.requestLog().at(-1)).toMatchObject({ method: "POST", path: "/graphql", op: "myself", status: 200 });
    expect(JSON.stringify(emu.requestLog())).not.toContain(FULL);
  });

  test("a quoted enum is HTTP 200 with GRAPHQL_VALIDATION_FAILED and data null", async () => {
    const { res, body } = await gql(CREATE(', flashBootType: "FLASHBOOT"'));
    expect(res.status).toBe(200);
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
  });

  test("a JSON body without query is HTTP 400 with a GraphQL-shaped error", async () => {
    const res = await fetch(`${emu.url}/graphql?api_key=${FULL}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ mutation: "{}" }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.errors[0]).toEqual({ message: expect.any(String), extensions: { code: "BAD_REQUEST" } });
  });

  test("a read-only key: mutations answer FORBIDDEN, queries work", async () => {
    const denied = await gql(CREATE(), READ_ONLY);
    expect(denied.res.status).toBe(200);
    expect(denied.body.data).toEqual({ saveEndpoint: null });
    expect(denied.body.errors[0]).toMatchObject({ path: ["saveEndpoint"], extensions: { code: "FORBIDDEN" } });
    const read = await gql("{ myself { serverlessDiscount { type } } }", READ_ONLY);
    expect(read.body).toEqual({ data: { myself: { serverlessDiscount: null } } });
  });

  test("a hostile name, escaped as a GraphQL string inside the JSON body, round-trips", async () => {
    const name = 'q"uo\\te {brace} \n newline ünï 🚀 ) mutation { deleteEndpoint(id: "x") }';
    const made = await gql(
      `mutation { saveEndpoint(input: { name: ${JSON.stringify(name)}, gpuIds: "AMPERE_16", templateId: "${TPL}" }) { id name } }`,
    );
    expect(made.body.data.saveEndpoint.name).toBe(name);
    const listed = await gql("{ myself { endpoints { id name } } }");
    expect(listed.body.data.myself.endpoints).toContainEqual(made.body.data.saveEndpoint);
  });

  test("200 concurrent creates all succeed with 200 different ids", async () => {
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => gql(CREATE(`, idleTimeout: ${i}`))));
    for (const { res, body } of replies) {
      expect(res.status).toBe(200);
      expect(body.errors).toBeUndefined();
    }
    const ids = replies.map(({ body }) => body.data.saveEndpoint.id);
    expect(new Set(ids).size).toBe(200);
  });

  test("workers start and drain on the emulator's timings; delete waits for 0/0", async () => {
    const created = await gql(CREATE(", workersMin: 2, workersMax: 2"));
    const id = created.body.data.saveEndpoint.id;
    const pods = async () => {
      const { body } = await gql("{ myself { endpoints { id pods { desiredStatus } } } }");
      return body.data.myself.endpoints.find((e: any) => e.id === id).pods.map((p: any) => p.desiredStatus);
    };
    await until(pods, (s) => s.length === 2 && s.every((x: string) => x === "RUNNING"));

    const refused = await gql(`mutation { deleteEndpoint(id: "${id}") }`);
    expect(refused.body.errors[0].extensions.code).toBe("FAILED_PRECONDITION");

    const scaled = await gql(
      `mutation { saveEndpoint(input: { id: "${id}", name: "http-ep", gpuIds: "ADA_24", templateId: "${TPL}", workersMin: 0, workersMax: 0 }) { pods { desiredStatus } } }`,
    );
    expect(scaled.body.data.saveEndpoint.pods.map((p: any) => p.desiredStatus)).toEqual(["EXITED", "EXITED"]);
    await until(pods, (s) => s.length === 0);

    const deleted = await gql(`mutation { deleteEndpoint(id: "${id}") }`);
    expect(deleted.body).toEqual({ data: { deleteEndpoint: null } });
    const after = await gql("{ myself { endpoints { id } } }");
    expect(after.body.data.myself.endpoints.map((e: any) => e.id)).not.toContain(id);
  });
});

describe("hosted models over HTTP", () => {
  test("runsync with a bearer key answers COMPLETED; its image_url serves a PNG of the requested size", async () => {
    const res = await runsync("sdxl-turbo", { input: { prompt: "a lighthouse", width: 40, height: 24 } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ status: "COMPLETED", output: { image_url: expect.any(String) } });
    const url = new URL(body.output.image_url);
    expect(url.origin).toBe(new URL(emu.url).origin);

    const img = await fetch(url);
    expect(img.status).toBe(200);
    expect(img.headers.get("content-type")).toBe("image/png");
    const png = Buffer.from(await img.arrayBuffer());
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.toString("latin1", 12, 16)).toBe("IHDR");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([40, 24]);
    expect(png.toString("latin1", png.length - 8, png.length - 4)).toBe("IEND");
  });

  test("runsync without a bearer key is 401 problem+json", async () => {
    const res = await runsync("sdxl-turbo", { input: { prompt: "x", width: 8, height: 8 } }, null);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ title: expect.any(String), status: 401, detail: expect.any(String) });
  });

  test("runsync of an unknown model is 404 problem+json", async () => {
    const res = await runsync("no-such-model", { input: { prompt: "x", width: 8, height: 8 } });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(((await res.json()) as any).status).toBe(404);
  });

  test("runsync with a width that is not an integer is 422 problem+json naming the field", async () => {
    const res = await runsync("sdxl-turbo", { input: { prompt: "x", width: "wide", height: 8 } });
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(((await res.json()) as any).errors).toEqual(["$.input.width: must be an integer"]);
  });

  test("an image path the emulator never made is 404", async () => {
    const res = await fetch(`${emu.url}/images/${"0".repeat(32)}-99x99.png`);
    expect(res.status).toBe(404);
  });
});

describe("state file", () => {
  test("endpoints and their ids survive a restart of the emulator", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cp-emu-gql-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await start({ stateFile });
      const tpl = await createServerlessTemplate(first.url, FULL);
      const made = await gql(CREATE(', locations: "US,CZ"', tpl), FULL, first.url);
      const ep = made.body.data.saveEndpoint;
      await first.close();

      const second = await start({ stateFile });
      try {
        const listed = await gql("{ myself { endpoints { id name locations } } }", FULL, second.url);
        expect(listed.body.data.myself.endpoints).toEqual([{ id: ep.id, name: "http-ep", locations: "US,CZ" }]);
        // The template survived too: a new endpoint can still name it.
        const next = await gql(CREATE("", tpl), FULL, second.url);
        expect(next.body.data.saveEndpoint.id).not.toBe(ep.id);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Over real HTTP: the GraphQL key by query parameter or bearer header, the endpoint fields
// gpuCount and executionTimeoutMs (defaults, rules, kept in the state file), and "" read as
// null where the platform says "null when none".
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Emulator, startEmulator } from "../../../../../src/emulator";
import { createServerlessTemplate } from "../../../../helpers/emulator-fixtures";

const FULL = "cp_test_full_0123456789";
const OTHER = "cp_test_other_0123456789";
const QUOTAS = { minute: 100000, hour: 1000000, day: 10000000 };
const KEYS = [
  { key: FULL, scopes: ["read" as const, "write" as const] },
  { key: OTHER, scopes: ["read" as const, "write" as const] },
];

let emu: Emulator;
let TPL: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: KEYS, quotas: QUOTAS });
  TPL = await createServerlessTemplate(emu.url, FULL);
});

afterAll(async () => {
  await emu?.close();
});

/** POST /graphql with the key where `auth` says, as the platform's clients send it. */
async function post(
  query: string,
  auth: { apiKey?: string; bearer?: string; authorization?: string } = { bearer: FULL },
  variables?: Record<string, unknown>,
  base = emu.url,
) {
  const qs = auth.apiKey !== undefined ? `?api_key=${encodeURIComponent(auth.apiKey)}` : "";
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (auth.bearer !== undefined) headers.authorization = `Bearer ${auth.bearer}`;
  if (auth.authorization !== undefined) headers.authorization = auth.authorization;
  const res = await fetch(`${base}/graphql${qs}`, {
    method: "POST",
    headers,
    body: JSON.stringify(variables ? { query, variables } : { query }),
  });
  return { res, body: (await res.json()) as any };
}

const LIST = "{ myself { endpoints { id name gpuCount executionTimeoutMs networkVolumeId locations } } }";

describe("GraphQL auth: ?api_key= or Authorization: Bearer, the query parameter first", () => {
  test("a bearer header alone is accepted, for queries and mutations", async () => {
    const q = await post(LIST, { bearer: FULL });
    expect(q.res.status).toBe(200);
    expect(q.body.errors).toBeUndefined();
    const m = await post(`mutation { saveEndpoint(input: { name: "bearer", gpuIds: "ADA_24", templateId: "${TPL}" }) { id } }`, {
      bearer: FULL,
    });
    expect(m.body.errors).toBeUndefined();
    expect(m.body.data.saveEndpoint.id).toMatch(/^[0-9a-z]{14}$/);
  });

  test("the scheme is case-insensitive, as HTTP auth schemes are", async () => {
    expect((await post(LIST, { authorization: `bearer ${FULL}` })).res.status).toBe(200);
  });

  test.each([
    ["no key at all", {}],
    ["an unknown bearer key", { bearer: "cp_nope_0000000000" }],
    ["a header that is not Bearer", { authorization: `Basic ${FULL}` }],
    ["an unknown api_key, even beside a valid bearer key (the query parameter is looked at first)", { apiKey: "cp_nope_0000000000", bearer: FULL }],
  ])("%s -> HTTP 401 with UNAUTHENTICATED, the key not echoed", async (_name, auth) => {
    const r = await post(LIST, auth);
    expect(r.res.status).toBe(401);
    expect(r.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: "UNAUTHENTICATED" } }] });
    expect(JSON.stringify(r.body)).not.toContain("cp_nope");
    expect(JSON.stringify(r.body)).not.toContain(FULL);
  });

  test("a valid api_key wins over a bearer header naming another key (the log shows whose request it was)", async () => {
    const before = emu.requestLog().length;
    const r = await post(LIST, { apiKey: FULL, bearer: "cp_nope_0000000000" });
    expect(r.res.status).toBe(200);
    expect(emu.requestLog().slice(before).map((e) => e.status)).toEqual([200]);
  });
});

describe("gpuCount and executionTimeoutMs on endpoints", () => {
  test("defaults 1 and 300000 on create; both set by a save with variables, read back from myself", async () => {
    const created = await post(
      `mutation Create($input: EndpointInput!) { saveEndpoint(input: $input) { id gpuCount executionTimeoutMs } }`,
      { bearer: FULL },
      { input: { name: "fields", gpuIds: "ADA_24", templateId: TPL } },
    );
    expect(created.body.data.saveEndpoint).toMatchObject({ gpuCount: 1, executionTimeoutMs: 300000 });
    const id = created.body.data.saveEndpoint.id;
    const saved = await post(
      `mutation Save($input: EndpointInput!) { saveEndpoint(input: $input) { id gpuCount executionTimeoutMs } }`,
      { bearer: FULL },
      { input: { id, name: "fields", gpuIds: "ADA_24", templateId: TPL, gpuCount: 2, executionTimeoutMs: 0 } },
    );
    expect(saved.body.errors).toBeUndefined();
    const listed = (await post(LIST)).body.data.myself.endpoints.find((e: any) => e.id === id);
    expect(listed).toMatchObject({ gpuCount: 2, executionTimeoutMs: 0 });
  });

  test("gpuCount 0 in variables -> BAD_USER_INPUT naming the field and the rule", async () => {
    const r = await post(
      `mutation Save($input: EndpointInput!) { saveEndpoint(input: $input) { id } }`,
      { bearer: FULL },
      { input: { name: "zero", gpuIds: "ADA_24", templateId: TPL, gpuCount: 0 } },
    );
    expect(r.res.status).toBe(200);
    expect(r.body.data).toEqual({ saveEndpoint: null });
    expect(r.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    expect(r.body.errors[0].message).toContain("input.gpuCount must be >= 1, got 0");
  });

  test('networkVolumeId: "" and locations: "" read back as null', async () => {
    const r = await post(
      `mutation { saveEndpoint(input: { name: "empty", gpuIds: "ADA_24", templateId: "${TPL}", networkVolumeId: "", locations: "" }) { id networkVolumeId locations } }`,
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.saveEndpoint).toMatchObject({ networkVolumeId: null, locations: null });
    const listed = (await post(LIST)).body.data.myself.endpoints.find((e: any) => e.id === r.body.data.saveEndpoint.id);
    expect(listed).toMatchObject({ networkVolumeId: null, locations: null });
  });

  test("both fields are kept in the state file across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cp-fields-"));
    const stateFile = join(dir, "state.json");
    try {
      const a = await startEmulator({ port: 0, keys: KEYS, quotas: QUOTAS, stateFile });
      const tpl = await createServerlessTemplate(a.url, FULL);
      const made = await post(
        `mutation { saveEndpoint(input: { name: "kept", gpuIds: "ADA_24", templateId: "${tpl}", gpuCount: 3, executionTimeoutMs: 45000 }) { id } }`,
        { bearer: FULL },
        undefined,
        a.url,
      );
      await a.close();
      const b = await startEmulator({ port: 0, keys: KEYS, quotas: QUOTAS, stateFile });
      try {
        const listed = (await post(LIST, { bearer: FULL }, undefined, b.url)).body.data.myself.endpoints;
        expect(listed).toEqual([
          expect.objectContaining({ id: made.body.data.saveEndpoint.id, gpuCount: 3, executionTimeoutMs: 45000 }),
        ]);
      } finally {
        await b.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("graphqlSaveResets: a GraphQL save puts left-out fields back to their defaults", () => {
  const FULL_FIELDS = "id workersMin workersMax idleTimeout scalerType scalerValue flashBootType locations networkVolumeId gpuCount executionTimeoutMs type";

  async function withEmulator(graphqlSaveResets: boolean, body: (base: string, tpl: string) => Promise<void>) {
    const e = await startEmulator({ port: 0, keys: KEYS, quotas: QUOTAS, graphqlSaveResets });
    try {
      await body(e.url, await createServerlessTemplate(e.url, FULL));
    } finally {
      await e.close();
    }
  }
  const save = async (base: string, input: string) => {
    const r = await post(`mutation { saveEndpoint(input: { ${input} }) { ${FULL_FIELDS} } }`, { bearer: FULL }, undefined, base);
    expect(r.body.errors).toBeUndefined();
    return r.body.data.saveEndpoint;
  };
  const CUSTOM = `workersMax: 7, idleTimeout: 60, scalerType: "REQUEST_COUNT", scalerValue: 9, flashBootType: FLASHBOOT, locations: "US", gpuCount: 2, executionTimeoutMs: 1000, type: "LB"`;

  test("a save of id, name, gpuIds and templateId resets the rest (type, fixed at creation, stays)", async () => {
    await withEmulator(true, async (base, tpl) => {
      const made = await save(base, `name: "r", gpuIds: "ADA_24", templateId: "${tpl}", ${CUSTOM}`);
      const after = await save(base, `id: "${made.id}", name: "r", gpuIds: "ADA_24", templateId: "${tpl}"`);
      expect(after).toEqual({
        id: made.id,
        workersMin: 0,
        workersMax: 3,
        idleTimeout: 5,
        scalerType: "QUEUE_DELAY",
        scalerValue: 4,
        flashBootType: "OFF",
        locations: null,
        networkVolumeId: null,
        gpuCount: 1,
        executionTimeoutMs: 300000,
        type: "LB",
      });
    });
  });

  test("off (the default), the same save keeps them", async () => {
    await withEmulator(false, async (base, tpl) => {
      const made = await save(base, `name: "k", gpuIds: "ADA_24", templateId: "${tpl}", ${CUSTOM}`);
      const after = await save(base, `id: "${made.id}", name: "k", gpuIds: "ADA_24", templateId: "${tpl}"`);
      expect(after).toEqual(made);
    });
  });

  test("a save naming every field ends the same either way", async () => {
    const results: unknown[] = [];
    for (const resets of [false, true]) {
      await withEmulator(resets, async (base, tpl) => {
        const made = await save(base, `name: "f", gpuIds: "ADA_24", templateId: "${tpl}", ${CUSTOM}`);
        const { id: _id, ...after } = await save(
          base,
          `id: "${made.id}", name: "f", gpuIds: "ADA_24", templateId: "${tpl}", ${CUSTOM}, workersMax: 8`.replace("workersMax: 7, ", ""),
        );
        results.push(after);
      });
    }
    expect(results[0]).toEqual(results[1]);
    expect(results[0]).toMatchObject({ workersMax: 8, idleTimeout: 60, gpuCount: 2 });
  });

  test("REST's PATCH stays sparse under it: fields it leaves out keep their values", async () => {
    await withEmulator(true, async (base, tpl) => {
      const made = await save(base, `name: "p", gpuIds: "ADA_24", templateId: "${tpl}", workersMax: 7, idleTimeout: 60, gpuCount: 2`);
      const res = await fetch(`${base}/v2/serverless/${made.id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${FULL}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "p2" }),
      });
      expect(res.status).toBe(200);
      const listed = (await post(`{ myself { endpoints { id name workersMax idleTimeout gpuCount } } }`, { bearer: FULL }, undefined, base)).body.data.myself
        .endpoints;
      expect(listed).toEqual([{ id: made.id, name: "p2", workersMax: 7, idleTimeout: 60, gpuCount: 2 }]);
    });
  });
});

// Rules of the emulator's GraphQL side, one test each, against the ServerlessService class
// directly with a fake clock: documents, their envelope and validation, and the saves and
// deletes they run. The service's own rules (scopes, discount, workers' view, snapshots) are
// test/unit/emulator/serverless/service.test.ts.
import fc from "fast-check";
import { ENDPOINT_DEFAULTS, GPU_TIERS, LOCATIONS, MAX_WORKERS } from "../../../../../src/emulator/serverless/service";
import { documentFailure, fieldFailure, type GqlResult, setup, STARTING_MS } from "../../../../helpers/serverless-service";

describe("saveEndpoint: create", () => {
  test("a create with the required fields gets a fresh id and the documented defaults", async () => {
    const { create } = setup();
    const ep = await create();
    expect(ep).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{14}$/),
      name: "ep",
      gpuIds: "AMPERE_16",
      templateId: "tpl-1",
      ...ENDPOINT_DEFAULTS,
      pods: [],
    });
    expect(ep.type).toBe("QB");
  });

  test("two creates get two different ids and both are listed in creation order", async () => {
    const { create, list } = setup();
    const a = await create();
    const b = await create();
    expect(a.id).not.toBe(b.id);
    expect((await list()).map((e) => e.id)).toEqual([a.id, b.id]);
  });

  test("every optional field given on create is stored as given", async () => {
    const { create } = setup();
    const ep = await create(
      `type: "LB", idleTimeout: 30, locations: "US", flashBootType: FLASHBOOT, scalerType: "REQUEST_COUNT",
       scalerValue: 2, workersMin: 0, workersMax: 7, networkVolumeId: "vol-1"`,
    );
    expect(ep).toMatchObject({
      type: "LB",
      idleTimeout: 30,
      locations: "US",
      flashBootType: "FLASHBOOT",
      scalerType: "REQUEST_COUNT",
      scalerValue: 2,
      workersMax: 7,
      networkVolumeId: "vol-1",
    });
  });

  test.each(GPU_TIERS)("gpuIds %s is accepted", async (tier) => {
    const { save } = setup();
    const r = await save(`name: "g", gpuIds: "${tier}", templateId: "t"`);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.saveEndpoint.gpuIds).toBe(tier);
  });

  test("a refused create leaves nothing behind and does not use up an id", async () => {
    const { save, list, svc } = setup();
    const r = await save(`name: "x", gpuIds: "H100", templateId: "t"`);
    fieldFailure(r, "saveEndpoint", "BAD_USER_INPUT");
    expect(await list()).toEqual([]);
    expect(svc.snapshot().idCounter).toBe(0);
  });
});

describe("GRAPHQL_VALIDATION_FAILED: the document does not fit the schema", () => {
  test("flashBootType as the enum literal FLASHBOOT is accepted", async () => {
    const { create } = setup();
    expect((await create("flashBootType: FLASHBOOT")).flashBootType).toBe("FLASHBOOT");
  });

  test('flashBootType as the quoted string "FLASHBOOT" fails validation', async () => {
    const { save, list } = setup();
    const r = await save(
      `name: "a", gpuIds: "AMPERE_16", templateId: "t", flashBootType: "FLASHBOOT"`,
    );
    expect(documentFailure(r)).toMatch(/FlashBootType/);
    expect(await list()).toEqual([]);
  });

  test.each(["name", "gpuIds", "templateId"])(
    "a create without the required %s fails validation",
    async (field) => {
      const { save } = setup();
      const given = { name: '"a"', gpuIds: '"AMPERE_16"', templateId: '"t"' } as Record<
        string,
        string
      >;
      delete given[field];
      const input = Object.entries(given)
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ");
      expect(documentFailure(await save(input))).toContain(field);
    },
  );

  test("a modify with id but without name fails validation too (String! on modify alike)", async () => {
    const { create, save } = setup();
    const ep = await create();
    const r = await save(`id: "${ep.id}", gpuIds: "AMPERE_16", templateId: "t"`);
    expect(documentFailure(r)).toContain("name");
  });

  test("a syntax error fails validation", async () => {
    const { gql } = setup();
    documentFailure(await gql("mutation { saveEndpoint(input: { name: "));
  });

  test("an unknown field in the selection set fails validation", async () => {
    const { gql } = setup();
    expect(documentFailure(await gql("{ myself { endpoints { id bogus } } }"))).toContain("bogus");
  });

  test("a wrongly typed literal (workersMin as a string) fails validation", async () => {
    const { save } = setup();
    documentFailure(
      await save(`name: "a", gpuIds: "AMPERE_16", templateId: "t", workersMin: "1"`),
    );
  });

  test("a variable value that does not fit its type fails validation and nothing runs", async () => {
    const { gql, list } = setup();
    const r = await gql(
      "mutation($input: EndpointInput!) { saveEndpoint(input: $input) { id } }",
      { variables: { input: { name: "a", gpuIds: "AMPERE_16" } } },
    );
    expect(documentFailure(r)).toContain("templateId");
    expect(await list()).toEqual([]);
  });
});

describe("BAD_USER_INPUT: a value outside the allowed sets", () => {
  const base = `name: "a", gpuIds: "AMPERE_16", templateId: "t"`;

  test("gpuIds outside the serverless GPU tiers is refused, naming the field and the allowed set", async () => {
    const { save } = setup();
    const msg = fieldFailure(
      await save(`name: "a", gpuIds: "H100", templateId: "t"`),
      "saveEndpoint",
      "BAD_USER_INPUT",
    );
    expect(msg).toContain("input.gpuIds");
    expect(msg).toContain("AMPERE_16");
  });

  test.each(LOCATIONS)("locations %s is accepted", async (loc) => {
    const { save } = setup();
    const r = await save(`${base}, locations: "${loc}"`);
    expect(r.body.data.saveEndpoint.locations).toBe(loc);
  });

  test.each(["US,CZ", "CZ,FR,GB,NO,RO,US", "", null])(
    "locations %p (a comma-separated list, empty or null) is accepted",
    async (loc) => {
      const { save } = setup();
      const r = await save(`${base}, locations: ${JSON.stringify(loc)}`);
      expect(r.body.errors).toBeUndefined();
      // "" means any region, as null does, and reads null ("null when none").
      expect(r.body.data.saveEndpoint.locations).toBe(loc === "" ? null : loc);
    },
  );

  test.each(["DE", "us", "US, CZ", "US,", "US,US", "EU-RO-1"])(
    "locations %p is refused",
    async (loc) => {
      const { save } = setup();
      const msg = fieldFailure(
        await save(`${base}, locations: ${JSON.stringify(loc)}`),
        "saveEndpoint",
        "BAD_USER_INPUT",
      );
      expect(msg).toContain("input.locations");
    },
  );

  test('type other than QB or LB is refused ("qb" included)', async () => {
    const { save } = setup();
    for (const t of ["XX", "qb", ""]) {
      const msg = fieldFailure(await save(`${base}, type: "${t}"`), "saveEndpoint", "BAD_USER_INPUT");
      expect(msg).toContain("input.type");
    }
  });

  test("scalerType other than QUEUE_DELAY or REQUEST_COUNT is refused", async () => {
    const { save } = setup();
    const msg = fieldFailure(
      await save(`${base}, scalerType: "CPU"`),
      "saveEndpoint",
      "BAD_USER_INPUT",
    );
    expect(msg).toContain("input.scalerType");
  });

  test.each(["idleTimeout", "scalerValue", "workersMin", "workersMax"])(
    "a negative %s is refused",
    async (field) => {
      const { save } = setup();
      const msg = fieldFailure(
        await save(`${base}, ${field}: -1`),
        "saveEndpoint",
        "BAD_USER_INPUT",
      );
      // GraphQL's scalerValue is at least 1 (REST's may be 0.5, shown rounded up here).
      expect(msg).toContain(`input.${field} must be >= ${field === "scalerValue" ? 1 : 0}`);
    },
  );

  test("workersMin greater than workersMax is refused", async () => {
    const { save } = setup();
    const msg = fieldFailure(
      await save(`${base}, workersMin: 4, workersMax: 2`),
      "saveEndpoint",
      "BAD_USER_INPUT",
    );
    expect(msg).toContain("workersMin (4) must not exceed workersMax (2)");
  });

  test("on modify, workersMin above the stored workersMax is refused and the endpoint is unchanged", async () => {
    const { create, save, list } = setup();
    const ep = await create("workersMax: 2");
    const r = await save(`id: "${ep.id}", ${base}, workersMin: 3`);
    fieldFailure(r, "saveEndpoint", "BAD_USER_INPUT");
    expect((await list())[0]).toEqual(ep);
  });

  test(`workersMax above the emulator limit of ${MAX_WORKERS} is refused`, async () => {
    const { save } = setup();
    const msg = fieldFailure(
      await save(`${base}, workersMax: ${MAX_WORKERS + 1}`),
      "saveEndpoint",
      "BAD_USER_INPUT",
    );
    expect(msg).toContain("input.workersMax");
  });

  test("an explicit null for a field that has no null value is refused", async () => {
    const { save } = setup();
    const msg = fieldFailure(
      await save(`${base}, workersMin: null, flashBootType: null`),
      "saveEndpoint",
      "BAD_USER_INPUT",
    );
    expect(msg).toContain("input.workersMin must not be null");
    expect(msg).toContain("input.flashBootType must not be null");
  });

  test("empty name and empty templateId are refused", async () => {
    const { save } = setup();
    const msg = fieldFailure(
      await save(`name: "", gpuIds: "AMPERE_16", templateId: ""`),
      "saveEndpoint",
      "BAD_USER_INPUT",
    );
    expect(msg).toContain("input.name must not be empty");
    expect(msg).toContain("input.templateId must not be empty");
  });
});

describe("saveEndpoint: modify", () => {
  test("fields left out keep their current values; given ones change", async () => {
    const { create, save, list } = setup();
    const ep = await create(
      `type: "LB", idleTimeout: 30, locations: "US,CZ", flashBootType: FLASHBOOT, scalerType: "REQUEST_COUNT", scalerValue: 9, workersMax: 5, networkVolumeId: "vol-1"`,
    );
    const r = await save(`id: "${ep.id}", name: "renamed", gpuIds: "ADA_24", templateId: "tpl-1", idleTimeout: 60`);
    expect(r.body.errors).toBeUndefined();
    const want = { ...ep, name: "renamed", gpuIds: "ADA_24", idleTimeout: 60 };
    expect(r.body.data.saveEndpoint).toEqual(want);
    expect(await list()).toEqual([want]);
  });

  test("null clears locations and networkVolumeId on modify", async () => {
    const { create, save } = setup();
    const ep = await create(`locations: "US", networkVolumeId: "vol-1"`);
    const r = await save(
      `id: "${ep.id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", locations: null, networkVolumeId: null`,
    );
    expect(r.body.data.saveEndpoint).toMatchObject({ locations: null, networkVolumeId: null });
  });

  test("NOT_FOUND: a modify of an unknown id creates nothing", async () => {
    const { save, list } = setup();
    const msg = fieldFailure(
      await save(`id: "nope", name: "a", gpuIds: "AMPERE_16", templateId: "t"`),
      "saveEndpoint",
      "NOT_FOUND",
    );
    expect(msg).toContain('"nope"');
    expect(await list()).toEqual([]);
  });
});

describe("gpuCount and executionTimeoutMs: two fields every platform client sends", () => {
  test("given on create they are stored; a modify changes them; a modify leaving them out keeps them", async () => {
    const { create, save, list } = setup();
    const ep = await create("gpuCount: 2, executionTimeoutMs: 600000");
    expect(ep).toMatchObject({ gpuCount: 2, executionTimeoutMs: 600000 });
    const r = await save(`id: "${ep.id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", gpuCount: 4, executionTimeoutMs: 0`);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.saveEndpoint).toMatchObject({ gpuCount: 4, executionTimeoutMs: 0 });
    await save(`id: "${ep.id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", idleTimeout: 9`);
    expect((await list())[0]).toMatchObject({ gpuCount: 4, executionTimeoutMs: 0, idleTimeout: 9 });
  });

  test.each([
    ["gpuCount: 0", "input.gpuCount must be >= 1, got 0"],
    ["gpuCount: -2", "input.gpuCount must be >= 1, got -2"],
    ["gpuCount: null", "input.gpuCount must not be null"],
    ["executionTimeoutMs: -1", "input.executionTimeoutMs must be >= 0, got -1"],
    ["executionTimeoutMs: null", "input.executionTimeoutMs must not be null"],
  ])("%s -> BAD_USER_INPUT naming the field and the rule, nothing created", async (more, rule) => {
    const { save, list } = setup();
    const msg = fieldFailure(await save(`name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", ${more}`), "saveEndpoint", "BAD_USER_INPUT");
    expect(msg).toContain(rule);
    expect(await list()).toEqual([]);
  });

  test("a non-integer gpuCount does not fit the schema", async () => {
    const { save } = setup();
    documentFailure(await save(`name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", gpuCount: "2"`));
  });
});

describe('"" means none for networkVolumeId and locations, and reads null', () => {
  test("on create (as the Python SDK sends when none is wanted)", async () => {
    const { create, list } = setup();
    const ep = await create(`networkVolumeId: "", locations: ""`);
    expect(ep).toMatchObject({ networkVolumeId: null, locations: null });
    expect((await list())[0]).toMatchObject({ networkVolumeId: null, locations: null });
  });

  test("on modify it clears a set value", async () => {
    const { create, save } = setup();
    const ep = await create(`networkVolumeId: "vol-1", locations: "US"`);
    const r = await save(`id: "${ep.id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", networkVolumeId: "", locations: ""`);
    expect(r.body.data.saveEndpoint).toMatchObject({ networkVolumeId: null, locations: null });
  });
});

describe("deleteEndpoint", () => {
  const del = (gql: ReturnType<typeof setup>["gql"], id: string, canWrite = true) =>
    gql(`mutation { deleteEndpoint(id: ${JSON.stringify(id)}) }`, { canWrite });

  test("NOT_FOUND: deleting an unknown id", async () => {
    const { gql } = setup();
    fieldFailure(await del(gql, "nope"), "deleteEndpoint", "NOT_FOUND");
  });

  test("FAILED_PRECONDITION while workersMax is not 0 (the default 3), then null once both are 0", async () => {
    const { gql, create, save, list } = setup();
    const ep = await create();
    const msg = fieldFailure(await del(gql, ep.id), "deleteEndpoint", "FAILED_PRECONDITION");
    expect(msg).toContain("workersMax=3");
    expect(await list()).toHaveLength(1);

    await save(`id: "${ep.id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMax: 0`);
    const ok = await del(gql, ep.id);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ data: { deleteEndpoint: null } });
    expect(ok.ops).toEqual(["deleteEndpoint"]);
    expect(await list()).toEqual([]);
  });

  test("FAILED_PRECONDITION while workersMin is not 0, even with workers running", async () => {
    const { gql, create, save, advance, list } = setup();
    const ep = await create("workersMin: 1, workersMax: 1");
    advance(STARTING_MS);
    fieldFailure(await del(gql, ep.id), "deleteEndpoint", "FAILED_PRECONDITION");
    await save(
      `id: "${ep.id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: 0`,
    );
    expect((await del(gql, ep.id)).body).toEqual({ data: { deleteEndpoint: null } });
    expect(await list()).toEqual([]);
  });
});

describe("the request envelope", () => {
  test.each([
    ["a JSON array", []],
    ["null", null],
    ["a number", 3],
    ["an object without query", { variables: {} }],
    ["a non-string query", { query: 1 }],
    ["non-object variables", { query: "{ myself { endpoints { id } } }", variables: [1] }],
    ["a non-string operationName", { query: "{ myself { endpoints { id } } }", operationName: 2 }],
    ["text that is not JSON", "{not json"],
  ])("%s is HTTP 400 with a GraphQL-shaped error", async (_label, body) => {
    const { svc } = setup();
    const r = (await svc.executeGraphql(body, { canRead: true, canWrite: true })) as GqlResult;
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: "BAD_REQUEST" } }],
    });
    expect(r.ops).toEqual([]);
  });

  test("a body handed over as JSON text is parsed like an object", async () => {
    const { svc } = setup();
    const r = (await svc.executeGraphql(
      Buffer.from(JSON.stringify({ query: "{ myself { endpoints { id } } }" })),
      { canRead: true, canWrite: true },
    )) as GqlResult;
    expect(r).toEqual({ status: 200, body: { data: { myself: { endpoints: [] } } }, ops: ["myself"] });
  });

  test("variables are accepted, an enum in variables is its JSON string", async () => {
    const { gql } = setup();
    const r = await gql(
      "mutation Save($input: EndpointInput!) { saveEndpoint(input: $input) { name flashBootType } }",
      {
        variables: {
          input: { name: "v", gpuIds: "AMPERE_16", templateId: "t", flashBootType: "FLASHBOOT" },
        },
      },
    );
    expect(r.body).toEqual({ data: { saveEndpoint: { name: "v", flashBootType: "FLASHBOOT" } } });
  });

  test("several operations need operationName: without it the document fails, with it that one runs", async () => {
    const { svc } = setup();
    const query = `query A { myself { endpoints { id } } }
      mutation B { saveEndpoint(input: { name: "b", gpuIds: "AMPERE_16", templateId: "t" }) { name } }`;
    documentFailure((await svc.executeGraphql({ query }, { canRead: true, canWrite: true })) as GqlResult);
    documentFailure(
      (await svc.executeGraphql({ query, operationName: "C" }, { canRead: true, canWrite: true })) as GqlResult,
    );
    const r = (await svc.executeGraphql({ query, operationName: "B" }, { canRead: true, canWrite: true })) as GqlResult;
    expect(r).toEqual({ status: 200, body: { data: { saveEndpoint: { name: "b" } } }, ops: ["saveEndpoint"] });
  });

  test("ops names every root field that ran, in order", async () => {
    const { gql } = setup();
    const r = await gql(`mutation {
      a: saveEndpoint(input: { name: "a", gpuIds: "AMPERE_16", templateId: "t" }) { id }
      b: saveEndpoint(input: { name: "b", gpuIds: "AMPERE_16", templateId: "t" }) { id }
      c: deleteEndpoint(id: "missing")
    }`);
    expect(r.ops).toEqual(["saveEndpoint", "saveEndpoint", "deleteEndpoint"]);
    expect(r.body.data.a.id).not.toBe(r.body.data.b.id);
    expect(r.body.data.c).toBeNull();
    expect(r.body.errors.map((e: any) => [e.path, e.extensions.code])).toEqual([
      [["c"], "NOT_FOUND"],
    ]);
  });
});

describe("hostile names round-trip when sent as a properly escaped GraphQL string", () => {
  // JSON string syntax is a subset of GraphQL's, so JSON.stringify escapes a name correctly.
  test.each([
    ['quotes "double" and \'single\''],
    ["braces { } ) ( and a fake } field: 1"],
    ["back\\slash \\n not a newline \\u0041"],
    ["new\nline\tand tab\r\n"],
    ["unicode: ünïcødé — 日本語 🚀 ZWJ 👩‍💻"],
    ["control \u0001\u001f and slash /"],
    ['mutation { deleteEndpoint(id: "x") }'],
  ])("%p", async (name) => {
    const { save, list } = setup();
    const r = await save(`name: ${JSON.stringify(name)}, gpuIds: "AMPERE_16", templateId: "t"`);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.saveEndpoint.name).toBe(name);
    expect((await list())[0].name).toBe(name);
    expect(r.ops).toEqual(["saveEndpoint"]);
  });
});

test("any well-formed Unicode name round-trips (property, 200 cases)", async () => {
  const { save, svc } = setup();
  const loneSurrogate = /[\uD800-\uDFFF]/u;
  await fc.assert(
    fc.asyncProperty(
      fc.string({ unit: "binary", minLength: 1, maxLength: 40 }).filter((n) => !loneSurrogate.test(n)),
      async (name) => {
        const r = await save(`name: ${JSON.stringify(name)}, gpuIds: "AMPERE_16", templateId: "t"`);
        expect(r.body.errors).toBeUndefined();
        expect(r.body.data.saveEndpoint.name).toBe(name);
        const stored = svc.endpoints().find((e) => e.id === r.body.data.saveEndpoint.id);
        expect(stored?.name).toBe(name);
      },
    ),
    { seed: 20261122, numRuns: 200 },
  );
});

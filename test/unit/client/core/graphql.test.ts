import fc from "fast-check";
import { Kind, type ObjectValueNode, type OperationDefinitionNode, parse, type FieldNode } from "graphql";
import {
  ApiError,
  AuthenticationError,
  ConnectionError,
  MissingApiKeyError,
  NotFoundError,
  PlatformError,
  RateLimitError,
  ResponseValidationError,
} from "../../../../src/client/core/errors";
import { buildDocument, EnumLiteral, GraphqlRunner, graphqlError, valueNode } from "../../../../src/client/core/graphql";
import { type HttpRequest, type HttpResponse, Transport } from "../../../../src/client/core/transport";
import { deleteEndpointDocument, myselfDocument, saveEndpointDocument } from "../../../../src/client/endpoints";
import { FakeClock } from "../../../helpers/fake-clock";

/** The `input` object of the first root field of a printed document, read back by graphql-js. */
function inputOf(doc: string): ObjectValueNode {
  const op = parse(doc).definitions[0] as OperationDefinitionNode;
  const field = op.selectionSet.selections[0] as FieldNode;
  return field.arguments![0].value as ObjectValueNode;
}

function stringField(obj: ObjectValueNode, name: string): string {
  const f = obj.fields.find((x) => x.name.value === name)!;
  if (f.value.kind !== Kind.STRING) throw new Error(`${name} is ${f.value.kind}`);
  return f.value.value;
}

const HOSTILE = [
  'quote " inside',
  "brace } and { and ) (",
  "back\\slash and \\n literal",
  "new\nline and \r\n and \t tab",
  '"}) { deleteEndpoint(id: "x") } #',
  '"""block"""',
  "unicode ✓ 名前 \u2028 \u0000 nul",
  "$var @dir ... fragment",
];

describe("saveEndpoint documents: values written in, never spliced", () => {
  test.each(HOSTILE)("name %j round-trips exactly", (name) => {
    const doc = saveEndpointDocument({ name, gpuIds: "AMPERE_16", templateId: name, type: "QB" });
    const input = inputOf(doc);
    expect(stringField(input, "name")).toBe(name);
    expect(stringField(input, "templateId")).toBe(name);
    // One operation, one root field: the hostile text did not add anything.
    const op = parse(doc).definitions;
    expect(op).toHaveLength(1);
    expect((op[0] as OperationDefinitionNode).selectionSet.selections).toHaveLength(1);
  });

  test("any string round-trips (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), (name) => {
        fc.pre(name.length > 0);
        const doc = saveEndpointDocument({ name, gpuIds: "ADA_24", templateId: "t" });
        expect(stringField(inputOf(doc), "name")).toBe(name);
      }),
      { seed: 20261122, numRuns: 300 },
    );
  });

  test("flashBootType goes out as an enum literal, never a quoted string", () => {
    const doc = saveEndpointDocument({ name: "n", gpuIds: "AMPERE_16", templateId: "t", flashBootType: "FLASHBOOT" });
    expect(doc).toContain("flashBootType: FLASHBOOT");
    expect(doc).not.toContain('"FLASHBOOT"');
    const f = inputOf(doc).fields.find((x) => x.name.value === "flashBootType")!;
    expect(f.value.kind).toBe(Kind.ENUM);
  });

  test("numbers stay numbers, null stays null, undefined is left out", () => {
    const doc = saveEndpointDocument({
      id: "ep-1",
      name: "n",
      gpuIds: "AMPERE_16",
      templateId: "t",
      workersMin: 0,
      workersMax: 3,
      networkVolumeId: null,
      idleTimeout: undefined,
    });
    const input = inputOf(doc);
    const kinds = Object.fromEntries(input.fields.map((f) => [f.name.value, f.value.kind]));
    expect(kinds).toEqual({
      id: Kind.STRING,
      name: Kind.STRING,
      gpuIds: Kind.STRING,
      templateId: Kind.STRING,
      workersMin: Kind.INT,
      workersMax: Kind.INT,
      networkVolumeId: Kind.NULL,
    });
  });

  test("documents are anonymous, so the body carries no operationName", () => {
    for (const doc of [saveEndpointDocument({ name: "n", gpuIds: "AMPERE_16", templateId: "t" }), myselfDocument(), deleteEndpointDocument("x")]) {
      expect((parse(doc).definitions[0] as OperationDefinitionNode).name).toBeUndefined();
    }
  });

  test("deleteEndpoint's id is a string value even when hostile", () => {
    const id = 'x") { myself { endpoints { id } } } #';
    const op = parse(deleteEndpointDocument(id)).definitions[0] as OperationDefinitionNode;
    const field = op.selectionSet.selections[0] as FieldNode;
    expect(field.name.value).toBe("deleteEndpoint");
    expect(field.arguments![0].value).toEqual(expect.objectContaining({ kind: Kind.STRING, value: id }));
    expect(field.selectionSet).toBeUndefined();
  });
});

describe("value nodes", () => {
  test("an enum literal must be a GraphQL name", () => {
    expect(() => new EnumLiteral("FLASH BOOT")).toThrow(/not a GraphQL enum value/);
    expect(() => new EnumLiteral("true")).toThrow();
    expect(() => new EnumLiteral('X") {')).toThrow();
  });
  test("non-finite numbers and functions are refused", () => {
    expect(() => valueNode(Number.NaN)).toThrow();
    expect(() => valueNode(() => 1)).toThrow();
  });
  test("lists and nested objects print and parse back", () => {
    const doc = buildDocument("query", [{ name: "f", args: { a: [1, 2.5, "s", true, null], o: { x: { y: "z" } } } }]);
    expect(doc).toContain('f(a: [1, 2.5, "s", true, null], o: {x: {y: "z"}})');
    expect(() => parse(doc)).not.toThrow();
  });
});

describe("documents and values, exactly as printed", () => {
  test("an enum literal is a whole GraphQL name: a name inside other text is refused", () => {
    expect(new EnumLiteral("_Flash_2").value).toBe("_Flash_2");
    for (const bad of ["1A", "A-", "", "false", "null"]) expect(() => new EnumLiteral(bad)).toThrow(`${JSON.stringify(bad)} is not a GraphQL enum value`);
  });

  test("each JS value prints as its GraphQL kind, undefined object fields left out", () => {
    expect(valueNode(new EnumLiteral("QB"))).toEqual({ kind: Kind.ENUM, value: "QB" });
    expect(valueNode(null)).toEqual({ kind: Kind.NULL });
    expect(valueNode("s")).toEqual({ kind: Kind.STRING, value: "s", block: false });
    expect(valueNode(false)).toEqual({ kind: Kind.BOOLEAN, value: false });
    expect(valueNode(3)).toEqual({ kind: Kind.INT, value: "3" });
    expect(valueNode(-0.25)).toEqual({ kind: Kind.FLOAT, value: "-0.25" });
    expect(valueNode([1])).toEqual({ kind: Kind.LIST, values: [{ kind: Kind.INT, value: "1" }] });
    expect(valueNode({ a: 1, b: undefined })).toEqual({
      kind: Kind.OBJECT,
      fields: [{ kind: Kind.OBJECT_FIELD, name: { kind: Kind.NAME, value: "a" }, value: { kind: Kind.INT, value: "1" } }],
    });
  });

  test("what cannot be sent is refused, naming it", () => {
    expect(() => valueNode(Number.POSITIVE_INFINITY)).toThrow("Infinity cannot be sent to GraphQL");
    expect(() => valueNode(undefined)).toThrow("a undefined cannot be sent to GraphQL");
    expect(() => valueNode(1n)).toThrow("a bigint cannot be sent to GraphQL");
  });

  test("a query and a mutation print their operation; undefined arguments and empty selections are left out", () => {
    expect(buildDocument("query", ["a", { name: "b", args: { x: undefined, y: 1 }, select: [] }, { name: "c", select: ["d"] }])).toBe("{\n  a\n  b(y: 1)\n  c {\n    d\n  }\n}");
    expect(buildDocument("mutation", [{ name: "m", args: { id: "x" } }])).toBe('mutation {\n  m(id: "x")\n}');
  });
});

describe("graphqlError: GraphQL errors[] as the error class a caller acts on", () => {
  const URL_ = "http://h/graphql?api_key=[REDACTED]";
  test("the first entry's code picks the class; every entry is in the detail, with its path", () => {
    const err = graphqlError(
      [
        { message: "no such endpoint", path: ["endpoint", 0], extensions: { code: "NOT_FOUND" } },
        { message: 5 },
      ],
      200,
      "POST",
      URL_,
      1500,
    );
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({
      status: 404,
      title: "NOT_FOUND",
      detail: "endpoint.0: no such endpoint; GraphQL error",
      errors: ["endpoint.0: no such endpoint", "GraphQL error"],
      method: "POST",
      code: "NOT_FOUND",
      retryAfterMs: 1500,
    });
  });

  test.each([
    [{ code: "UNAUTHENTICATED" }, 200, 401],
    [{ code: "FORBIDDEN" }, 200, 403],
    [{ code: "BAD_USER_INPUT" }, 200, 400],
    [{ code: "FAILED_PRECONDITION" }, 200, 409],
    [{ code: "SOMETHING_NEW" }, 429, 429],
    [{ code: "SOMETHING_NEW" }, 200, 500],
    [{ code: 7 }, 400, 400],
    [undefined, 399, 500],
  ])("extensions %j with HTTP %i: status %i", (extensions, http, status) => {
    const err = graphqlError([{ message: "m", extensions: extensions as { code?: unknown } }], http, "POST", URL_);
    expect(err.status).toBe(status);
    expect(err.title).toBe(typeof extensions?.code === "string" ? extensions.code : "GraphQL error");
  });

  test("no entry at all is still an error of the HTTP status", () => {
    expect(graphqlError([], 503, "POST", URL_)).toMatchObject({ status: 503, title: "GraphQL error", errors: [] });
  });
});

describe("GraphqlRunner: every answer of the transport leaves as data or a PlatformError", () => {
  const KEY = "cp_key_graphql_0123456789";
  type Answer = Partial<HttpResponse> | Error;

  /** A real transport whose exchanges are answered from `answers` in turn, each request kept. */
  function rig(answers: Answer[], opts: { apiKey?: string; apiUrl?: string } = {}) {
    const clock = new FakeClock();
    const transport = new Transport({
      apiKey: "apiKey" in opts ? opts.apiKey : KEY,
      timeoutMs: 1000,
      maxRetries: 2,
      maxRetryDelayMs: 60_000,
      clock,
      pacing: false,
      logger: undefined,
      random: () => 0.5,
      backoff: { baseDelayMs: 100, maxBackoffMs: 1000 },
    });
    const sent: { req: HttpRequest; attempt: number }[] = [];
    jest.spyOn(transport, "send").mockImplementation(async (req, attempt = 1) => {
      sent.push({ req, attempt });
      const a = answers[Math.min(sent.length - 1, answers.length - 1)];
      if (a instanceof Error) throw a;
      return { status: 200, headers: { "content-type": "application/json" }, body: "", ...a };
    });
    return { runner: new GraphqlRunner(transport, opts.apiUrl ?? "http://127.0.0.1:1/api//"), sent, clock };
  }
  const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
    status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

  test("the document goes as a POST of { query } to /graphql with the key in api_key; data comes back", async () => {
    const { runner, sent } = rig([json(200, { data: { myself: { id: "u" } } })]);
    await expect(runner.run("{ myself { id } }", "idempotent")).resolves.toEqual({ myself: { id: "u" } });
    expect(sent).toHaveLength(1);
    const { req, attempt } = sent[0];
    expect(attempt).toBe(1);
    expect(req).toMatchObject({ method: "POST", auth: "query", setting: "apiUrl", headers: { "content-type": "application/json" } });
    expect(req.url).toBe(`http://127.0.0.1:1/api/graphql?api_key=${KEY}`);
    expect(JSON.parse(req.body!)).toEqual({ query: "{ myself { id } }" });
  });

  test("no key: refused before anything is sent", async () => {
    const { runner, sent } = rig([json(200, { data: {} })], { apiKey: undefined });
    await expect(runner.run("{ a }", "idempotent")).rejects.toBeInstanceOf(MissingApiKeyError);
    expect(sent).toEqual([]);
  });

  test("errors[] in a 200 is the error of its code, the key masked in its messages", async () => {
    const { runner, sent } = rig([json(200, { data: null, errors: [{ message: `bad key ${KEY}`, extensions: { code: "FORBIDDEN" } }] })]);
    const err = await runner.run("{ a }", "idempotent").catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(403);
    expect(err.errors).toEqual(["bad key [REDACTED]"]);
    expect(err.message).not.toContain(KEY);
    expect(err.url).not.toContain(KEY);
    expect(sent).toHaveLength(1);
  });

  test("an entry whose message is no string is kept as it is, under a general message", async () => {
    const { runner } = rig([json(200, { errors: [{ message: { x: 1 } }] })]);
    await expect(runner.run("{ a }", "idempotent")).rejects.toMatchObject({ status: 500, errors: ["GraphQL error"] });
  });

  test("a 200 without data, or whose body is not a GraphQL result, is a ResponseValidationError", async () => {
    for (const body of [{ data: null }, { data: null, errors: [] }]) {
      await expect(rig([json(200, body)]).runner.run("{ a }", "idempotent")).rejects.toMatchObject({ name: "ResponseValidationError", issues: [{ path: "data", message: "is required" }] });
    }
    for (const answer of [{ status: 200, body: "<html>" }, { status: 204, body: "" }, json(200, { data: "text" })]) {
      const err = await rig([answer]).runner.run("{ a }", "idempotent").catch((e) => e);
      expect(err).toBeInstanceOf(ResponseValidationError);
      expect(err.issues).toEqual([{ path: "", message: "is not a GraphQL result" }]);
      expect(err.message).not.toContain(KEY);
    }
  });

  test("an HTTP error with errors[] is the error of its code, with the server's delay; without, the HTTP error", async () => {
    const limited = rig([json(429, { errors: [{ message: "slow down", extensions: { code: "RATE_LIMITED" } }] }, { "retry-after": "7" })]);
    const err = await limited.runner.run("{ a }", "unsafe").catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, title: "RATE_LIMITED", errors: ["slow down"], retryAfterMs: 7000 });
    // Retried after the server's delay, until the budget is spent.
    expect(limited.sent.map((s) => s.attempt)).toEqual([1, 2, 3]);
    expect(limited.clock.sleeps).toEqual([7000, 7000]);

    const empty = rig([json(401, { errors: [] })]);
    await expect(empty.runner.run("{ a }", "idempotent")).rejects.toBeInstanceOf(AuthenticationError);
    const plain = rig([{ status: 502, body: `upstream said ${KEY}` }]);
    const bad = await plain.runner.run("{ a }", "unsafe").catch((e) => e);
    expect(bad).toBeInstanceOf(ApiError);
    expect(bad.status).toBe(502);
    expect(bad.message).not.toContain(KEY);
    expect(plain.sent).toHaveLength(1);
  });

  test("NOT_FOUND on a retry can be the first attempt's success; on the first attempt it is not", async () => {
    const notFound = json(200, { errors: [{ message: "gone", extensions: { code: "NOT_FOUND" } }] });
    const retried = rig([{ status: 500, body: "" }, notFound]);
    await expect(retried.runner.run("mutation { d }", "idempotent", undefined, { notFoundOnRetryIsSuccess: true })).resolves.toEqual({});
    expect(retried.sent).toHaveLength(2);
    await expect(rig([notFound]).runner.run("mutation { d }", "idempotent", undefined, { notFoundOnRetryIsSuccess: true })).rejects.toBeInstanceOf(NotFoundError);
    await expect(rig([{ status: 500, body: "" }, notFound]).runner.run("mutation { d }", "idempotent")).rejects.toBeInstanceOf(NotFoundError);
  });

  test("a PlatformError of the exchange passes as it is; any other failure is a PlatformError without the key", async () => {
    const cut = new ConnectionError("refused", { method: "POST", url: "http://h/graphql", code: "ECONNREFUSED", requestSent: false });
    await expect(rig([cut, cut, cut]).runner.run("{ a }", "unsafe")).rejects.toBe(cut);
    const odd = rig([new TypeError(`boom near ${KEY}`)]);
    const err = await odd.runner.run("{ a }", "idempotent").catch((e) => e);
    expect(err.constructor).toBe(PlatformError);
    expect(err.message).toBe("GraphQL request failed: boom near [REDACTED]");
    expect(String(err.cause)).not.toContain(KEY);
    expect(odd.sent).toHaveLength(1);
  });

  test("a call whose signal was aborted before any answer ends with the signal's reason", async () => {
    const ac = new AbortController();
    const reason = new Error("cancelled");
    ac.abort(reason);
    const { runner } = rig([new TypeError("fetch aborted")]);
    await expect(runner.run("{ a }", "idempotent", ac.signal)).rejects.toBe(reason);
  });
});

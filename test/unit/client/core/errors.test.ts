import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  briefJson,
  clip,
  ERROR_TEXT_LIMITS,
  errorEntries,
  ConflictError,
  humanizeValidationError,
  InternalServerError,
  makeApiError,
  ModelJobFailedError,
  ModelJobInProgressError,
  NotFoundError,
  PermissionDeniedError,
  PlatformError,
  problemFields,
  RateLimitError,
  UnprocessableEntityError,
} from "../../../../src/client/core/errors";
import { graphqlError } from "../../../../src/client/core/graphql";

const URL_ = "http://127.0.0.1:1/v2/pods";

function make(status: number, body: Record<string, unknown>, retryAfterMs?: number): ApiError {
  return makeApiError({ status, ...problemFields(status, JSON.stringify(body)), method: "POST", url: URL_, retryAfterMs });
}

describe("one factory, one class per status a caller acts on", () => {
  test.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [503, InternalServerError],
    [504, InternalServerError],
  ])("%d -> %p", (status, Cls) => {
    const err = make(status, { title: "T", status, detail: "the detail" });
    expect(err).toBeInstanceOf(Cls);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err.name).toBe((Cls as { name: string }).name);
    expect(err.status).toBe(status);
    expect(err.title).toBe("T");
    expect(err.detail).toBe("the detail");
    expect(err.method).toBe("POST");
    expect(err.url).toBe(URL_);
    expect(err.message).toContain(`${status} from POST /v2/pods`);
  });

  test("a status with no class of its own is a plain ApiError", () => {
    const err = make(418, { title: "teapot", status: 418, detail: "short and stout" });
    expect(err.constructor).toBe(ApiError);
    expect(err.message).toContain("short and stout");
  });

  test("422 says what to change and keeps the raw errors", () => {
    const raw = ["$.mounts.network[0]: missing property 'path'", "$: additional properties 'bogus' not allowed"];
    const err = make(422, { title: "Unprocessable Entity", status: 422, detail: "validation failed", errors: raw });
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    expect(err.message).toMatch(/^mounts\.network\[0\]\.path is required; bogus is not an allowed property \[422/);
    expect(err.errors).toEqual(raw);
  });

  test("400 leads with the rule the detail names", () => {
    const err = make(400, { title: "Bad Request", status: 400, detail: "mounts.persistent and mounts.network are both set" });
    expect(err.message).toMatch(/^mounts\.persistent and mounts\.network are both set/);
  });

  test("401 says where the key comes from; 403 says the key lacks permission", () => {
    expect(make(401, { title: "Unauthorized", status: 401, detail: "invalid token" }).message).toMatch(
      /COMPUTEPLATFORM_API_KEY.*computeplatform:apiKey/,
    );
    expect(make(403, { title: "Forbidden", status: 403, detail: "read-only key" }).message).toMatch(/not allowed/);
  });

  test("429 names the window and carries the server's delay", () => {
    const err = make(429, { title: "Too Many Requests", status: 429, detail: "rate limit exceeded for the hour window" }, 12_000);
    expect(err.message).toMatch(/hour window.*retry after 12 s/);
    expect(err.retryAfterMs).toBe(12_000);
  });

  test("a body that is not problem+json still yields the status class", () => {
    const err = makeApiError({ status: 502, ...problemFields(502, "<html>bad gateway</html>"), method: "GET", url: URL_ });
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err.title).toBe("HTTP 502");
    expect(err.detail).toContain("bad gateway");
  });
});

describe("humanizeValidationError", () => {
  test.each([
    ["$.mounts.network[0]: missing property 'path'", "mounts.network[0].path is required"],
    ["$: missing property 'name'", "name is required"],
    ["$.gpu: missing properties 'id', 'count'", "gpu.id is required; gpu.count is required"],
    ["$: additional properties 'bogus' not allowed", "bogus is not an allowed property"],
    ["$.cpu: additional properties 'memory', 'x' not allowed", "cpu.memory is not an allowed property; cpu.x is not an allowed property"],
    ["$.disk: must be >= 1", "disk: must be >= 1"],
    ["something else entirely", "something else entirely"],
    // The edges of the shape, read in one pass now as the pattern it replaced read them.
    ["$ : root is wrong", "root is wrong"],
    ["$.a.b : must be a string", "a.b : must be a string"],
    ["$[0]: must be an object", "[0]: must be an object"],
    ["$x: not a path", "$x: not a path"],
    ["$.a has no colon", "$.a has no colon"],
    ["  $.env[0]:   missing property 'key'  ", "env[0].key is required"],
  ])("%s", (raw, expected) => {
    expect(humanizeValidationError(raw)).toBe(expected);
  });
});

describe("GraphQL errors[] map into the same classes", () => {
  test.each([
    ["UNAUTHENTICATED", AuthenticationError, 401],
    ["FORBIDDEN", PermissionDeniedError, 403],
    ["BAD_USER_INPUT", BadRequestError, 400],
    ["GRAPHQL_VALIDATION_FAILED", BadRequestError, 400],
    ["NOT_FOUND", NotFoundError, 404],
    ["FAILED_PRECONDITION", ConflictError, 409],
  ])("%s -> %p", (code, Cls, status) => {
    const err = graphqlError([{ message: "nope", path: ["deleteEndpoint"], extensions: { code } }], 200, "POST", URL_);
    expect(err).toBeInstanceOf(Cls);
    expect(err.status).toBe(status);
    expect(err.code).toBe(code);
    expect(err.errors).toEqual(["deleteEndpoint: nope"]);
    expect(err.message).toContain("deleteEndpoint: nope");
  });

  test("an unknown code on an HTTP error keeps the HTTP status; on 200 it is a server failure", () => {
    expect(graphqlError([{ message: "x", extensions: { code: "WHAT" } }], 503, "POST", URL_)).toBeInstanceOf(InternalServerError);
    expect(graphqlError([{ message: "x" }], 200, "POST", URL_).status).toBe(500);
  });
});

describe("the humanizer reads an entry once", () => {
  test("a 60 KB entry that the old pattern backtracked over is read in one pass", () => {
    // Counting work rather than timing it: the entry is read through indexOf and slices only, so
    // its text comes back whole (no colon: not a path), however long.
    const raw = `$.${" ".repeat(60_000)}x`;
    expect(humanizeValidationError(raw)).toBe(raw);
  });
});

describe("briefJson and errorEntries bound what a server wrote", () => {
  test("deep values stop at the depth bound", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 50; i++) deep = [deep];
    expect(briefJson(deep)).toBe(`${"[".repeat(ERROR_TEXT_LIMITS.depth)}[…]${"]".repeat(ERROR_TEXT_LIMITS.depth)}`);
  });

  test("wide values stop near the size bound and say so", () => {
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    const text = briefJson(wide);
    expect(text.startsWith('{"k0":0,"k1":1,')).toBe(true);
    expect(text.endsWith(",…}")).toBe(true);
    expect(text.length).toBeLessThanOrEqual(ERROR_TEXT_LIMITS.entry + 20);
  });

  test("a long string value is cut to what is left of the bound", () => {
    const text = briefJson({ a: "x".repeat(10_000) });
    expect(text).toMatch(/^\{"a":"x+… \(\d+ more characters\)\}$/);
    expect(text.length).toBeLessThanOrEqual(ERROR_TEXT_LIMITS.entry + 40);
  });

  test("entries past the count bound are counted, each kept one cut", () => {
    const entries = errorEntries([...Array.from({ length: 25 }, () => "e".repeat(1_000)), { a: 1 }]);
    expect(entries).toHaveLength(ERROR_TEXT_LIMITS.entries + 1);
    expect(entries[0]).toBe(clip("e".repeat(1_000), ERROR_TEXT_LIMITS.entry));
    expect(entries.at(-1)).toBe("(and 6 more)");
    expect(errorEntries([{ a: [1, "b"] }, "plain"])).toEqual(['{"a":[1,"b"]}', "plain"]);
  });

  test("clip keeps short text as it is and says how much it cut", () => {
    expect(clip("abc", 3)).toBe("abc");
    expect(clip("abcdef", 3)).toBe("abc… (3 more characters)");
  });
});

describe("the message says what failed, and only what applies", () => {
  test("a body with neither detail nor title reads 'request failed', with where", () => {
    const err = makeApiError({ status: 500, title: "", detail: "", errors: [], method: "POST", url: URL_ });
    expect(err.message).toBe("request failed [500 from POST /v2/pods]");
  });

  test("a server's errors list is the message of a 400 or 422 only; another status keeps its detail", () => {
    expect(make(500, { detail: "the detail", errors: ["$.name: bad"] }).message).toBe("the detail [500 from POST /v2/pods]");
    expect(make(409, { detail: "the detail", errors: ["$.name: bad"] }).message).toBe("the detail [409 from POST /v2/pods]");
  });

  test("the retry hint belongs to a 429 that said when", () => {
    expect(make(429, { detail: "slow down" }).message).toBe("slow down [429 from POST /v2/pods]");
    expect(make(503, { detail: "busy" }, 2_000).message).toBe("busy [503 from POST /v2/pods]");
  });

  test("a hosted model's job past the call's deadline says it runs on and how to read it; its status by default IN_PROGRESS", () => {
    const err = new ModelJobInProgressError("m1", "job-1", 30_000);
    expect(err).toMatchObject({ modelId: "m1", jobId: "job-1", waitMs: 30_000, jobStatus: "IN_PROGRESS" });
    expect(err.message).toBe(
      "hosted model m1: job job-1 still IN_PROGRESS after 30000 ms, the call's deadline; it was not submitted again " +
        '(each submission is a paid job) and runs on. Read it with models.status("m1", "job-1"), or give runSync a longer deadlineMs next time',
    );
  });

  test("a hosted model's job that ended without a result names its status, FAILED by default, and the error", () => {
    const err = new ModelJobFailedError("m1", "job-1", "out of memory");
    expect(err).toMatchObject({ modelId: "m1", jobId: "job-1", jobError: "out of memory", jobStatus: "FAILED" });
    expect(err.message).toBe("hosted model m1: job job-1 FAILED: out of memory");
  });
});

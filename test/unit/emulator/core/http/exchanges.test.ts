// The `recordExchanges` option (docs/emulator.md, "Options"): the last N
// requests with their bodies and answers, never a key and never registry credentials. Which
// route a request reached decides whether its query is kept; the HTTP side of that decision is
// test/integration/emulator/core/http/pipeline.test.ts.
import { ExchangeRecorder, REDACTED } from "../../../../../src/emulator/core/http/exchanges";
import type { RequestLogEntry } from "../../../../../src/emulator/core/request-log";

const entry = (op: string, over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  at: "2026-01-01T00:00:00.000Z",
  method: "POST",
  path: "/v2/registries",
  status: 201,
  key: "key_12345678",
  op,
  dropped: false,
  ...over,
});

test("off (capacity 0) it keeps nothing", () => {
  const r = new ExchangeRecorder(0);
  r.record(entry("createRegistry"), "", { name: "a" }, { status: 201, body: {} }, "rest");
  expect(r.all()).toEqual([]);
});

test("an exchange holds the request and its answer; registry credentials are replaced wherever they appear", () => {
  const r = new ExchangeRecorder(5);
  const body = { name: "r", username: "me", password: "s3cret", nested: [{ password: "x" }], count: 2, password2: "kept" };
  r.record(entry("createRegistry"), "", body, { status: 201, body: { id: "r1", name: "r" } }, "rest");
  expect(r.all()).toEqual([
    {
      method: "POST",
      path: "/v2/registries",
      query: "",
      op: "createRegistry",
      status: 201,
      contentType: "application/json",
      requestBody: { name: "r", username: REDACTED, password: REDACTED, nested: [{ password: REDACTED }], count: 2, password2: "kept" },
      responseBody: { id: "r1", name: "r" },
      dropped: false,
    },
  ]);
  expect(body.password).toBe("s3cret");
});

test("the query of a REST or hosted-model call is kept with any api_key value replaced; GraphQL's and an unrouted one's never", () => {
  const r = new ExchangeRecorder(5);
  const reply = { status: 200, body: {} };
  r.record(entry("getBilling", { method: "GET" }), "?bucketSize=day", undefined, reply, "rest");
  r.record(entry("getBilling", { method: "GET" }), "?API_KEY=k1&bucketSize=day&api_key=k2", undefined, reply, "rest");
  r.record(entry("runsync"), "?api_key=k3", undefined, reply, "runsync");
  r.record(entry("myself"), "?api_key=k4", undefined, reply, "graphql");
  r.record(entry("unrouted", { status: 404 }), "?api_key=k5", undefined, { status: 404 }, undefined);
  const queries = r.all().map((e) => e.query);
  expect(queries).toEqual(["?bucketSize=day", `?API_KEY=${encodeURIComponent(REDACTED)}&bucketSize=day&api_key=${encodeURIComponent(REDACTED)}`, `?api_key=${encodeURIComponent(REDACTED)}`, "", ""]);
  expect(JSON.stringify(r.all())).not.toMatch(/k[1-5]/);
});

test("no body for a 204 or raw bytes; a problem's own content type; raw keeps its type", () => {
  const r = new ExchangeRecorder(5);
  r.record(entry("deletePod", { method: "DELETE" }), "", undefined, { status: 204, body: { x: 1 } }, "rest");
  r.record(entry("image", { method: "GET" }), "", undefined, { status: 200, raw: { data: Buffer.from("png"), contentType: "image/png" } }, "runsync");
  r.record(entry("getPod", { method: "GET" }), "", undefined, { status: 404, body: { title: "Not Found" }, headers: { "content-type": "application/problem+json" } }, "rest");
  expect(r.all().map((e) => [e.contentType, e.responseBody])).toEqual([
    [undefined, undefined],
    ["image/png", undefined],
    ["application/problem+json", { title: "Not Found" }],
  ]);
});

test("the recorder keeps the last N, oldest first, as copies", () => {
  const r = new ExchangeRecorder(2);
  const answer = { status: 200, body: { n: 0 } };
  for (const op of ["a", "b", "c"]) r.record(entry(op), "", undefined, answer, "rest");
  answer.body.n = 9;
  expect(r.all().map((e) => [e.op, e.responseBody])).toEqual([
    ["b", { n: 0 }],
    ["c", { n: 0 }],
  ]);
  r.all()[0].op = "changed";
  expect(r.all()[0].op).toBe("b");
});

test("a body nested past what a copy can take is kept as a note, not a failure", () => {
  let deep: unknown = {};
  for (let i = 0; i < 100_000; i++) deep = { d: deep };
  const r = new ExchangeRecorder(1);
  r.record(entry("createPod"), "", deep, { status: 400, body: { title: "Bad Request" } }, "rest");
  expect(r.all()[0].requestBody).toBe("(not recorded: nested too deep to copy)");
});

// A job's body driven directly (docs/emulator.md, "Jobs on the account's own endpoints", Body): each
// rule at its boundary, each failure named with its `$`-path; the input's depth and size limits;
// which webhooks the emulator calls (loopback only); and runsync's `wait`. The HTTP tests
// (test/integration/emulator/serverless/jobs/calls.test.ts) hold a refusal per rule on the wire; these
// hold the exact edges (5000 and 604800000 ms, 10000 ms, 64 levels, 256 KiB, 1000..300000).
import { checkEnvelope, checkInputShape, INPUT_LIMITS, isLoopback, parseWait, POLICY_LIMITS } from "../../../../../src/emulator/serverless/jobs/envelope";

function check(body: Record<string, unknown>) {
  const errors: string[] = [];
  const envelope = checkEnvelope(body, errors);
  return { envelope, errors };
}

test("the smallest body: an input object, policy empty, no webhook", () => {
  expect(check({ input: {} })).toEqual({ envelope: { input: {}, policy: {} }, errors: [] });
});

test("executionTimeout from 5000 to 604800000 ms, integers only", () => {
  expect(POLICY_LIMITS.executionTimeout).toEqual({ min: 5000, max: 604_800_000 });
  for (const ok of [5000, 604_800_000]) expect(check({ input: {}, policy: { executionTimeout: ok } })).toEqual({ envelope: { input: {}, policy: { executionTimeout: ok } }, errors: [] });
  for (const bad of [4999, 604_800_001]) {
    expect(check({ input: {}, policy: { executionTimeout: bad } }).errors).toEqual([`$.policy.executionTimeout: must be between 5000 and 604800000 ms, got ${bad}`]);
  }
  expect(check({ input: {}, policy: { executionTimeout: 5000.5 } }).errors).toEqual(["$.policy.executionTimeout: must be an integer (ms)"]);
  expect(check({ input: {}, policy: { executionTimeout: "6000" } }).errors).toEqual(["$.policy.executionTimeout: must be an integer (ms)"]);
});

test("ttl at least 10000 ms, no maximum; its default is a day", () => {
  expect(POLICY_LIMITS.ttl).toEqual({ min: 10_000, default: 86_400_000 });
  expect(check({ input: {}, policy: { ttl: 10_000 } }).envelope?.policy).toEqual({ ttl: 10_000 });
  expect(check({ input: {}, policy: { ttl: Number.MAX_SAFE_INTEGER } }).envelope?.policy).toEqual({ ttl: Number.MAX_SAFE_INTEGER });
  expect(check({ input: {}, policy: { ttl: 9_999 } }).errors).toEqual(["$.policy.ttl: must be at least 10000 ms, got 9999"]);
});

test("lowPriority a boolean; a bad policy value is left out of the policy, the good ones kept", () => {
  expect(check({ input: {}, policy: { lowPriority: false } }).envelope?.policy).toEqual({ lowPriority: false });
  const { envelope, errors } = check({ input: {}, policy: { lowPriority: "yes", ttl: 20_000, executionTimeout: 1 } });
  expect(errors).toEqual(["$.policy.executionTimeout: must be between 5000 and 604800000 ms, got 1", "$.policy.lowPriority: must be a boolean"]);
  expect(envelope?.policy).toEqual({ ttl: 20_000 });
});

test("every failure is listed, each with its path", () => {
  const { envelope, errors } = check({ input: [], webhook: 7, s3Config: "x", policy: { when: 1 }, extra: 1 });
  expect(envelope).toBeUndefined();
  expect(errors).toEqual([
    "$: additional properties 'extra' not allowed",
    "$.input: must be an object",
    "$.webhook: must be a string",
    "$.s3Config: must be an object",
    "$.policy: additional properties 'when' not allowed",
  ]);
  expect(check({}).errors).toEqual(["$: missing property 'input'"]);
  expect(check({ input: null }).errors).toEqual(["$.input: must be an object"]);
  expect(check({ input: {}, policy: [] }).errors).toEqual(["$.policy: must be an object"]);
});

test("a webhook is an http(s) URL; s3Config an object, accepted and not kept", () => {
  expect(check({ input: {}, webhook: "https://example.com/h", s3Config: {} })).toEqual({ envelope: { input: {}, webhook: "https://example.com/h", policy: {} }, errors: [] });
  expect(check({ input: {}, webhook: "http://127.0.0.1:9/h" })).toEqual({ envelope: { input: {}, webhook: "http://127.0.0.1:9/h", policy: {} }, errors: [] });
  // A webhook that is not a string is refused and not kept.
  expect(check({ input: {}, webhook: 5 })).toStrictEqual({ envelope: { input: {}, policy: {} }, errors: ["$.webhook: must be a string"] });
  for (const bad of ["ftp://example.com/h", "not a url", "file:///etc/passwd", "xhttp://example.com/h"]) expect(check({ input: {}, webhook: bad }).errors).toEqual(["$.webhook: must be an http(s) URL"]);
});

test("the input nests at most 64 levels (the object itself is level 1), counted without recursion", () => {
  const nested = (levels: number) => {
    let v: Record<string, unknown> = {};
    for (let i = 1; i < levels; i++) v = { a: v };
    return v;
  };
  expect(INPUT_LIMITS.depth).toBe(64);
  expect(check({ input: nested(64) }).errors).toEqual([]);
  expect(check({ input: nested(65) }).errors).toEqual(["$.input: must nest at most 64 levels deep"]);
  // Far deeper than any stack would take: refused, not a crash.
  expect(check({ input: nested(200_000) }).errors).toEqual(["$.input: must nest at most 64 levels deep"]);
  // Arrays nest too; a limit of its own for another caller.
  const errors: string[] = [];
  checkInputShape({ a: [[1]] }, "$.body", errors, 2);
  expect(errors).toEqual(["$.body: must nest at most 2 levels deep"]);
  // Numbers, strings and nulls inside are no level of their own, however many.
  const fine: string[] = [];
  checkInputShape({ a: [1, "s", null], b: { c: 1 }, d: null }, "$.body", fine, 2);
  expect(fine).toEqual([]);
  // A deep branch beside shallow ones is found, whichever key it is under.
  const deep: string[] = [];
  checkInputShape({ a: 1, b: { c: { d: {} } }, e: {} }, "$.body", deep, 3);
  expect(deep).toEqual(["$.body: must nest at most 3 levels deep"]);
});

test("the input takes at most 256 KiB as JSON, counted in bytes", () => {
  expect(INPUT_LIMITS.bytes).toBe(262_144);
  const sized = (bytes: number) => ({ s: "x".repeat(bytes - '{"s":""}'.length) });
  expect(check({ input: sized(262_144) }).errors).toEqual([]);
  expect(check({ input: sized(262_145) }).errors).toEqual(["$.input: must take at most 262144 bytes as JSON, got 262145"]);
  // Bytes, not characters: é is two.
  const wide = { s: "é".repeat(131_069) };
  expect(check({ input: wide }).errors).toEqual(["$.input: must take at most 262144 bytes as JSON, got 262146"]);
});

test("the emulator calls loopback webhooks only", () => {
  for (const url of ["http://localhost:1/h", "http://127.0.0.1/h", "http://127.255.0.9:80/h", "http://127.0.10.10/h", "http://[::1]:9/h"]) expect(isLoopback(url)).toBe(true);
  for (const url of ["http://128.0.0.1/h", "http://localhost.example.com/h", "http://127.0.0.1.example.com/h", "http://10.0.0.1/h", "http://[::2]/h"]) expect(isLoopback(url)).toBe(false);
});

test("runsync's wait: 90000 ms when absent, from 1000 to 300000, digits only", () => {
  expect(parseWait(null)).toEqual({ ok: true, value: 90_000 });
  expect(parseWait("1000")).toEqual({ ok: true, value: 1000 });
  expect(parseWait("300000")).toEqual({ ok: true, value: 300_000 });
  for (const bad of ["999", "300001", "", "1e3", "-1000", "1000.0", " 1000", "99999999"]) {
    expect(parseWait(bad)).toEqual({
      ok: false,
      problem: { title: "Bad Request", status: 400, detail: `wait must be an integer from 1000 to 300000 (ms), got ${JSON.stringify(bad)}` },
    });
  }
});

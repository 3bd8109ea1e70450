// What a job is and the refusals the job routes share (docs/emulator.md, "Jobs on the account's
// own endpoints" and "Limits"): problem+json with the status's title; a refusal for lack of room
// (a full queue 429, too many held calls 503) with Retry-After 1; the limits' defaults.
import {
  BUSY_RETRY_AFTER_S,
  busy,
  DEFAULT_JOB_LIMITS,
  FINAL,
  JOB_RETENTION_MS,
  refuse,
} from "../../../../../src/emulator/serverless/jobs/job";

test.each([
  [400, "Bad Request"],
  [404, "Not Found"],
  [409, "Conflict"],
  [422, "Unprocessable Entity"],
  [429, "Too Many Requests"],
  [500, "Internal Server Error"],
  [503, "Service Unavailable"],
  [504, "Gateway Timeout"],
  [418, "Error"],
])("a refusal of %d is problem+json titled %s", (status, title) => {
  expect(refuse(status, "why")).toEqual({ status, body: { title, status, detail: "why" }, headers: { "content-type": "application/problem+json" } });
});

test("a refusal lists its errors when it has them", () => {
  expect(refuse(422, "bad", ["$.input: required"]).body).toEqual({ title: "Unprocessable Entity", status: 422, detail: "bad", errors: ["$.input: required"] });
});

test("a refusal for lack of room says when to try again: Retry-After 1 s", () => {
  expect(BUSY_RETRY_AFTER_S).toBe(1);
  expect(busy(429, "the queue is full")).toEqual({
    status: 429,
    body: { title: "Too Many Requests", status: 429, detail: "the queue is full" },
    headers: { "content-type": "application/problem+json", "retry-after": "1" },
  });
  expect(busy(503, "too many held calls").headers).toEqual({ "content-type": "application/problem+json", "retry-after": "1" });
});

test("each call's headers are its own", () => {
  const a = busy(429, "a");
  a.headers!["retry-after"] = "9";
  expect(busy(429, "b").headers!["retry-after"]).toBe("1");
  expect(refuse(404, "c").headers).toEqual({ "content-type": "application/problem+json" });
});

test("the final statuses, the limits' defaults and how long a finished job stays readable (at least 10 minutes)", () => {
  expect(FINAL).toEqual(["COMPLETED", "FAILED", "CANCELLED", "TIMED_OUT"]);
  expect(DEFAULT_JOB_LIMITS).toEqual({ queuedJobs: 5000, queuedBytes: 64 * 1024 * 1024, heldCalls: 2000 });
  expect(JOB_RETENTION_MS).toBeGreaterThanOrEqual(10 * 60_000);
});

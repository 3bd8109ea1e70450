// The test worker's protocol (docs/emulator.md, "Jobs on the account's own endpoints"): the output
// is the input unchanged unless it asks otherwise; sleep_ms holds the job (at most 7 days),
// fail ends it FAILED, stream yields each item then the list; an OpenAI-compatible call echoes
// the last user message or the prompt.
import { echoCompletion, MAX_SLEEP_MS, planTestJob } from "../../../../../src/emulator/serverless/jobs/test-worker";

test("the output is the input, unchanged, at once", () => {
  const input = { a: 1, nested: { b: [2] } };
  expect(planTestJob(input)).toEqual({ durationMs: 0, outcome: { output: input }, chunks: [] });
});

test("sleep_ms holds the job that long and stays in the output", () => {
  expect(planTestJob({ sleep_ms: 250, x: 1 })).toEqual({ durationMs: 250, outcome: { output: { sleep_ms: 250, x: 1 } }, chunks: [] });
});

test.each([[-5], [0], [Number.NaN], ["100"], [null]])("a sleep_ms of %p takes no time", (sleep) => {
  expect(planTestJob({ sleep_ms: sleep }).durationMs).toBe(0);
});

test("a sleep_ms past 7 days is held 7 days, the longest execution timeout", () => {
  expect(MAX_SLEEP_MS).toBe(7 * 24 * 3_600_000);
  expect(planTestJob({ sleep_ms: 1e12 }).durationMs).toBe(MAX_SLEEP_MS);
  expect(planTestJob({ sleep_ms: Number.POSITIVE_INFINITY }).durationMs).toBe(0);
});

test("fail ends the job with that error, after its sleep", () => {
  expect(planTestJob({ fail: "boom", sleep_ms: 10 })).toEqual({ durationMs: 10, outcome: { error: "boom" }, chunks: [] });
  expect(planTestJob({ fail: 42 }).outcome).toEqual({ output: { fail: 42 } });
});

test("stream yields each item as a chunk, then the list is the output; fail wins over stream", () => {
  expect(planTestJob({ stream: ["a", { b: 1 }] })).toEqual({ durationMs: 0, outcome: { output: ["a", { b: 1 }] }, chunks: ["a", { b: 1 }] });
  expect(planTestJob({ stream: ["a"], fail: "x" }).outcome).toEqual({ error: "x" });
});

test("an OpenAI-compatible call is answered with its echo, whatever else the input holds", () => {
  const plan = planTestJob({ openai_route: "/v1/chat/completions", openai_input: { messages: [{ role: "user", content: "hi" }] }, fail: "ignored" });
  expect(plan).toEqual({ durationMs: 0, outcome: { output: "hi" }, chunks: [] });
});

test.each([
  [{ messages: [{ role: "user", content: "first" }, { role: "assistant", content: "no" }, { role: "user", content: "last" }] }, "last"],
  [{ messages: [{ role: "user", content: [{ type: "text", text: "a" }, { type: "image_url" }, { type: "text", text: "b" }] }] }, "ab"],
  [{ messages: [{ role: "system", content: "s" }] }, ""],
  [{ messages: [{ role: "user", content: 5 }] }, ""],
  [{ prompt: "say this" }, "say this"],
  [{ prompt: ["one", 2, "two"] }, "one\ntwo"],
  [{}, ""],
  [null, ""],
  ["text", ""],
])("echoCompletion(%j) is %j", (body, text) => {
  expect(echoCompletion(body)).toBe(text);
});

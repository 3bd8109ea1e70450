// When the endpoint's smoke test runs again (smoke-plan.ts): only when what it tests changed
// (the endpoint, what its workers run, the job's input, a trigger), each change with its reason;
// how it runs (its waits) sends no paid job. A value's key order is no change.
import { SMOKE_SUBJECT, smokeReasons } from "../../../../src/resources/serverless-endpoint/smoke-plan";

const olds = { endpointId: "ep-1", workers: "d1", input: { prompt: "hi", n: 1 }, triggers: ["a"], timeoutSeconds: 60 };

describe("smokeReasons", () => {
  it("a first run has its own reason", () => {
    expect(smokeReasons(undefined, olds)).toEqual(["first run"]);
  });

  it("nothing it tests changed: no run, whatever else did", () => {
    expect(smokeReasons(olds, { ...olds, timeoutSeconds: 300, pollIntervalMs: 5 })).toEqual([]);
    expect(smokeReasons(olds, { ...olds, input: { n: 1, prompt: "hi" } })).toEqual([]);
  });

  it.each([
    ["endpointId", "ep-2", "the endpoint changed"],
    ["workers", "d2", "what its workers run changed (a new release)"],
    ["input", { prompt: "bye", n: 1 }, "the job's input changed"],
    ["triggers", ["b"], "a trigger changed"],
  ])("a change of %s runs it again", (key, value, says) => {
    expect(smokeReasons(olds, { ...olds, [key]: value })).toEqual([says]);
  });

  it("every change is named, in the subject's order", () => {
    expect(smokeReasons(olds, { endpointId: "ep-2", workers: "d1", input: {}, triggers: ["a", "b"] })).toEqual([
      "the endpoint changed",
      "the job's input changed",
      "a trigger changed",
    ]);
    expect(SMOKE_SUBJECT.map((s) => s.key)).toEqual(["endpointId", "workers", "input", "triggers"]);
  });

  it("a value set or removed is a change; absent and null are the same", () => {
    expect(smokeReasons({ ...olds, triggers: undefined }, olds)).toEqual(["a trigger changed"]);
    expect(smokeReasons(olds, { ...olds, triggers: undefined })).toEqual(["a trigger changed"]);
    expect(smokeReasons({ ...olds, input: null }, { ...olds, input: undefined })).toEqual([]);
  });
});

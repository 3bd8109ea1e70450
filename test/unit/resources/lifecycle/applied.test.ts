import { canonical, recordAfterStep, recordKey } from "../../../../src/resources/lifecycle/applied";

describe("the record after a step", () => {
  const previous = { keys: ["env", "image"], envKeys: ["HF_TOKEN", "MODEL"], globalNetworking: false };
  const attempted = { keys: ["env", "image"], envKeys: ["MODEL"], globalNetworking: true };

  test.each([
    ["a step the platform took whole records what it applied", "all", attempted],
    ["a step the platform refused leaves the record as it was", "none", previous],
    ["a step taken in part records only the part confirmed", ["envKeys"], { ...previous, envKeys: ["MODEL"] }],
  ] as const)("%s", (_what, confirmed, expected) => {
    expect(recordAfterStep(previous, attempted, confirmed as any)).toEqual(expected);
  });

  test("without a previous record (state of an earlier release) nothing unconfirmed is invented", () => {
    expect(recordAfterStep(undefined, attempted, "none")).toBeUndefined();
    expect(recordAfterStep<Record<string, unknown>>(undefined, attempted, ["envKeys"])).toEqual({ envKeys: ["MODEL"] });
  });

  test("a key compares a value without keeping it: the same for the same value, whatever the key order", () => {
    expect(recordKey(["A", "B"])).toBe(recordKey(["A", "B"]));
    expect(recordKey(["A", "B"])).not.toBe(recordKey(["B", "A"]));
    expect(recordKey({ a: 1, b: 2 })).toBe(recordKey({ b: 2, a: 1 }));
    expect(recordKey(7.25)).not.toContain("7.25");
  });
});

test("a confirmed field the step cleared is gone from the record, not kept from before", () => {
  const previous = { keys: ["env"], envKeys: ["A"], globalNetworking: false };
  const after = recordAfterStep<Record<string, unknown>>(previous, { keys: ["env"], globalNetworking: false }, ["envKeys"]);
  expect(after).not.toHaveProperty("envKeys");
  expect(after).toEqual({ keys: ["env"], globalNetworking: false });
});

test.each([
  ["a list keeps its order", ["b", 1, true], '["b",1,true]'],
  ["object keys sorted, an undefined field left out", { b: 1, a: [2, 3], c: undefined }, '{"a":[2,3],"b":1}'],
  ["nested objects sorted too", [{ y: 1, x: { d: null, c: "s" } }], '[{"x":{"c":"s","d":null},"y":1}]'],
  ["empty object and list", [{}, []], "[{},[]]"],
  ["null", null, "null"],
  ["undefined reads as null", undefined, "null"],
  ["a string", 'a"b', '"a\\"b"'],
])("the canonical text of a value: %s", (_what, value, text) => {
  expect(canonical(value)).toBe(text);
});

test("a record key is pinned: state written by earlier releases compares against the same keys", () => {
  expect(recordKey(["A", "B"])).toBe("77471335767d13f7");
});

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

describe("canonical: one text of a JSON value, whatever the key order", () => {
  test("object keys are sorted at every depth; arrays keep their order", () => {
    expect(canonical({ b: 1, a: { d: [2, 1], c: "x" } })).toBe('{"a":{"c":"x","d":[2,1]},"b":1}');
    expect(canonical({ a: 1, b: 2 })).toBe(canonical({ b: 2, a: 1 }));
    expect(canonical([1, 2])).not.toBe(canonical([2, 1]));
  });

  test("a key whose value is undefined is left out; undefined alone reads as null", () => {
    expect(canonical({ a: 1, b: undefined })).toBe('{"a":1}');
    expect(canonical(undefined)).toBe("null");
    expect(canonical([undefined])).toBe("[null]");
    expect(canonical(null)).toBe("null");
  });

  test("strings and keys are JSON-quoted, so no value passes for another", () => {
    expect(canonical({ 'a"': "1" })).toBe('{"a\\"":"1"}');
    expect(canonical("1")).not.toBe(canonical(1));
  });
});

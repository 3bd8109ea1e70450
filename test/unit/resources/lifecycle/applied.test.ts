import { recordAfterStep, recordKey } from "../../../../src/resources/lifecycle/applied";

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

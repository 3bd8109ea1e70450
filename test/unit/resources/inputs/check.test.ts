import { z } from "zod";
import { checkFailures, containsUnknown, propertyPath, UNKNOWN } from "../../../../src/resources/inputs/check";
import { autoName, resolveName } from "../../../../src/resources/lifecycle/owner";

describe("check failures", () => {
  const schema = z.object({
    disk: z.number().int().min(1, "disk must be at least 1 (GB)"),
    mounts: z.object({ network: z.array(z.object({ path: z.string() })) }).optional(),
  });

  test("a zod issue becomes a failure naming the property as a program writes it", () => {
    const inputs = { disk: 0, mounts: { network: [{}] } };
    const r = schema.safeParse(inputs);
    expect(r.success).toBe(false);
    const failures = checkFailures((r as any).error, inputs);
    expect(failures).toEqual(
      expect.arrayContaining([
        { property: "disk", reason: "disk must be at least 1 (GB)" },
        expect.objectContaining({ property: "mounts.network[0].path" }),
      ]),
    );
  });

  test("a value unknown at preview is not a failure", () => {
    const inputs = { disk: UNKNOWN };
    const r = schema.safeParse(inputs);
    expect(r.success).toBe(false);
    expect(checkFailures((r as any).error, inputs)).toEqual([]);
  });

  test.each([
    [["a", "b"], "a.b"],
    [["mounts", "network", 0, "volumeId"], "mounts.network[0].volumeId"],
    [[], ""],
  ])("propertyPath(%j) = %s", (path, want) => {
    expect(propertyPath(path as PropertyKey[])).toBe(want);
  });

  test("containsUnknown looks inside arrays and objects", () => {
    expect(containsUnknown({ a: [1, { b: UNKNOWN }] })).toBe(true);
    expect(containsUnknown({ a: [1, { b: "x" }] })).toBe(false);
  });
});

describe("naming", () => {
  test("auto-names are the resource name plus a 7-character suffix", () => {
    expect(autoName("trainer", () => Buffer.from("abcdef12", "hex"))).toBe("trainer-abcdef1");
    expect(autoName("trainer")).toMatch(/^trainer-[0-9a-f]{7}$/);
  });

  test("an explicit name wins; otherwise the old generated name is kept", () => {
    expect(resolveName("mine", { name: "old-1234567" }, "r")).toBe("mine");
    expect(resolveName(undefined, { name: "old-1234567" }, "r")).toBe("old-1234567");
    expect(resolveName(undefined, undefined, "r")).toMatch(/^r-[0-9a-f]{7}$/);
  });
});

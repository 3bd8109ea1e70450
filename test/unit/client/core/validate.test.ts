// zod's issues as field issues whose message says what to change (validate.ts): the path a user
// wrote (`mounts.network[0].path`), "is required" for a field left out whatever its type, and a
// bound or a choice spelled out, so an error names the field and the rule before any request.
import { z } from "zod";
import { dottedPath, fieldIssues } from "../../../../src/client/core/validate";

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  if (r.success) throw new Error("expected the value to break the schema");
  return fieldIssues(r.error, value);
};

describe("dottedPath", () => {
  it("writes keys with dots and indexes in brackets", () => {
    expect(dottedPath(["mounts", "network", 0, "path"])).toBe("mounts.network[0].path");
    expect(dottedPath([0, "a", 1, 2])).toBe("[0].a[1][2]");
    expect(dottedPath(["a"])).toBe("a");
    expect(dottedPath([])).toBe("");
  });
});

describe("fieldIssues", () => {
  it("a missing field is required, whatever its type", () => {
    const S = z.object({ name: z.string(), n: z.number() });
    expect(issuesOf(S, {})).toEqual([
      { path: "name", message: "is required" },
      { path: "n", message: "is required" },
    ]);
  });

  it("a missing enum or union field is required, not 'must be one of', when the value is given", () => {
    const S = z.object({ a: z.object({ kind: z.enum(["X", "Y"]) }), u: z.union([z.literal("p"), z.literal("q")]) });
    expect(issuesOf(S, { a: {} })).toEqual([
      { path: "a.kind", message: "is required" },
      { path: "u", message: "is required" },
    ]);
  });

  it("a present but wrong enum value lists the choices", () => {
    expect(issuesOf(z.object({ k: z.enum(["X", "Y"]) }), { k: "Z" })).toEqual([{ path: "k", message: 'must be one of "X", "Y"' }]);
  });

  it("without the checked value, a missing enum field still lists the choices", () => {
    const r = z.object({ k: z.enum(["X", "Y"]) }).safeParse({});
    expect(r.success).toBe(false);
    expect(fieldIssues(r.error!)).toEqual([{ path: "k", message: 'must be one of "X", "Y"' }]);
  });

  it("a wrong union value is invalid, and says zod's reason", () => {
    const [issue] = issuesOf(z.object({ u: z.union([z.literal("p"), z.number()]) }), { u: true });
    expect(issue.path).toBe("u");
    expect(issue.message).toMatch(/^is invalid \(.+\)$/);
  });

  it("lower bounds: characters for a string, items for an array, >= for a number", () => {
    const S = z.object({ s: z.string().min(2), a: z.array(z.number()).min(1), n: z.number().min(3) });
    expect(issuesOf(S, { s: "x", a: [], n: 1 })).toEqual([
      { path: "s", message: "must be at least 2 character(s) long" },
      { path: "a", message: "must have at least 1 item(s)" },
      { path: "n", message: "must be >= 3" },
    ]);
  });

  it("upper bounds: items for an array, <= otherwise", () => {
    const S = z.object({ a: z.array(z.number()).max(1), n: z.number().max(3), s: z.string().max(1) });
    expect(issuesOf(S, { a: [1, 2], n: 4, s: "ab" })).toEqual([
      { path: "a", message: "must have at most 1 item(s)" },
      { path: "n", message: "must be <= 3" },
      { path: "s", message: "must be <= 1" },
    ]);
  });

  it("an unknown key of a strict object is named in full, one issue per key", () => {
    const S = z.object({ a: z.object({ b: z.number() }).strict() }).strict();
    expect(issuesOf(S, { a: { b: 1, c: 2, d: 3 }, e: 1 })).toEqual([
      { path: "a.c", message: "is not an allowed property" },
      { path: "a.d", message: "is not an allowed property" },
      { path: "e", message: "is not an allowed property" },
    ]);
  });

  it("our own refinements keep their message, written as a predicate of the field", () => {
    const S = z.object({ n: z.number().refine((n) => (n & (n - 1)) === 0, "must be a power of two") });
    expect(issuesOf(S, { n: 3 })).toEqual([{ path: "n", message: "must be a power of two" }]);
  });

  it("a refinement about a field left out keeps its own message rather than 'is required'", () => {
    const S = z
      .object({ size: z.number().optional(), from: z.string().optional() })
      .refine((v) => v.size !== undefined || v.from !== undefined, { path: ["size"], message: "must be set when from is not" });
    expect(issuesOf(S, {})).toEqual([{ path: "size", message: "must be set when from is not" }]);
  });

  it("a refinement whose message speaks of undefined is still our own message", () => {
    const S = z.object({ n: z.number().refine(() => false, "must not have received undefined") });
    expect(issuesOf(S, { n: 1 })).toEqual([{ path: "n", message: "must not have received undefined" }]);
  });

  it("bounds of a bigint read as those of a number", () => {
    expect(issuesOf(z.object({ n: z.bigint().min(2n).max(3n) }), { n: 1n })).toEqual([{ path: "n", message: "must be >= 2" }]);
    expect(issuesOf(z.object({ n: z.bigint().max(3n) }), { n: 4n })).toEqual([{ path: "n", message: "must be <= 3" }]);
  });

  it("a choice under a parent that is null is missing, so required", () => {
    const S = z.object({ a: z.unknown() }).superRefine((_v, ctx) => {
      ctx.addIssue({ code: "invalid_value", values: ["X"], path: ["a", "kind"], input: undefined });
    });
    expect(issuesOf(S, { a: null })).toEqual([{ path: "a.kind", message: "is required" }]);
  });

  it("a wrong type of a present field is invalid, with zod's reason; at the top level the reason alone", () => {
    const [field] = issuesOf(z.object({ n: z.number() }), { n: "x" });
    expect(field.path).toBe("n");
    expect(field.message).toMatch(/^is invalid \(Invalid input: expected number, received string\)$/);
    const [top] = issuesOf(z.number(), "x");
    expect(top).toEqual({ path: "", message: "Invalid input: expected number, received string" });
  });

  it("a field inside an array of records is found through indexes when deciding it is missing", () => {
    const S = z.object({ mounts: z.array(z.object({ kind: z.enum(["A"]) })) });
    expect(issuesOf(S, { mounts: [{ kind: "A" }, {}] })).toEqual([{ path: "mounts[1].kind", message: "is required" }]);
    // The walk stops at a non-object: a value under a string is not there either.
    expect(issuesOf(S, { mounts: [{ kind: "A" }, "x"] })).toEqual([{ path: "mounts[1]", message: expect.stringMatching(/^is invalid/) }]);
  });
});

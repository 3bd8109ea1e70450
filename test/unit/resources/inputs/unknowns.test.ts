// The input rules every kind shares (src/resources/inputs/check.ts), each on its own: values
// unknown at preview, the plan's worst case for them, the JSON shape state holds, and the check
// of a flat, auto-named kind.
import { z } from "zod";
import { checkFailures, checkNamedArgs, containsUnknown, defined, gpuChoices, planWithUnknowns, UNKNOWN } from "../../../../src/resources/inputs/check";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";

test("the unknown marker is the one Pulumi's engine sends", () => {
  expect(UNKNOWN).toBe("04da6b54-80e4-46f7-96ec-b56ff0331ba9");
});

test("an unknown is found in a list, in an object, in one member of several; not elsewhere", () => {
  expect(containsUnknown([1, UNKNOWN])).toBe(true);
  expect(containsUnknown({ a: 1, b: UNKNOWN })).toBe(true);
  expect(containsUnknown([1, "x"])).toBe(false);
  expect(containsUnknown(null)).toBe(false);
  expect(containsUnknown("x")).toBe(false);
});

test("a GPU id is a list of one; a list stays as it is", () => {
  expect(gpuChoices("A")).toEqual(["A"]);
  expect(gpuChoices(["A", "B"])).toEqual(["A", "B"]);
});

describe("a plan at preview: each wholly unknown property at its worst case", () => {
  const verdicts = { image: "update", gpu: "replace", name: "update" } as const;
  /** A planner that says what it saw: a changed image updates, a changed gpu replaces, a missing one too. */
  const planner = (seen: Record<string, unknown>[]) => (known: Record<string, unknown>) => {
    seen.push(known);
    const replaces = known.gpu !== "A" ? ["gpu"] : [];
    const updates = [...(known.image !== "img:1" ? ["image"] : []), ...(known.name !== "n" ? ["name"] : [])];
    return { replaces, updates, extra: 1 };
  };

  test("with nothing unknown, the plan of the inputs as they are", () => {
    const seen: Record<string, unknown>[] = [];
    const news = { image: "img:2", gpu: "A", name: "n" };
    expect(planWithUnknowns(news, verdicts, planner(seen))).toEqual({ replaces: [], updates: ["image"], extra: 1 });
    expect(seen).toEqual([news]);
  });

  test("the planner sees the known inputs only; an unknown replacing property replaces, an unknown updating one updates, once each", () => {
    const seen: Record<string, unknown>[] = [];
    const plan = planWithUnknowns({ image: UNKNOWN, gpu: UNKNOWN, name: "n" }, verdicts, planner(seen));
    expect(seen).toEqual([{ name: "n" }]);
    expect(plan).toEqual({ replaces: ["gpu"], updates: ["image"], extra: 1 });
  });

  test("a known change elsewhere stays in the plan; a property without a verdict is planned as it is, marker and all", () => {
    const seen: Record<string, unknown>[] = [];
    const plan = planWithUnknowns({ image: UNKNOWN, gpu: "B", name: "m", other: UNKNOWN }, verdicts, planner(seen));
    expect(seen).toEqual([{ gpu: "B", name: "m", other: UNKNOWN }]);
    expect(plan).toEqual({ replaces: ["gpu"], updates: ["name", "image"], extra: 1 });
  });

  test("a known property the planner replaces stays replaced, whatever its verdict", () => {
    const plan = planWithUnknowns({ image: UNKNOWN, name: "m" }, verdicts, () => ({ replaces: ["name", "other"], updates: [] }));
    expect(plan).toEqual({ replaces: ["name", "other"], updates: ["image"] });
  });

  test("an unknown updating property the planner saw as removed is an update only, never a replace", () => {
    const plan = planWithUnknowns({ image: UNKNOWN }, verdicts, () => ({ replaces: ["image"], updates: ["image"] }));
    expect(plan).toEqual({ replaces: [], updates: ["image"] });
  });
});

describe("a value as JSON carries it (what state holds)", () => {
  test("keys holding undefined left out, at every depth; undefined in a list becomes null", () => {
    expect(defined({ a: 1, b: undefined, c: { d: undefined, e: [1, undefined, { f: undefined }] } })).toStrictEqual({ a: 1, c: { e: [1, null, {}] } });
  });

  test("other values as they are: null, text, numbers, and objects that are not plain (a Date)", () => {
    const when = new Date(0);
    expect(defined(null)).toBe(null);
    expect(defined("x")).toBe("x");
    expect(defined(when)).toBe(when);
    expect(defined({ when }).when).toBe(when);
  });
});

describe("check failures: where the value is", () => {
  const schema = z.object({ a: z.object({ b: z.number() }) });

  test("an issue at a path through a text or null is reported (no unknown is there)", () => {
    for (const a of ["x", null]) {
      const inputs = { a };
      const r = schema.safeParse(inputs);
      expect(checkFailures(r.error!, inputs)).toEqual([{ property: "a", reason: expect.any(String) }]);
    }
    const deep = { a: { b: "x" } };
    expect(checkFailures(schema.safeParse(deep).error!, deep)).toEqual([{ property: "a.b", reason: expect.any(String) }]);
  });

  test("an unknown elsewhere in the inputs does not hide an issue (only the value at the issue's path counts)", () => {
    const inputs = { a: "x", c: UNKNOWN };
    expect(checkFailures(schema.safeParse(inputs).error!, inputs)).toEqual([{ property: "a", reason: expect.any(String) }]);
  });

  test("an issue of the whole inputs names (inputs)", () => {
    const r = z.object({}).strict().refine(() => false, "no").safeParse({});
    expect(checkFailures(r.error!, {})).toEqual([{ property: "(inputs)", reason: "no" }]);
  });
});

describe("the check of a flat, auto-named kind", () => {
  const schema = z.object({ name: z.string(), size: z.number().optional(), region: z.string().optional() });
  const run = (news: Record<string, unknown>, olds?: Record<string, unknown>) => {
    const r = checkNamedArgs<Record<string, unknown>>("Volume", schema, olds, news, "fallback", ["size", "region"]);
    return { inputs: r.inputs!, failures: r.failures };
  };

  test("no name: made from the logical name the engine sends, else the fallback", () => {
    expect(run({ [LOGICAL_NAME_KEY]: "data" }).inputs.name).toMatch(/^data-[0-9a-f]{7}$/);
    expect(run({}).inputs.name).toMatch(/^fallback-[0-9a-f]{7}$/);
    expect(run({ [LOGICAL_NAME_KEY]: 7 }).inputs.name).toMatch(/^fallback-[0-9a-f]{7}$/);
  });

  test("an optional property given as null or undefined is left out; one given is kept", () => {
    const r = run({ name: "v", size: null, region: undefined });
    expect(Object.keys(r.inputs).sort()).toEqual(["name"]);
    expect(r.failures).toEqual([]);
    expect(run({ name: "v", size: 5, region: "EU" }).inputs).toMatchObject({ size: 5, region: "EU" });
  });

  test("a value the schema refuses is a failure naming it; an argument the kind does not have, by name", () => {
    expect(run({ name: "v", size: "big" }).failures).toEqual([{ property: "size", reason: expect.any(String) }]);
    expect(run({ name: "v", sise: 5 }).failures).toEqual([{ property: "sise", reason: "sise is not a Volume argument; did you mean size?" }]);
  });
});

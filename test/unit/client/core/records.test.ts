// Lists read record by record (records.ts): a record the client cannot read neither fails the
// list nor looks absent. It is carried in `unreadable` with its place, id and name, and a look-up
// by name after an ambiguous create refuses to say "not made" while such a record could be it.
import { z } from "zod";
import { PlatformError, ResponseValidationError } from "../../../../src/client/core/errors";
import {
  findNew,
  findReadable,
  listed,
  readRecords,
  recordsOf,
  unreadableError,
  unreadableOf,
  unreadableRecord,
  type UnreadableRecord,
} from "../../../../src/client/core/records";

const Pod = z.object({ id: z.string(), name: z.string(), desiredStatus: z.enum(["RUNNING", "EXITED", "TERMINATED"]) });
type Pod = z.infer<typeof Pod>;
const pod = (id: string, name: string): Pod => ({ id, name, desiredStatus: "RUNNING" });

describe("readRecords", () => {
  it("answers the readable records in order and carries the others with index, id, name and the fields that broke", () => {
    const raw = [
      pod("a", "one"),
      { id: "b", name: "two", desiredStatus: "HIBERNATING" },
      pod("c", "three"),
      { id: 7, name: ["x"] },
      "not a record",
      null,
    ];
    const list = readRecords(Pod, raw);
    expect([...list]).toEqual([pod("a", "one"), pod("c", "three")]);
    expect(list.unreadable).toEqual([
      { index: 1, id: "b", name: "two", issues: [{ path: "desiredStatus", message: 'must be one of "RUNNING", "EXITED", "TERMINATED"' }] },
      {
        index: 3,
        id: undefined,
        name: undefined,
        issues: [
          { path: "id", message: expect.stringMatching(/^is invalid/) },
          { path: "name", message: expect.stringMatching(/^is invalid/) },
          { path: "desiredStatus", message: "is required" },
        ],
      },
      { index: 4, id: undefined, name: undefined, issues: [{ path: "", message: expect.any(String) }] },
      { index: 5, id: undefined, name: undefined, issues: [{ path: "", message: expect.any(String) }] },
    ]);
  });

  it("keeps what the schema made of a record (its transforms and defaults), not the raw value", () => {
    const S = z.object({ id: z.string(), n: z.string().transform((s) => Number(s)) });
    expect([...readRecords(S, [{ id: "a", n: "4" }])]).toEqual([{ id: "a", n: 4 }]);
  });

  it("an empty answer is an empty list with nothing unreadable", () => {
    const list = readRecords(Pod, []);
    expect([...list]).toEqual([]);
    expect(list.unreadable).toEqual([]);
  });
});

describe("listed and unreadableOf", () => {
  it("unreadable rides beside the items without being one of them (not enumerable, not in JSON)", () => {
    const u: UnreadableRecord = { index: 0, id: "x", name: undefined, issues: [] };
    const list = listed([1, 2], [u]);
    expect(list.unreadable).toEqual([u]);
    expect(Object.keys(list)).toEqual(["0", "1"]);
    expect(JSON.stringify(list)).toBe("[1,2]");
    expect(unreadableOf(list)).toEqual([u]);
  });

  it("a list made without unreadable records has none", () => {
    expect(listed([1]).unreadable).toEqual([]);
  });

  it("a plain array, or one whose `unreadable` is not an array, has none", () => {
    expect(unreadableOf([1, 2])).toEqual([]);
    expect(unreadableOf(Object.assign([1], { unreadable: "no" }))).toEqual([]);
  });

  it("unreadableRecord finds one by id, and only by id", () => {
    const a: UnreadableRecord = { index: 0, id: "a", name: "n", issues: [] };
    const noId: UnreadableRecord = { index: 1, id: undefined, name: "b", issues: [] };
    const list = listed([], [noId, a]);
    expect(unreadableRecord(list, "a")).toBe(a);
    expect(unreadableRecord(list, "b")).toBeUndefined();
    expect(unreadableRecord([], "a")).toBeUndefined();
  });
});

describe("unreadableError", () => {
  const issues = [{ path: "status", message: 'must be one of "A"' }];

  it("names the record by its id, and the fields that broke", () => {
    const err = unreadableError({ index: 2, id: "p1", name: "n", issues }, "GET", "http://h/v2/pods/p1", "pod");
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.message).toBe('GET /v2/pods/p1 returned pod "p1" that breaks the contract: status must be one of "A"');
    expect(err.issues).toEqual(issues);
    expect(err.issues).not.toBe(issues);
  });

  it("names it by its place when it has no id", () => {
    const err = unreadableError({ index: 2, id: undefined, name: "n", issues }, "GET", "http://h/v2/pods", "pod");
    expect(err.message).toContain("returned pod at index 2 that breaks");
  });
});

describe("findReadable", () => {
  const named = (name: string) => (p: Pod) => p.name === name;

  it("answers the last readable record that matches", () => {
    const list = [pod("a", "x"), pod("b", "y"), pod("c", "x")];
    expect(findReadable(list, "x", named("x"))).toEqual(pod("c", "x"));
  });

  it("answers undefined when nothing matches and nothing unreadable could be it", () => {
    const list = listed([pod("a", "y")], [{ index: 1, id: "z", name: "other", issues: [] }]);
    expect(findReadable(list, "x", named("x"))).toBeUndefined();
  });

  it("a readable match wins over an unreadable record of the same name", () => {
    const list = listed([pod("a", "x")], [{ index: 1, id: "z", name: "x", issues: [] }]);
    expect(findReadable(list, "x", named("x"))).toEqual(pod("a", "x"));
  });

  it("fails when an unreadable record of that name may be the one just made", () => {
    const list = listed([], [{ index: 3, id: "z", name: "x", issues: [{ path: "status", message: "is bad" }] }]);
    expect(() => findReadable(list, "x", named("x"))).toThrow(PlatformError);
    expect(() => findReadable(list, "x", named("x"))).toThrow(
      'the list holds a record named "x" that cannot be read (index 3: status is bad), so whether it is the one just made is unknown',
    );
  });

  it("fails when an unreadable record has no readable name (it could be any name)", () => {
    const list = listed([], [{ index: 0, id: "z", name: undefined, issues: [{ path: "name", message: "is required" }, { path: "id", message: "x" }] }]);
    expect(() => findReadable(list, "x", named("x"))).toThrow(
      "the list holds a record without a readable name that cannot be read (index 0: name is required; id x)",
    );
  });

  it("an unreadable record listed before the create began (older) cannot be the one made", () => {
    const list = listed([], [{ index: 0, id: "z", name: "x", issues: [] }]);
    expect(findReadable(list, "x", named("x"), new Set(["z"]))).toBeUndefined();
  });

  it("an unreadable record without an id is never taken for an older one", () => {
    const list = listed([], [{ index: 0, id: undefined, name: "x", issues: [] }]);
    expect(() => findReadable(list, "x", named("x"), new Set(["z"]))).toThrow(/cannot be read/);
  });
});

describe("findNew", () => {
  const named = (name: string) => (p: Pod) => p.name === name;

  it("answers the one matching record not seen before the create began", () => {
    const list = [pod("old", "x"), pod("new", "x"), pod("other", "y")];
    expect(findNew(list, "x", named("x"), new Set(["old"]))).toEqual(pod("new", "x"));
  });

  it("answers undefined when every match was there before", () => {
    expect(findNew([pod("old", "x")], "x", named("x"), new Set(["old"]))).toBeUndefined();
  });

  it("fails when two new records match: a list cannot tell which one the create made", () => {
    const list = [pod("n1", "x"), pod("n2", "x")];
    expect(() => findNew(list, "x", named("x"), new Set())).toThrow(
      '2 records named "x" appeared since the create began (n1, n2), so which one it made is unknown',
    );
  });

  it("fails on a new unreadable record of that name, but not on one seen before", () => {
    const u = (id: string): UnreadableRecord => ({ index: 0, id, name: "x", issues: [{ path: "status", message: "is bad" }] });
    expect(() => findNew(listed<Pod>([], [u("new")]), "x", named("x"), new Set())).toThrow(/cannot be read/);
    expect(findNew(listed<Pod>([], [u("old")]), "x", named("x"), new Set(["old"]))).toBeUndefined();
  });

  it("an unreadable record does not fail a look-up that found the new record", () => {
    const list = listed([pod("new", "x")], [{ index: 1, id: "q", name: "x", issues: [] }]);
    expect(findNew(list, "x", named("x"), new Set())).toEqual(pod("new", "x"));
  });
});

describe("recordsOf", () => {
  const Answer = z.object({ pods: recordsOf(Pod) });

  it("reads a list field record by record", () => {
    const parsed = Answer.parse({ pods: [pod("a", "x"), { id: "b", name: "y" }] });
    expect([...parsed.pods]).toEqual([pod("a", "x")]);
    expect(unreadableOf(parsed.pods)).toEqual([{ index: 1, id: "b", name: "y", issues: [{ path: "desiredStatus", message: "is required" }] }]);
  });

  it("the field itself must be an array", () => {
    expect(Answer.safeParse({ pods: { a: 1 } }).success).toBe(false);
    expect(Answer.safeParse({}).success).toBe(false);
  });
});

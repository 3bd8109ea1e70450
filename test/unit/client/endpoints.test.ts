// A read of the account's endpoints split by field when the platform refuses one document for
// its cost (issue 50): the split, the merge of the parts by id, and what counts as that refusal.
import { BadRequestError, ConflictError, makeApiError } from "../../../src/client";
import { ENDPOINT_READ_FIELDS, isTooCostly, mergeParts, myselfDocument, splitFields } from "../../../src/client/endpoints";

test.each([
  [15, 15, [15]],
  [15, 8, [8, 7]],
  [15, 4, [4, 4, 4, 3]],
  [15, 2, [2, 2, 2, 2, 2, 2, 2, 1]],
  [15, 1, Array(15).fill(1)],
  [3, 8, [3]],
  [5, 0, [1, 1, 1, 1, 1]],
])("%d fields at most %d a document: parts of %j, in order", (n, per, sizes) => {
  const fields = Array.from({ length: n }, (_, i) => `f${i}`);
  const parts = splitFields(fields, per);
  expect(parts.map((p) => p.length)).toEqual(sizes);
  expect(parts.flat()).toEqual(fields);
});

test("a part's document asks for the id and its fields, the discount only when told", () => {
  expect(myselfDocument(["name", "pods"], false).replace(/\s+/g, " ")).toBe("{ myself { endpoints { id name pods { desiredStatus } } } }");
  const full = myselfDocument();
  for (const f of [...ENDPOINT_READ_FIELDS, "serverlessDiscount"]) expect(full).toContain(f);
});

test("parts merge by id in the first part's order; an endpoint missing from a part is left out; a record without an id is kept", () => {
  const first = { endpoints: [{ id: "b", name: "B" }, { id: "a", name: "A" }, { id: "gone", name: "G" }, { name: "no-id" }, 7], serverlessDiscount: null };
  const second = { endpoints: [{ id: "a", workersMin: 1 }, { id: "b", workersMin: 2 }, { id: "new", workersMin: 3 }] };
  expect(mergeParts([first, second])).toEqual({
    endpoints: [{ id: "b", name: "B", workersMin: 2 }, { id: "a", name: "A", workersMin: 1 }, { name: "no-id" }, 7],
    serverlessDiscount: null,
  });
  // Three parts: in all three or out.
  expect(mergeParts([{ endpoints: [{ id: "a" }, { id: "b" }] }, { endpoints: [{ id: "a", x: 1 }, { id: "b", x: 2 }] }, { endpoints: [{ id: "b", y: 3 }] }])).toEqual({
    endpoints: [{ id: "b", x: 2, y: 3 }],
  });
});

test("a part that is not an account is the answer, so the read fails naming its shape", () => {
  expect(mergeParts([null, { endpoints: [] }])).toBeNull();
  expect(mergeParts([{ endpoints: [{ id: "a" }] }, { endpoints: "x" }])).toEqual({ endpoints: "x" });
  expect(mergeParts([{ endpoints: [{ id: "a" }] }, null])).toBeNull();
});

test("a refusal for the document's cost is a 400 with QUERY_TOO_COSTLY or a message about its cost; nothing else", () => {
  const err = (status: number, code: string | undefined, detail: string) =>
    makeApiError({ status, title: code ?? "GraphQL error", detail, errors: [detail], method: "POST", url: "http://h/graphql", code });
  expect(isTooCostly(err(400, "QUERY_TOO_COSTLY", "query cost 13206 is over the limit of 10000"))).toBe(true);
  expect(isTooCostly(err(400, undefined, "Query complexity 12000 exceeds 10000"))).toBe(true);
  expect(isTooCostly(err(400, "GRAPHQL_VALIDATION_FAILED", "Cannot query field \"x\" on type \"Endpoint\""))).toBe(false);
  expect(isTooCostly(err(409, undefined, "query cost"))).toBe(false);
  expect(err(400, undefined, "x")).toBeInstanceOf(BadRequestError);
  expect(err(409, undefined, "x")).toBeInstanceOf(ConflictError);
  expect(isTooCostly(new Error("query cost"))).toBe(false);
});

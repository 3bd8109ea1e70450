import fc from "fast-check";
import { Kind, type ObjectValueNode, type OperationDefinitionNode, parse, type FieldNode } from "graphql";
import { buildDocument, EnumLiteral, valueNode } from "../../../../src/client/core/graphql";
import { deleteEndpointDocument, myselfDocument, saveEndpointDocument } from "../../../../src/client/endpoints";

/** The `input` object of the first root field of a printed document, read back by graphql-js. */
function inputOf(doc: string): ObjectValueNode {
  const op = parse(doc).definitions[0] as OperationDefinitionNode;
  const field = op.selectionSet.selections[0] as FieldNode;
  return field.arguments![0].value as ObjectValueNode;
}

function stringField(obj: ObjectValueNode, name: string): string {
  const f = obj.fields.find((x) => x.name.value === name)!;
  if (f.value.kind !== Kind.STRING) throw new Error(`${name} is ${f.value.kind}`);
  return f.value.value;
}

const HOSTILE = [
  'quote " inside',
  "brace } and { and ) (",
  "back\\slash and \\n literal",
  "new\nline and \r\n and \t tab",
  '"}) { deleteEndpoint(id: "x") } #',
  '"""block"""',
  "unicode ✓ 名前 \u2028 \u0000 nul",
  "$var @dir ... fragment",
];

describe("saveEndpoint documents: values written in, never spliced", () => {
  test.each(HOSTILE)("name %j round-trips exactly", (name) => {
    const doc = saveEndpointDocument({ name, gpuIds: "AMPERE_16", templateId: name, type: "QB" });
    const input = inputOf(doc);
    expect(stringField(input, "name")).toBe(name);
    expect(stringField(input, "templateId")).toBe(name);
    // One operation, one root field: the hostile text did not add anything.
    const op = parse(doc).definitions;
    expect(op).toHaveLength(1);
    expect((op[0] as OperationDefinitionNode).selectionSet.selections).toHaveLength(1);
  });

  test("any string round-trips (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), (name) => {
        fc.pre(name.length > 0);
        const doc = saveEndpointDocument({ name, gpuIds: "ADA_24", templateId: "t" });
        expect(stringField(inputOf(doc), "name")).toBe(name);
      }),
      { seed: 20261122, numRuns: 300 },
    );
  });

  test("flashBootType goes out as an enum literal, never a quoted string", () => {
    const doc = saveEndpointDocument({ name: "n", gpuIds: "AMPERE_16", templateId: "t", flashBootType: "FLASHBOOT" });
    expect(doc).toContain("flashBootType: FLASHBOOT");
    expect(doc).not.toContain('"FLASHBOOT"');
    const f = inputOf(doc).fields.find((x) => x.name.value === "flashBootType")!;
    expect(f.value.kind).toBe(Kind.ENUM);
  });

  test("numbers stay numbers, null stays null, undefined is left out", () => {
    const doc = saveEndpointDocument({
      id: "ep-1",
      name: "n",
      gpuIds: "AMPERE_16",
      templateId: "t",
      workersMin: 0,
      workersMax: 3,
      networkVolumeId: null,
      idleTimeout: undefined,
    });
    const input = inputOf(doc);
    const kinds = Object.fromEntries(input.fields.map((f) => [f.name.value, f.value.kind]));
    expect(kinds).toEqual({
      id: Kind.STRING,
      name: Kind.STRING,
      gpuIds: Kind.STRING,
      templateId: Kind.STRING,
      workersMin: Kind.INT,
      workersMax: Kind.INT,
      networkVolumeId: Kind.NULL,
    });
  });

  test("documents are anonymous, so the body carries no operationName", () => {
    for (const doc of [saveEndpointDocument({ name: "n", gpuIds: "AMPERE_16", templateId: "t" }), myselfDocument(), deleteEndpointDocument("x")]) {
      expect((parse(doc).definitions[0] as OperationDefinitionNode).name).toBeUndefined();
    }
  });

  test("deleteEndpoint's id is a string value even when hostile", () => {
    const id = 'x") { myself { endpoints { id } } } #';
    const op = parse(deleteEndpointDocument(id)).definitions[0] as OperationDefinitionNode;
    const field = op.selectionSet.selections[0] as FieldNode;
    expect(field.name.value).toBe("deleteEndpoint");
    expect(field.arguments![0].value).toEqual(expect.objectContaining({ kind: Kind.STRING, value: id }));
    expect(field.selectionSet).toBeUndefined();
  });
});

describe("value nodes", () => {
  test("an enum literal must be a GraphQL name", () => {
    expect(() => new EnumLiteral("FLASH BOOT")).toThrow(/not a GraphQL enum value/);
    expect(() => new EnumLiteral("true")).toThrow();
    expect(() => new EnumLiteral('X") {')).toThrow();
  });
  test("non-finite numbers and functions are refused", () => {
    expect(() => valueNode(Number.NaN)).toThrow();
    expect(() => valueNode(() => 1)).toThrow();
  });
  test("lists and nested objects print and parse back", () => {
    const doc = buildDocument("query", [{ name: "f", args: { a: [1, 2.5, "s", true, null], o: { x: { y: "z" } } } }]);
    expect(doc).toContain('f(a: [1, 2.5, "s", true, null], o: {x: {y: "z"}})');
    expect(() => parse(doc)).not.toThrow();
  });
});

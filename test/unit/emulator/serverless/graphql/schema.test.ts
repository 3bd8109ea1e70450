// The GraphQL schema of endpoint management (docs/emulator.md, "GraphQL documents"): every
// document is validated against it before any resolver runs, so a quoted enum, a missing
// required argument or an unknown field fail as the platform's server fails them.
import { parse, validate } from "graphql";
import { endpointSchema } from "../../../../../src/emulator/serverless/graphql/schema";

const errors = (doc: string) => validate(endpointSchema(), parse(doc)).map((e) => e.message);

test("one schema, built once, for every service", () => {
  expect(endpointSchema()).toBe(endpointSchema());
});

test("the documents the platform's clients send validate", () => {
  expect(errors("{ myself { endpoints { id name gpuIds templateId gpuCount executionTimeoutMs pods { id desiredStatus } } serverlessDiscount { discountFactor } } }")).toEqual([]);
  expect(errors('mutation { saveEndpoint(input: { name: "e", gpuIds: "ADA_24", templateId: "t", flashBootType: FLASHBOOT, workersMax: 2 }) { id } }')).toEqual([]);
  expect(errors('mutation { deleteEndpoint(id: "e1") }')).toEqual([]);
});

test("a quoted enum is refused", () => {
  expect(errors('mutation { saveEndpoint(input: { name: "e", gpuIds: "g", templateId: "t", flashBootType: "FLASHBOOT" }) { id } }')).toEqual([
    expect.stringMatching(/Enum "FlashBootType" cannot represent non-enum value: "FLASHBOOT"/),
  ]);
});

test("name, gpuIds and templateId are required on every save, modify included", () => {
  expect(errors('mutation { saveEndpoint(input: { id: "e1", name: "e", gpuIds: "g" }) { id } }')).toEqual([
    expect.stringMatching(/Field "EndpointInput.templateId" of required type "String!" was not provided/),
  ]);
});

test("an unknown field, an Int given a string, and a query without a selection are refused", () => {
  expect(errors("{ myself { endpoints { id secret } } }")).toEqual([expect.stringMatching(/Cannot query field "secret" on type "Endpoint"/)]);
  expect(errors('mutation { saveEndpoint(input: { name: "e", gpuIds: "g", templateId: "t", workersMax: "2" }) { id } }')).toEqual([
    expect.stringMatching(/Int cannot represent non-integer value: "2"/),
  ]);
  expect(errors("{ myself }")).toEqual([expect.stringMatching(/Field "myself" of type "User" must have a selection of subfields/)]);
});

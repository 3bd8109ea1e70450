// The client's own documents stay far below the emulator's GraphQL cost limit at the account sizes
// docs/emulator.md names (300 endpoints of one worker, 100 of ten), and the review's is over it.
import { parse } from "graphql";
import { myselfDocument } from "../../../../../src/client/endpoints";
import { documentCost, MAX_COST } from "../../../../../src/emulator/serverless/graphql/cost";
import { endpointSchema } from "../../../../../src/emulator/serverless/graphql/schema";
import { aliasBomb } from "../../../../../tools/hostile/graphql";

const cost = (doc: string, endpoints: number, workers: number) => {
  const c = documentCost(endpointSchema(), parse(doc), { endpoints, workers }, undefined, undefined);
  if (c instanceof Error) throw c;
  return c.cost;
};

test.each([
  [300, 300],
  [100, 1000],
])("the client's myself read of %d endpoints with %d workers is admitted", (endpoints, workers) => {
  expect(cost(myselfDocument(), endpoints, workers)).toBeLessThanOrEqual(MAX_COST);
});

test("the review's document is over the limit on an account of three endpoints", () => {
  expect(cost(aliasBomb(16, 8, 6), 3, 6)).toBeGreaterThan(MAX_COST);
});

// Issue 50: an account whose endpoints one read of every field cannot afford (the platform's
// query-cost limit) is read in documents of fewer fields, merged by id.
// Issue 14 #9: a serverless discount without an expiration date (`expirationDate: null`,
// which the emulator allows) is a valid account, not a validation failure of every endpoint
// read, poll and delete.
import { BadRequestError, ComputePlatform, PacingRegistry, schemas } from "../../../src/client";
import { ENDPOINT_READ_FIELDS } from "../../../src/client/endpoints";
import { FakeClock } from "../../helpers/fake-clock";
import { startLoopback } from "../../helpers/loopback";

const endpoint = { id: "ep-1", name: "api", gpuIds: "ADA_24", templateId: "tpl-1", workersMin: 0, workersMax: 0, pods: [] };
const discount = { discountFactor: 0.8, type: "VOLUME", expirationDate: null };

test("endpoints.list() and get() read an account whose discount has expirationDate null", async () => {
  const srv = await startLoopback(() => ({
    status: 200,
    body: { data: { myself: { endpoints: [endpoint], serverlessDiscount: discount } } },
  }));
  const cp = new ComputePlatform({ apiKey: "cp_test_k", apiUrl: srv.url, clock: new FakeClock(), pacing: new PacingRegistry(), env: {} });
  try {
    await expect(cp.endpoints.list()).resolves.toEqual([expect.objectContaining({ id: "ep-1" })]);
    await expect(cp.endpoints.get("ep-1")).resolves.toMatchObject({ id: "ep-1" });
    expect((await cp.endpoints.account()).serverlessDiscount).toEqual(discount);
  } finally {
    await cp.close();
    await srv.close();
  }
});

const tooCostly = { status: 400, body: { errors: [{ message: "query cost 10300 is over the limit of 10000", extensions: { code: "QUERY_TOO_COSTLY" } }] } };
/** How many of the endpoints' fields a `myself` document asks for. */
const fieldsAsked = (body: string) => {
  const query = JSON.parse(body).query as string;
  const endpoints = query.slice(query.indexOf("endpoints {")).split("serverlessDiscount")[0];
  return ENDPOINT_READ_FIELDS.filter((f) => new RegExp(`\\b${f}\\b`).test(endpoints)).length;
};

// The smaller twin of test/load/large-account.test.ts (460 endpoints on the emulator, over its
// real cost limit): a platform that refuses any document of more than 8 fields.
test("an account over the cost limit for one document of every field is read in two after one refusal; later reads send the two at once", async () => {
  const srv = await startLoopback((req) => (fieldsAsked(req.body) > 8 ? tooCostly : { status: 200, body: { data: { myself: { endpoints: [endpoint], serverlessDiscount: discount } } } }));
  const cp = new ComputePlatform({ apiKey: "cp_test_k", apiUrl: srv.url, clock: new FakeClock(), pacing: new PacingRegistry(), env: {} });
  try {
    const list = await cp.endpoints.list();
    expect(list.unreadable).toEqual([]);
    expect(list).toEqual([expect.objectContaining({ id: "ep-1", name: "api", templateId: "tpl-1", pods: [] })]);
    // 15 fields: refused as one document, then two of 8 and 7, which between them ask for every field.
    expect(srv.seen.map((r) => fieldsAsked(r.body))).toEqual([15, 8, 7]);
    expect(await cp.endpoints.get("ep-1")).toMatchObject({ id: "ep-1", name: "api" });
    expect(srv.seen.slice(3).map((r) => fieldsAsked(r.body))).toEqual([8, 7]);
  } finally {
    await cp.close();
    await srv.close();
  }
});

test("an account no split can read fails after documents of one field each, naming REST's list; a shape error is not split", async () => {
  const srv = await startLoopback(() => tooCostly);
  const cp = new ComputePlatform({ apiKey: "cp_test_k", apiUrl: srv.url, clock: new FakeClock(), pacing: new PacingRegistry(), env: {} });
  try {
    const err = await cp.endpoints.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).code).toBe("QUERY_TOO_COSTLY");
    expect((err as Error).message).toMatch(/query cost 10300 is over the limit of 10000; the account has too many endpoints to read over GraphQL even one field a request: list them over REST v2/);
    // 15 fields: 1 document, then 2, 4, 8 and 15; bounded, and each part's own refusal ends its round.
    expect(srv.count("POST", "/graphql")).toBe(1 + 2 + 4 + 8 + 15);
    const fields = srv.seen.slice(-15).map((r) => JSON.parse(r.body).query.match(/endpoints \{\s*id\s+(\w+)/)[1]);
    expect(fields.sort()).toEqual([...ENDPOINT_READ_FIELDS].sort());
  } finally {
    await cp.close();
    await srv.close();
  }
  const invalid = await startLoopback(() => ({ status: 400, body: { errors: [{ message: 'Cannot query field "gpuCount"', extensions: { code: "GRAPHQL_VALIDATION_FAILED" } }] } }));
  const cp2 = new ComputePlatform({ apiKey: "cp_test_k", apiUrl: invalid.url, clock: new FakeClock(), pacing: new PacingRegistry(), env: {} });
  try {
    await expect(cp2.endpoints.list()).rejects.toThrow(/Cannot query field "gpuCount"/);
    expect(invalid.count("POST", "/graphql")).toBe(1);
  } finally {
    await cp2.close();
    await invalid.close();
  }
});

test("a discount's expirationDate must still be a string or null", () => {
  const bad = { endpoints: [], serverlessDiscount: { ...discount, expirationDate: 5 } };
  expect(schemas.MyselfSchema.safeParse(bad).success).toBe(false);
  expect(schemas.MyselfSchema.safeParse({ endpoints: [], serverlessDiscount: { ...discount, expirationDate: "2027-01-01" } }).success).toBe(true);
});

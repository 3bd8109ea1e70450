// Issue 14 #9: a serverless discount without an expiration date (`expirationDate: null`,
// which the emulator allows) is a valid account, not a validation failure of every endpoint
// read, poll and delete.
import { ComputePlatform, PacingRegistry, schemas } from "../../../src/client";
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

test("a discount's expirationDate must still be a string or null", () => {
  const bad = { endpoints: [], serverlessDiscount: { ...discount, expirationDate: 5 } };
  expect(schemas.MyselfSchema.safeParse(bad).success).toBe(false);
  expect(schemas.MyselfSchema.safeParse({ endpoints: [], serverlessDiscount: { ...discount, expirationDate: "2027-01-01" } }).success).toBe(true);
});

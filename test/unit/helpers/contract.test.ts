// The contract check itself (test/helpers/contract.ts) flags what it must: an answer missing a
// required field, a wrong media type, an accepted body the contract refuses; and passes a fit.
import type { Exchange } from "../../../src/emulator";
import { operationOf, violations } from "../../helpers/contract";

const x = (more: Partial<Exchange>): Exchange => ({
  method: "GET",
  path: "/v2/network-volumes/nv1",
  query: "",
  op: "getNetworkVolume",
  status: 200,
  contentType: "application/json",
  dropped: false,
  ...more,
});
const VOLUME = { id: "nv1", name: "v", size: 10, dataCenter: "EU-RO-1", type: "STANDARD" };

test("operations are matched by method and path template; literals beat parameters", () => {
  expect(operationOf("GET", "/v2/network-volumes/nv1")?.operationId).toBe("getNetworkVolume");
  expect(operationOf("POST", "/v2/pods/p1/action")?.operationId).toBe("podAction");
  expect(operationOf("GET", "/v2/registries/delegations")?.operationId).toBe("listDelegations");
  expect(operationOf("PUT", "/v2/pods")).toBeUndefined();
});

test("a fitting answer passes; a missing field, a wrong type or media type is named", () => {
  expect(violations(x({ responseBody: VOLUME }))).toEqual([]);
  const { type: _t, ...untyped } = VOLUME;
  expect(violations(x({ responseBody: untyped }))[0]).toMatch(/getNetworkVolume's schema: \/ must have required property 'type'/);
  expect(violations(x({ responseBody: { ...VOLUME, type: "FAST" } }))[0]).toMatch(/\/type must be equal to one of the allowed values/);
  expect(violations(x({ contentType: "text/plain", responseBody: VOLUME }))[0]).toMatch(/content type text\/plain is not one of application\/json/);
  const problem = { title: "Not Found", status: 404, detail: "nope" };
  expect(violations(x({ status: 404, contentType: "application/problem+json", responseBody: problem }))).toEqual([]);
  expect(violations(x({ status: 404, contentType: "application/problem+json", responseBody: { status: 404 } })).length).toBe(1);
});

test("an accepted request body outside the operation's schema is named; a 204 with a body too", () => {
  const created = x({ method: "POST", path: "/v2/network-volumes", status: 201, responseBody: VOLUME });
  expect(violations({ ...created, requestBody: { name: "v", size: 10, dataCenter: "EU-RO-1" } })).toEqual([]);
  expect(violations({ ...created, requestBody: { name: "v", size: 10, dataCenter: "EU-RO-1", bogus: 1 } })[0]).toMatch(
    /accepted a request body outside createNetworkVolume's schema/,
  );
  expect(violations(x({ method: "DELETE", status: 204, contentType: undefined, responseBody: {} }))[0]).toMatch(/without a body/);
});

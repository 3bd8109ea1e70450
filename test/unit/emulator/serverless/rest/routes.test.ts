// REST group Serverless over the endpoint store GraphQL uses: the contract's operationIds on
// /v2/serverless, a create answered 201, a delete 204 with no body; workers and releases by id.
import type { RestEndpoints } from "../../../../../src/emulator/serverless/rest/endpoints";
import { restServerlessRoutes } from "../../../../../src/emulator/serverless/rest/routes";
import { routeContext as ctx } from "../../../../helpers/route-context";

function group() {
  const calls: string[] = [];
  const fake = {
    list: () => [{ id: "e1" }],
    create: (body: unknown) => (calls.push(`create ${JSON.stringify(body)}`), { id: "e2" }),
    get: (id: string) => ({ id }),
    update: (id: string, body: unknown) => (calls.push(`update ${id} ${JSON.stringify(body)}`), { id, updated: true }),
    delete: (id: string) => void calls.push(`delete ${id}`),
    workers: (id: string) => [{ id: `${id}-w1` }],
    releases: (id: string) => ({ endpointVersion: 1, of: id }),
  };
  const { routes } = restServerlessRoutes(fake as unknown as RestEndpoints);
  return { calls, run: (op: string, over = {}) => routes.find((r) => r.op === op)!.run(ctx(over)), routes };
}

test("seven routes under the contract's operationIds", () => {
  expect(group().routes.map((r) => [r.method, r.path, r.op])).toEqual([
    ["GET", "/v2/serverless", "listEndpoints"],
    ["POST", "/v2/serverless", "createEndpoint"],
    ["GET", "/v2/serverless/{id}", "getEndpoint"],
    ["PATCH", "/v2/serverless/{id}", "updateEndpoint"],
    ["DELETE", "/v2/serverless/{id}", "deleteEndpoint"],
    ["GET", "/v2/serverless/{id}/workers", "listEndpointWorkers"],
    ["GET", "/v2/serverless/{id}/releases", "listEndpointReleases"],
  ]);
});

test("list under `endpoints`, create 201, get and update 200, delete 204 with no body", async () => {
  const g = group();
  expect(await g.run("listEndpoints")).toEqual({ status: 200, body: { endpoints: [{ id: "e1" }] } });
  expect(await g.run("createEndpoint", { body: { name: "n" } })).toEqual({ status: 201, body: { id: "e2" } });
  expect(await g.run("getEndpoint", { params: { id: "e1" } })).toEqual({ status: 200, body: { id: "e1" } });
  expect(await g.run("updateEndpoint", { params: { id: "e1" }, body: { name: "m" } })).toEqual({ status: 200, body: { id: "e1", updated: true } });
  expect(await g.run("deleteEndpoint", { params: { id: "e1" } })).toEqual({ status: 204, body: undefined });
  expect(g.calls).toEqual(['create {"name":"n"}', 'update e1 {"name":"m"}', "delete e1"]);
});

test("an endpoint's workers and releases are read by its id", async () => {
  const g = group();
  expect(await g.run("listEndpointWorkers", { params: { id: "e1" } })).toEqual({ status: 200, body: [{ id: "e1-w1" }] });
  expect(await g.run("listEndpointReleases", { params: { id: "e1" } })).toEqual({ status: 200, body: { endpointVersion: 1, of: "e1" } });
});

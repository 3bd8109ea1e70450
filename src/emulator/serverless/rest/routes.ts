// REST group Serverless: listEndpoints, createEndpoint, getEndpoint, updateEndpoint,
// deleteEndpoint, listEndpointWorkers, listEndpointReleases, over the endpoint store GraphQL
// uses (./endpoints.ts). Builds and worker logs are not served. Its state is the
// serverless part of the state file, saved by ../routes.ts.

import { type Group, ok } from "../../core/http/types";
import type { RestEndpoints } from "./endpoints";

export function restServerlessRoutes(endpoints: RestEndpoints): Group {
  const one = "/v2/serverless/{id}";
  return {
    routes: [
      { method: "GET", path: "/v2/serverless", op: "listEndpoints", run: () => ok(200, { endpoints: endpoints.list() }) },
      { method: "POST", path: "/v2/serverless", op: "createEndpoint", run: ({ body }) => ok(201, endpoints.create(body)) },
      { method: "GET", path: one, op: "getEndpoint", run: ({ params }) => ok(200, endpoints.get(params.id)) },
      {
        method: "PATCH",
        path: one,
        op: "updateEndpoint",
        run: ({ params, body }) => ok(200, endpoints.update(params.id, body)),
      },
      {
        method: "DELETE",
        path: one,
        op: "deleteEndpoint",
        run: ({ params }) => {
          endpoints.delete(params.id);
          return ok(204);
        },
      },
      { method: "GET", path: `${one}/workers`, op: "listEndpointWorkers", run: ({ params }) => ok(200, endpoints.workers(params.id)) },
      { method: "GET", path: `${one}/releases`, op: "listEndpointReleases", run: ({ params }) => ok(200, endpoints.releases(params.id)) },
    ],
  };
}

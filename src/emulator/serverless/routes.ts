// The serverless side's paths: GraphQL endpoint management and hosted-model calls (runsync;
// run, status and status-sync follow the same job); its state part is the whole service's snapshot.

import { type Group, ok, type Route } from "../core/http/types";
import type { ServerlessService } from "./service";

/**
 * Every hosted-model route: bearer auth and problem+json failures, and the scopes of a paid job
 * (write) whose answer is its output (read). Following a job needs the same.
 */
const JOB_ROUTE = { kind: "runsync", mutates: false, scopes: ["read", "write"] } as const satisfies Partial<Route>;

/** `onCall` learns of every hosted-model job submitted (a paid job: runsync or run). */
export function serverlessRoutes(serverless: ServerlessService, onCall: (modelId: string) => void): Group {
  return {
    routes: [
      {
        method: "POST",
        path: "/graphql",
        op: "graphql",
        kind: "graphql",
        mutates: false,
        scopes: [],
        hasBody: true,
        run: async ({ body, caller }) => {
          const r = await serverless.executeGraphql(body, caller);
          return { status: r.status, body: r.body, ops: r.ops };
        },
      },
      {
        method: "POST",
        path: "/v2/{id}/runsync",
        op: "runSync",
        ...JOB_ROUTE,
        hasBody: true,
        run: async ({ params, body, query }) => {
          const r = await serverless.runSync(params.id, body, query.get("wait"));
          if (r.status === 200) onCall(params.id);
          return { ...ok(r.status, r.body), headers: r.headers };
        },
      },
      {
        method: "POST",
        path: "/v2/{id}/run",
        op: "run",
        ...JOB_ROUTE,
        hasBody: true,
        run: ({ params, body }) => {
          const r = serverless.run(params.id, body);
          if (r.status === 200) onCall(params.id);
          return { ...ok(r.status, r.body), headers: r.headers };
        },
      },
      {
        method: "GET",
        path: "/v2/{id}/status/{jobId}",
        op: "status",
        ...JOB_ROUTE,
        run: async ({ params }) => {
          const r = await serverless.status(params.id, params.jobId);
          return { ...ok(r.status, r.body), headers: r.headers };
        },
      },
      {
        method: "GET",
        path: "/v2/{id}/status-sync/{jobId}",
        op: "statusSync",
        ...JOB_ROUTE,
        run: async ({ params, query }) => {
          const r = await serverless.status(params.id, params.jobId, query.get("wait"));
          return { ...ok(r.status, r.body), headers: r.headers };
        },
      },
    ],
    state: [{ key: "serverless", snapshot: () => serverless.snapshot(), restore: (saved) => serverless.restore(saved) }],
  };
}

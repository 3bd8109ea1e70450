// The serverless side's paths: GraphQL endpoint management and hosted-model calls;
// its state part is the whole service's snapshot.

import { type Group, ok } from "../http/types";
import type { ServerlessService } from "./index";

/** `onCall` learns of every hosted-model call that ran (a paid job). */
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
        kind: "runsync",
        mutates: false,
        // A paid job (write) whose answer is its output (read).
        scopes: ["read", "write"],
        hasBody: true,
        run: async ({ params, body, query }) => {
          const r = await serverless.runSync(params.id, body, query.get("wait"));
          if (r.status === 200) onCall(params.id);
          return { ...ok(r.status, r.body), headers: r.headers };
        },
      },
    ],
    state: [{ key: "serverless", snapshot: () => serverless.snapshot(), restore: (saved) => serverless.restore(saved) }],
  };
}

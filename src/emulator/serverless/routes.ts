// The serverless side's paths: GraphQL endpoint management and hosted-model calls (runsync;
// run, status and status-sync follow the same job); its state part is the whole service's snapshot.

import { type Group, ok, type Route } from "../core/http/types";
import { refuse } from "./jobs/job";
import type { ServerlessService } from "./service";

/**
 * Every hosted-model route: bearer auth and problem+json failures, and the scopes of a paid job
 * (write) whose answer is its output (read). Following a job needs the same.
 */
const JOB_ROUTE = { kind: "runsync", mutates: false, scopes: ["read", "write"] } as const satisfies Partial<Route>;

/** `onCall` learns of every hosted-model job submitted (a paid job: runsync or run). */
export function serverlessRoutes(serverless: ServerlessService, onCall: (modelId: string) => void, now: () => number): Group {
  const jobs = serverless;
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
          if (jobs.endpointJobs.has(params.id)) return jobs.jobCalls.runSync(params.id, body, query.get("wait"));
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
          if (jobs.endpointJobs.has(params.id)) return jobs.jobCalls.run(params.id, body);
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
          if (jobs.endpointJobs.has(params.id)) return jobs.jobCalls.status(params.id, params.jobId);
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
          if (jobs.endpointJobs.has(params.id)) return jobs.jobCalls.status(params.id, params.jobId, query.get("wait"));
          const r = await serverless.status(params.id, params.jobId, query.get("wait"));
          return { ...ok(r.status, r.body), headers: r.headers };
        },
      },
      ...endpointJobRoutes(serverless, now),
    ],
    state: [{ key: "serverless", snapshot: () => serverless.snapshot(), restore: (saved) => serverless.restore(saved) }],
  };
}

/** The routes only an account's endpoint serves (a hosted model or an unknown id: 404). */
function endpointJobRoutes(serverless: ServerlessService, now: () => number): Route[] {
  const calls = serverless.jobCalls;
  const known = <T>(id: string, run: () => T) =>
    serverless.endpointJobs.has(id) ? run() : refuse(404, `no endpoint ${JSON.stringify(id)} of this account`);
  const route = (method: "GET" | "POST", path: string, op: string, run: Route["run"], hasBody = false): Route => ({
    method,
    path,
    op,
    ...JOB_ROUTE,
    hasBody,
    run,
  });
  return [
    route("GET", "/v2/{id}/stream/{jobId}", "stream", ({ params }) => known(params.id, () => calls.stream(params.id, params.jobId))),
    route("POST", "/v2/{id}/cancel/{jobId}", "cancel", ({ params }) => known(params.id, () => calls.cancel(params.id, params.jobId))),
    route("POST", "/v2/{id}/retry/{jobId}", "retry", ({ params }) => known(params.id, () => calls.retry(params.id, params.jobId))),
    route("POST", "/v2/{id}/purge-queue", "purgeQueue", ({ params }) => known(params.id, () => calls.purgeQueue(params.id))),
    route("GET", "/v2/{id}/health", "health", ({ params }) => known(params.id, () => calls.health(params.id))),
    route("GET", "/v2/{id}/openai/v1/models", "openaiModels", ({ params }) => known(params.id, () => calls.models(params.id, now()))),
    route(
      "POST",
      "/v2/{id}/openai/v1/chat/completions",
      "openaiChatCompletions",
      ({ params, body }) => known(params.id, () => calls.completion(params.id, "chat/completions", body, now())),
      true,
    ),
    route(
      "POST",
      "/v2/{id}/openai/v1/completions",
      "openaiCompletions",
      ({ params, body }) => known(params.id, () => calls.completion(params.id, "completions", body, now())),
      true,
    ),
  ];
}

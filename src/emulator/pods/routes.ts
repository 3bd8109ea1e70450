// REST group Pods: listPods, createPod, getPod, updatePod, deletePod, podAction.

import { type Group, ok } from "../core/http/types";
import type { Pods } from "./store";

export function podRoutes(pods: Pods): Group {
  return {
    routes: [
      {
        method: "GET",
        path: "/v2/pods",
        op: "listPods",
        run: () => ok(200, { pods: pods.list().map((p) => pods.view(p)) }),
      },
      { method: "POST", path: "/v2/pods", op: "createPod", run: ({ body }) => ok(201, pods.viewAsCreated(pods.create(body))) },
      { method: "GET", path: "/v2/pods/{id}", op: "getPod", run: ({ params }) => ok(200, pods.view(pods.get(params.id))) },
      {
        method: "PATCH",
        path: "/v2/pods/{id}",
        op: "updatePod",
        run: ({ params, body }) => ok(200, pods.view(pods.update(params.id, body))),
      },
      {
        method: "DELETE",
        path: "/v2/pods/{id}",
        op: "deletePod",
        run: ({ params }) => {
          pods.delete(params.id);
          return ok(204);
        },
      },
      {
        method: "POST",
        path: "/v2/pods/{id}/action",
        op: "podAction",
        run: ({ params, body }) => {
          const pod = pods.action(params.id, body);
          return pod.status === "TERMINATED" ? ok(204) : ok(200, pods.view(pod));
        },
      },
    ],
    state: [{ key: "pods", snapshot: () => pods.snapshot(), restore: (saved) => pods.restore(saved) }],
  };
}

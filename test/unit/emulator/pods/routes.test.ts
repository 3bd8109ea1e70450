// REST group Pods over the pod store: the contract's operationIds, a create answered as made
// (201), an action that terminates answered 204 with no body, and the store's state part.
import { podRoutes } from "../../../../src/emulator/pods/routes";
import type { Pods } from "../../../../src/emulator/pods/store";
import { routeContext as ctx } from "../../../helpers/route-context";


/** The calls a route makes on the store, and what each answers. */
function pods() {
  const calls: string[] = [];
  const rec = (id: string, status = "RUNNING") => ({ id, status });
  const fake = {
    list: () => [rec("p1"), rec("p2")],
    create: (body: unknown) => (calls.push(`create ${JSON.stringify(body)}`), rec("p3", "PROVISIONING")),
    get: (id: string) => rec(id),
    update: (id: string, body: unknown) => (calls.push(`update ${id} ${JSON.stringify(body)}`), rec(id)),
    delete: (id: string) => void calls.push(`delete ${id}`),
    action: (id: string, body: { action: string }) => rec(id, body.action === "terminate" ? "TERMINATED" : "EXITED"),
    view: (p: { id: string; status: string }) => ({ ...p, view: "now" }),
    viewAsCreated: (p: { id: string; status: string }) => ({ ...p, view: "as created" }),
    snapshot: () => ["saved"],
    restore: (saved: unknown) => void calls.push(`restore ${JSON.stringify(saved)}`),
  };
  return { calls, group: podRoutes(fake as unknown as Pods) };
}

const route = (group: ReturnType<typeof podRoutes>, op: string) => group.routes.find((r) => r.op === op)!;

test("six routes under the contract's operationIds", () => {
  expect(pods().group.routes.map((r) => [r.method, r.path, r.op])).toEqual([
    ["GET", "/v2/pods", "listPods"],
    ["POST", "/v2/pods", "createPod"],
    ["GET", "/v2/pods/{id}", "getPod"],
    ["PATCH", "/v2/pods/{id}", "updatePod"],
    ["DELETE", "/v2/pods/{id}", "deletePod"],
    ["POST", "/v2/pods/{id}/action", "podAction"],
  ]);
});

test("a list answers every pod as it reads now; a create 201 with the pod as it was made", async () => {
  const { group, calls } = pods();
  expect(await route(group, "listPods").run(ctx())).toEqual({
    status: 200,
    body: { pods: [{ id: "p1", status: "RUNNING", view: "now" }, { id: "p2", status: "RUNNING", view: "now" }] },
  });
  expect(await route(group, "createPod").run(ctx({ body: { name: "n" } }))).toEqual({
    status: 201,
    body: { id: "p3", status: "PROVISIONING", view: "as created" },
  });
  expect(calls).toEqual(['create {"name":"n"}']);
});

test("get and update answer 200 with the pod; delete 204 with no body", async () => {
  const { group, calls } = pods();
  expect(await route(group, "getPod").run(ctx({ params: { id: "p1" } }))).toEqual({ status: 200, body: { id: "p1", status: "RUNNING", view: "now" } });
  expect((await route(group, "updatePod").run(ctx({ params: { id: "p1" }, body: { image: "i:2" } }))).status).toBe(200);
  expect(await route(group, "deletePod").run(ctx({ params: { id: "p1" } }))).toEqual({ status: 204, body: undefined });
  expect(calls).toEqual(['update p1 {"image":"i:2"}', "delete p1"]);
});

test("an action answers 200 with the pod, or 204 with no body when it terminated it", async () => {
  const { group } = pods();
  expect(await route(group, "podAction").run(ctx({ params: { id: "p1" }, body: { action: "stop" } }))).toEqual({
    status: 200,
    body: { id: "p1", status: "EXITED", view: "now" },
  });
  expect(await route(group, "podAction").run(ctx({ params: { id: "p1" }, body: { action: "terminate" } }))).toEqual({ status: 204, body: undefined });
});

test("the store's records are the state file's `pods`", () => {
  const { group, calls } = pods();
  const [part] = group.state!;
  expect(part.key).toBe("pods");
  expect(part.snapshot()).toEqual(["saved"]);
  part.restore(["x"]);
  expect(calls).toEqual(['restore ["x"]']);
});

// The five routes of a plain REST collection over a store: list, create, get, update and delete,
// under the contract's operationIds, and the store's part of the state file. A collection
// without update (registries) has no PATCH.
import { crudRoutes, type Store } from "../../../../../src/emulator/core/http/crud";
import { routeContext as ctx } from "../../../../helpers/route-context";

function store(withUpdate = true) {
  const items = new Map<string, { id: string; name: string }>();
  const calls: string[] = [];
  const s: Store = {
    list: () => [...items.values()],
    create: (body) => {
      const item = { id: `t${items.size + 1}`, name: (body as { name: string }).name };
      items.set(item.id, item);
      return item;
    },
    get: (id) => items.get(id),
    delete: (id) => {
      calls.push(`delete ${id}`);
      items.delete(id);
    },
    snapshot: () => [...items.values()],
    restore: (saved) => {
      for (const item of saved as { id: string; name: string }[]) items.set(item.id, item);
    },
  };
  if (withUpdate) s.update = (id, body) => Object.assign(items.get(id) as object, body);
  return { s, items, calls };
}


const TEMPLATES = {
  path: "/v2/templates",
  listKey: "templates",
  ops: ["listTemplates", "createTemplate", "getTemplate", "updateTemplate", "deleteTemplate"] as [string, string, string, string, string],
  stateKey: "templates",
};

test("five routes on the collection's path and its /{id}, under the ops given", () => {
  const { routes } = crudRoutes(TEMPLATES, store().s);
  expect(routes.map((r) => [r.method, r.path, r.op])).toEqual([
    ["GET", "/v2/templates", "listTemplates"],
    ["POST", "/v2/templates", "createTemplate"],
    ["GET", "/v2/templates/{id}", "getTemplate"],
    ["PATCH", "/v2/templates/{id}", "updateTemplate"],
    ["DELETE", "/v2/templates/{id}", "deleteTemplate"],
  ]);
});

test("create answers 201 with what the store made; get 200; list 200 under the list's key; update 200; delete 204 with no body", async () => {
  const { s, calls } = store();
  const [list, create, get, update, del] = crudRoutes(TEMPLATES, s).routes;
  expect(await create.run(ctx({ body: { name: "a" } }))).toEqual({ status: 201, body: { id: "t1", name: "a" } });
  expect(await get.run(ctx({ params: { id: "t1" } }))).toEqual({ status: 200, body: { id: "t1", name: "a" } });
  expect(await update.run(ctx({ params: { id: "t1" }, body: { name: "b" } }))).toEqual({ status: 200, body: { id: "t1", name: "b" } });
  expect(await list.run(ctx())).toEqual({ status: 200, body: { templates: [{ id: "t1", name: "b" }] } });
  expect(await del.run(ctx({ params: { id: "t1" } }))).toEqual({ status: 204, body: undefined });
  expect(calls).toEqual(["delete t1"]);
});

test("a store without update, or a collection with no update op, has no PATCH route", () => {
  const noUpdate = crudRoutes(TEMPLATES, store(false).s).routes;
  expect(noUpdate.map((r) => r.method)).toEqual(["GET", "POST", "GET", "DELETE"]);
  const registries = crudRoutes(
    { path: "/v2/registries", listKey: "registries", ops: ["listRegistries", "createRegistry", "getRegistry", undefined, "deleteRegistry"], stateKey: "registries" },
    store().s,
  ).routes;
  expect(registries.map((r) => r.op)).toEqual(["listRegistries", "createRegistry", "getRegistry", "deleteRegistry"]);
});

test("the store's state part is under the collection's key and restores what was saved", async () => {
  const first = store();
  const { state } = crudRoutes(TEMPLATES, first.s);
  await crudRoutes(TEMPLATES, first.s).routes[1].run(ctx({ body: { name: "kept" } }));
  expect(state.map((p) => p.key)).toEqual(["templates"]);
  const saved = JSON.parse(JSON.stringify(state[0].snapshot()));
  const second = store();
  crudRoutes(TEMPLATES, second.s).state[0].restore(saved);
  expect([...second.items.values()]).toEqual([{ id: "t1", name: "kept" }]);
});

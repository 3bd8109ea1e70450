// The five routes of a plain REST collection (list, create, get, update, delete) over a
// store, named with the contract's operationIds. Network volumes, templates and registries
// are such collections; pods are not (actions, TERMINATED pods that still read).

import { ok, type Route, type StatePart } from "./types";

export interface Store {
  list(): unknown[];
  create(body: unknown): unknown;
  get(id: string): unknown;
  /** Absent: the collection has no update (PATCH answers 405). */
  update?(id: string, body: unknown): unknown;
  delete(id: string): void;
  snapshot(): unknown;
  restore(saved: unknown): void;
}

export interface Collection {
  /** `/v2/templates` */
  path: string;
  /** The list answer's key, e.g. `templates`. */
  listKey: string;
  /** operationIds: [list, create, get, update, delete]. */
  ops: [string, string, string, string | undefined, string];
  /** The state file's key for the store. */
  stateKey: string;
}

export function crudRoutes(c: Collection, store: Store): { routes: Route[]; state: StatePart[] } {
  const [listOp, createOp, getOp, updateOp, deleteOp] = c.ops;
  const one = `${c.path}/{id}`;
  const routes: Route[] = [
    { method: "GET", path: c.path, op: listOp, run: () => ok(200, { [c.listKey]: store.list() }) },
    { method: "POST", path: c.path, op: createOp, run: ({ body }) => ok(201, store.create(body)) },
    { method: "GET", path: one, op: getOp, run: ({ params }) => ok(200, store.get(params.id)) },
  ];
  const update = store.update?.bind(store);
  if (update && updateOp) {
    routes.push({ method: "PATCH", path: one, op: updateOp, run: ({ params, body }) => ok(200, update(params.id, body)) });
  }
  routes.push({
    method: "DELETE",
    path: one,
    op: deleteOp,
    run: ({ params }) => {
      store.delete(params.id);
      return ok(204);
    },
  });
  return { routes, state: [{ key: c.stateKey, snapshot: () => store.snapshot(), restore: (s) => store.restore(s) }] };
}

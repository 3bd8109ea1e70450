// REST group Registries: listRegistries, createRegistry, getRegistry, deleteRegistry (no update).

import type { Group } from "../core/http/types";
import type { Registries } from "./store";
import { crudRoutes } from "../core/http/crud";

export function registryRoutes(registries: Registries): Group {
  return crudRoutes(
    {
      path: "/v2/registries",
      listKey: "registries",
      ops: ["listRegistries", "createRegistry", "getRegistry", undefined, "deleteRegistry"],
      stateKey: "registries",
    },
    registries,
  );
}

// REST group Templates: listTemplates, createTemplate, getTemplate, updateTemplate, deleteTemplate.

import type { Group } from "../core/http/types";
import type { Templates } from "./store";
import { crudRoutes } from "../core/http/crud";

export function templateRoutes(templates: Templates): Group {
  return crudRoutes(
    {
      path: "/v2/templates",
      listKey: "templates",
      ops: ["listTemplates", "createTemplate", "getTemplate", "updateTemplate", "deleteTemplate"],
      stateKey: "templates",
    },
    templates,
  );
}

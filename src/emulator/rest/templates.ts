// REST group Templates: listTemplates, createTemplate, getTemplate, updateTemplate, deleteTemplate.

import type { Group } from "../http/types";
import type { Templates } from "../templates";
import { crudRoutes } from "./crud";

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

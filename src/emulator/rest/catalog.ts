// REST group Catalog: the GPU types, CPU flavors and data centers the platform offers.

import { CPU_FLAVORS, DATA_CENTERS, GPU_TYPES } from "../catalog";
import { type Group, ok } from "../http/types";

export function catalogRoutes(): Group {
  return {
    routes: [
      { method: "GET", path: "/v2/catalog/cpus", op: "listCpus", run: () => ok(200, { cpus: structuredClone(CPU_FLAVORS) }) },
      { method: "GET", path: "/v2/catalog/gpus", op: "listGpus", run: () => ok(200, { gpus: structuredClone(GPU_TYPES) }) },
      {
        method: "GET",
        path: "/v2/catalog/datacenters",
        op: "listDataCenters",
        run: () => ok(200, { dataCenters: structuredClone(DATA_CENTERS) }),
      },
    ],
  };
}

// REST group Network Volumes: list, create, get, update, delete.

import type { Group } from "../core/http/types";
import type { NetworkVolumes } from "./store";
import { crudRoutes } from "../core/http/crud";

export function networkVolumeRoutes(volumes: NetworkVolumes): Group {
  return crudRoutes(
    {
      path: "/v2/network-volumes",
      listKey: "networkVolumes",
      ops: ["listNetworkVolumes", "createNetworkVolume", "getNetworkVolume", "updateNetworkVolume", "deleteNetworkVolume"],
      stateKey: "networkVolumes",
    },
    volumes,
  );
}

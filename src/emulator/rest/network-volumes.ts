// REST group Network Volumes: list, create, get, update, delete.

import type { Group } from "../http/types";
import type { NetworkVolumes } from "../network-volumes";
import { crudRoutes } from "./crud";

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

// REST group Network Volumes: list, create, get, update, delete.

import { type Group, ok } from "../http/types";
import type { NetworkVolumes } from "../network-volumes";

export function networkVolumeRoutes(volumes: NetworkVolumes): Group {
  return {
    routes: [
      {
        method: "GET",
        path: "/v2/network-volumes",
        op: "listNetworkVolumes",
        run: () => ok(200, { networkVolumes: volumes.list() }),
      },
      {
        method: "POST",
        path: "/v2/network-volumes",
        op: "createNetworkVolume",
        run: ({ body }) => ok(201, volumes.create(body)),
      },
      {
        method: "GET",
        path: "/v2/network-volumes/{id}",
        op: "getNetworkVolume",
        run: ({ params }) => ok(200, volumes.get(params.id)),
      },
      {
        method: "PATCH",
        path: "/v2/network-volumes/{id}",
        op: "updateNetworkVolume",
        run: ({ params, body }) => ok(200, volumes.update(params.id, body)),
      },
      {
        method: "DELETE",
        path: "/v2/network-volumes/{id}",
        op: "deleteNetworkVolume",
        run: ({ params }) => {
          volumes.delete(params.id);
          return ok(204);
        },
      },
    ],
    state: [{ key: "networkVolumes", snapshot: () => volumes.snapshot(), restore: (saved) => volumes.restore(saved) }],
  };
}

// What the pipeline hands a route's handler, for tests that run a route in-process: no
// parameters, body or query unless given, and a caller who may read and write.
import type { RouteContext } from "../../src/emulator/core/http/types";

export function routeContext(over: Partial<RouteContext> = {}): RouteContext {
  return {
    params: {},
    body: undefined,
    query: new URLSearchParams(),
    caller: { canRead: true, canWrite: true, charge: () => undefined },
    ...over,
  };
}

// The order of list answers. The contract promises none, so a client must not rest on one:
// `shuffled` answers every list of the account's objects in a new order each time (seeded, so
// a run is reproducible), where `created` (the default) answers in creation order.

import { seededRandom } from "../faults";
import type { Reply } from "./types";

/** How the emulator orders the lists of pods, volumes, templates, credentials and endpoints. */
export type ListOrder = "created" | "shuffled";

/** The REST lists it reorders, by operation, and the field holding the list. */
const REST_LISTS: Record<string, string> = {
  listPods: "pods",
  listNetworkVolumes: "networkVolumes",
  listTemplates: "templates",
  listRegistries: "registries",
  listEndpoints: "endpoints",
};

export class ListOrdering {
  private readonly random: () => number;

  constructor(
    readonly order: ListOrder,
    seed = 1,
  ) {
    if (order !== "created" && order !== "shuffled") throw new RangeError(`listOrder must be "created" or "shuffled", got ${JSON.stringify(order)}`);
    this.random = seededRandom(seed);
  }

  /** `reply` of operation `op` with its list in this order (GraphQL: `myself.endpoints`). */
  apply(op: string, reply: Reply): Reply {
    if (this.order === "created" || reply.status >= 400 || typeof reply.body !== "object" || reply.body === null) return reply;
    const body = reply.body as Record<string, any>;
    const field = REST_LISTS[op];
    if (field && Array.isArray(body[field])) return { ...reply, body: { ...body, [field]: this.shuffle(body[field]) } };
    const endpoints = body.data?.myself?.endpoints;
    if (Array.isArray(endpoints)) return { ...reply, body: { ...body, data: { ...body.data, myself: { ...body.data.myself, endpoints: this.shuffle(endpoints) } } } };
    return reply;
  }

  /** Fisher-Yates with the seeded generator. */
  private shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

// The emulator's control plane: its faults and the outside events a real platform produces,
// as HTTP calls under /emulator (not part of the platform's API). Scripts and tests call them
// with `Authorization: Bearer <key>`; the console calls the same routes with its session cookie
// and CSRF token (../console/sessions.ts), and its calls are logged as the console's. Reads need the
// `read` scope, changes `write`, with the API's 403 otherwise. The control plane is exempt
// from the faults it sets and from rate limits, so a 100 % 5xx rate can still be cleared.
//
//   GET    /emulator/faults   getFaults      the faults in force
//   POST   /emulator/faults   setFaults      replaces them (like `setFaults()`)
//   PATCH  /emulator/faults   updateFaults   replaces the fields given
//   DELETE /emulator/faults   clearFaults    no faults
//   POST   /emulator/events   outsideEvent   { type: stopPod | terminatePod, podId } | { type: deleteEndpoint, endpointId }

import { z } from "zod";
import { DATA_CENTERS, GPU_TYPES } from "../catalog/data";
import { type FaultState, type Faults, linearPattern, PatternError } from "../core/faults";
import { type Group, ok, type Route } from "../core/http/types";
import type { Pods } from "../pods/store";
import { problem } from "../core/problem";

const rate = z.number().min(0).max(1);
/** Matched in linear time (core/faults.ts `linearPattern`): what that engine cannot take is a 422 naming the field. */
const pattern = z.string().max(1000).superRefine((p, ctx) => {
  try {
    new RegExp(p);
  } catch {
    ctx.addIssue({ code: "custom", message: "is not a valid regular expression" });
    return;
  }
  try {
    linearPattern(p);
  } catch (e) {
    if (!(e instanceof PatternError)) throw e;
    ctx.addIssue({ code: "custom", message: e.message });
  }
});
const gpuIds = GPU_TYPES.map((g) => g.id) as [string, ...string[]];
const dataCenterIds = DATA_CENTERS.map((d) => d.id) as [string, ...string[]];

const faultsSchema = z.strictObject({
  seed: z.number().int(),
  rate429: rate,
  rate5xx: rate,
  dropAfterProcessRate: rate,
  slowMs: z.number().int().min(0).max(600_000),
  errorImages: z.array(pattern).max(100),
  noCapacity: z.array(z.strictObject({ gpuId: z.enum(gpuIds), dataCenterId: z.enum(dataCenterIds).optional() })).max(100),
  modelJobMs: z.number().int().min(0).max(3_600_000),
  failingPrompts: z.array(pattern).max(100),
}).partial();

const eventSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("stopPod"), podId: z.string().min(1) }),
  z.strictObject({ type: z.literal("terminatePod"), podId: z.string().min(1) }),
  z.strictObject({ type: z.literal("deleteEndpoint"), endpointId: z.string().min(1) }),
]);

export type OutsideEvent = z.infer<typeof eventSchema>;

/** Parses with `schema` or throws 422 naming each field and its rule. */
function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const errors = r.error.issues.map((i) => {
    const field = i.path.length > 0 ? i.path.join(".") : "body";
    if (i.code === "unrecognized_keys") return `${field}: unknown field(s) ${i.keys.map((k) => `'${k}'`).join(", ")}`;
    return `${field}: ${i.message}`;
  });
  throw problem(422, `request body is invalid: ${errors.join("; ")}`, errors);
}

export interface ControlDeps {
  faults: FaultState;
  pods: Pods;
  /** Deletes an endpoint regardless of its workers; false when there is none. */
  removeEndpoint: (id: string) => boolean;
}

export function controlRoutes(deps: ControlDeps): Group {
  const control = (r: Omit<Route, "control">): Route => ({ ...r, control: true });
  const set = (faults: Faults) => {
    deps.faults.set(faults);
    return ok(200, deps.faults.current());
  };
  return {
    routes: [
      control({ method: "GET", path: "/emulator/faults", op: "getFaults", run: () => ok(200, deps.faults.current()) }),
      control({
        method: "POST",
        path: "/emulator/faults",
        op: "setFaults",
        run: ({ body }) => set(parse(faultsSchema, body)),
      }),
      control({
        method: "PATCH",
        path: "/emulator/faults",
        op: "updateFaults",
        run: ({ body }) => {
          const { seed: _seed, ...current } = deps.faults.current();
          // The seed restarts the sequence only when it is given.
          return set({ ...current, ...parse(faultsSchema, body) });
        },
      }),
      control({
        method: "DELETE",
        path: "/emulator/faults",
        op: "clearFaults",
        run: () => set({}),
      }),
      control({
        method: "POST",
        path: "/emulator/events",
        op: "outsideEvent",
        run: ({ body }) => {
          const event = parse(eventSchema, body);
          if (event.type === "deleteEndpoint") {
            if (!deps.removeEndpoint(event.endpointId)) throw problem(404, `endpoint '${event.endpointId}' not found`);
            return ok(200, { type: event.type, endpointId: event.endpointId });
          }
          const pod = deps.pods.outside(event.podId, event.type === "stopPod" ? "stop" : "terminate");
          return ok(200, { type: event.type, podId: pod.id, status: pod.status });
        },
      }),
    ],
  };
}

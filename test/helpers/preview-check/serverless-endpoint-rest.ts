/**
 * ServerlessEndpoint managed over REST v2 (`api: "rest"`) in the generated check of preview
 * against up (runner.ts): the same fields as over GraphQL but `templateId` and `locations`
 * (refused over REST), plus `container` (inline, required) and `dataCenterIds`. Outside
 * changes are made over REST (`PATCH /v2/serverless/{id}`), as the platform's console and MCP
 * server make them.
 *
 * Removed fields: as over GraphQL (serverless-endpoint.ts), and a container field removed
 * goes back to the platform's default (`args` "", `ports` [], `env` {}, `registry` null; `disk`
 * is kept), `dataCenterIds` removed lets the scheduler choose ([]). `api` stays `rest` (its
 * removal asks for a templateId: refused at check); `type: "LB"` cannot be created over REST:
 * refused at check.
 */
import fc from "fast-check";
import type { EndpointInputs } from "../../../src/resources/serverless-endpoint/schema";
import { restCreateBody } from "../../../src/resources/serverless-endpoint/rest-plan";
import { ServerlessEndpoint } from "../../../src/resources/serverless-endpoint";
import { GPU_IDS, endpointInputsSchema as serverlessEndpointSchema } from "../../../src/resources/serverless-endpoint/schema";
import { changedLocalFields, rolloutReasons, SAVED_FIELDS } from "../../../src/resources/serverless-endpoint/plan";
import { planRestDiff, restChanges } from "../../../src/resources/serverless-endpoint/rest-plan";
import { ENDPOINT_FIELD_DEFAULTS } from "../../../src/resources/inputs/endpoint-defaults";
import { defined, simpleName } from "./network-volume";
import { maybe } from "./pod";
import { rolledSince, watchReleases } from "./serverless-endpoint";
import type { Decl, KindModel, OutsideChange, World } from "./model";

const NOT_OVER_REST = ["templateId", "locations"];
const REST_SAVED = SAVED_FIELDS.filter((f) => !NOT_OVER_REST.includes(f));
/** The emulator's values for an endpoint created without them. */
const PLATFORM_DEFAULTS: Record<string, unknown> = { idleTimeout: 5, flashBootType: "OFF", scalerType: "QUEUE_DELAY", scalerValue: 4, workersMin: 0, workersMax: 3, networkVolumeId: null, gpuCount: 1, executionTimeoutMs: 300000 };
const CONTAINER_DEFAULTS: Record<string, unknown> = { args: "", ports: [], env: {}, registry: null };

const gpuIds = fc.oneof(fc.constantFrom(...GPU_IDS), fc.shuffledSubarray([...GPU_IDS], { minLength: 2, maxLength: 3 }).map((l) => l.join(",")));
const container = fc
  .record({
    image: fc.constantFrom("worker:1", "worker:2"),
    args: maybe(fc.constantFrom("", "serve --port 8000")),
    ports: maybe(fc.constantFrom([], ["8000/http"], ["8000/http", "22/tcp"])),
    env: maybe(fc.constantFrom({}, { MODEL: "sdxl" }, { MODEL: "flux", LOG: "debug" })),
    disk: maybe(fc.integer({ min: 10, max: 40 })),
  })
  .map((c) => defined(c));
const dataCenterIds = fc.shuffledSubarray(["US-TX-3", "US-KS-2", "EU-RO-1"], { minLength: 0, maxLength: 2 });
const volumeRef = (world: World) => fc.oneof(fc.constant(null), fc.constantFrom(...world.fixtures.volumes!));

const values = (world: World): Record<string, fc.Arbitrary<unknown>> => ({
  // Read at creation only; adoption has its own walk (test/engine/adopt.test.ts).
  adopt: fc.constant(undefined),
  name: maybe(simpleName),
  gpuIds,
  api: fc.constant("rest"),
  container,
  dataCenterIds: maybe(dataCenterIds),
  type: maybe(fc.constant("QB")),
  idleTimeout: maybe(fc.integer({ min: 0, max: 600 })),
  flashBootType: maybe(fc.constantFrom("OFF", "FLASHBOOT")),
  scalerType: maybe(fc.constantFrom("QUEUE_DELAY", "REQUEST_COUNT")),
  scalerValue: maybe(fc.integer({ min: 1, max: 10 })),
  workersMin: maybe(fc.integer({ min: 0, max: 2 })),
  workersMax: maybe(fc.integer({ min: 0, max: 3 })),
  networkVolumeId: maybe(volumeRef(world)),
  gpuCount: maybe(fc.integer({ min: 1, max: 4 })),
  executionTimeoutMs: maybe(fc.constantFrom(0, 1000, 300000, 600000)),
  waitForWorkers: maybe(fc.boolean()),
  readyTimeoutSeconds: maybe(fc.integer({ min: 1, max: 600 })),
  drainTimeoutSeconds: maybe(fc.integer({ min: 1, max: 600 })),
  waitForRollout: maybe(fc.boolean()),
  rolloutTimeoutSeconds: maybe(fc.integer({ min: 1, max: 600 })),
});

function repair(next: Decl): Decl {
  const out = { ...next };
  if (typeof out.workersMin === "number" && typeof out.workersMax === "number" && out.workersMin > out.workersMax) {
    [out.workersMin, out.workersMax] = [out.workersMax, out.workersMin];
  }
  return out;
}

/** The REST body of an outside change of one field (the resource's name for it). */
function restBody(field: string, v: unknown, live: any): Record<string, unknown> | undefined {
  switch (field) {
    case "name":
      return { name: v };
    case "gpuIds":
      return { gpu: { pools: String(v).split(",") } };
    case "workersMin":
      return (v as number) > live.workersMax ? undefined : { workers: { min: v } };
    case "workersMax":
      return (v as number) < live.workersMin ? undefined : { workers: { max: v } };
    case "idleTimeout":
      return { scaling: { idleTimeout: v } };
    case "scalerType":
      return { scaling: { type: v } };
    case "scalerValue":
      return { scaling: { value: v } };
    case "flashBootType":
      return { flashboot: v };
    case "gpuCount":
      return { gpu: { pools: String(live.gpuIds).split(","), count: v } };
    case "executionTimeoutMs":
      return { timeout: v };
    case "networkVolumeId":
      return { networkVolumes: v ? [v] : [] };
    case "dataCenterIds":
      return { dataCenterIds: v };
    case "container":
      return { env: v };
    default:
      return undefined;
  }
}

function outsideChange(field: string, value: fc.Arbitrary<unknown>, expectOf: (decl: Decl) => "update" | "same"): OutsideChange {
  return {
    value,
    apply: async (w, id, v, live) => {
      const current = field === "container" ? live.container.env : live[field];
      if (JSON.stringify(current ?? null) === JSON.stringify(v ?? null)) return false;
      const body = restBody(field, v, live);
      if (!body) return false;
      await w.client.serverless.update(id, body as never);
      return true;
    },
    expect: expectOf,
  };
}

const defaultContainer = (c: Record<string, unknown> | undefined, before: any) => ({
  image: c?.image,
  args: c?.args ?? CONTAINER_DEFAULTS.args,
  ports: c?.ports ?? CONTAINER_DEFAULTS.ports,
  env: c?.env ?? CONTAINER_DEFAULTS.env,
  registry: c?.registry ?? CONTAINER_DEFAULTS.registry,
  disk: c?.disk ?? before?.container?.disk ?? 20,
});

export const serverlessEndpointRestModel: KindModel = {
  name: "ServerlessEndpoint (REST)",
  properties: Object.keys(serverlessEndpointSchema.shape).filter((p) => !NOT_OVER_REST.includes(p)),
  values,
  initial: (w) => fc.record(values(w)).map((d) => repair(defined(d))),
  repair,
  construct: (logical, decl, opts) => new ServerlessEndpoint(logical, decl as never, opts),
  // The store's endpoint with its bound template's container, as REST shows it.
  // REST makes no load-balancing endpoint: such a walk creates over GraphQL first, as the provider's check says.
  makeByHand: async (world, c) => (c.type === "LB" ? undefined : (await world.client.serverless.create(restCreateBody(c as EndpointInputs))).id),
  live: (w, id) => {
    const state = w.emu.state();
    const ep = (state.endpoints as any[]).find((e) => e.id === id);
    if (!ep) return undefined;
    const t = state.templates.find((x) => x.id === ep.templateId);
    return { ...ep, container: t && { image: t.image, args: t.args, disk: t.disk, ports: t.ports, env: t.env, registry: t.registry } };
  },
  expectLive: (decl, live, before, _w, old) => {
    expect(live).toBeDefined();
    const want: Record<string, unknown> = { name: decl.name ?? before?.name ?? expect.stringMatching(/^subject-[0-9a-f]{7}$/), type: decl.type ?? "QB" };
    for (const f of REST_SAVED) {
      if (f === "name") continue;
      const removed = decl[f] === undefined && old?.[f] !== undefined;
      want[f] = decl[f] !== undefined ? decl[f] : removed ? ENDPOINT_FIELD_DEFAULTS[f as keyof typeof ENDPOINT_FIELD_DEFAULTS] : before ? before[f] : PLATFORM_DEFAULTS[f];
    }
    want.container = defaultContainer(decl.container as Record<string, unknown>, before);
    want.dataCenterIds = decl.dataCenterIds ?? [];
    expect(Object.fromEntries(Object.keys(want).map((k) => [k, live[k]]))).toEqual(want);
  },
  outside: (world) => {
    const v = values(world);
    const declared = (f: string) => (decl: Decl) => (decl[f] !== undefined ? ("update" as const) : ("same" as const));
    const changes: Record<string, OutsideChange> = {};
    for (const f of REST_SAVED) {
      const value = f === "name" ? simpleName : v[f]!.filter((x) => x !== undefined);
      changes[f] = outsideChange(f, value, f === "name" ? () => "update" : declared(f));
    }
    // Declared or not, the program's container env (or its default {}) and data centers ([]) are compared.
    changes.container = outsideChange("container", fc.constantFrom({ MODEL: "outside" }, { OTHER: "1" }), () => "update");
    changes.dataCenterIds = outsideChange("dataCenterIds", fc.constantFrom(["EU-RO-1"], ["US-GA-1", "US-TX-3"]), () => "update");
    return changes;
  },
  watchUp: watchReleases((olds, news) => rolloutReasons(olds, news, restChanges(olds, news))),
  rolled: rolledSince,
  plan: (olds, news) => {
    const diff = planRestDiff(olds, news);
    const updates =
      diff.replaces!.length > 0
        ? []
        : [...new Set(restChanges(olds, news).map((f) => f.split(".")[0]!)), ...changedLocalFields(olds, news)];
    return { replaces: diff.replaces ?? [], updates };
  },
};

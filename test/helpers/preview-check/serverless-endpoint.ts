/**
 * ServerlessEndpoint in the generated check of preview against up (runner.ts).
 *
 * Removed fields, as the platform and the provider treat them (ENDPOINT_FIELD_DEFAULTS):
 * - `name`: the name last applied is kept; a new endpoint gets `<logical>-<7 hex>`.
 * - `workersMin` 0, `workersMax` 0, `networkVolumeId` null, `locations` null (any region),
 *   `flashBootType` OFF, `gpuCount` 1, `executionTimeoutMs` 300000: back to the platform's
 *   default, in place.
 * - `idleTimeout`, `scalerType`, `scalerValue`: no default to return to, so check refuses the
 *   removal, naming the field (counted as refused draws).
 * - `type`: fixed at creation: a new endpoint, QB.
 * - `waitForWorkers`, `readyTimeoutSeconds`, `drainTimeoutSeconds`, `waitForRollout`,
 *   `rolloutTimeoutSeconds`: not on the platform.
 * A field never declared is the platform's choice (the emulator's defaults), never compared.
 * Draws that break a cross-field rule are put right (`repair`): workersMin above a declared
 * workersMax swaps the two.
 */
import fc from "fast-check";
import type { EndpointInputs } from "../../../src/resources/serverless-endpoint/schema";
import { createInput } from "../../../src/resources/serverless-endpoint/plan";
import { ServerlessEndpoint } from "../../../src/resources/serverless-endpoint";
import { GPU_IDS, LOCATIONS, endpointInputsSchema as serverlessEndpointSchema } from "../../../src/resources/serverless-endpoint/schema";
import { changedLocalFields, changedSavedFields, planEndpointDiff, rolloutReasons, SAVED_FIELDS } from "../../../src/resources/serverless-endpoint/plan";
import { releaseRolls } from "../../../src/resources/serverless-endpoint/rollout-plan";
import { ENDPOINT_FIELD_DEFAULTS } from "../../../src/resources/inputs/endpoint-defaults";
import { defined, simpleName } from "./network-volume";
import { maybe } from "./pod";
import type { Decl, KindModel, OutsideChange, World } from "./model";

/** The emulator's values for an endpoint saved without them (src/emulator/serverless/endpoints/rules.ts). */
const PLATFORM_DEFAULTS: Record<string, unknown> = { idleTimeout: 5, locations: null, flashBootType: "OFF", scalerType: "QUEUE_DELAY", scalerValue: 4, workersMin: 0, workersMax: 3, networkVolumeId: null, gpuCount: 1, executionTimeoutMs: 300000 };

const gpuIds = fc.oneof(fc.constantFrom(...GPU_IDS), fc.shuffledSubarray([...GPU_IDS], { minLength: 2, maxLength: 3 }).map((l) => l.join(",")));
const locations = fc.oneof(fc.constant(null), fc.constant(""), fc.shuffledSubarray([...LOCATIONS], { minLength: 1, maxLength: 2 }).map((l) => l.join(",")));
const flashBootType = fc.constantFrom("OFF", "FLASHBOOT");
const scalerType = fc.constantFrom("QUEUE_DELAY", "REQUEST_COUNT");
const seconds = fc.integer({ min: 0, max: 600 });
const scalerValue = fc.integer({ min: 1, max: 10 });
const workersMin = fc.integer({ min: 0, max: 2 });
const workersMax = fc.integer({ min: 0, max: 3 });
const gpuCount = fc.integer({ min: 1, max: 4 });
const executionTimeoutMs = fc.constantFrom(0, 1000, 300000, 600000);
const volumeRef = (world: World) => fc.oneof(fc.constant(null), fc.constantFrom(...world.fixtures.volumes!));

const values = (world: World): Record<string, fc.Arbitrary<unknown>> => ({
  // Read at creation only; adoption has its own walk (test/engine/adopt.test.ts).
  adopt: fc.constant(undefined),
  name: maybe(simpleName),
  gpuIds,
  templateId: fc.constantFrom(...world.fixtures.templates!),
  type: maybe(fc.constantFrom("QB", "LB")),
  idleTimeout: maybe(seconds),
  locations: maybe(locations),
  flashBootType: maybe(flashBootType),
  scalerType: maybe(scalerType),
  scalerValue: maybe(scalerValue),
  workersMin: maybe(workersMin),
  workersMax: maybe(workersMax),
  networkVolumeId: maybe(volumeRef(world)),
  gpuCount: maybe(gpuCount),
  executionTimeoutMs: maybe(executionTimeoutMs),
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

const emptyLocation = (v: unknown) => (v === "" ? null : v);

/** An outside save of one field (the rest as they are), as the console does. */
function save(field: string, value: (world: World) => fc.Arbitrary<unknown>, world: World): OutsideChange {
  return {
    value: value(world),
    apply: async (w, id, v, live) => {
      if (emptyLocation(live[field]) === emptyLocation(v)) return false;
      if (field === "workersMin" && (v as number) > live.workersMax) return false;
      if (field === "workersMax" && (v as number) < live.workersMin) return false;
      await w.client.endpoints.save({ id, name: live.name, gpuIds: live.gpuIds, templateId: live.templateId, type: live.type, [field]: v } as never);
      return true;
    },
    // A field the program declares shows; one it leaves to the platform does not.
    expect: (decl) => (decl[field] !== undefined ? "update" : "same"),
  };
}

/**
 * Preview, up and the platform's releases give one answer (issue 46): the fields the provider's
 * plan says roll the workers (`rolls`, what the dialect's update waits for), in the releases'
 * names, are exactly the fields of the releases this up made that roll; after the up the state's
 * version is the platform's, and a rolling change waited for is over on the platform. (A rollout
 * carried over from an earlier up, `rollout`, is no field of a release.)
 */
export function watchReleases(rolls: (olds: Record<string, any>, news: Record<string, any>) => string[]): NonNullable<KindModel["watchUp"]> {
  return async (world, id, olds, news) => {
    const planned = rolls(olds, news)
      .filter((r) => r !== "rollout")
      .sort();
    const before = (await world.client.serverless.releases(id)).endpointVersion ?? 0;
    return async (after) => {
      const now = await world.client.serverless.releases(id);
      const made = now.releases.filter((r) => (r.version ?? 0) > before);
      const rolled = [...new Set(made.flatMap((r) => r.diff.filter((d) => releaseRolls([d])).map((d) => d.field)))].sort();
      const diffs = made.map((r) => r.diff);
      expect({ planned, rolled, diffs }).toEqual({ planned, rolled: planned, diffs });
      expect(after.version).toBe(now.endpointVersion);
      if (planned.length > 0 && news.waitForRollout !== false) expect({ diffs, rollout: now.rollout }).toMatchObject({ diffs, rollout: { inProgress: false } });
    };
  };
}

/** Whether the up after this look made a release that rolls the workers (the platform's releases, read over REST). */
export async function rolledSince(world: World, id: string): Promise<() => Promise<boolean>> {
  const before = (await world.client.serverless.releases(id)).endpointVersion ?? 0;
  return async () => (await world.client.serverless.releases(id)).releases.some((r) => (r.version ?? 0) > before && releaseRolls(r.diff));
}

export const serverlessEndpointModel: KindModel = {
  name: "ServerlessEndpoint",
  // `api`, `container` and `dataCenterIds` are REST's: serverless-endpoint-rest.ts walks them.
  properties: Object.keys(serverlessEndpointSchema.shape).filter((p) => !["api", "container", "dataCenterIds"].includes(p)),
  values,
  initial: (w) => fc.record(values(w)).map((d) => repair(defined(d))),
  repair,
  construct: (logical, decl, opts) => new ServerlessEndpoint(logical, decl as never, opts),
  makeByHand: async (world, c) => (await world.client.endpoints.save(createInput(c as EndpointInputs))).id,
  live: (w, id) => (w.emu.state().endpoints as any[]).find((e) => e.id === id),
  expectLive: (decl, live, before, _w, old) => {
    expect(live).toBeDefined();
    const want: Record<string, unknown> = { name: decl.name ?? before?.name ?? expect.stringMatching(/^subject-[0-9a-f]{7}$/), type: decl.type ?? "QB" };
    for (const f of SAVED_FIELDS) {
      if (f === "name") continue;
      const removed = decl[f] === undefined && old?.[f] !== undefined;
      want[f] = emptyLocation(
        decl[f] !== undefined ? decl[f] : removed ? ENDPOINT_FIELD_DEFAULTS[f as keyof typeof ENDPOINT_FIELD_DEFAULTS] : before ? before[f] : PLATFORM_DEFAULTS[f],
      );
    }
    const got = Object.fromEntries(Object.keys(want).map((k) => [k, emptyLocation(live[k])]));
    expect(got).toEqual(want);
  },
  // Every field the platform keeps; the name is always declared (check settles it), so it always shows.
  outside: (world) =>
    Object.fromEntries(
      SAVED_FIELDS.map((f) => {
        const change = save(f, f === "name" ? () => simpleName : (w) => values(w)[f]!.filter((x) => x !== undefined), world);
        return [f, f === "name" ? { ...change, expect: () => "update" as const } : change];
      }),
    ),
  watchUp: watchReleases((olds, news) => rolloutReasons(olds, news, changedSavedFields(olds, news))),
  rolled: rolledSince,
  plan: (olds, news) => {
    const diff = planEndpointDiff(olds, news);
    const updates = diff.replaces!.length > 0 ? [] : [...changedSavedFields(olds, news), ...changedLocalFields(olds, news)];
    return { replaces: diff.replaces ?? [], updates };
  },
};

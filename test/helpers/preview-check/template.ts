/**
 * Template in the generated check of preview against up (runner.ts).
 *
 * Removed fields, as the platform and the provider treat them (TemplateArgs, the contract's
 * CreateTemplateRequest defaults, which check() writes in):
 * - `name`: the name last applied is kept; a new template gets `<logical>-<7 hex>`.
 * - `args` "", `ports` [], `env` {}, `registry` null, `serverless` false, `public` false,
 *   `category` NVIDIA: back to the platform's default, in place.
 * - `disk`: the template keeps what it has (the platform's choice).
 * - `mounts`: a PATCH cannot drop a mount, so a new template without it.
 * - `deleteWaitSeconds`: not on the platform (state only).
 *
 * What runs it: before each up that updates a serverless template that stays serverless, the
 * walk binds an endpoint to it through the client, as another stack would (one worker, ready on
 * the endpoint's version), so that the Template's line "every endpoint running it rolls its
 * workers (...)" is held to the releases the up made on that endpoint and to its worker, replaced
 * by one of the new version running the template's image; a change that rolls nothing (name,
 * mounts, public, category, deleteWaitSeconds) makes no release and keeps the worker. The
 * endpoint is deleted after the up: a bound template cannot be deleted (a replacement's old one,
 * the destroy at the end of a walk) nor stop being serverless, so a step that turns it off runs
 * unbound.
 */
import fc from "fast-check";
import { createBody } from "../../../src/resources/template/plan";
import { Template } from "../../../src/resources/template";
import { planTemplateChange } from "../../../src/resources/template/plan";
import { templateArgsSchema, type TemplateInputs } from "../../../src/resources/template/schema";
import { releaseRolls } from "../../../src/resources/serverless-endpoint/rollout-plan";
import type { ComputePlatform, EndpointWorkers } from "../../../src/client";
import { defined, simpleName } from "./network-volume";
import { containerValues, env, image, maybe, path, ports } from "./pod";
import type { BoundUser, Decl, KindModel, OutsideChange, World } from "./model";

const mounts = fc.record({ persistent: fc.record({ size: fc.integer({ min: 10, max: 60 }), path }) });
const category = fc.constantFrom("CPU", "NVIDIA", "AMD");

const values = (world: World): Record<string, fc.Arbitrary<unknown>> => ({
  // Read at creation only; adoption has its own walk (test/engine/adopt.test.ts).
  adopt: fc.constant(undefined),
  ...containerValues(world),
  mounts: maybe(mounts),
  serverless: maybe(fc.boolean()),
  public: maybe(fc.boolean()),
  category: maybe(category),
  deleteWaitSeconds: maybe(fc.integer({ min: 0, max: 3600 })),
});

const DEFAULTS: Record<string, unknown> = { args: "", ports: [], env: {}, registry: null, serverless: false, public: false, category: "NVIDIA" };

/** An outside PATCH of one field; `expectation` says what the next preview shows. */
function patch(field: string, value: fc.Arbitrary<unknown>, expectation: (decl: Decl) => "update" | "replace" | "same" = () => "update"): OutsideChange {
  return {
    value,
    apply: async (world, id, v, live) => {
      if (JSON.stringify(live[field]) === JSON.stringify(v)) return false;
      await world.client.templates.update(id, { [field]: v });
      return true;
    },
    expect: (decl) => expectation(decl),
  };
}

/** How long a bound endpoint's worker may take to settle (the walk's emulator starts and drains one in 10 ms). */
const SETTLE_MS = 10_000;

/** Endpoint `id`'s workers once exactly one is listed, ready, not stale, on the endpoint's version (a rollout over). */
async function settledWorker(client: ComputePlatform, id: string): Promise<EndpointWorkers> {
  const until = Date.now() + SETTLE_MS;
  for (;;) {
    const listed = await client.serverless.workers(id);
    const [w, ...more] = listed.workers;
    if (w && more.length === 0 && w.status === "IDLE" && !w.isStale && w.version === listed.endpointVersion) return listed;
    if (Date.now() > until) throw new Error(`endpoint ${id}'s worker did not settle within ${SETTLE_MS} ms: ${JSON.stringify(listed)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let bindings = 0;

/** An endpoint bound to serverless template `id` for one up (KindModel.bindUser: see the top of this file). */
async function bindEndpoint(world: World, id: string, olds: Record<string, any>, news: Record<string, any>): Promise<BoundUser | undefined> {
  if (olds.serverless !== true || news.serverless !== true) return undefined;
  const { client } = world;
  const endpoint = await client.endpoints.save({ name: `bound-${++bindings}`, gpuIds: "AMPERE_24", templateId: id, workersMin: 1, workersMax: 1 });
  const before = await settledWorker(client, endpoint.id);
  return {
    rolled: async () => {
      const made = (await client.serverless.releases(endpoint.id)).releases.filter((r) => (r.version ?? 0) > before.endpointVersion!);
      const rolled = [...new Set(made.flatMap((r) => r.diff.filter((d) => releaseRolls([d])).map((d) => d.field)))];
      const after = await settledWorker(client, endpoint.id);
      const image = world.emu.state().templates.find((t) => t.id === id)?.image;
      // Rolled: each worker replaced by one of the new version, running what the template says
      // now; not rolled: no release at all, the same worker where it stands.
      const worker = ({ id: wid, version, image: ran }: EndpointWorkers["workers"][number]) => ({ replaced: wid !== before.workers[0]!.id, version, image: ran });
      expect({ rolled, releases: made.map((r) => r.diff), workers: after.workers.map(worker) }).toEqual({
        rolled,
        releases: rolled.length > 0 ? made.map((r) => r.diff) : [],
        workers: [{ replaced: rolled.length > 0, version: after.endpointVersion, image }],
      });
      return rolled;
    },
    unbind: async () => {
      // An endpoint with workers cannot be deleted: none kept first.
      await client.endpoints.save({ id: endpoint.id, name: endpoint.name!, gpuIds: "AMPERE_24", templateId: id, workersMin: 0, workersMax: 0 });
      await client.endpoints.delete(endpoint.id);
    },
  };
}

export const templateModel: KindModel = {
  name: "Template",
  properties: Object.keys(templateArgsSchema.shape),
  values,
  initial: (world) => fc.record(values(world)).map(defined),
  construct: (logical, decl, opts) => new Template(logical, decl as never, opts),
  makeByHand: async (world, c) => (await world.client.templates.create(createBody(c as TemplateInputs))).id,
  live: (world, id) => world.emu.state().templates.find((t) => t.id === id),
  expectLive: (decl, live, before) => {
    expect(live).toBeDefined();
    const want: Record<string, unknown> = {
      id: live.id,
      name: decl.name ?? before?.name ?? expect.stringMatching(/^subject-[0-9a-f]{7}$/),
      image: decl.image,
      disk: decl.disk ?? before?.disk ?? 20,
      mounts: decl.mounts ?? {},
    };
    for (const [k, v] of Object.entries(DEFAULTS)) want[k] = decl[k] ?? v;
    expect(live).toEqual(want);
  },
  outside: () => ({
    name: patch("name", simpleName),
    image: patch("image", image),
    args: patch("args", fc.constantFrom("", "--debug")),
    disk: patch("disk", fc.integer({ min: 1, max: 80 }), (d) => (d.disk !== undefined ? "update" : "same")),
    // A mount added outside cannot be dropped by PATCH: only a new template puts it back, which
    // an adopted one refuses (lifecycle/adopt.ts: a new one would adopt the same id again).
    mounts: {
      ...patch("mounts", mounts),
      expect: (d) => (d.mounts !== undefined ? "update" : d.adopt !== undefined ? "refused" : "replace"),
    },
    ports: patch("ports", ports),
    env: patch("env", env),
    registry: {
      value: fc.nat(),
      apply: async (world, id, n, live) => {
        const options = [null, ...world.fixtures.registries!];
        const v = options[(n as number) % options.length];
        if (live.registry === v) return false;
        await world.client.templates.update(id, { registry: v });
        return true;
      },
      expect: () => "update",
    },
    serverless: patch("serverless", fc.boolean()),
    public: patch("public", fc.boolean()),
    category: patch("category", category),
  }),
  plan: (olds, news) => planTemplateChange(olds, news),
  bindUser: bindEndpoint,
  // A serverless template changed as a reviewer's diff would (whatever the seed draws): a new
  // image and a new env value roll the bound endpoint's workers, a new name rolls nothing, and
  // an image changed outside is put back by a release that rolls them.
  examples: () => [
    {
      first: { image: "img/a:1", serverless: true, env: { MODEL: "a" } },
      steps: [
        { kind: "change", property: "image", value: "img/a:2" },
        { kind: "change", property: "name", value: "renamed" },
        { kind: "change", property: "env", value: { MODEL: "b" } },
        { kind: "outside", field: "image", value: "img/b:1" },
      ],
    },
  ],
};

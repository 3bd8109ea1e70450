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
 */
import fc from "fast-check";
import { createBody } from "../../../src/resources/template/plan";
import { Template } from "../../../src/resources/template";
import { planTemplateChange } from "../../../src/resources/template/plan";
import { templateArgsSchema, type TemplateInputs } from "../../../src/resources/template/schema";
import { defined, simpleName } from "./network-volume";
import { containerValues, env, image, maybe, path, ports } from "./pod";
import type { Decl, KindModel, OutsideChange, World } from "./model";

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
    // A mount added outside cannot be dropped by PATCH: only a new template puts it back.
    mounts: patch("mounts", mounts, (d) => (d.mounts !== undefined ? "update" : "replace")),
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
};

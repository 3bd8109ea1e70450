/**
 * NetworkVolume in the generated check of preview against up (runner.ts).
 *
 * Removed fields, as the platform and the provider treat them:
 * - `name`: the name last applied is kept (an update never renames to a fresh auto-name); a
 *   new volume (first create, replace) gets `<logical>-<7 hex>`.
 * - `type`: the volume keeps its tier (fixed once made; README); a new volume gets the data
 *   center's first `networkVolumeTypes` entry.
 * - `deleteWaitSeconds`: not on the platform (state only).
 * Draws the platform would refuse are put right (`repair`): a smaller size than before in the
 * same data center (refused at check: volumes only grow) becomes the old size, and a type the
 * data center does not offer is dropped.
 */
import fc from "fast-check";
import { DATA_CENTERS } from "../../../src/emulator/catalog/data";
import { NetworkVolume } from "../../../src/resources/network-volume";
import { networkVolumeArgsSchema, NETWORK_VOLUME_TYPES } from "../../../src/resources/network-volume/schema";
import { planNetworkVolumeChange } from "../../../src/resources/network-volume/plan";
import type { Decl, KindModel } from "./model";

const dataCenter = fc.constantFrom(...DATA_CENTERS.map((d) => d.id));
const offered = (dc: unknown) => DATA_CENTERS.find((d) => d.id === dc)!.networkVolumeTypes;
export const simpleName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);

export const networkVolumeModel: KindModel = {
  name: "NetworkVolume",
  properties: Object.keys(networkVolumeArgsSchema.shape),
  values: () => ({
    name: fc.option(simpleName, { nil: undefined }),
    size: fc.integer({ min: 10, max: 400 }),
    dataCenter,
    type: fc.option(fc.constantFrom(...NETWORK_VOLUME_TYPES), { nil: undefined }),
    deleteWaitSeconds: fc.option(fc.integer({ min: 0, max: 3600 }), { nil: undefined }),
    // Read at creation only; adoption has its own walk (test/engine/adopt.test.ts).
    adopt: fc.constant(undefined),
  }),
  initial: () =>
    fc
      .record({
        name: fc.option(simpleName, { nil: undefined }),
        size: fc.integer({ min: 10, max: 400 }),
        dataCenter,
        type: fc.option(fc.constantFrom(...NETWORK_VOLUME_TYPES), { nil: undefined }),
        deleteWaitSeconds: fc.option(fc.integer({ min: 0, max: 3600 }), { nil: undefined }),
      })
      .map((d) => networkVolumeModel.repair!(defined(d), {}, undefined as never)),
  repair: (next, old) => {
    const out = { ...next };
    if (old.dataCenter === out.dataCenter && typeof old.size === "number" && (out.size as number) < old.size) out.size = old.size;
    if (out.type !== undefined && !offered(out.dataCenter).includes(out.type as never)) delete out.type;
    return out;
  },
  construct: (logical, decl, opts) => new NetworkVolume(logical, decl as never, opts),
  makeByHand: async (world, c) => (await world.client.networkVolumes.create({ name: c.name, size: c.size, dataCenter: c.dataCenter, ...(c.type ? { type: c.type } : {}) })).id,
  live: (world, id) => world.emu.state().networkVolumes.find((v) => v.id === id),
  holdsData: () => true,
  expectLive: (decl, live, before) => {
    expect(live).toBeDefined();
    expect(live).toEqual({
      id: live.id,
      name: decl.name ?? before?.name ?? expect.stringMatching(/^subject-[0-9a-f]{7}$/),
      size: decl.size,
      dataCenter: decl.dataCenter,
      type: decl.type ?? before?.type ?? offered(decl.dataCenter)[0],
    });
  },
  outside: () => ({
    name: {
      value: simpleName,
      apply: async (world, id, value, live) => {
        if (value === live.name) return false;
        await world.client.networkVolumes.update(id, { name: value as string });
        return true;
      },
      expect: () => "update",
    },
    size: {
      value: fc.integer({ min: 1, max: 50 }),
      apply: async (world, id, value, live) => {
        await world.client.networkVolumes.update(id, { size: live.size + (value as number) });
        return true;
      },
      // The program's size is now smaller than the volume's: a shrink, refused at preview.
      expect: () => "refused",
    },
  }),
  plan: (olds, news) => planNetworkVolumeChange(olds, news),
};

/** The declaration without its undefined properties, as a program that leaves them out. */
export function defined(d: Decl): Decl {
  return Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined));
}

/**
 * RegistryCredential in the generated check of preview against up (runner.ts).
 *
 * The platform keeps only the name (username and password are write-only) and has no update:
 * a change of name, username or password is a new credential, the old one deleted after.
 * Removed fields: `name` keeps the name last applied (a new credential gets `<logical>-<7
 * hex>`); `deleteWaitSeconds` is state only. No outside change: the platform offers none.
 */
import fc from "fast-check";
import { RegistryCredential } from "../../../src/resources/registry-credential";
import { planRegistryCredentialChange } from "../../../src/resources/registry-credential/plan";
import { registryCredentialArgsSchema } from "../../../src/resources/registry-credential/schema";
import { defined, simpleName } from "./network-volume";
import { maybe } from "./pod";
import type { KindModel } from "./model";

const secretText = fc.stringMatching(/^[A-Za-z0-9_.@-]{1,12}$/);

const values = (): Record<string, fc.Arbitrary<unknown>> => ({
  // Read at creation only; adoption has its own walk (test/engine/adopt.test.ts).
  adopt: fc.constant(undefined),
  name: maybe(simpleName),
  username: secretText,
  password: secretText,
  deleteWaitSeconds: maybe(fc.integer({ min: 0, max: 3600 })),
});

export const registryCredentialModel: KindModel = {
  name: "RegistryCredential",
  properties: Object.keys(registryCredentialArgsSchema.shape),
  values,
  initial: () => fc.record(values()).map(defined),
  construct: (logical, decl, opts) => new RegistryCredential(logical, decl as never, opts),
  nameFixed: true,
  makeByHand: async (world, c) => (await world.client.registries.create({ name: c.name, username: c.username, password: c.password })).id,
  live: (world, id) => world.emu.state().registries.find((r) => r.id === id),
  expectLive: (decl, live, before) => {
    expect(live).toEqual({ id: live?.id, name: decl.name ?? before?.name ?? expect.stringMatching(/^subject-[0-9a-f]{7}$/) });
  },
  outside: () => ({}),
  plan: (olds, news) => planRegistryCredentialChange(olds, news),
};

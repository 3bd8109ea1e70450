// RegistryCredential through Pulumi's own dynamic-provider plugin, against the emulator over
// real HTTP: a credential whose password is a secret stack config value and a pod that pulls
// with it. Preview sends nothing; up creates both; a new password replaces the credential, the
// new one first, the pod following in place, the old one deleted last without a 409; refresh
// sees a credential deleted outside the stack; destroy goes in dependency order, and waits for
// then names a pod made outside the stack. The API key, the username and the password appear
// nowhere but in secret-marked state (which Pulumi encrypts): not in `__provider`, the plugin's
// output, the emulator's request log or state, nor any error.
// The plugin loads the package from dist/ (`npm test` builds first), so run `npm run build`
// before running this file alone.
import * as pulumi from "@pulumi/pulumi";
import { ComputePlatform } from "../../src/client";
import type { Emulator } from "../../src/emulator";
import { Pod } from "../../src/resources/pod";
import { RegistryCredential } from "../../src/resources/registry-credential";
import {
  captureProgram,
  EngineStack,
  isSecret,
  PROJECT,
  type ProviderPlugin,
  type Registration,
  reveal,
  SECRET_KEYS,
  urnOf,
} from "../../tools/engine";
import { resourceCalls, resourceRegs, resourceSteps } from "../helpers/ledger";
import { placesWith } from "../../tools/faults";
import { resolvingIds } from "../../tools/engine/examples";
import { type EngineRig, startEngineRig } from "../../tools/engine/rig";

const KEY = "cp_sentinel_registry_3e9a51d7c4";
const USERNAME = "sentinel-robot-81f2c0";
const PASSWORDS = ["sentinel-pw-first-6a0d93e1", "sentinel-pw-second-b47c2f05"];
const PASSWORD_KEY = "private:registryPassword";

let rig: EngineRig;
let emu: Emulator;
let plugin: ProviderPlugin;
let client: ComputePlatform;
let config: Record<string, string>;
const errors: string[] = [];

beforeAll(async () => {
  rig = await startEngineRig(KEY);
  ({ emu, plugin, config } = rig);
  client = new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, pacing: false });
});

afterAll(async () => {
  await client?.close();
  await rig?.close();
});

/** The program: a credential from secret stack config, and a pod that names it. */
async function program(password: string, opts: { pod?: boolean; preview?: boolean } = {}): Promise<Registration[]> {
  return await captureProgram(
    () => {
      const credential = new RegistryCredential("ghcr", {
        username: USERNAME,
        password: new pulumi.Config("private").requireSecret("registryPassword"),
        deleteWaitSeconds: 1,
      });
      if (opts.pod !== false) {
        new Pod("app", { image: "ghcr.io/acme/private:1", cpu: { id: "cpu3c", vcpuCount: 2 }, registry: credential.id });
      }
    },
    {
      project: PROJECT,
      stack: "dev",
      preview: opts.preview,
      config: { ...config, [PASSWORD_KEY]: password },
      secretKeys: [...SECRET_KEYS, PASSWORD_KEY],
    },
  );
}

/** State as Pulumi writes it: each secret-marked value is encrypted, so it is left out here. */
function stateWithoutSecrets(stack: EngineStack): string {
  const hide = (v: unknown): unknown => {
    if (isSecret(v)) return "[secret]";
    if (Array.isArray(v)) return v.map(hide);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hide(x)]));
    return v;
  };
  return JSON.stringify(hide([...stack.resources.values()]));
}

/** `__provider` of every resource in state, in plain text whether or not the SDK marked it secret. */
function providers(stack: EngineStack): string {
  return [...stack.resources.values()].map((r) => JSON.stringify([reveal(r.inputs.__provider), reveal(r.outputs.__provider)])).join("\n");
}

/** The program run by the engine: the pod gets the credential's id as the engine hands it over. */
async function apply(stack: EngineStack, password: string, opts: { pod?: boolean; preview?: boolean } = {}) {
  const regs = resolvingIds(stack, await program(password, opts), { preview: !!opts.preview });
  return opts.preview ? stack.preview(regs) : stack.up(regs);
}

const registries = () => emu.state().registries as { id: string; name: string }[];
const livePod = (id: string) => emu.state().pods.find((p: any) => p.id === id) as any;

function record(error: Error | undefined): void {
  if (error) errors.push(`${error.message}\n${error.stack ?? ""}\n${JSON.stringify(error)}`);
}

test("create, replace on a new password (new first, the pod follows in place, old deleted), destroy in order", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const credUrn = urnOf("dev", PROJECT, "pulumi-nodejs:dynamic/computeplatform:RegistryCredential", "ghcr");
  const podUrn = urnOf("dev", PROJECT, "pulumi-nodejs:dynamic/computeplatform:Pod", "app");

  // The program marks the secrets itself, and asks the engine to keep the outputs secret.
  const regs = await program(PASSWORDS[0]);
  const [credReg, podReg] = resourceRegs(regs);
  expect(isSecret(credReg.inputs.password)).toBe(true);
  expect(isSecret(credReg.inputs.username)).toBe(true);
  expect(credReg.options.additionalSecretOutputs).toEqual(expect.arrayContaining(["username", "password"]));
  // The credential, and the stack's cost ledger (cost/ledger.ts).
  expect([...podReg.options.dependencies].sort()).toEqual([credUrn, expect.stringContaining("StackCost::stack-cost")]);

  const preview = await apply(stack, PASSWORDS[0], { preview: true });
  expect(preview.error).toBeUndefined();
  expect(resourceSteps(preview).map((s) => s.op)).toEqual(["create", "create"]);
  // Nothing but the catalog read that prices the stack's cost.
  expect(emu.requestLog().map((e) => `${e.method} ${e.path}`)).toEqual(["GET /v2/catalog/cpus"]);

  const up = await stack.up(resolvingIds(stack, regs, { preview: false }));
  record(up.error);
  expect(up.error).toBeUndefined();
  expectNoSecretIn({ state: stateWithoutSecrets(stack), __provider: providers(stack) });
  const cred = stack.resources.get(credUrn)!;
  const pod = stack.resources.get(podUrn)!;
  expect(cred.outputs.name).toMatch(/^ghcr-[0-9a-f]{7}$/);
  for (const k of ["username", "password"]) {
    expect(isSecret(cred.outputs[k])).toBe(true);
    expect(isSecret(cred.inputs[k])).toBe(true);
  }
  expect(registries()).toEqual([{ id: cred.id, name: cred.outputs.name }]);
  expect(livePod(pod.id).registry).toBe(cred.id);
  expect(pod.outputs.registry).toBe(cred.id);

  // The same program again: nothing to do.
  expect(resourceSteps(await apply(stack, PASSWORDS[0])).map((s) => s.op)).toEqual(["same", "same"]);

  // A new password: the credential is replaced, the pod updated in place to name the new one,
  // and the old credential deleted at the end, once nothing uses it (one DELETE, no 409).
  const from = emu.requestLog().length;
  stack.calls.length = 0;
  const rotate = await apply(stack, PASSWORDS[1]);
  record(rotate.error);
  expect(rotate.error).toBeUndefined();
  expect(resourceSteps(rotate).map((s) => [s.op, s.diff?.replaces])).toEqual([
    ["replace", ["password"]],
    ["update", []],
  ]);
  expect(resourceCalls(stack.calls)).toEqual(["Check ghcr", "Diff ghcr", "Check ghcr", "Create ghcr", "Check app", "Diff app", "Update app", "Delete ghcr"]);
  const fresh = stack.resources.get(credUrn)!;
  expect(fresh.id).not.toBe(cred.id);
  expect(stack.resources.get(podUrn)!.id).toBe(pod.id);
  expect(livePod(pod.id).registry).toBe(fresh.id);
  expect(registries().map((r) => r.id)).toEqual([fresh.id]);
  const deletes = emu.requestLog().slice(from).filter((e) => e.op === "deleteRegistry");
  expect(deletes.map((e) => e.status)).toEqual([204]);
  expect(isSecret(fresh.outputs.password)).toBe(true);
  expectNoSecretIn({ state: stateWithoutSecrets(stack), __provider: providers(stack) });

  // Refresh: the platform returns no secret; state keeps them, still marked.
  const refresh = await stack.refresh();
  expect(refresh.error).toBeUndefined();
  expect(isSecret(stack.resources.get(credUrn)!.outputs.password)).toBe(true);

  // Destroy: the pod first, then the credential, which meets no 409.
  const destroyFrom = emu.requestLog().length;
  stack.calls.length = 0;
  const destroy = await stack.destroy();
  record(destroy.error);
  expect(destroy.error).toBeUndefined();
  expect(resourceCalls(stack.calls)).toEqual(["Delete app", "Delete ghcr"]);
  expect(emu.requestLog().slice(destroyFrom).filter((e) => e.op === "deleteRegistry").map((e) => e.status)).toEqual([204]);
  expect(registries()).toEqual([]);

  expectNoSecretIn({ state: stateWithoutSecrets(stack) });
});

test("refresh sees a credential deleted outside the stack; destroy waits for a pod made outside, then names it", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const up = await apply(stack, PASSWORDS[0], { pod: false });
  record(up.error);
  expect(up.error).toBeUndefined();
  const [cred] = [...stack.resources.values()];

  // Deleted through the client, outside the stack: refresh drops it from state.
  await client.registries.delete(cred.id);
  const refresh = await stack.refresh();
  expect(refresh.steps.map((s) => s.op)).toEqual(["read-gone"]);
  expect(stack.resources.size).toBe(0);

  // Up makes it again; a pod made outside the stack then uses it.
  expect((await apply(stack, PASSWORDS[0], { pod: false })).error).toBeUndefined();
  const [again] = [...stack.resources.values()];
  expectNoSecretIn({ state: stateWithoutSecrets(stack), __provider: providers(stack) });
  const outside = await client.pods.create({ name: "outside-the-stack", image: "ghcr.io/acme/private:1", cpu: { id: "cpu3c", vcpuCount: 2 }, registry: again.id });

  // Destroy waits deleteWaitSeconds (1 s), then fails naming the pod; the credential stays.
  const blocked = await stack.destroy();
  record(blocked.error);
  expect(blocked.error?.message).toMatch(new RegExp(`registry credential ${again.id} \\("ghcr-[0-9a-f]{7}"\\) is still used by pod ${outside.id} \\("outside-the-stack", `));
  expect(stack.resources.get(again.urn)?.id).toBe(again.id);
  expect(registries().map((r) => r.id)).toEqual([again.id]);

  await client.pods.delete(outside.id);
  const destroy = await stack.destroy();
  expect(destroy.error).toBeUndefined();
  expect(registries()).toEqual([]);

  expectNoSecretIn({ state: stateWithoutSecrets(stack) });
});

afterAll(() => {
  // Every error either test met, scanned once more after both ran.
  expectNoSecretIn({});
});

/** The key, the username and every password: in none of these places, nor the shared ones. */
function expectNoSecretIn(places: Record<string, string>): void {
  const all = {
    ...places,
    "plugin stdout, stderr and engine log": plugin.transcript(),
    "emulator request log": JSON.stringify(emu.requestLog()),
    "emulator state": JSON.stringify(emu.state()),
    errors: errors.join("\n"),
  };
  for (const secret of [KEY, USERNAME, ...PASSWORDS]) {
    // The control proves the scan finds the value where it is.
    expect(placesWith(secret, { ...all, control: `x${secret}x` })).toEqual(["control"]);
  }
}

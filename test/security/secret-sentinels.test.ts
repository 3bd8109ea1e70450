/**
 * Secrets keep their mark, a check generated from the registry of kinds and the package's
 * functions: a kind or a look-up function added without a case here fails it.
 *
 * Through Pulumi's plugin against the emulator, every kind is driven with distinctive sentinel
 * values where it can hold credentials: objects made outside the stack with sentinels in their
 * `env` (a pod, a template, a REST endpoint's container) or as a password, then read with `.get`,
 * taken over with `adopt`, edited outside again and refreshed; and resources declared with
 * sentinels as secret inputs, refreshed and destroyed. Every look-up function's `…Output` form is
 * given its inputs as secrets. Then no sentinel may be in plain text in the state (secret-marked
 * values are encrypted there), the stack's outputs (the program's exports under mocks backed by
 * that state), the plugin's output (logs, the cost line) or any error. Each sentinel is also
 * looked for where it must be (secret in state), so the scan cannot pass by finding nothing.
 * The plugin loads dist/: run `npm run build` first (`npm test` does).
 */
import * as pulumi from "@pulumi/pulumi";
import * as pkg from "../../src";
import type { ProviderKind } from "../../src/resources/engine/shim";
import { NetworkVolume } from "../../src/resources/network-volume";
import { Pod } from "../../src/resources/pod";
import { RegistryCredential } from "../../src/resources/registry-credential";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { Template } from "../../src/resources/template";
import { captureProgram, EngineStack, isSecret, type LiveResource, type OperationResult, programExports, PROJECT, reveal, SECRET_KEYS } from "../../tools/engine";
import { engineRigForFile } from "../../tools/engine/rig";
import { errorSurfaces, placesWith } from "../../tools/faults";

const KEY = "cp_sentinel_marks_3c9e51a7d2";
const rig = engineRigForFile(KEY);

/** A value no other string in the repository has: wherever it shows up, it came from here. */
const sentinel = (label: string) => `sntl-${label}-8e2f6b`;
const GPU = "NVIDIA L40S";

type ComputePlatform = typeof rig.client;

/** How one kind is driven: made outside the stack, read, adopted, edited, declared with secrets. */
interface KindCase {
  /**
   * Whether a read returns the credential: then the sentinel the platform holds must come back
   * secret. A registry credential's password is never returned; a volume holds no credential.
   */
  held: boolean;
  /** An object made outside the stack holding `secret` where the kind keeps credentials. */
  seed(client: ComputePlatform, secret: string): Promise<string>;
  /** `.get` of it (`name`, `id`). */
  get(name: string, id: string): void;
  /** The same object declared with `adopt`. */
  adopt(name: string, id: string, secret: string): void;
  /** Changed outside the stack to hold `secret` (a later refresh reads it); none when the platform never returns it. */
  edit?(client: ComputePlatform, id: string, secret: string): Promise<void>;
  /** A new resource given `secret` as a secret input. */
  declare(name: string, secret: pulumi.Output<string>): void;
}

/**
 * Every kind of the registry. `stack-cost` is the stack's own record, made by the program's
 * costed resources: its case is theirs (it prices the pods and endpoints below and prints the
 * cost line the transcript scan reads), so it has no object of its own to read or adopt.
 * `smoke-test` is a job's answer, not an object of the platform: its secret input's mark is
 * checked where it runs through the plugin (test/engine/accounts.test.ts) and under mocks
 * (test/integration/resources/serverless-endpoint/smoke.test.ts).
 */
const KINDS: Record<Exclude<ProviderKind, "stack-cost" | "smoke-test">, KindCase> = {
  pod: {
    held: true,
    seed: async (client, secret) => (await client.pods.create({ name: "outside-pod", image: "img/app:1", gpu: { id: GPU }, env: { TOKEN: secret } })).id,
    get: (name, id) => void Pod.get(name, id),
    adopt: (name, id, secret) => void new Pod(name, { name: "outside-pod", image: "img/app:1", gpu: { id: GPU }, env: { TOKEN: pulumi.secret(secret) }, adopt: id }),
    edit: async (client, id, secret) => void (await client.pods.update(id, { env: { TOKEN: secret } })),
    declare: (name, secret) => void new Pod(name, { image: "img/app:1", gpu: { id: GPU }, env: { TOKEN: secret, PLAIN: "visible" } }),
  },
  template: {
    held: true,
    seed: async (client, secret) => (await client.templates.create({ name: "outside-tpl", image: "img/app:1", serverless: true, env: { TOKEN: secret } })).id,
    get: (name, id) => void Template.get(name, id),
    adopt: (name, id, secret) => void new Template(name, { name: "outside-tpl", image: "img/app:1", serverless: true, env: { TOKEN: pulumi.secret(secret) }, adopt: id }),
    edit: async (client, id, secret) => void (await client.templates.update(id, { env: { TOKEN: secret } })),
    declare: (name, secret) => void new Template(name, { image: "img/app:1", env: { TOKEN: secret } }),
  },
  "serverless-endpoint": {
    held: true,
    seed: async (client, secret) =>
      (await client.serverless.create({ name: "outside-ep", image: "img/worker:1", env: { TOKEN: secret }, gpu: { pools: ["AMPERE_24"] }, workers: { min: 0, max: 0 } })).id,
    get: (name, id) => void ServerlessEndpoint.get(name, id, { api: "rest" }),
    adopt: (name, id, secret) =>
      void new ServerlessEndpoint(name, { api: "rest", name: "outside-ep", container: { image: "img/worker:1", env: { TOKEN: pulumi.secret(secret) } }, gpuIds: "AMPERE_24", workersMin: 0, workersMax: 0, adopt: id }),
    edit: async (client, id, secret) => void (await client.serverless.update(id, { env: { TOKEN: secret } })),
    declare: (name, secret) => void new ServerlessEndpoint(name, { api: "rest", container: { image: "img/worker:1", env: { TOKEN: secret } }, gpuIds: "AMPERE_24", workersMin: 0, workersMax: 0 }),
  },
  "registry-credential": {
    held: false,
    seed: async (client, secret) => (await client.registries.create({ name: "outside-reg", username: "robot", password: secret })).id,
    get: (name, id) => void RegistryCredential.get(name, id),
    adopt: (name, id, secret) => void new RegistryCredential(name, { name: "outside-reg", username: "robot", password: secret, adopt: id, deleteWaitSeconds: 0 }),
    declare: (name, secret) => void new RegistryCredential(name, { username: "robot", password: secret, deleteWaitSeconds: 0 }),
  },
  "network-volume": {
    // A volume holds no credential; its name stands in for one, so a secret input's mark is still checked.
    held: false,
    seed: async (client, secret) => (await client.networkVolumes.create({ name: secret, size: 10, dataCenter: "EU-RO-1" })).id,
    get: (name, id) => void NetworkVolume.get(name, id),
    adopt: (name, id, secret) => void new NetworkVolume(name, { name: pulumi.secret(secret), size: 10, dataCenter: "EU-RO-1", adopt: id }),
    declare: (name, secret) => void new NetworkVolume(name, { name: secret, size: 10, dataCenter: "EU-RO-1" }),
  },
};

/** Each look-up function's `…Output` form, given its inputs as secrets. */
const FUNCTIONS: Record<string, ((secret: <T>(v: T) => pulumi.Output<T>, podId: string) => pulumi.Output<unknown>) | "no input"> = {
  getCpuFlavorsOutput: "no input",
  getCpuFlavorOutput: (s) => pkg.getCpuFlavorOutput(s("cpu3c")),
  getGpuTypesOutput: (s) => pkg.getGpuTypesOutput({ manufacturer: s("NVIDIA" as const) }),
  getGpuTypeOutput: (s) => pkg.getGpuTypeOutput(s(GPU)),
  getDataCentersOutput: (s) => pkg.getDataCentersOutput({ globalNetwork: s(true) }),
  getDataCenterOutput: (s) => pkg.getDataCenterOutput(s("EU-RO-1")),
  getBillingOutput: (s, podId) => pkg.getBillingOutput({ of: "pods", podId: s(podId), lastN: 1, bucketSize: "day" }),
};

const kinds = Object.keys(KINDS) as (keyof typeof KINDS)[];
const program = (declare: () => void) => captureProgram(declare, { project: PROJECT, stack: "dev", config: rig.config, secretKeys: SECRET_KEYS });
/** State as a file holds it: secret-marked values encrypted. */
const stateText = (stack: EngineStack) => JSON.stringify([...stack.resources.values()], (_k, v) => (isSecret(v) ? "[secret]" : v));
const live = (stack: EngineStack): LiveResource[] => [...stack.resources.values()].map((r) => ({ type: r.type, name: r.urn.split("::").at(-1)!, id: r.id, outputs: r.outputs }));

test("the check covers every kind of the registry and every look-up function", () => {
  expect([...kinds, "stack-cost", "smoke-test"].sort()).toEqual(Object.keys(pkg.dynamicProviders).sort());
  const lookups = Object.keys(pkg).filter((k) => /^get[A-Z]/.test(k) && typeof (pkg as Record<string, unknown>)[k] === "function");
  // Every look-up has its `…Output` form, and every form has a case.
  for (const name of lookups.filter((k) => !k.endsWith("Output"))) expect(lookups).toContain(`${name}Output`);
  expect(Object.keys(FUNCTIONS).sort()).toEqual(lookups.filter((k) => k.endsWith("Output")).sort());
});

test("read, adopted, refreshed and declared with sentinels: none in plain text in state, outputs, logs or errors", async () => {
  const places: Record<string, string> = {};
  /** Sentinels that must be secret in state, and nowhere in plain text. */
  const expected: string[] = [];
  /** The states with every secret revealed: where each expected sentinel must be, so the scan cannot pass by finding nothing. */
  const revealed: string[] = [];
  const snapshot = (label: string, stack: EngineStack) => {
    places[`${label}: state`] = stateText(stack);
    revealed.push(JSON.stringify(reveal([...stack.resources.values()])));
  };
  const errors: unknown[] = [];
  const run = async (label: string, op: Promise<OperationResult>) => {
    const r = await op;
    if (r.error || r.failures) errors.push(r.error ?? new Error(JSON.stringify(r.failures)));
    places[`${label}: error`] = errorSurfaces(r.error).join("\n") + JSON.stringify(r.failures ?? null);
    expect(r.error).toBeUndefined();
    expect(r.failures).toBeUndefined();
    return r;
  };

  // Objects made outside the stack, credentials held by the platform.
  const seeded = {} as Record<(typeof kinds)[number], string>;
  for (const k of kinds) seeded[k] = await KINDS[k].seed(rig.client, sentinel(`${k}-held`));

  // `.get` of every kind, then a refresh after an outside edit.
  const reads = new EngineStack(rig.plugin, { project: PROJECT, stack: "reads" });
  await run("get", reads.up(await program(() => kinds.forEach((k) => KINDS[k].get(`got-${k}`, seeded[k])))));
  snapshot("get", reads);
  for (const k of kinds) if (KINDS[k].held) expected.push(sentinel(`${k}-held`));
  for (const k of kinds) await KINDS[k].edit?.(rig.client, seeded[k], sentinel(`${k}-edited`));
  await run("get refresh", reads.refresh());
  snapshot("get refresh", reads);
  for (const k of kinds) if (KINDS[k].held) expected.push(sentinel(`${k}-edited`));
  const readsState = live(reads);

  // The same objects adopted: the program gives the credentials, refresh reads the platform's.
  const adopts = new EngineStack(rig.plugin, { project: PROJECT, stack: "adopts" });
  await run("adopt", adopts.up(await program(() => kinds.forEach((k) => KINDS[k].adopt(`taken-${k}`, seeded[k], sentinel(`${k}-adopt`))))));
  snapshot("adopt", adopts);
  for (const k of kinds) expected.push(sentinel(`${k}-adopt`));
  for (const k of kinds) await KINDS[k].edit?.(rig.client, seeded[k], sentinel(`${k}-again`));
  await run("adopt refresh", adopts.refresh());
  snapshot("adopt refresh", adopts);
  for (const k of kinds) if (KINDS[k].held) expected.push(sentinel(`${k}-again`));
  await run("adopt destroy", adopts.destroy());
  expect(adopts.resources.size).toBe(0);

  // New resources with secret inputs (and the stack's cost line over the pod and endpoint).
  const made = new EngineStack(rig.plugin, { project: PROJECT, stack: "made" });
  await run("declare", made.up(await program(() => kinds.forEach((k) => KINDS[k].declare(`new-${k}`, pulumi.secret(sentinel(`${k}-input`)))))));
  snapshot("declare", made);
  for (const k of kinds) expected.push(sentinel(`${k}-input`));
  await run("declare refresh", made.refresh());
  snapshot("declare refresh", made);

  // The stack's outputs: every credential-holding output and every look-up, exported.
  const podId = made.resources.get([...made.resources.keys()].find((u) => u.endsWith("::new-pod"))!)!.id;
  const exportsOf = (stackState: LiveResource[], declare: () => Record<string, unknown>) =>
    programExports(declare, stackState, { project: PROJECT, stack: "dev", config: rig.config, secretKeys: SECRET_KEYS });
  const outputs = {
    ...(await exportsOf(readsState, () => {
      const pod = Pod.get("got-pod", seeded.pod);
      const tpl = Template.get("got-template", seeded.template);
      const ep = ServerlessEndpoint.get("got-serverless-endpoint", seeded["serverless-endpoint"], { api: "rest" });
      return { podEnv: pod.env, templateEnv: tpl.env, endpointContainer: ep.container, endpointImage: ep.container.apply((c) => c?.image) };
    })),
    ...(await exportsOf(live(made), () => {
      const secret = <T,>(v: T) => pulumi.secret(v) as pulumi.Output<T>;
      const looked = Object.fromEntries(Object.entries(FUNCTIONS).flatMap(([name, f]) => (f === "no input" ? [] : [[name, f(secret, podId)]])));
      return { ...looked, cpuFlavors: pkg.getCpuFlavorsOutput() };
    })),
  };
  for (const [name, o] of Object.entries(outputs)) {
    // A look-up given a secret answers a secret; the one with no input answers in plain text.
    if (name in FUNCTIONS) expect([name, o.secret]).toEqual([name, true]);
    places[`output ${name}`] = o.secret ? "[secret]" : JSON.stringify(o.value);
  }
  expect(outputs.cpuFlavors.secret).toBe(false);
  expect(JSON.stringify(outputs.podEnv.value)).toContain(sentinel("pod-edited"));
  expect(JSON.stringify(outputs.endpointContainer.value)).toContain(sentinel("serverless-endpoint-edited"));

  await run("declare destroy", made.destroy());
  await run("get destroy", reads.destroy());
  places["plugin output"] = rig.plugin.transcript();
  places["errors"] = errors.map((e) => errorSurfaces(e).join("\n")).join("\n");

  // Each expected sentinel is in state, behind a secret mark; none is anywhere in plain text.
  expect(expected.filter((s) => !revealed.some((r) => r.includes(s)))).toEqual([]);
  const leaks = [...new Set(expected)].flatMap((s) => placesWith(s, places).map((where) => `${s} in ${where}`));
  expect(leaks).toEqual([]);
}, 120_000);

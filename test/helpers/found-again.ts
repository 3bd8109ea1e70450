// The kinds of the found-again engine tests (test/engine/stack-promotion.test.ts in npm test,
// test/faults/found-again-kinds.test.ts in test:faults): for each kind a program of one resource
// with a given name, the same object made by hand, the create request a fault is aimed at, and
// the kind's live objects; and the two scenarios each kind goes through.
import type { AimedFault } from "../../src/emulator/core/faults";
import { NetworkVolume } from "../../src/resources/network-volume";
import { Pod } from "../../src/resources/pod";
import { RegistryCredential } from "../../src/resources/registry-credential";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { Template } from "../../src/resources/template";
import { captureProgram, EngineStack, PROJECT, type Registration, SECRET_KEYS } from "../../tools/engine";
import { type EngineRig, startEngineRig, startPlugin } from "../../tools/engine/rig";
import { createServerlessTemplate } from "./emulator-fixtures";
import { resourcesOf } from "./ledger";

/**
 * A bound for one scenario, not a speed target: each is two stacks' commands and a second plugin
 * process, and the pod's took over 90 s at a load average of 26 on 2 cores; a scenario cut off by
 * its bound goes on running, and its clearing of the emulator's faults then cleared the next
 * test's.
 */
export const SCENARIO_BOUND_MS = 240_000;

/** A file's rig, the serverless template GraphQL endpoints name (a fixture, not a stack's), a GPU. */
export interface FoundAgainEnv {
  r: EngineRig;
  tpl: string;
  gpuId: string;
}

/** The file's {@link FoundAgainEnv}, filled in before its first test, closed after its last. */
export function foundAgainRigForFile(key: string): FoundAgainEnv {
  const env = {} as FoundAgainEnv;
  beforeAll(async () => {
    // Lists in a new order every time: finding a create again rests on no order.
    env.r = await startEngineRig(key, { listOrder: "shuffled" });
    env.tpl = await createServerlessTemplate(env.r.emu.url, key);
    env.gpuId = (await env.r.client.catalog.gpus()).find((g) => g.manufacturer === "NVIDIA")!.id;
  });
  afterAll(() => env.r?.close());
  return env;
}

export interface Kind {
  label: string;
  /** The program: one resource `data` with a given name. */
  declare: (opts?: { retainOnDelete?: boolean }) => void;
  /** The same object made by hand; its id. */
  byHand: () => Promise<string>;
  /** The create request the fault is aimed at. */
  create: AimedFault;
  /** The live objects of the kind, by id. */
  live: () => string[];
}

/** The kinds, each read from `env` when a test runs. */
export function foundAgainKinds(env: FoundAgainEnv): Kind[] {
  const state = () => env.r.emu.state() as any;
  return [
  {
    label: "NetworkVolume",
    declare: (o) => void new NetworkVolume("data", { name: "data", size: 20, dataCenter: "EU-RO-1" }, o),
    byHand: async () => (await env.r.client.networkVolumes.create({ name: "data", size: 20, dataCenter: "EU-RO-1" })).id,
    create: { method: "POST", path: "/v2/network-volumes", fault: "5xx" },
    live: () => state().networkVolumes.map((v: any) => v.id),
  },
  {
    label: "Template",
    declare: (o) => void new Template("data", { name: "data-tpl", image: "img/app:1", serverless: true }, o),
    byHand: async () => (await env.r.client.templates.create({ name: "data-tpl", image: "img/app:1", serverless: true })).id,
    create: { method: "POST", path: "/v2/templates", fault: "5xx" },
    live: () => state().templates.filter((t: any) => t.name === "data-tpl").map((t: any) => t.id),
  },
  {
    label: "RegistryCredential",
    declare: (o) => void new RegistryCredential("data", { name: "data-creds", username: "robot", password: "s3cret-pw" }, o),
    byHand: async () => (await env.r.client.registries.create({ name: "data-creds", username: "robot", password: "s3cret-pw" })).id,
    create: { method: "POST", path: "/v2/registries", fault: "5xx" },
    live: () => state().registries.map((x: any) => x.id),
  },
  {
    label: "Pod",
    declare: (o) => void new Pod("data", { name: "data-pod", image: "img/app:1", gpu: { id: env.gpuId } }, o),
    byHand: async () => (await env.r.client.pods.create({ name: "data-pod", image: "img/app:1", gpu: { id: env.gpuId } })).id,
    create: { method: "POST", path: "/v2/pods", fault: "5xx" },
    live: () => state().pods.filter((p: any) => p.status !== "TERMINATED").map((p: any) => p.id),
  },
  {
    label: "ServerlessEndpoint over GraphQL",
    declare: (o) => void new ServerlessEndpoint("data", { name: "sdxl-api", gpuIds: "AMPERE_24", templateId: env.tpl, workersMin: 0, workersMax: 1 }, o),
    byHand: async () => (await env.r.client.endpoints.save({ name: "sdxl-api", gpuIds: "AMPERE_24", templateId: env.tpl, workersMin: 0, workersMax: 1 })).id,
    create: { method: "POST", path: "/graphql", bodyIncludes: "saveEndpoint", fault: "5xx" },
    live: () => state().endpoints.map((e: any) => e.id),
  },
  {
    label: "ServerlessEndpoint over REST",
    declare: (o) =>
      void new ServerlessEndpoint("data", { name: "sdxl-rest", api: "rest", container: { image: "worker:2" }, gpuIds: "AMPERE_24", workersMin: 0, workersMax: 1 }, o),
    byHand: async () => (await env.r.client.serverless.create({ name: "sdxl-rest", image: "worker:2", gpu: { pools: ["AMPERE_24"] }, workers: { min: 0, max: 1 } })).id,
    create: { method: "POST", path: "/v2/serverless", fault: "5xx" },
    live: () => state().endpoints.map((e: any) => e.id),
  },
];
}

export const program = (env: FoundAgainEnv, stack: string, declare: () => void): Promise<Registration[]> =>
  captureProgram(declare, { project: PROJECT, stack, config: env.r.config, secretKeys: SECRET_KEYS });

const idIn = (stack: EngineStack) => resourcesOf(stack)[0]?.id;

/** Prod is up and an object of the same name was made by hand; after one 5xx on dev's create, dev makes its own, and its destroy leaves prod's and the hand-made one alone. */
export async function devMakesItsOwn(env: FoundAgainEnv, kind: Kind): Promise<void> {
  const prod = new EngineStack(env.r.plugin, { project: PROJECT, stack: "prod" });
  // dev's up is another command, so another plugin process, as under the CLI: a process's
  // creates share one look before them for the whole command (lifecycle/shared-list.ts).
  const devPlugin = await startPlugin(env.r.config);
  const dev = new EngineStack(devPlugin, { project: PROJECT, stack: "dev" });
  const prodUp = await prod.up(await program(env, "prod", () => kind.declare()));
  expect(prodUp.error).toBeUndefined();
  const prods = idIn(prod)!;
  const hand = await kind.byHand();

  env.r.emu.setFaults({ aimed: [kind.create] });
  const devUp = await dev.up(await program(env, "dev", () => kind.declare()));
  env.r.emu.setFaults({});
  expect(devUp.error).toBeUndefined();
  const devs = idIn(dev)!;
  expect([prods, hand]).not.toContain(devs);
  expect(kind.live()).toEqual(expect.arrayContaining([prods, hand, devs]));

  expect((await dev.destroy()).error).toBeUndefined();
  await devPlugin.stop();
  expect(kind.live()).toEqual(expect.arrayContaining([prods, hand]));
  expect(kind.live()).not.toContain(devs);
  expect((await prod.destroy()).error).toBeUndefined();
  expect(kind.live()).toEqual(expect.arrayContaining([hand]));
  expect(kind.live()).not.toContain(prods);
}

/** A kept object (retainOnDelete) whose logical name returns is never taken by a create that met a 5xx. */
export async function keptIsNeverTaken(env: FoundAgainEnv, kind: Kind): Promise<void> {
  const dev = new EngineStack(env.r.plugin, { project: PROJECT, stack: "keep" });
  expect((await dev.up(await program(env, "keep", () => kind.declare({ retainOnDelete: true })))).error).toBeUndefined();
  const kept = idIn(dev)!;
  // Out of the program: the engine drops it from state and leaves it on the platform.
  expect((await dev.up(await program(env, "keep", () => {}))).error).toBeUndefined();
  expect(kind.live()).toContain(kept);

  env.r.emu.setFaults({ aimed: [kind.create] });
  const back = await dev.up(await program(env, "keep", () => kind.declare()));
  env.r.emu.setFaults({});
  expect(back.error).toBeUndefined();
  const made = idIn(dev)!;
  expect(made).not.toBe(kept);
  expect((await dev.destroy()).error).toBeUndefined();
  expect(kind.live()).toContain(kept);
  expect(kind.live()).not.toContain(made);
}

// A create takes only what it made (lifecycle/find-again.ts), through Pulumi's own
// dynamic-provider plugin against the emulator over real HTTP. One program, two stacks (dev and
// prod) on one account, with given names: prod is up, a person made an object of the same name
// by hand, and dev's first create meets one 5xx (the platform made nothing). Dev must make its
// own object, and its destroy must leave prod's and the hand-made one alone: for every kind.
// The same for a kept object (retainOnDelete) whose logical name returns. And a step that fails
// halfway leaves state true: a GraphQL -> REST move whose PATCH fails after the endpoint was
// bound to its own template, then backed out; a destroy that scaled an endpoint to zero and then
// failed, over GraphQL and over REST; a destroy that unlocked a pod and then failed. Each time the
// next preview shows what the platform has, and the next up converges on the program. The
// plugin loads dist/: run `npm run build` before this file alone.
import type { AimedFault } from "../../src/emulator/core/faults";
import { NetworkVolume } from "../../src/resources/network-volume";
import { Pod } from "../../src/resources/pod";
import { RegistryCredential } from "../../src/resources/registry-credential";
import { ServerlessEndpoint, type ServerlessEndpointArgs } from "../../src/resources/serverless-endpoint";
import { Template } from "../../src/resources/template";
import { captureProgram, EngineStack, PROJECT, type Registration, SECRET_KEYS } from "../../tools/engine";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";
import { type EngineRig, startEngineRig, startPlugin } from "../../tools/engine/rig";
import { resourcesOf, resourceSteps } from "../helpers/ledger";

const KEY = "cp_sentinel_found_again_51d2e0";

let r: EngineRig;
/** The serverless template GraphQL endpoints name (a fixture, not a stack's). */
let tpl: string;
let gpuId: string;
beforeAll(async () => {
  // Lists in a new order every time: finding a create again rests on no order.
  r = await startEngineRig(KEY, { listOrder: "shuffled" });
  tpl = await createServerlessTemplate(r.emu.url, KEY);
  gpuId = (await r.client.catalog.gpus()).find((g) => g.manufacturer === "NVIDIA")!.id;
});
afterAll(() => r?.close());

interface Kind {
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

const state = () => r.emu.state() as any;
const KINDS: Kind[] = [
  {
    label: "NetworkVolume",
    declare: (o) => void new NetworkVolume("data", { name: "data", size: 20, dataCenter: "EU-RO-1" }, o),
    byHand: async () => (await r.client.networkVolumes.create({ name: "data", size: 20, dataCenter: "EU-RO-1" })).id,
    create: { method: "POST", path: "/v2/network-volumes", fault: "5xx" },
    live: () => state().networkVolumes.map((v: any) => v.id),
  },
  {
    label: "Template",
    declare: (o) => void new Template("data", { name: "data-tpl", image: "img/app:1", serverless: true }, o),
    byHand: async () => (await r.client.templates.create({ name: "data-tpl", image: "img/app:1", serverless: true })).id,
    create: { method: "POST", path: "/v2/templates", fault: "5xx" },
    live: () => state().templates.filter((t: any) => t.name === "data-tpl").map((t: any) => t.id),
  },
  {
    label: "RegistryCredential",
    declare: (o) => void new RegistryCredential("data", { name: "data-creds", username: "robot", password: "s3cret-pw" }, o),
    byHand: async () => (await r.client.registries.create({ name: "data-creds", username: "robot", password: "s3cret-pw" })).id,
    create: { method: "POST", path: "/v2/registries", fault: "5xx" },
    live: () => state().registries.map((x: any) => x.id),
  },
  {
    label: "Pod",
    declare: (o) => void new Pod("data", { name: "data-pod", image: "img/app:1", gpu: { id: gpuId } }, o),
    byHand: async () => (await r.client.pods.create({ name: "data-pod", image: "img/app:1", gpu: { id: gpuId } })).id,
    create: { method: "POST", path: "/v2/pods", fault: "5xx" },
    live: () => state().pods.filter((p: any) => p.status !== "TERMINATED").map((p: any) => p.id),
  },
  {
    label: "ServerlessEndpoint over GraphQL",
    declare: (o) => void new ServerlessEndpoint("data", { name: "sdxl-api", gpuIds: "AMPERE_24", templateId: tpl, workersMin: 0, workersMax: 1 }, o),
    byHand: async () => (await r.client.endpoints.save({ name: "sdxl-api", gpuIds: "AMPERE_24", templateId: tpl, workersMin: 0, workersMax: 1 })).id,
    create: { method: "POST", path: "/graphql", bodyIncludes: "saveEndpoint", fault: "5xx" },
    live: () => state().endpoints.map((e: any) => e.id),
  },
  {
    label: "ServerlessEndpoint over REST",
    declare: (o) =>
      void new ServerlessEndpoint("data", { name: "sdxl-rest", api: "rest", container: { image: "worker:2" }, gpuIds: "AMPERE_24", workersMin: 0, workersMax: 1 }, o),
    byHand: async () => (await r.client.serverless.create({ name: "sdxl-rest", image: "worker:2", gpu: { pools: ["AMPERE_24"] }, workers: { min: 0, max: 1 } })).id,
    create: { method: "POST", path: "/v2/serverless", fault: "5xx" },
    live: () => state().endpoints.map((e: any) => e.id),
  },
];

const program = (stack: string, declare: () => void): Promise<Registration[]> =>
  captureProgram(declare, { project: PROJECT, stack, config: r.config, secretKeys: SECRET_KEYS });

const idIn = (stack: EngineStack) => resourcesOf(stack)[0]?.id;

test.each(KINDS.map((k) => [k.label, k] as const))(
  "%s: after one 5xx on dev's create, dev makes its own, and its destroy leaves prod's and a hand-made one alone",
  async (_label, kind) => {
    const prod = new EngineStack(r.plugin, { project: PROJECT, stack: "prod" });
    // dev's up is another command, so another plugin process, as under the CLI: a process's
    // creates share one look before them for the whole command (lifecycle/shared-list.ts).
    const devPlugin = await startPlugin(r.config);
    const dev = new EngineStack(devPlugin, { project: PROJECT, stack: "dev" });
    const prodUp = await prod.up(await program("prod", () => kind.declare()));
    expect(prodUp.error).toBeUndefined();
    const prods = idIn(prod)!;
    const hand = await kind.byHand();

    r.emu.setFaults({ aimed: [kind.create] });
    const devUp = await dev.up(await program("dev", () => kind.declare()));
    r.emu.setFaults({});
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
  },
);

test.each(KINDS.filter((k) => k.label !== "Pod").map((k) => [k.label, k] as const))(
  "%s: a kept object (retainOnDelete) whose logical name returns is never taken by a create that met a 5xx",
  async (_label, kind) => {
    const dev = new EngineStack(r.plugin, { project: PROJECT, stack: "keep" });
    expect((await dev.up(await program("keep", () => kind.declare({ retainOnDelete: true })))).error).toBeUndefined();
    const kept = idIn(dev)!;
    // Out of the program: the engine drops it from state and leaves it on the platform.
    expect((await dev.up(await program("keep", () => {}))).error).toBeUndefined();
    expect(kind.live()).toContain(kept);

    r.emu.setFaults({ aimed: [kind.create] });
    const back = await dev.up(await program("keep", () => kind.declare()));
    r.emu.setFaults({});
    expect(back.error).toBeUndefined();
    const made = idIn(dev)!;
    expect(made).not.toBe(kept);
    expect((await dev.destroy()).error).toBeUndefined();
    expect(kind.live()).toContain(kept);
    expect(kind.live()).not.toContain(made);
  },
);

const endpoint = (id: string) => (r.emu.state().endpoints as any[]).find((e) => e.id === id);
/** Enough hits that every retry of the client meets the fault too. */
const always = (f: AimedFault): AimedFault => ({ ...f, times: 20 });

test("a GraphQL -> REST move that fails after binding its own template, backed out: the next up binds the old template again", async () => {
  const stack = new EngineStack(r.plugin, { project: PROJECT, stack: "move" });
  const graphql: ServerlessEndpointArgs = { name: "move-api", gpuIds: "AMPERE_24", templateId: tpl, workersMin: 0, workersMax: 1 };
  const declare = (args: ServerlessEndpointArgs) => () => void new ServerlessEndpoint("api", args);
  expect((await stack.up(await program("move", declare(graphql)))).error).toBeUndefined();
  const [{ id }] = resourcesOf(stack);

  // The move, with a worker change that goes by PATCH after the binding: the PATCH fails.
  const rest: ServerlessEndpointArgs = { name: "move-api", api: "rest", container: { image: "moved:9" }, gpuIds: "AMPERE_24", workersMin: 0, workersMax: 2 };
  r.emu.setFaults({ aimed: [always({ method: "PATCH", path: `/v2/serverless/${id}`, fault: "5xx" })] });
  const move = await stack.up(await program("move", declare(rest)));
  r.emu.setFaults({});
  expect(move.error).toBeDefined();
  expect(endpoint(id).templateId).not.toBe(tpl);

  // Backed out: the program's old templateId is a change from what runs, and up makes it.
  const back = await stack.preview(await program("move", declare(graphql)));
  expect(resourceSteps(back).map((s) => s.op)).toEqual(["update"]);
  expect((await stack.up(await program("move", declare(graphql)))).error).toBeUndefined();
  expect(endpoint(id).templateId).toBe(tpl);
  expect(resourceSteps(await stack.up(await program("move", declare(graphql)))).map((s) => s.op)).toEqual(["same"]);
  expect((await stack.destroy()).error).toBeUndefined();
});

test.each([
  ["GraphQL", {}, { method: "POST", path: "/graphql", bodyIncludes: "deleteEndpoint", fault: "5xx" }],
  ["REST", { api: "rest", container: { image: "worker:3" } }, { method: "DELETE", path: /^\/v2\/serverless\//, fault: "5xx" }],
] as const)("over %s, a destroy that fails after scaling to zero puts the workers back: the next up is same, and true", async (_api, extra, fault) => {
  const stack = new EngineStack(r.plugin, { project: PROJECT, stack: `drain-${_api}` });
  const args = { name: `drain-${_api.toLowerCase()}`, gpuIds: "AMPERE_24", workersMin: 1, workersMax: 2, waitForWorkers: false, ...(_api === "GraphQL" ? { templateId: tpl } : {}), ...extra } as ServerlessEndpointArgs;
  const regs = () => program(stack.stack, () => void new ServerlessEndpoint("api", args));
  expect((await stack.up(await regs())).error).toBeUndefined();
  const [{ id }] = resourcesOf(stack);

  r.emu.setFaults({ aimed: [always(fault as AimedFault)] });
  const destroy = await stack.destroy();
  r.emu.setFaults({});
  expect(destroy.error).toBeDefined();
  expect(endpoint(id)).toMatchObject({ workersMin: 1, workersMax: 2 });
  expect(resourceSteps(await stack.up(await regs())).map((s) => s.op)).toEqual(["same"]);
  expect((await stack.destroy()).error).toBeUndefined();
  expect(endpoint(id)).toBeUndefined();
});

test("a destroy that unlocked a locked pod and then failed locks it again: the next up is same, and true", async () => {
  const stack = new EngineStack(r.plugin, { project: PROJECT, stack: "locked" });
  const regs = () => program("locked", () => void new Pod("worker", { name: "locked-worker", image: "img/app:1", gpu: { id: gpuId }, locked: true }));
  expect((await stack.up(await regs())).error).toBeUndefined();
  const [{ id }] = resourcesOf(stack);
  const pod = () => (r.emu.state().pods as any[]).find((p) => p.id === id);
  expect(pod().locked).toBe(true);

  r.emu.setFaults({ aimed: [always({ method: "DELETE", path: `/v2/pods/${id}`, fault: "5xx" })] });
  const destroy = await stack.destroy();
  r.emu.setFaults({});
  expect(destroy.error).toBeDefined();
  expect(pod()).toMatchObject({ status: "RUNNING", locked: true });
  expect(resourceSteps(await stack.up(await regs())).map((s) => s.op)).toEqual(["same"]);
  expect((await stack.destroy()).error).toBeUndefined();
});

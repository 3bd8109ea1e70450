// `pulumi refresh` of a whole stack through Pulumi's own dynamic-provider plugin (issue 16):
// pods, network volumes, endpoints, a template and a registry credential, refreshed with the
// engine's parallel steps. Each kind is read with one list (the emulator's request log says
// so), whatever the number of resources; a pod deleted outside the stack, which the pod list
// leaves out, is still found gone by its own GET; a volume renamed outside shows its new name;
// the lone template and credential cost one GET each. The plugin loads dist/: `npm run build` before this file alone.
import type { ComputePlatform } from "../../src/client";
import type { Emulator } from "../../src/emulator";
import { NetworkVolume } from "../../src/resources/network-volume";
import { Pod } from "../../src/resources/pod";
import { RegistryCredential } from "../../src/resources/registry-credential";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { Template } from "../../src/resources/template";
import { captureProgram, EngineStack, PROJECT, type ProviderPlugin, reveal, SECRET_KEYS } from "../../tools/engine";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";
import { type EngineRig, startEngineRig } from "../../tools/engine/rig";
import { resourceSteps } from "../helpers/ledger";

const KEY = "cp_sentinel_refresh_5e0c2a91d4";
const PODS = 5;
const VOLUMES = 4;
const ENDPOINTS = 3;
/** The engine's default `--parallel`: unbounded. */
const PARALLEL = Number.POSITIVE_INFINITY;

let rig: EngineRig;
let emu: Emulator;
let plugin: ProviderPlugin;
let config: Record<string, string>;
let client: ComputePlatform;

beforeAll(async () => {
  rig = await startEngineRig(KEY);
  ({ emu, plugin, config, client } = rig);
});

afterAll(() => rig?.close());

/** Operations the emulator answered since entry `from` of its log, counted. */
function opsSince(from: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of emu.requestLog().slice(from)) for (const op of e.op.split(",")) counts[op] = (counts[op] ?? 0) + 1;
  return counts;
}

test("a refresh reads each kind with one list, and still finds a pod deleted outside the stack", async () => {
  const workerTemplate = await createServerlessTemplate(emu.url, KEY);
  const regs = await captureProgram(
    () => {
      for (let i = 0; i < PODS; i++) new Pod(`pod${i}`, { image: "img/app:1", cpu: { id: "cpu3c", vcpuCount: 2 } });
      for (let i = 0; i < VOLUMES; i++) new NetworkVolume(`vol${i}`, { size: 10, dataCenter: "EU-RO-1" });
      for (let i = 0; i < ENDPOINTS; i++) {
        new ServerlessEndpoint(`ep${i}`, { gpuIds: "AMPERE_24", templateId: workerTemplate, workersMin: 0, workersMax: 1 });
      }
      new Template("tpl", { image: "img/worker:1", serverless: true });
      new RegistryCredential("creds", { username: "robot", password: "sentinel-pw-3f9a" });
    },
    { project: PROJECT, stack: "dev", config, secretKeys: SECRET_KEYS },
  );
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const up = await stack.up(regs, { parallel: PARALLEL });
  expect(up.error).toBeUndefined();
  const byName = (name: string) => [...stack.resources.values()].find((r) => r.urn.endsWith(`::${name}`))!;

  // Outside the stack: one pod deleted (TERMINATED pods are left out of GET /v2/pods), one volume renamed.
  const gone = byName("pod2");
  await client.pods.delete(gone.id);
  const renamed = byName("vol1");
  await client.networkVolumes.update(renamed.id, { name: "renamed-outside" });

  const from = emu.requestLog().length;
  const refreshed = await stack.refresh({ parallel: PARALLEL });
  expect(refreshed.error).toBeUndefined();
  expect(refreshed.steps.filter((s) => s.op === "read-gone").map((s) => s.urn)).toEqual([gone.urn]);
  // Every resource, StackCost aside (it reads nothing from the platform).
  expect(resourceSteps(refreshed)).toHaveLength(PODS + VOLUMES + ENDPOINTS + 2);
  expect(stack.resources.has(gone.urn)).toBe(false);
  expect(byName("vol1").outputs.name).toBe("renamed-outside");
  expect(byName("pod0").outputs.status).toBe("RUNNING");
  expect(reveal(byName("creds").outputs)).toMatchObject({ username: "robot", name: expect.any(String) });

  // One list per kind, whatever the number of its resources. GETs by id: the pod missing from
  // the list; the lone template and credential (read alone, one request each); and at most one
  // per listed kind, should its first read find no other within the batching window (a loaded machine).
  // Endpoints have no GET by id: that lone first read is a `myself` of its own, so 1 or 2 of them.
  const ops = opsSince(from);
  expect({ listPods: ops.listPods, listNetworkVolumes: ops.listNetworkVolumes }).toEqual({ listPods: 1, listNetworkVolumes: 1 });
  expect(ops.myself).toBeGreaterThanOrEqual(1);
  expect(ops.myself).toBeLessThanOrEqual(2);
  expect({ getTemplate: ops.getTemplate, getRegistry: ops.getRegistry, listTemplates: ops.listTemplates, listRegistries: ops.listRegistries }).toEqual({ getTemplate: 1, getRegistry: 1 });
  expect(ops.getPod).toBeGreaterThanOrEqual(1);
  expect(ops.getPod + (ops.getNetworkVolume ?? 0)).toBeLessThanOrEqual(3);
  expect(Object.keys(ops).sort()).toEqual(expect.arrayContaining(["getPod", "getRegistry", "getTemplate", "listNetworkVolumes", "listPods", "myself"]));
  expect(Object.values(ops).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10);
  console.log(`refresh of ${refreshed.steps.length} resources: ${JSON.stringify(ops)}`);

  expect((await stack.destroy({ parallel: PARALLEL })).error).toBeUndefined();
  expect(emu.state().pods.every((p) => p.status === "TERMINATED")).toBe(true);
  expect(emu.state().networkVolumes).toEqual([]);
  expect(emu.state().endpoints).toEqual([]);
});

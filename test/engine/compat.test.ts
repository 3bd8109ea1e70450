// State written by an earlier release keeps working: a stack of one Pod, one ServerlessEndpoint
// and one NetworkVolume, stored by release 0.1.0 through Pulumi's plugin (fixtures/compat-state.json,
// with its old `__provider` text), is restored into a fresh emulator from that emulator's own
// state file, then refreshed, updated in place and destroyed by this package through the plugin.
// The plugin loads the package from dist/ (`npm test` builds first).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type Emulator, startEmulator } from "../../src/emulator";
import { COMPAT } from "./fixtures/compat";
import { captureProgramFile, EngineStack, PROJECT, PROJECT_DIR, ProviderPlugin, SECRET_KEYS, type StateResource } from "../../tools/engine";
import { resourcesOf, resourceSteps } from "../helpers/ledger";
import { startPlugin } from "../../tools/engine/rig";

const stored: { engine: StateResource[]; emulator: unknown } = JSON.parse(fs.readFileSync(COMPAT.file, "utf8"));
/** The templateIds of the stored endpoints, as the engine's state has them. */
const endpointTemplateIds = (): string[] =>
  stored.engine.filter((r) => r.type.endsWith("ServerlessEndpoint")).map((r) => String((r.outputs as Record<string, unknown>).templateId));

let dir: string;
let emu: Emulator;
let plugin: ProviderPlugin;
let config: Record<string, string>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "compat-"));
  const stateFile = path.join(dir, "emulator.json");
  // 0.1.0's emulator kept no templates; the platform always had the serverless template the
  // stored endpoint names, so the restored platform holds it too (the platform's rule).
  const templateIds = [...new Set(endpointTemplateIds())];
  const templates = templateIds.map((id) => ({ id, name: "worker", image: "worker:1", args: "", disk: 20, mounts: {}, ports: [], env: {}, registry: null, serverless: true, public: false, category: "NVIDIA" }));
  fs.writeFileSync(stateFile, JSON.stringify({ ...(stored.emulator as object), templates }));
  emu = await startEmulator({ port: 0, keys: [{ key: COMPAT.key, scopes: ["read", "write"] }], timings: COMPAT.timings, stateFile });
  config = { "computeplatform:apiKey": COMPAT.key, "computeplatform:apiUrl": emu.url };
  plugin = await startPlugin(config);
}, 120_000);

afterAll(async () => {
  await plugin?.stop();
  await emu?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

const byType = (stack: EngineStack, kind: string): StateResource =>
  [...stack.resources.values()].find((r) => r.type.endsWith(`:${kind}`))!;

test("a stack stored by release 0.1.0 is refreshed, updated in place and destroyed", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: COMPAT.stack });
  for (const res of structuredClone(stored.engine)) stack.resources.set(res.urn, res);
  const ids = stored.engine.map((r) => r.id);
  // The stored shim is the old text: the plugin loads whatever package is installed by kind name.
  for (const res of stored.engine) expect(res.outputs.__provider).toContain('require("pulumi-computeplatform")');
  expect(emu.state().pods.map((p: { id: string }) => p.id)).toContain(byType(stack, "Pod").id);

  const refresh = await stack.refresh();
  expect(refresh.error).toBeUndefined();
  expect(refresh.steps.map((s) => s.op)).toEqual(["refresh", "refresh", "refresh"]);
  expect([...stack.resources.values()].map((r) => r.id)).toEqual(ids);
  expect(byType(stack, "Pod").outputs).toMatchObject({ status: "RUNNING", env: { STAGE: "one" } });
  expect(byType(stack, "NetworkVolume").outputs).toMatchObject({ size: 20, name: "compat-data" });
  expect(byType(stack, "ServerlessEndpoint").outputs).toMatchObject({ name: "compat-api", workersMax: 2 });
  // Written before endpoints output their job addresses: a refresh adds them.
  expect(stored.engine.find((r) => r.type.endsWith(":ServerlessEndpoint"))!.outputs.requestUrls).toBeUndefined();
  const api = byType(stack, "ServerlessEndpoint");
  expect(api.outputs.requestUrls).toEqual({ run: `${emu.url}/v2/${api.id}/run`, runSync: `${emu.url}/v2/${api.id}/runsync` });

  // The same program a release later: nothing to do.
  const program = async (step: string) =>
    captureProgramFile(COMPAT.program, {
      cwd: PROJECT_DIR,
      project: PROJECT,
      stack: COMPAT.stack,
      config: { ...config, "test:step": step, "test:gpuId": COMPAT.gpuId },
      secretKeys: SECRET_KEYS,
    });
  const same = await stack.up(await program("create"));
  expect(same.error).toBeUndefined();
  // The three stored resources diff clean. The stack's cost ledger, new in this release, is
  // recorded beside them (a record: no write request); resourceSteps looks past it.
  expect(resourceSteps(same).map((s) => s.op)).toEqual(["same", "same", "same"]);
  expect(same.steps.filter((s) => s.urn.endsWith("::stack-cost")).map((s) => s.op)).toEqual(["create"]);

  // One field each, changed in place: the same ids, the platform changed.
  const update = await stack.up(await program("update"));
  expect(update.error).toBeUndefined();
  expect(resourceSteps(update).map((s) => s.op)).toEqual(["update", "update", "update"]);
  expect(resourcesOf(stack).map((r) => r.id)).toEqual(ids);
  const state = emu.state();
  expect(state.networkVolumes.find((v: { id: string }) => v.id === ids[0])).toMatchObject({ size: 30 });
  expect(state.pods.find((p: { id: string }) => p.id === ids[1])).toMatchObject({ env: expect.objectContaining({ STAGE: "two" }) });
  expect((state.endpoints as { id: string }[]).find((e) => e.id === ids[2])).toMatchObject({ workersMax: 3 });
  expect(byType(stack, "ServerlessEndpoint").outputs).toMatchObject({ workersMax: 3 });

  const destroy = await stack.destroy();
  expect(destroy.error).toBeUndefined();
  expect(stack.resources.size).toBe(0);
  const after = emu.state();
  expect(after.networkVolumes).toEqual([]);
  expect(after.pods.filter((p: { status: string }) => p.status !== "TERMINATED")).toEqual([]);
  expect(after.endpoints).toEqual([]);
}, 120_000);

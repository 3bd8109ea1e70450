// The real shim through Pulumi's own plugin: what the SDK stores as `__provider` is small and
// holds no path or key; the plugin resolves the package by name from the project directory
// (the workspace link); stack config reaches the shared client through configure(), ahead of
// the environment; and a NetworkVolume goes through up, update, refresh and destroy against
// the emulator over real HTTP.
import * as path from "node:path";
import { type Emulator, startEmulator } from "../../src/emulator";
import { captureProgramFile, EngineStack, PROJECT, PROJECT_DIR, ProviderPlugin, type Registration, SECRET_KEYS } from "../../tools/engine";
import { startPlugin } from "../../tools/engine/rig";

const ROOT = path.resolve(__dirname, "../..");
// The project directory: its node_modules/pulumi-computeplatform is the workspace link.
const PROGRAM = path.join(__dirname, "fixtures/platform-program.js");
// Sentinels: the stack config key is the emulator's valid key; the environment's is wrong, so
// a provider that fell back to the environment would fail with 401.
const CONFIG_KEY = "cp_sentinel_stack_7f3a91c2e8";
const ENV_KEY = "cp_sentinel_env_4b6d0e15aa";

let emu: Emulator;
let plugin: ProviderPlugin;
let config: Record<string, string>;
const programs: string[] = [];

const capture = async (test: Record<string, string>): Promise<Registration[]> => {
  const regs = await captureProgramFile(PROGRAM, {
    cwd: PROJECT_DIR,
    project: PROJECT,
    stack: "dev",
    config: { ...config, ...Object.fromEntries(Object.entries(test).map(([k, v]) => [`test:${k}`, v])) },
    secretKeys: SECRET_KEYS,
    env: { COMPUTEPLATFORM_API_KEY: ENV_KEY },
  });
  programs.push(JSON.stringify(regs));
  return regs;
};

beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: [{ key: CONFIG_KEY, scopes: ["read", "write"] }], timeScale: 1000 });
  config = { "computeplatform:apiKey": CONFIG_KEY, "computeplatform:apiUrl": emu.url };
  // Wrong on purpose: stack config must win over the environment.
  plugin = await startPlugin(config, { env: { COMPUTEPLATFORM_API_KEY: ENV_KEY, COMPUTEPLATFORM_API_URL: "http://127.0.0.1:9" } });
});

afterAll(async () => {
  await plugin?.stop();
  await emu?.close();
});

test("the serialized pod shim is small and holds no absolute path and no key", async () => {
  const [pod] = await capture({ kinds: "pod" });
  const text = pod.inputs.__provider;
  expect(typeof text).toBe("string");
  const bytes = Buffer.byteLength(text as string);
  console.log(`__provider of shimProvider("pod"): ${bytes} bytes`);
  expect(bytes).toBeLessThan(4096);
  // One serialized method (configure) besides the handler: each more costs about 200 bytes in
  // every Check and Diff of every resource.
  expect(bytes).toBeLessThan(1500);
  expect((text as string).match(/^function __f\d+/gm)).toHaveLength(2);
  expect(text).toContain('require("pulumi-computeplatform/providers")');
  expect(text).not.toContain(ROOT);
  expect(text).not.toMatch(/["'`]\/(?:work|home|tmp|usr|root)\//);
  expect(text).not.toContain(CONFIG_KEY);
  expect(text).not.toContain(ENV_KEY);
});

// A whole lifecycle: a child program per step and the plugin, seconds each on a loaded machine.
const LIFECYCLE_TIMEOUT_MS = 90_000;

test("NetworkVolume through the plugin: preview sends nothing, up creates with the stack config's key", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const before = emu.counts().createNetworkVolume ?? 0;
  const preview = await stack.preview(await capture({ kinds: "network-volume", size: "20" }));
  expect(preview.error).toBeUndefined();
  expect(preview.steps.map((s) => s.op)).toEqual(["create"]);
  expect(emu.counts().createNetworkVolume ?? 0).toBe(before);

  const up = await stack.up(await capture({ kinds: "network-volume", size: "20" }));
  expect(up.error).toBeUndefined();
  expect(stack.calls).toEqual(["Check data", "Check data", "Create data"]);
  const vol = [...stack.resources.values()][0];
  expect(emu.state().networkVolumes.map((v: { id: string; size: number }) => [v.id, v.size])).toEqual([[vol.id, 20]]);
  // Requests carried the key from stack config (the environment's key would have been refused).
  expect(emu.requestLog().every((r: { status: number }) => r.status < 400)).toBe(true);

  const grow = await stack.up(await capture({ kinds: "network-volume", size: "30" }));
  expect(grow.error).toBeUndefined();
  expect(grow.steps.map((s) => s.op)).toEqual(["update"]);
  expect(emu.state().networkVolumes.map((v: { id: string; size: number }) => [v.id, v.size])).toEqual([[vol.id, 30]]);

  const refresh = await stack.refresh();
  expect(refresh.error).toBeUndefined();
  expect(stack.resources.get(vol.urn)?.outputs).toMatchObject({ size: 30, dataCenter: "US-TX-3" });

  const destroy = await stack.destroy();
  expect(destroy.error).toBeUndefined();
  expect(emu.state().networkVolumes).toEqual([]);

  // The key appears nowhere the engine or a user would see it.
  for (const place of [stack.stateText(), plugin.transcript(), ...programs]) {
    expect(place).not.toContain(CONFIG_KEY);
    expect(place).not.toContain(ENV_KEY);
  }
}, LIFECYCLE_TIMEOUT_MS);

// A first Pod through Pulumi's own plugin against the emulator over real HTTP: preview sends
// nothing, up creates and waits for RUNNING, destroy terminates; the key appears nowhere. The
// full lifecycle (updates, replaces by the mount rules, partial failures) is the Pod's own
// engine test. The plugin loads the package from dist/: run `npm run build` first.
import * as path from "node:path";
import { type Emulator, startEmulator } from "../../src/emulator";
import { Pod } from "../../src/resources/pod";
import { captureProgram, EngineStack, ProviderPlugin } from "./harness";

const PROJECT_DIR = path.resolve(__dirname, "../../examples/quickstart");
const PROJECT = "quickstart";
const KEY = "cp_sentinel_pod_smoke_93e1b7";

let emu: Emulator;
let plugin: ProviderPlugin;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], timeScale: 1000 });
  const config = { "computeplatform:apiKey": KEY, "computeplatform:apiUrl": emu.url };
  plugin = await ProviderPlugin.start({ cwd: PROJECT_DIR, project: PROJECT, config, env: { COMPUTEPLATFORM_API_KEY: undefined } });
  await plugin.configure(config, ["computeplatform:apiKey"]);
});

afterAll(async () => {
  await plugin?.stop();
  await emu?.close();
});

test("a GPU pod: preview sends nothing, up creates it RUNNING, destroy terminates it", async () => {
  const regs = await captureProgram(
    () => {
      new Pod("trainer", { image: "nginx:1.27", gpu: { id: "NVIDIA A100 80GB PCIe" } });
    },
    { project: PROJECT, stack: "dev" },
  );
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });

  const preview = await stack.preview(regs);
  expect(preview.error).toBeUndefined();
  expect(preview.failures).toBeUndefined();
  expect(preview.steps.map((s) => s.op)).toEqual(["create"]);
  expect(emu.counts().createPod ?? 0).toBe(0);

  const up = await stack.up(regs);
  expect(up.error).toBeUndefined();
  const pod = [...stack.resources.values()][0];
  expect(pod.outputs).toMatchObject({ status: "RUNNING", image: "nginx:1.27" });
  expect(emu.state().pods.map((p) => [p.id, p.status])).toEqual([[pod.id, "RUNNING"]]);
  expect(emu.counts().createPod).toBe(1);

  const destroy = await stack.destroy();
  expect(destroy.error).toBeUndefined();
  expect(emu.state().pods.filter((p) => p.status !== "TERMINATED")).toEqual([]);

  for (const place of [stack.stateText(), plugin.transcript(), JSON.stringify(regs)]) expect(place).not.toContain(KEY);
});

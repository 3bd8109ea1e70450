// Preview refuses what up would refuse when it can know it without a write, through Pulumi's
// own dynamic-provider plugin against the emulator: a GPU type or CPU flavor the catalog does
// not list, a gpu.count above the type's maxCount, a vcpuCount outside the flavor's range, each
// named at Check. The catalog is read once per plugin process (the read the cost line makes),
// never once per pod, and no write is sent. A missing API key or address fails the preview
// before any request, naming the command or setting that fixes it.
// The plugin loads the package from dist/: run `npm run build` before this file alone.
import { Pod, type PodArgs } from "../../src/resources/pod";
import { NetworkVolume } from "../../src/resources/network-volume";
import { captureProgram, EngineStack, PROJECT, ProviderPlugin, SECRET_KEYS } from "../../tools/engine";
import { engineRigForFile, startPlugin } from "../../tools/engine/rig";

const KEY = "cp_sentinel_refusal_0c7e5a92b4";
const L40S = "NVIDIA L40S";

const rig = engineRigForFile(KEY);

const requests = (from: number) => rig.emu.requestLog().slice(from).map((e) => `${e.method} ${e.path}`);

async function preview(plugin: ProviderPlugin, config: Record<string, string>, pods: Record<string, Partial<PodArgs>>) {
  const regs = await captureProgram(
    () => {
      for (const [name, args] of Object.entries(pods)) new Pod(name, { image: "app:1", ...args } as PodArgs);
    },
    { project: PROJECT, stack: "dev", preview: true, config, secretKeys: SECRET_KEYS },
  );
  return new EngineStack(plugin, { project: PROJECT, stack: "dev" }).preview(regs);
}

test("the catalog's refusals at preview, one catalog read for the whole deployment and no write", async () => {
  const from = rig.emu.requestLog().length;
  // Two pods with unknown GPU types: one read of the GPU list between them (the cost line's).
  // A near miss is answered with the catalog's id, from the list already read.
  const unknown = await preview(rig.plugin, rig.config, { a: { gpu: { id: "NVIDIA RTX 4090" } }, b: { gpu: { id: [L40S, "AMD Nonesuch"] } } });
  expect(unknown.failures?.failures).toEqual([
    { property: "gpu.id", reason: 'gpu.id "NVIDIA RTX 4090" is not a GPU type of the catalog; did you mean "NVIDIA GeForce RTX 4090"? (getGpuTypes() lists the ids)' },
  ]);
  const far = await preview(rig.plugin, rig.config, { a: { gpu: { id: "AMD Nonesuch" } } });
  expect(far.failures?.failures).toEqual([{ property: "gpu.id", reason: 'gpu.id "AMD Nonesuch" is not a GPU type of the catalog; see getGpuTypes() for the ids' }]);
  expect(requests(from)).toEqual(["GET /v2/catalog/gpus"]);

  // Over the type's maxCount (8 on SECURE for an L40S in the catalog): both named.
  const over = await preview(rig.plugin, rig.config, { big: { gpu: { id: L40S, count: 9 } } });
  expect(over.failures?.failures).toEqual([{ property: "gpu.count", reason: `gpu.count 9 is above the maxCount of ${L40S}: at most 8 on SECURE cloud` }]);

  const flavor = await preview(rig.plugin, rig.config, { c: { cpu: { id: "cpu3-c", vcpuCount: 2 } } });
  expect(flavor.failures?.failures).toEqual([{ property: "cpu.id", reason: 'cpu.id "cpu3-c" is not a CPU flavor of the catalog; did you mean "cpu3c"? (getCpuFlavors() lists the ids)' }]);
  const vcpus = await preview(rig.plugin, rig.config, { c: { cpu: { id: "cpu3c", vcpuCount: 64 } } });
  expect(vcpus.failures?.failures).toEqual([{ property: "cpu.vcpuCount", reason: "cpu.vcpuCount 64 is outside what flavor cpu3c allows: 2 to 32" }]);

  // A pod the catalog allows previews as a create; all of the above read each list once, wrote nothing.
  const fine = await preview(rig.plugin, rig.config, { ok: { gpu: { id: L40S, count: 8 } } });
  expect(fine.error).toBeUndefined();
  expect(fine.failures).toBeUndefined();
  expect(fine.steps.map((s) => s.op)).toEqual(["create", "create"]);
  expect(requests(from)).toEqual(["GET /v2/catalog/gpus", "GET /v2/catalog/cpus"]);
});

test.each([
  ["no key", { "computeplatform:apiUrl": "URL" }, /No Compute Platform API key.*pulumi config set --secret computeplatform:apiKey <key>/],
  ["no address", { "computeplatform:apiKey": KEY }, /No Compute Platform API address: set COMPUTEPLATFORM_API_URL.*http:\/\/127\.0\.0\.1:8787.*pulumi config set computeplatform:apiUrl <url>/],
])("%s: preview fails before any request, saying what sets it (pods, and kinds without a cost line too)", async (_label, given, message) => {
  const config = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, v === "URL" ? rig.emu.url : v]));
  const plugin = await startPlugin(config, { env: { COMPUTEPLATFORM_API_URL: undefined, COMPUTEPLATFORM_SERVERLESS_URL: undefined } });
  try {
    const from = rig.emu.requestLog().length;
    const pod = await preview(plugin, config, { trainer: { gpu: { id: L40S } } });
    expect(String(pod.error?.message)).toMatch(message);
    const volume = await new EngineStack(plugin, { project: PROJECT, stack: "dev" }).preview(
      await captureProgram(() => void new NetworkVolume("data", { size: 20, dataCenter: "EU-RO-1" }), { project: PROJECT, stack: "dev", preview: true, config, secretKeys: SECRET_KEYS }),
    );
    expect(String(volume.error?.message)).toMatch(message);
    expect(requests(from)).toEqual([]);
    expect(plugin.transcript()).not.toContain(KEY);
  } finally {
    await plugin.stop();
  }
});

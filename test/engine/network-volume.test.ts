// NetworkVolume through Pulumi's own dynamic-provider plugin, against the emulator over real
// HTTP: preview sends nothing; up creates an auto-named volume; rename and grow are updates of
// the same volume; a shrink stops at Check with no request; destroy while a pod made outside
// the stack mounts it waits (deleteWaitSeconds: 1, real time) and fails naming the pod, the
// volume staying in state; destroy after the pod is gone deletes it; the key appears nowhere.
// The plugin loads the package from dist/ (`npm test` builds first), so run `npm run build`
// before running this file alone.
import { ComputePlatform } from "../../src/client";
import type { Emulator } from "../../src/emulator";
import { NetworkVolume, type NetworkVolumeArgs } from "../../src/resources/network-volume";
import { Pod } from "../../src/resources/pod";
import { captureProgram, EngineStack, PROJECT, type ProviderPlugin, type Registration, SECRET_KEYS, urnOf } from "../../tools/engine";
import { resourceCalls, resourcesOf, resourceSteps } from "../helpers/ledger";
import { type EngineRig, startEngineRig } from "../../tools/engine/rig";

const KEY = "cp_sentinel_volume_8b31f07c2e";

let rig: EngineRig;
let emu: Emulator;
let plugin: ProviderPlugin;
let config: Record<string, string>;

beforeAll(async () => {
  rig = await startEngineRig(KEY);
  ({ emu, plugin, config } = rig);
});

afterAll(async () => {
  await rig?.close();
});

/** The program `new NetworkVolume("datasets", args)`, as the SDK registers it. */
function program(args: NetworkVolumeArgs, preview = false): Promise<Registration[]> {
  return captureProgram(
    () => {
      new NetworkVolume("datasets", args);
    },
    { project: PROJECT, stack: "dev", preview, config, secretKeys: SECRET_KEYS },
  );
}

const volumes = () => emu.state().networkVolumes;

test("preview, create, rename, grow, refused shrink, destroy while mounted then after", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const base: NetworkVolumeArgs = { size: 20, dataCenter: "EU-RO-1", deleteWaitSeconds: 1 };

  // Bad size: Check fails naming the field and the bounds, before any request.
  const bad = await stack.preview(await program({ ...base, size: 5000 }, true));
  expect(bad.failures?.failures).toEqual([{ property: "size", reason: "size must be an integer number of GB from 10 to 4096" }]);

  const preview = await stack.preview(await program(base, true));
  expect(preview.error).toBeUndefined();
  expect(preview.steps.map((s) => s.op)).toEqual(["create"]);
  expect(emu.requestLog()).toEqual([]);

  const regs = await program(base);
  expect(regs.map((g) => [g.type, g.inputs.__logicalName])).toEqual([["pulumi-nodejs:dynamic/computeplatform:NetworkVolume", "datasets"]]);
  const up = await stack.up(regs);
  expect(up.error).toBeUndefined();
  const [res] = [...stack.resources.values()];
  expect(res.outputs).toMatchObject({ size: 20, dataCenter: "EU-RO-1", deleteWaitSeconds: 1 });
  expect(res.outputs.name).toMatch(/^datasets-[0-9a-f]{7}$/);
  expect(volumes()).toEqual([{ id: res.id, name: res.outputs.name, size: 20, dataCenter: "EU-RO-1", type: "STANDARD" }]);

  // The same program again: the generated name is kept, nothing to do.
  const same = await stack.up(await program(base));
  expect(same.steps.map((s) => s.op)).toEqual(["same"]);

  // Rename and grow: updates of the same volume.
  const renamed = await stack.up(await program({ ...base, name: "datasets" }));
  expect(renamed.error).toBeUndefined();
  expect(renamed.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([["update", []]]);
  const grown = await stack.up(await program({ ...base, name: "datasets", size: 200 }));
  expect(grown.error).toBeUndefined();
  expect(grown.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([["update", []]]);
  expect(stack.resources.get(res.urn)).toMatchObject({ id: res.id, outputs: expect.objectContaining({ name: "datasets", size: 200 }) });
  expect(volumes()).toEqual([{ id: res.id, name: "datasets", size: 200, dataCenter: "EU-RO-1", type: "STANDARD" }]);

  // Shrink: stopped at Check, in preview and in up alike, with no request sent.
  const requests = emu.requestLog().length;
  for (const run of [(r: Registration[]) => stack.preview(r), (r: Registration[]) => stack.up(r)]) {
    const shrink = await run(await program({ ...base, name: "datasets", size: 100 }));
    expect(shrink.failures?.failures).toEqual([{ property: "size", reason: expect.stringContaining("cannot shrink from 200 to 100 GB") }]);
  }
  expect(emu.requestLog().length).toBe(requests);
  expect(volumes()).toEqual([expect.objectContaining({ id: res.id, size: 200 })]);

  // A pod made outside the stack mounts the volume; it lands in the volume's data center.
  const client = new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, pacing: false });
  try {
    const pod = await client.pods.create({
      name: "outside-the-stack",
      image: "busybox:latest",
      cpu: { id: "cpu3c", vcpuCount: 2 },
      mounts: { network: [{ volumeId: res.id, path: "/data" }] },
    });
    expect(pod.dataCenterId).toBe("EU-RO-1");

    // Destroy waits deleteWaitSeconds (1 s), then fails naming the pod; the volume stays.
    const blocked = await stack.destroy();
    expect(blocked.error?.message).toMatch(new RegExp(`still mounted by pod ${pod.id} \\("outside-the-stack", `));
    expect(stack.resources.get(res.urn)?.id).toBe(res.id);
    expect(volumes()).toHaveLength(1);

    await client.pods.delete(pod.id);
  } finally {
    await client.close();
  }
  const destroy = await stack.destroy();
  expect(destroy.error).toBeUndefined();
  expect(volumes()).toEqual([]);
  expect(stack.resources.size).toBe(0);

  for (const place of [stack.stateText(), plugin.transcript()]) expect(place).not.toContain(KEY);
});

test("a pod mounting volume.id depends on the volume, runs in its data center, and is deleted first", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const regs = await captureProgram(
    () => {
      const volume = new NetworkVolume("shared", { size: 10, dataCenter: "CA-MTL-1" });
      new Pod("worker", {
        image: "busybox:latest",
        cpu: { id: "cpu3c", vcpuCount: 2 },
        mounts: { network: [{ volumeId: volume.id, path: "/data" }] },
      });
    },
    { project: PROJECT, stack: "dev", config, secretKeys: SECRET_KEYS },
  );
  // The stack's cost ledger registers between them: the pod waits for it too (cost/ledger.ts).
  const [volumeReg, ledgerReg, podReg] = regs;
  const volumeUrn = urnOf("dev", PROJECT, volumeReg.type, "shared");
  const ledgerUrn = urnOf("dev", PROJECT, ledgerReg.type, "stack-cost");
  expect([...podReg.options.dependencies].sort()).toEqual([ledgerUrn, volumeUrn].sort());

  // The engine creates the volume first and registers the pod with its real id.
  expect((await stack.up([volumeReg])).error).toBeUndefined();
  const volumeId = stack.resources.get(volumeUrn)!.id;
  (podReg.inputs.mounts as any).network[0].volumeId = volumeId;
  const up = await stack.up([volumeReg, ledgerReg, podReg]);
  expect(up.error).toBeUndefined();
  expect(resourceSteps(up).map((s) => s.op)).toEqual(["same", "create"]);
  const pod = resourcesOf(stack).find((r) => r.urn !== volumeUrn)!;
  expect(pod.outputs).toMatchObject({ dataCenterId: "CA-MTL-1", mounts: { network: [{ volumeId, path: "/data" }] } });
  expect(emu.state().pods.find((p: any) => p.id === pod.id)).toMatchObject({ dataCenterId: "CA-MTL-1" });

  // Dependents go first, so the volume's delete meets no pod: one DELETE, answered 204.
  const from = emu.requestLog().length;
  const destroy = await stack.destroy();
  expect(destroy.error).toBeUndefined();
  expect(resourceCalls(stack.calls).slice(-2)).toEqual(["Delete worker", "Delete shared"]);
  const volumeDeletes = emu
    .requestLog()
    .slice(from)
    .filter((e) => e.op === "deleteNetworkVolume");
  expect(volumeDeletes.map((e) => e.status)).toEqual([204]);
  expect(volumes()).toEqual([]);
});

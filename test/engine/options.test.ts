// Pulumi's resource options as the engine applies them, through Pulumi's own plugin against the
// emulator. No Pulumi CLI runs here: the rig (tools/engine) stands in for it, and applies
// `retainOnDelete` (a delete step that drops the resource from state without calling the
// provider) and `aliases` (the old state found at an alias URN, carried over, never deleted) as
// the engine's step generator does. What these tests show is the provider's side: a pod or
// endpoint that was handed to the stack and then left it with retainOnDelete is the user's, and
// a later create of the same logical name neither adopts nor deletes it.
// The plugin loads dist/: `npm run build` before this file alone.
import type * as pulumi from "@pulumi/pulumi";
import { Pod } from "../../src/resources/pod";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { captureProgram, EngineStack, PROJECT, type Registration, SECRET_KEYS } from "../../tools/engine";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";
import { type EngineRig, nextCommand, startEngineRig } from "../../tools/engine/rig";
import { resourceCalls, resourcesOf, resourceSteps } from "../helpers/ledger";

const KEY = "cp_sentinel_options_9a3c5e17";
const TIMEOUT_MS = 120_000;

let rig: EngineRig;
let templateId: string;
/** Plugins of later commands, stopped at the end whatever happened. */
const plugins: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  rig = await startEngineRig(KEY);
  templateId = await createServerlessTemplate(rig.emu.url, KEY, { name: "options-tpl" });
}, 60_000);

afterAll(async () => {
  for (const plugin of plugins) await plugin.stop();
  await rig?.close();
});

interface Shape {
  pod?: { name?: string; opts?: pulumi.CustomResourceOptions };
  endpoint?: { opts?: pulumi.CustomResourceOptions };
}

const program = (shape: Shape): Promise<Registration[]> =>
  captureProgram(
    () => {
      if (shape.pod) {
        new Pod(
          shape.pod.name ?? "trainer",
          { image: "img/train:1", gpu: { id: "NVIDIA L40S" }, mounts: { persistent: { size: 20, path: "/workspace" } } },
          shape.pod.opts,
        );
      }
      if (shape.endpoint) new ServerlessEndpoint("api", { gpuIds: "ADA_24", templateId, workersMax: 1, waitForWorkers: false }, shape.endpoint.opts);
    },
    { project: PROJECT, stack: "dev", config: rig.config, secretKeys: SECRET_KEYS },
  );

const livePods = () => (rig.emu.state().pods as any[]).filter((p) => p.status !== "TERMINATED");
const liveEndpoints = () => rig.emu.state().endpoints as any[];
const ops = (r: Parameters<typeof resourceSteps>[0]) => resourceSteps(r).map((s) => s.op);

test(
  "case 1: a pod and an auto-named endpoint left with retainOnDelete keep running when the program declares their names again",
  async () => {
    let stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "retain" });
    const both: Shape = { pod: {}, endpoint: {} };
    expect((await stack.up(await program(both))).error).toBeUndefined();
    const [keptPod, keptEndpoint] = resourcesOf(stack);
    expect(keptEndpoint.outputs.name).toMatch(/^api-[0-9a-f]{7}$/);

    // retainOnDelete on both, then both leave the program: the engine drops them from state only.
    const retain = { retainOnDelete: true };
    expect(ops(await stack.up(await program({ pod: { opts: retain }, endpoint: { opts: retain } })))).toEqual(["same", "same"]);
    const calls = stack.calls.length;
    const gone = await stack.up(await program({}));
    expect(gone.error).toBeUndefined();
    expect(ops(gone)).toEqual(["delete", "delete"]);
    expect(resourceCalls(stack.calls.slice(calls)).filter((c) => c.startsWith("Delete"))).toEqual([]);
    expect(resourcesOf(stack)).toEqual([]);
    expect(livePods().map((p) => p.id)).toEqual([keptPod.id]);

    // The same names again, in a later `pulumi up` (a new plugin process, which knows nothing of
    // the first one's creates): two creates, and the kept ones are left alone.
    const later = await nextCommand(rig, stack);
    plugins.push(later.plugin);
    stack = later.stack;
    const preview = await stack.preview(await program(both));
    expect(ops(preview)).toEqual(["create", "create"]);
    const again = await stack.up(await program(both));
    expect(again.error).toBeUndefined();
    expect(ops(again)).toEqual(["create", "create"]);
    const [newPod, newEndpoint] = resourcesOf(stack);
    expect(newPod.id).not.toBe(keptPod.id);
    expect(newEndpoint.id).not.toBe(keptEndpoint.id);
    expect(livePods().find((p) => p.id === keptPod.id)).toMatchObject({ status: "RUNNING" });
    expect(liveEndpoints().map((e) => e.id)).toEqual(expect.arrayContaining([keptEndpoint.id, newEndpoint.id]));

    // destroy takes only what the stack has.
    expect((await stack.destroy()).error).toBeUndefined();
    expect(livePods().map((p) => p.id)).toEqual([keptPod.id]);
    expect(liveEndpoints().map((e) => e.id)).toEqual([keptEndpoint.id]);
    await rig.client.pods.delete(keptPod.id);
    await rig.client.endpoints.save({ id: keptEndpoint.id, name: keptEndpoint.outputs.name, gpuIds: "ADA_24", templateId, type: "QB", workersMin: 0, workersMax: 0 } as any);
    await rig.client.endpoints.delete(keptEndpoint.id);
  },
  TIMEOUT_MS,
);

test(
  "retainOnDelete on a replacement: the old pod is left running, the new one made",
  async () => {
    const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "retain-replace" });
    const regs = async (size: number) =>
      captureProgram(
        () => {
          new Pod("job", { image: "img/train:1", gpu: { id: "NVIDIA L40S" }, mounts: { persistent: { size, path: "/w" } } }, { retainOnDelete: true });
        },
        { project: PROJECT, stack: "retain-replace", config: rig.config, secretKeys: SECRET_KEYS },
      );
    expect((await stack.up(await regs(20))).error).toBeUndefined();
    const first = resourcesOf(stack)[0]!;
    // A smaller persistent mount needs a new pod: the replacement's delete is retained too.
    const rep = await stack.up(await regs(10));
    expect(rep.error).toBeUndefined();
    expect(ops(rep)).toEqual(["replace"]);
    const second = resourcesOf(stack)[0]!;
    expect(livePods().filter((p) => [first.id, second.id].includes(p.id)).map((p) => p.status)).toEqual(["RUNNING", "RUNNING"]);
    const destroyed = await stack.destroy();
    expect(destroyed.error).toBeUndefined();
    for (const id of [first.id, second.id]) await rig.client.pods.delete(id);
  },
  TIMEOUT_MS,
);

test(
  "aliases: a logical rename with the old name as an alias is the same pod, no create and no delete",
  async () => {
    const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "alias" });
    expect((await stack.up(await program({ pod: {} }))).error).toBeUndefined();
    const before = resourcesOf(stack)[0]!;
    const renamed = await program({ pod: { name: "trainer-2", opts: { aliases: [{ name: "trainer" }] } } });
    const preview = await stack.preview(renamed);
    expect(preview.error).toBeUndefined();
    expect(ops(preview)).toEqual(["same"]);
    const up = await stack.up(renamed);
    expect(up.error).toBeUndefined();
    expect(ops(up)).toEqual(["same"]);
    const after = resourcesOf(stack);
    expect(after.map((r) => [r.urn.split("::").at(-1), r.id])).toEqual([["trainer-2", before.id]]);
    expect(livePods().map((p) => p.id)).toEqual([before.id]);
    expect((await stack.destroy()).error).toBeUndefined();
    expect(livePods()).toEqual([]);
  },
  TIMEOUT_MS,
);

// Programs that stay still (issue 51): the README's lead program chooses its GPU as a preference
// list, so a change of the catalog's prices between two previews moves nothing; the "cheapest type
// of the day" it used to pick replaces a running pod nobody changed. Through Pulumi's own plugin
// against the emulator; the prices move in the emulator's catalog, as the platform's would.
// The plugin loads dist/: run `npm run build` before this file alone.
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { findGpu } from "../../src/emulator/catalog/data";
import { getGpuTypes } from "../../src/resources/catalog";
import { NetworkVolume } from "../../src/resources/network-volume";
import { Pod } from "../../src/resources/pod";
import { captureProgram, EngineStack, PROJECT, SECRET_KEYS } from "../../tools/engine";
import { resolvingIds } from "../../tools/engine/examples";
import { engineRigForFile } from "../../tools/engine/rig";

const rig = engineRigForFile("cp_sentinel_still_7d21c0e9a4");
/** The README's lead program's preference list, as it is written there. */
const README_GPUS = ["NVIDIA GeForce RTX 4090", "NVIDIA L40S"];

/** The README's lead program, its GPU `gpuId`. */
const program = (gpuId: pulumi.Input<string> | string[]) => () => {
  const volume = new NetworkVolume("data", { size: 20, dataCenter: "EU-RO-1", type: "STANDARD" });
  new Pod("trainer", {
    image: "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
    gpu: { id: gpuId, count: 1 },
    ports: ["8888/http", "22/tcp"],
    env: { JUPYTER_PORT: "8888" },
    mounts: { network: [{ volumeId: volume.id, path: "/workspace" }] },
  });
};
const cheapestOfTheDay = () =>
  pulumi.output(getGpuTypes({ manufacturer: "NVIDIA", minMemoryGb: 24 })).apply((gpus) => [...gpus].sort((a, b) => a.price.secure - b.price.secure)[0]!.id);

const ops = (steps: { urn: string; op: string }[]) => Object.fromEntries(steps.map((s) => [s.urn.split("::").at(-1), s.op]));
/** What the engine registers, the volume's id resolved as the engine would once it exists. */
async function regs(stack: EngineStack, declare: () => void, preview: boolean) {
  const captured = await captureProgram(declare, { project: PROJECT, stack: stack.stack, preview, config: rig.config, secretKeys: SECRET_KEYS });
  return resolvingIds(stack, captured, { preview });
}

/** The 4090 made dearer than the A6000 for the length of `during`, as a price change of the platform. */
async function withPricesMoved<T>(during: () => Promise<T>): Promise<T> {
  const price = findGpu("NVIDIA GeForce RTX 4090")!.price as { secure: number; community: number };
  const before = { ...price };
  Object.assign(price, { secure: 0.99, community: 0.79 });
  try {
    return await during();
  } finally {
    Object.assign(price, before);
  }
}

test("the README's lead program chooses its GPU as a preference list", () => {
  const readme = fs.readFileSync(path.join(__dirname, "../../README.md"), "utf8");
  const lead = readme.slice(readme.indexOf("A whole program"), readme.indexOf("export const podId"));
  expect(lead).toContain(`config.getObject<string[]>("gpuTypes") ?? ${JSON.stringify(README_GPUS).replaceAll(",", ", ")}`);
  expect(lead).toContain("gpu: { id: gpuTypes, count: 1 }");
  expect(lead).not.toMatch(/sort\(|\.price/);
});

test("run twice with a price change between, the preference list previews same; the cheapest of the day replaces the pod", async () => {
  const still = new EngineStack(rig.plugin, { project: PROJECT, stack: "still" });
  expect((await still.up(await regs(still, program(README_GPUS), false))).error).toBeUndefined();
  // The stack's cost ledger, made before the pod, looks at which type the preference list got; the
  // price it finds is the one it had, so it records nothing new and the next up is all same.
  const learnt = await still.up(await regs(still, program(README_GPUS), false));
  expect(ops(learnt.steps)).toEqual({ "stack-cost": "same", data: "same", trainer: "same" });
  const first = await still.preview(await regs(still, program(README_GPUS), true));
  const second = await withPricesMoved(async () => still.preview(await regs(still, program(README_GPUS), true)));
  expect([ops(first.steps), ops(second.steps)]).toEqual([{ "stack-cost": "same", data: "same", trainer: "same" }, { "stack-cost": "same", data: "same", trainer: "same" }]);

  const moving = new EngineStack(rig.plugin, { project: PROJECT, stack: "moving" });
  expect((await moving.up(await regs(moving, program(cheapestOfTheDay()), false))).error).toBeUndefined();
  const moved = await withPricesMoved(async () => moving.preview(await regs(moving, program(cheapestOfTheDay()), true)));
  expect(ops(moved.steps)).toMatchObject({ data: "same", trainer: "replace" });

  for (const s of [still, moving]) expect((await s.destroy()).error).toBeUndefined();
}, 120_000);

// What `pulumi preview`, `refresh` and `up` do after each outside event the emulator's control
// plane produces (POST /emulator/events, the console's buttons), through Pulumi's own plugin:
// docs/emulator.md's table "After an outside event" says what this test shows.
import { Pod } from "../../src/resources/pod";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { captureProgram, EngineStack, PROJECT, type Registration, SECRET_KEYS } from "../../tools/engine";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";
import { engineRigForFile } from "../../tools/engine/rig";
import { resourceSteps } from "../helpers/ledger";

const KEY = "cp_sentinel_outside_events_3c9a1f";

const rig = engineRigForFile(KEY);

async function outside(event: Record<string, string>): Promise<void> {
  const res = await fetch(`${rig.emu.url}/emulator/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(event),
  });
  expect(res.status).toBe(200);
}

const ops = (r: { steps: { urn: string; op: string }[] }) => resourceSteps(r as never).map((s) => s.op);
const idOf = (stack: EngineStack, type: string) => [...stack.resources.values()].find((r) => r.urn.includes(type))?.id;
const pod = (id: string) => rig.emu.state().pods.find((p) => p.id === id)!;

function podProgram(stack: string): Promise<Registration[]> {
  return captureProgram(
    () => {
      new Pod("worker", { name: "outside-worker", image: "img/app:1", gpu: { id: "NVIDIA GeForce RTX 4090" } });
    },
    { project: PROJECT, stack, config: rig.config, secretKeys: SECRET_KEYS },
  );
}

test("a pod stopped from outside: preview and up see nothing until a refresh reads EXITED; then up starts the same pod", async () => {
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "stopped" });
  const regs = await podProgram("stopped");
  expect((await stack.up(regs)).error).toBeUndefined();
  const id = idOf(stack, "Pod")!;
  await outside({ type: "stopPod", podId: id });

  expect(ops(await stack.preview(regs))).toEqual(["same"]);
  const refresh = await stack.refresh();
  expect(refresh.error).toBeUndefined();
  expect([...stack.resources.values()].find((r) => r.id === id)!.outputs).toMatchObject({ status: "EXITED", desiredStatus: "RUNNING" });
  expect(ops(await stack.preview(regs))).toEqual(["update"]);
  const up = await stack.up(regs);
  expect(up.error).toBeUndefined();
  expect(ops(up)).toEqual(["update"]);
  expect(idOf(stack, "Pod")).toBe(id);
  expect(pod(id).status).toBe("RUNNING");
});

test("a pod terminated from outside: refresh drops it from state, then preview and up create a new one", async () => {
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "terminated" });
  const regs = await podProgram("terminated");
  expect((await stack.up(regs)).error).toBeUndefined();
  const id = idOf(stack, "Pod")!;
  await outside({ type: "terminatePod", podId: id });

  expect(ops(await stack.preview(regs))).toEqual(["same"]);
  expect((await stack.refresh()).error).toBeUndefined();
  expect(idOf(stack, "Pod")).toBeUndefined();
  expect(ops(await stack.preview(regs))).toEqual(["create"]);
  const up = await stack.up(regs);
  expect(ops(up)).toEqual(["create"]);
  const fresh = idOf(stack, "Pod")!;
  expect(fresh).not.toBe(id);
  expect(pod(fresh).status).toBe("RUNNING");
});

test("an endpoint deleted from outside: refresh drops it from state, then up makes a new one", async () => {
  const templateId = await createServerlessTemplate(rig.emu.url, KEY);
  const stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "endpoint" });
  const regs = await captureProgram(
    () => {
      new ServerlessEndpoint("api", { name: "outside-api", gpuIds: "ADA_24", templateId, workersMin: 1, workersMax: 2 });
    },
    { project: PROJECT, stack: "endpoint", config: rig.config, secretKeys: SECRET_KEYS },
  );
  expect((await stack.up(regs)).error).toBeUndefined();
  const id = idOf(stack, "ServerlessEndpoint")!;
  await outside({ type: "deleteEndpoint", endpointId: id });

  expect(ops(await stack.preview(regs))).toEqual(["same"]);
  expect((await stack.refresh()).error).toBeUndefined();
  expect(idOf(stack, "ServerlessEndpoint")).toBeUndefined();
  const up = await stack.up(regs);
  expect(ops(up)).toEqual(["create"]);
  expect(idOf(stack, "ServerlessEndpoint")).not.toBe(id);
  expect((rig.emu.state().endpoints as { id: string }[]).map((e) => e.id)).toEqual([idOf(stack, "ServerlessEndpoint")]);
});

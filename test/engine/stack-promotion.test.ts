// A create takes only what it made (lifecycle/find-again.ts), through Pulumi's own
// dynamic-provider plugin against the emulator over real HTTP. One program, two stacks (dev and
// prod) on one account, with given names: prod is up, a person made an object of the same name
// by hand, and dev's first create meets one 5xx (the platform made nothing). Dev must make its
// own object, and its destroy must leave prod's and the hand-made one alone: here for a pod; the
// other kinds, and a kept object (retainOnDelete) whose logical name returns for every kind, are
// in test:faults (test/faults/found-again-kinds.test.ts). And a step that fails
// halfway leaves state true: a GraphQL -> REST move whose PATCH fails after the endpoint was
// bound to its own template, then backed out; a destroy that scaled an endpoint to zero and then
// failed, over GraphQL and over REST; a destroy that unlocked a pod and then failed. Each time the
// next preview shows what the platform has, and the next up converges on the program. The
// plugin loads dist/: run `npm run build` before this file alone.
import type { AimedFault } from "../../src/emulator/core/faults";
import { Pod } from "../../src/resources/pod";
import { ServerlessEndpoint, type ServerlessEndpointArgs } from "../../src/resources/serverless-endpoint";
import { EngineStack, PROJECT } from "../../tools/engine";
import { devMakesItsOwn, foundAgainKinds, foundAgainRigForFile, program, SCENARIO_BOUND_MS } from "../helpers/found-again";
import { resourcesOf, resourceSteps } from "../helpers/ledger";

const env = foundAgainRigForFile("cp_sentinel_found_again_51d2e0");

test("Pod: after one 5xx on dev's create, dev makes its own, and its destroy leaves prod's and a hand-made one alone", async () => {
  await devMakesItsOwn(env, foundAgainKinds(env).find((k) => k.label === "Pod")!);
}, SCENARIO_BOUND_MS);

const endpoint = (id: string) => (env.r.emu.state().endpoints as any[]).find((e) => e.id === id);
/** Enough hits that every retry of the client meets the fault too. */
const always = (f: AimedFault): AimedFault => ({ ...f, times: 20 });

test("a GraphQL -> REST move that fails after binding its own template, backed out: the next up binds the old template again", async () => {
  const stack = new EngineStack(env.r.plugin, { project: PROJECT, stack: "move" });
  const graphql: ServerlessEndpointArgs = { name: "move-api", gpuIds: "AMPERE_24", templateId: env.tpl, workersMin: 0, workersMax: 1 };
  const declare = (args: ServerlessEndpointArgs) => () => void new ServerlessEndpoint("api", args);
  expect((await stack.up(await program(env, "move", declare(graphql)))).error).toBeUndefined();
  const [{ id }] = resourcesOf(stack);

  // The move, with a worker change that goes by PATCH after the binding: the PATCH fails.
  const rest: ServerlessEndpointArgs = { name: "move-api", api: "rest", container: { image: "moved:9" }, gpuIds: "AMPERE_24", workersMin: 0, workersMax: 2 };
  env.r.emu.setFaults({ aimed: [always({ method: "PATCH", path: `/v2/serverless/${id}`, fault: "5xx" })] });
  const move = await stack.up(await program(env, "move", declare(rest)));
  env.r.emu.setFaults({});
  expect(move.error).toBeDefined();
  expect(endpoint(id).templateId).not.toBe(env.tpl);

  // Backed out: the program's old templateId is a change from what runs, and up makes it.
  const back = await stack.preview(await program(env, "move", declare(graphql)));
  expect(resourceSteps(back).map((s) => s.op)).toEqual(["update"]);
  expect((await stack.up(await program(env, "move", declare(graphql)))).error).toBeUndefined();
  expect(endpoint(id).templateId).toBe(env.tpl);
  expect(resourceSteps(await stack.up(await program(env, "move", declare(graphql)))).map((s) => s.op)).toEqual(["same"]);
  expect((await stack.destroy()).error).toBeUndefined();
});

test.each([
  ["GraphQL", {}, { method: "POST", path: "/graphql", bodyIncludes: "deleteEndpoint", fault: "5xx" }],
  ["REST", { api: "rest", container: { image: "worker:3" } }, { method: "DELETE", path: /^\/v2\/serverless\//, fault: "5xx" }],
] as const)("over %s, a destroy that fails after scaling to zero puts the workers back: the next up is same, and true", async (_api, extra, fault) => {
  const stack = new EngineStack(env.r.plugin, { project: PROJECT, stack: `drain-${_api}` });
  const args = { name: `drain-${_api.toLowerCase()}`, gpuIds: "AMPERE_24", workersMin: 1, workersMax: 2, waitForWorkers: false, ...(_api === "GraphQL" ? { templateId: env.tpl } : {}), ...extra } as ServerlessEndpointArgs;
  const regs = () => program(env, stack.stack, () => void new ServerlessEndpoint("api", args));
  expect((await stack.up(await regs())).error).toBeUndefined();
  const [{ id }] = resourcesOf(stack);

  env.r.emu.setFaults({ aimed: [always(fault as AimedFault)] });
  const destroy = await stack.destroy();
  env.r.emu.setFaults({});
  expect(destroy.error).toBeDefined();
  expect(endpoint(id)).toMatchObject({ workersMin: 1, workersMax: 2 });
  expect(resourceSteps(await stack.up(await regs())).map((s) => s.op)).toEqual(["same"]);
  expect((await stack.destroy()).error).toBeUndefined();
  expect(endpoint(id)).toBeUndefined();
});

test("a destroy that unlocked a locked pod and then failed locks it again: the next up is same, and true", async () => {
  const stack = new EngineStack(env.r.plugin, { project: PROJECT, stack: "locked" });
  const regs = () => program(env, "locked", () => void new Pod("worker", { name: "locked-worker", image: "img/app:1", gpu: { id: env.gpuId }, locked: true }));
  expect((await stack.up(await regs())).error).toBeUndefined();
  const [{ id }] = resourcesOf(stack);
  const pod = () => (env.r.emu.state().pods as any[]).find((p) => p.id === id);
  expect(pod().locked).toBe(true);

  env.r.emu.setFaults({ aimed: [always({ method: "DELETE", path: `/v2/pods/${id}`, fault: "5xx" })] });
  const destroy = await stack.destroy();
  env.r.emu.setFaults({});
  expect(destroy.error).toBeDefined();
  expect(pod()).toMatchObject({ status: "RUNNING", locked: true });
  expect(resourceSteps(await stack.up(await regs())).map((s) => s.op)).toEqual(["same"]);
  expect((await stack.destroy()).error).toBeUndefined();
});

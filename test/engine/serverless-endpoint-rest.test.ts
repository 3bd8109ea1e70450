// ServerlessEndpoint over REST v2 (`api: "rest"`) through Pulumi's own dynamic-provider plugin,
// against the emulator over real HTTP: create, update, refresh and destroy without a single
// GraphQL call; and a stack's existing GraphQL endpoint moved to REST in place (same id, its
// workers kept), the stack's Template unchanged and present after the move, after a REST
// container change and after the endpoint's destroy. The plugin loads dist/: run
// `npm run build` before this file alone.
import { ServerlessEndpoint, type ServerlessEndpointArgs } from "../../src/resources/serverless-endpoint";
import { Template } from "../../src/resources/template";
import { captureProgram, EngineStack, PROJECT, type Registration, reveal, SECRET_KEYS } from "../../tools/engine";
import { type EngineRig, startEngineRig, startPlugin } from "../../tools/engine/rig";
import { resourcesOf, resourceSteps } from "../helpers/ledger";

const KEY = "cp_sentinel_endpoint_rest_7c41a0";

let r: EngineRig;
beforeAll(async () => {
  // A drained worker stays listed for 1.5 s: long enough for the move's check that the worker
  // before is still there after the up (40 ms was shorter than a busy machine's gap between the
  // up's last answer and that check), and nothing here waits for a drain to end.
  r = await startEngineRig(KEY, { timings: { provisioningMs: 10, startingMs: 40, drainMs: 1500, restartDelayMs: 20 } });
});
afterAll(() => r?.close());

const capture = (program: () => void, preview = false): Promise<Registration[]> =>
  captureProgram(program, { project: PROJECT, stack: "dev", preview, config: r.config, secretKeys: SECRET_KEYS });

const endpoints = () => r.emu.state().endpoints as any[];
const templates = () => r.emu.state().templates as { id: string; name: string; image: string; env: Record<string, string> }[];
const since = (from: number) => r.emu.requestLog().slice(from);

test("a REST-managed endpoint: preview, create, update, refresh with drift, destroy, all over /v2/serverless", async () => {
  const stack = new EngineStack(r.plugin, { project: PROJECT, stack: "rest" });
  const base: ServerlessEndpointArgs = {
    name: "rest-api",
    api: "rest",
    container: { image: "worker:1", env: { MODEL: "sdxl" }, ports: ["8000/http"] },
    gpuIds: "ADA_24,AMPERE_24",
    workersMin: 1,
    workersMax: 2,
    dataCenterIds: ["US-KS-2"],
  };
  const program = (args: ServerlessEndpointArgs, preview = false) =>
    capture(() => {
      new ServerlessEndpoint("api", args);
    }, preview);
  const from = r.emu.requestLog().length;

  // What REST cannot say is refused at preview, before any request.
  const bad = await stack.preview(await program({ ...base, templateId: "tpl-x", locations: "US" }, true));
  expect(bad.failures?.failures.map((f) => f.property).sort()).toEqual(["locations", "templateId"]);
  const lb = await stack.preview(await program({ ...base, type: "LB" }, true));
  expect(lb.failures?.failures).toEqual([{ property: "type", reason: expect.stringContaining("cannot be created over REST v2") }]);

  const preview = await stack.preview(await program(base, true));
  expect(resourceSteps(preview).map((s) => s.op)).toEqual(["create"]);
  expect(since(from).map((e) => `${e.method} ${e.path}`)).toEqual(["GET /v2/catalog/gpus"]);

  const up = await stack.up(await program(base));
  expect(up.error).toBeUndefined();
  const [res] = resourcesOf(stack);
  expect(reveal(res!.outputs)).toMatchObject({
    api: "rest",
    name: "rest-api",
    gpuIds: "ADA_24,AMPERE_24",
    workersMin: 1,
    container: { image: "worker:1", env: { MODEL: "sdxl" }, ports: ["8000/http"], args: "", registry: null },
    dataCenterIds: ["US-KS-2"],
    pods: [{ desiredStatus: "RUNNING" }],
    hourlyCost: { min: expect.any(Number), max: expect.any(Number) },
  });
  expect(endpoints()).toEqual([expect.objectContaining({ id: res!.id, name: "rest-api" })]);
  // Readiness came from the workers list, one per tick.
  expect(since(from).some((e) => e.op === "listEndpointWorkers")).toBe(true);

  expect(resourceSteps(await stack.up(await program(base))).map((s) => s.op)).toEqual(["same"]);

  // A container and a worker change: one sparse PATCH, the same endpoint.
  const bigger: ServerlessEndpointArgs = { ...base, workersMax: 3, container: { ...(base.container as object), env: { MODEL: "flux" } } as any };
  const beforeUpdate = r.emu.requestLog().length;
  const update = await stack.up(await program(bigger));
  expect(update.error).toBeUndefined();
  expect(resourceSteps(update).map((s) => [s.op, s.diff?.replaces])).toEqual([["update", []]]);
  const patches = r.emu.exchanges().filter((x) => x.method === "PATCH" && x.path === `/v2/serverless/${res!.id}`);
  expect(patches.at(-1)?.requestBody).toEqual({ workers: { min: 1, max: 3 }, env: { MODEL: "flux" } });
  // Past the reads (the stack's cost looks at the live endpoint with a `myself`, a POST): one PATCH.
  expect(since(beforeUpdate).filter((e) => e.method !== "GET" && e.op !== "myself").map((e) => e.op)).toEqual(["updateEndpoint"]);
  expect(reveal(stack.resources.get(res!.urn)?.outputs)).toMatchObject({ workersMax: 3, container: { env: { MODEL: "flux" } } });

  // Drift made outside the stack: refresh reads it, the next preview puts the program's value back.
  await r.client.serverless.update(res!.id, { scaling: { idleTimeout: 42 }, env: { MODEL: "other" } });
  const refresh = await stack.refresh();
  expect(refresh.error).toBeUndefined();
  expect(reveal(stack.resources.get(res!.urn)?.outputs)).toMatchObject({ idleTimeout: 42, container: { env: { MODEL: "other" } } });
  const back = await stack.preview(await program(bigger, true));
  expect(resourceSteps(back).map((s) => s.op)).toEqual(["update"]);
  expect((await stack.up(await program(bigger))).error).toBeUndefined();
  expect((await r.client.serverless.get(res!.id)).env).toEqual({ MODEL: "flux" });

  // Destroy: scale to 0/0 first, then DELETE, which takes the bound template with it.
  const templatesBefore = templates().length;
  const beforeDestroy = r.emu.requestLog().length;
  const destroy = await stack.destroy();
  expect(destroy.error).toBeUndefined();
  expect(endpoints()).toEqual([]);
  const writes = since(beforeDestroy).filter((e) => e.method !== "GET");
  expect(writes.map((e) => [e.op, e.status])).toEqual([
    ["updateEndpoint", 200],
    ["deleteEndpoint", 204],
  ]);
  expect(templates().length).toBe(templatesBefore - 1);

  // Nothing of the REST endpoint's life went over GraphQL.
  expect(since(from).filter((e) => e.path === "/graphql")).toEqual([]);
  for (const place of [stack.stateText(), r.plugin.transcript()]) expect(place).not.toContain(KEY);
});

test("a GraphQL endpoint moves to REST in place; the stack's Template is never changed or deleted", async () => {
  const stack = new EngineStack(r.plugin, { project: PROJECT, stack: "move" });
  const endpointArgs = { name: "moving", gpuIds: "AMPERE_24", workersMin: 1, workersMax: 2 };
  const withTemplate = (endpoint: (tpl: Template) => ServerlessEndpointArgs | undefined, preview = false) =>
    capture(() => {
      const tpl = new Template("worker", { image: "worker:1", serverless: true, env: { SHARED: "yes" } });
      const args = endpoint(tpl);
      if (args) new ServerlessEndpoint("api", args);
    }, preview);
  const graphql = (tpl: Template): ServerlessEndpointArgs => ({ ...endpointArgs, templateId: tpl.id });
  const rest = (env: Record<string, string>) => (): ServerlessEndpointArgs => ({ ...endpointArgs, api: "rest", container: { image: "worker:1", env } });

  // The engine creates the template first and registers the endpoint with its real id.
  const [tplReg, ledgerReg, epReg] = await withTemplate(graphql);
  expect((await stack.up([tplReg!])).error).toBeUndefined();
  epReg!.inputs.templateId = resourcesOf(stack)[0]!.id;
  expect((await stack.up([tplReg!, ledgerReg!, epReg!])).error).toBeUndefined();
  const [tpl, ep] = resourcesOf(stack);
  expect(ep!.outputs).toMatchObject({ templateId: tpl!.id, pods: [{ desiredStatus: "RUNNING" }] });
  const templateBefore = templates().find((t) => t.id === tpl!.id)!;
  const workersBefore = endpoints()[0].pods.map((p: any) => p.id);

  // The move: container in place of templateId, api "rest". An update, never a replace.
  const preview = await stack.preview(await withTemplate(rest({ SHARED: "yes" }), true));
  expect(resourceSteps(preview).map((s) => [s.urn.split("::").at(-1), s.op, s.diff?.replaces ?? []])).toEqual([
    ["worker", "same", []],
    ["api", "update", []],
  ]);
  const move = await stack.up(await withTemplate(rest({ SHARED: "yes" })));
  expect(move.error).toBeUndefined();
  const moved = stack.resources.get(ep!.urn)!;
  expect(moved.id).toBe(ep!.id);
  expect(reveal(moved.outputs)).toMatchObject({ api: "rest", container: { image: "worker:1", env: { SHARED: "yes" } } });
  // Binding a template of its own is a release naming template.id, which rolls, and up waits
  // for the rollout: the endpoint serves, on workers of the new release only. (Whether the
  // drained worker is still listed, EXITED, depends on how long the up took after the drain.)
  expect(endpoints().map((e) => e.id)).toEqual([ep!.id]);
  const serving = endpoints()[0].pods.filter((p: any) => p.desiredStatus === "RUNNING").map((p: any) => p.id);
  expect(serving.length).toBeGreaterThan(0);
  expect(serving.filter((id: string) => workersBefore.includes(id))).toEqual([]);
  // The endpoint now runs a template of its own; the stack's is as it was.
  const bound = endpoints()[0].templateId;
  expect(bound).not.toBe(tpl!.id);
  expect(templates().find((t) => t.id === tpl!.id)).toEqual(templateBefore);

  // A container change over REST acts on the endpoint's own template only.
  expect((await stack.up(await withTemplate(rest({ SHARED: "no" })))).error).toBeUndefined();
  expect(templates().find((t) => t.id === bound)?.env).toEqual({ SHARED: "no" });
  expect(templates().find((t) => t.id === tpl!.id)).toEqual(templateBefore);
  expect(resourceSteps(await stack.up(await withTemplate(rest({ SHARED: "no" })))).map((s) => s.op)).toEqual(["same", "same"]);

  // The endpoint's destroy (dropped from the program): its own template goes with it, the stack's stays.
  const drop = await stack.up(await withTemplate(() => undefined));
  expect(drop.error).toBeUndefined();
  expect(endpoints()).toEqual([]);
  expect(templates().find((t) => t.id === bound)).toBeUndefined();
  expect(templates().find((t) => t.id === tpl!.id)).toEqual(templateBefore);
  expect(resourcesOf(stack).map((x) => x.id)).toEqual([tpl!.id]);

  expect((await stack.destroy()).error).toBeUndefined();
  expect(templates().find((t) => t.id === tpl!.id)).toBeUndefined();
});

test("the cost line and the budget price a REST endpoint as a GraphQL one", async () => {
  const cfg = { ...r.config, "computeplatform:maxHourlyCost": "1.5" };
  const plugin = await startPlugin(cfg);
  try {
    const stack = new EngineStack(plugin, { project: PROJECT, stack: "budget" });
    const program = (workersMax: number, preview = false) =>
      captureProgram(
        () => {
          new ServerlessEndpoint("api", { api: "rest", container: { image: "worker:1" }, gpuIds: "ADA_48_PRO", workersMin: 0, workersMax });
        },
        { project: PROJECT, stack: "budget", preview, config: cfg, secretKeys: SECRET_KEYS },
      );
    // One worker of ADA_48_PRO (an L40S) is $0.86/h: at most one fits under $1.50/h.
    const up = await stack.up(await program(1));
    expect(up.error).toBeUndefined();
    expect(resourcesOf(stack)[0]!.outputs.hourlyCost).toEqual({ min: 0, max: 0.86 });

    const mark = plugin.transcript().length;
    const from = r.emu.requestLog().length;
    const over = await stack.preview(await program(2, true));
    expect(over.error?.message).toContain("over its budget $1.50/h (computeplatform:maxHourlyCost)");
    expect(over.error?.message).toContain("endpoint api $0.00-$1.72/h");
    const refused = await stack.up(await program(2));
    expect(refused.error?.message).toContain("over its budget $1.50/h");
    expect(since(from).filter((e) => e.method !== "GET")).toEqual([]);
    expect(plugin.transcript().slice(mark)).toContain("endpoint api workersMax 1 -> 2");

    expect((await stack.destroy()).error).toBeUndefined();
  } finally {
    await plugin.stop();
  }
});

// Template through Pulumi's own dynamic-provider plugin, against the emulator over real HTTP:
// a bad property stops preview with no request; up creates; an image change is an update of
// the same template; dropping the mount replaces it (new one first, then the old deleted);
// refresh picks up a change made outside the stack and the next up puts the program's value
// back; Template.get reads a template without managing it; destroy. Then a stack where an
// endpoint runs the stack's template: check refuses a pod template at preview, naming it;
// destroy deletes the endpoint first, so the template's one DELETE meets no user. The key
// appears nowhere. The plugin loads dist/: run `npm run build` before this file alone.
import { ComputePlatform } from "../../src/client";
import { type Emulator, startEmulator } from "../../src/emulator";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { Template, type TemplateArgs } from "../../src/resources/template";
import { captureProgram, EngineStack, isSecret, PROJECT, ProviderPlugin, type Registration, reveal, SECRET_KEYS, urnOf } from "../../tools/engine";
import { resourceCalls, resourcesOf, resourceSteps } from "../helpers/ledger";
import { startPlugin } from "../../tools/engine/rig";

const KEY = "cp_sentinel_template_4d7a19e3c5";
const QUOTAS = { minute: 100_000, hour: 1_000_000, day: 10_000_000 };

let emu: Emulator;
let plugin: ProviderPlugin;
let config: Record<string, string>;
let client: ComputePlatform;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], quotas: QUOTAS, timings: { provisioningMs: 10, startingMs: 10, drainMs: 10 } });
  config = { "computeplatform:apiKey": KEY, "computeplatform:apiUrl": emu.url };
  plugin = await startPlugin(config);
  client = new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, pacing: false });
});

afterAll(async () => {
  await client?.close();
  await plugin?.stop();
  await emu?.close();
});

const capture = (program: () => void, preview = false) => captureProgram(program, { project: PROJECT, stack: "dev", preview, config, secretKeys: SECRET_KEYS });

/** The program `new Template("worker", args)`, as the SDK registers it. */
const program = (args: TemplateArgs, preview = false): Promise<Registration[]> =>
  capture(() => {
    new Template("worker", args);
  }, preview);

const templates = () => emu.state().templates as { id: string; name: string; image: string }[];

test("preview, create, update in place, replace, refresh after an outside change, get, destroy", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const base: TemplateArgs = { image: "worker:1", serverless: true, ports: ["8000/http"], mounts: { persistent: { size: 20, path: "/workspace" } } };

  // An unknown property stops Check, named, before any request.
  const bad = await stack.preview(await program({ ...base, imageTag: "1" } as TemplateArgs, true));
  expect(bad.failures?.failures).toEqual([{ property: "imageTag", reason: "imageTag is not a Template argument; did you mean image?" }]);
  const preview = await stack.preview(await program(base, true));
  expect(preview.steps.map((s) => s.op)).toEqual(["create"]);
  expect(emu.requestLog()).toEqual([]);

  const up = await stack.up(await program(base));
  expect(up.error).toBeUndefined();
  const [res] = [...stack.resources.values()];
  expect(res.outputs).toMatchObject({ image: "worker:1", serverless: true, args: "", ports: ["8000/http"], env: {}, registry: null, category: "NVIDIA", mounts: { persistent: { size: 20, path: "/workspace" } } });
  expect(res.outputs.name).toMatch(/^worker-[0-9a-f]{7}$/);
  expect((await stack.up(await program(base))).steps.map((s) => s.op)).toEqual(["same"]);

  // A new image: PATCH of the same template.
  const updated = await stack.up(await program({ ...base, image: "worker:2" }));
  expect(updated.error).toBeUndefined();
  expect(updated.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([["update", []]]);
  expect(templates()).toEqual([expect.objectContaining({ id: res.id, image: "worker:2" })]);

  // Dropping the mount: PATCH cannot, so a new template, then the old one deleted.
  const { mounts: _m, ...noMount } = base;
  const replaced = await stack.up(await program({ ...noMount, image: "worker:2" }));
  expect(replaced.error).toBeUndefined();
  expect(replaced.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([["replace", ["mounts"]]]);
  const now = stack.resources.get(res.urn)!;
  expect(now.id).not.toBe(res.id);
  // A replacement is a new resource to the engine: checked without old inputs, it gets a fresh auto-name.
  expect(now.outputs).toMatchObject({ name: expect.stringMatching(/^worker-[0-9a-f]{7}$/), mounts: {}, image: "worker:2" });
  expect(templates()).toEqual([expect.objectContaining({ id: now.id, mounts: {} })]);

  // Someone changes the template outside the stack: refresh shows it, up puts it back.
  await client.templates.update(now.id, { image: "hotfix:9", env: { DEBUG: "1" } });
  const refreshed = await stack.refresh();
  expect(refreshed.error).toBeUndefined();
  expect(reveal(stack.resources.get(res.urn)!.outputs)).toMatchObject({ image: "hotfix:9", env: { DEBUG: "1" } });
  // The platform's env, read back, is stored secret: it holds credentials as often as not.
  expect(isSecret(stack.resources.get(res.urn)!.outputs.env)).toBe(true);
  const back = await stack.up(await program({ ...noMount, image: "worker:2" }));
  expect(back.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([["update", []]]);
  expect(templates()).toEqual([expect.objectContaining({ id: now.id, image: "worker:2", env: {} })]);

  // Template.get: the SDK reads by id with the shim as the only property; the plugin answers with the template.
  const outside = await client.templates.create({ name: "console-made", image: "made:1", serverless: true });
  const shim = now.outputs.__provider;
  const read = await plugin.read(urnOf("dev", PROJECT, res.type, "existing"), outside.id, { __provider: shim }, {});
  expect(read).toMatchObject({ id: outside.id, outputs: { name: "console-made", image: "made:1", serverless: true } });

  const destroy = await stack.destroy();
  expect(destroy.error).toBeUndefined();
  expect(templates().map((t) => t.id)).toEqual([outside.id]);
  for (const place of [stack.stateText(), plugin.transcript()]) expect(place).not.toContain(KEY);
});

test("an endpoint on the stack's template: a pod template refused at preview; destroyed endpoint first", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const stackProgram = (serverless: boolean, preview = false) =>
    capture(() => {
      const tpl = new Template("worker", { image: "worker:1", serverless });
      new ServerlessEndpoint("api", { gpuIds: "AMPERE_24", templateId: tpl.id, workersMin: 0, workersMax: 1 });
    }, preview);

  // Known at preview through the template's own output: not serverless, named.
  const before = emu.requestLog().length;
  const refused = await stack.preview(await stackProgram(false, true));
  expect(refused.failures).toEqual({
    urn: expect.stringContaining("ServerlessEndpoint::api"),
    failures: [{ property: "templateId", reason: expect.stringContaining('templateId is the id of Template "worker", which is not serverless') }],
  });
  // Nothing but the catalog read that prices the stack's cost (cost/ledger.ts).
  expect(emu.requestLog().slice(before).map((e) => `${e.method} ${e.path}`)).toEqual(["GET /v2/catalog/gpus"]);

  const [tplReg, ledgerReg, epReg] = await stackProgram(true);
  const tplUrn = urnOf("dev", PROJECT, tplReg.type, "worker");
  expect([...epReg.options.dependencies].sort()).toEqual([urnOf("dev", PROJECT, ledgerReg.type, "stack-cost"), tplUrn].sort());
  // The engine creates the template first and registers the endpoint with its real id.
  expect((await stack.up([tplReg])).error).toBeUndefined();
  const tplId = stack.resources.get(tplUrn)!.id;
  epReg.inputs.templateId = tplId;
  const up = await stack.up([tplReg, ledgerReg, epReg]);
  expect(up.error).toBeUndefined();
  expect(resourceSteps(up).map((s) => s.op)).toEqual(["same", "create"]);
  const ep = resourcesOf(stack).find((r) => r.urn !== tplUrn)!;
  expect(ep.outputs).toMatchObject({ templateId: tplId });

  const from = emu.requestLog().length;
  const destroy = await stack.destroy();
  expect(destroy.error).toBeUndefined();
  expect(resourceCalls(stack.calls).slice(-2)).toEqual(["Delete api", "Delete worker"]);
  const tplDeletes = emu.requestLog().slice(from).filter((e) => e.op === "deleteTemplate");
  expect(tplDeletes.map((e) => e.status)).toEqual([204]);
  expect(templates().filter((t) => t.id === tplId)).toEqual([]);
  expect(emu.state().endpoints).toEqual([]);
});

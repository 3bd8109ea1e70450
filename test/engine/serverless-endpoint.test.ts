// ServerlessEndpoint through Pulumi's own dynamic-provider plugin, against the emulator over
// real HTTP: preview sends nothing; up creates and waits for workers; an in-place change is an
// update; refresh shows drift; a type change replaces (create, then scale-to-zero delete);
// destroy scales to zero, drains and deletes; a failed readiness wait keeps the endpoint in
// state; the key appears nowhere. The plugin loads the package from dist/ (`npm test` builds
// first), so run `npm run build` before running this file alone.
import { ComputePlatform } from "../../src/client";
import { type Emulator, startEmulator } from "../../src/emulator";
import { ServerlessEndpoint, type ServerlessEndpointArgs } from "../../src/resources/serverless-endpoint";
import { captureProgram, EngineStack, PROJECT, ProviderCallError, ProviderPlugin, type Registration, SECRET_KEYS } from "../../tools/engine";
import { resourceCalls, resourceRegs, resourcesOf, resourceSteps } from "../helpers/ledger";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";
import { startPlugin } from "../../tools/engine/rig";

const KEY = "cp_sentinel_endpoint_5e1d2c9b70";
const QUOTAS = { minute: 100_000, hour: 1_000_000, day: 10_000_000 };
const NAME = 'inference "prod" {v: [1]} \\ path\nline two';

interface Rig {
  emu: Emulator;
  plugin: ProviderPlugin;
  config: Record<string, string>;
  /** The serverless template the endpoints name (the platform checks that it exists). */
  tpl: string;
}

async function rig(timings: { startingMs: number; drainMs: number }, graphqlSaveResets = false): Promise<Rig> {
  const emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], quotas: QUOTAS, timings, graphqlSaveResets });
  const config = { "computeplatform:apiKey": KEY, "computeplatform:apiUrl": emu.url };
  const plugin = await startPlugin(config);
  return { emu, plugin, config, tpl: await createServerlessTemplate(emu.url, KEY) };
}

async function stop(r: Rig | undefined): Promise<void> {
  await r?.plugin.stop();
  await r?.emu.close();
}

/** The program `new ServerlessEndpoint("api", args)`, as the SDK registers it. */
function program(r: Rig, args: ServerlessEndpointArgs, preview = false): Promise<Registration[]> {
  return captureProgram(
    () => {
      new ServerlessEndpoint("api", args);
    },
    { project: PROJECT, stack: "dev", preview, config: r.config, secretKeys: SECRET_KEYS },
  );
}

const endpoints = (r: Rig) => r.emu.state().endpoints as any[];

// Against both readings of a GraphQL save: left-out fields kept, or reset to their defaults.
describe.each([
  ["lifecycle", false],
  ["lifecycle on a platform whose GraphQL save resets left-out fields", true],
])("%s", (_reading, graphqlSaveResets) => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig({ startingMs: 50, drainMs: 80 }, graphqlSaveResets);
  });
  afterAll(() => stop(r));

  test("preview, up, update in place, refresh with drift, replace on type change, destroy", async () => {
    const base: ServerlessEndpointArgs = { name: NAME, gpuIds: "AMPERE_24", templateId: r.tpl, workersMin: 1, workersMax: 2 };
    const stack = new EngineStack(r.plugin, { project: PROJECT, stack: "dev" });
    const logFrom = r.emu.requestLog().length; // after the rig's template

    // A bad value fails Check, naming the property, before any request.
    const bad = await stack.preview(await program(r, { ...base, gpuIds: "H100" as any }, true));
    expect(bad.failures?.failures).toEqual([{ property: "gpuIds", reason: expect.stringContaining("gpuIds \"H100\" is not one of AMPERE_16") }]);

    const preview = await stack.preview(await program(r, base, true));
    expect(preview.error).toBeUndefined();
    expect(resourceSteps(preview).map((s) => s.op)).toEqual(["create"]);
    // Only the catalog read that prices the stack's cost (cost/ledger.ts).
    expect(r.emu.requestLog().slice(logFrom).map((e) => `${e.method} ${e.path}`)).toEqual(["GET /v2/catalog/gpus"]);

    const regs = await program(r, base);
    expect(resourceRegs(regs).map((g) => [g.type, g.inputs.__logicalName])).toEqual([["pulumi-nodejs:dynamic/computeplatform:ServerlessEndpoint", "api"]]);
    const up = await stack.up(regs);
    expect(up.error).toBeUndefined();
    const [res] = resourcesOf(stack);
    expect(res!.outputs).toMatchObject({ name: NAME, type: "QB", workersMin: 1, pods: [{ desiredStatus: "RUNNING" }] });
    expect(endpoints(r)).toEqual([expect.objectContaining({ id: res.id, name: NAME, type: "QB" })]);

    // The same program: nothing to do.
    const same = await stack.up(await program(r, base));
    expect(resourceSteps(same).map((s) => s.op)).toEqual(["same"]);

    const bigger = { ...base, workersMin: 2, idleTimeout: 45, gpuCount: 2, executionTimeoutMs: 120_000 };
    const update = await stack.up(await program(r, bigger));
    expect(update.error).toBeUndefined();
    expect(resourceSteps(update).map((s) => [s.op, s.diff?.replaces])).toEqual([["update", []]]);
    const grown = { workersMin: 2, workersMax: 2, idleTimeout: 45, gpuCount: 2, executionTimeoutMs: 120_000 };
    expect(stack.resources.get(res.urn)).toMatchObject({ id: res.id, outputs: expect.objectContaining(grown) });
    expect(endpoints(r)[0]).toMatchObject(grown);
    expect(endpoints(r)[0].pods.filter((w: any) => w.desiredStatus === "RUNNING")).toHaveLength(2);

    // Drift: someone changes the idle timeout on the platform.
    const client = new ComputePlatform({ apiKey: KEY, apiUrl: r.emu.url, pacing: false });
    await client.endpoints.save({ id: res.id, name: NAME, gpuIds: "AMPERE_24", templateId: r.tpl, idleTimeout: 5 });
    await client.close();
    const refresh = await stack.refresh();
    expect(refresh.error).toBeUndefined();
    expect(stack.resources.get(res.urn)?.outputs).toMatchObject({ idleTimeout: 5 });
    const back = await stack.preview(await program(r, bigger, true));
    expect(resourceSteps(back).map((s) => s.op)).toEqual(["update"]);

    // type is fixed: the engine replaces, creating the new endpoint before deleting the old.
    const replace = await stack.up(await program(r, { ...bigger, type: "LB" }));
    expect(replace.error).toBeUndefined();
    expect(resourceSteps(replace).map((s) => [s.op, s.diff?.replaces])).toEqual([["replace", ["type"]]]);
    expect(resourceCalls(stack.calls).slice(-5)).toEqual(["Check api", "Diff api", "Check api", "Create api", "Delete api"]);
    const replaced = stack.resources.get(res.urn)!;
    expect(replaced.id).not.toBe(res.id);
    expect(endpoints(r)).toEqual([expect.objectContaining({ id: replaced.id, type: "LB", name: NAME })]);

    const destroy = await stack.destroy();
    expect(destroy.error).toBeUndefined();
    expect(endpoints(r)).toEqual([]);

    // deleteEndpoint only ever came right after the scale-down save (0/0 is all the platform
    // requires: no wait for draining workers); none was refused.
    const log = r.emu.requestLog().filter((e) => e.path === "/graphql");
    const deletes = log.flatMap((e, i) => (e.op === "deleteEndpoint" ? [i] : []));
    expect(deletes).toHaveLength(2);
    for (const i of deletes) {
      const before = log.slice(0, i).map((e) => e.op);
      expect(before.at(-1)).toBe("saveEndpoint");
      expect(before.lastIndexOf("saveEndpoint")).toBeGreaterThan(before.lastIndexOf("deleteEndpoint"));
    }
    expect(r.emu.counts().deleteEndpoint).toBe(2);

    for (const place of [stack.stateText(), r.plugin.transcript()]) expect(place).not.toContain(KEY);
  });
});

describe("a readiness wait that runs out", () => {
  let r: Rig;
  beforeAll(async () => {
    // Workers take an hour to start.
    r = await rig({ startingMs: 3_600_000, drainMs: 50 });
  });
  afterAll(() => stop(r));

  test("keeps the endpoint in state with its id, and destroy removes it", async () => {
    const stack = new EngineStack(r.plugin, { project: PROJECT, stack: "dev" });
    const args: ServerlessEndpointArgs = { gpuIds: "ADA_24", templateId: r.tpl, workersMin: 1, workersMax: 1, readyTimeoutSeconds: 1 };
    const up = await stack.up(await program(r, args));
    expect(up.error).toBeInstanceOf(ProviderCallError);
    const failure = (up.error as ProviderCallError).initFailure!;
    expect(failure.reasons[0]).toMatch(/0 of 1 workers RUNNING after 1 s/);
    const res = resourcesOf(stack)[0]!;
    expect(res.id).toBe(failure.id);
    expect(res.initErrors).toEqual(failure.reasons);
    // Auto-named from the logical name.
    expect(res.outputs).toMatchObject({ name: expect.stringMatching(/^api-[0-9a-f]{7}$/), pods: [{ desiredStatus: "STARTING" }] });
    expect(endpoints(r).map((e) => e.id)).toEqual([res.id]);

    const destroy = await stack.destroy();
    expect(destroy.error).toBeUndefined();
    expect(endpoints(r)).toEqual([]);
  });
});

// The stack's cost priced from what will run, through Pulumi's own plugin against the emulator:
// the platform's defaults for what the program leaves out (an endpoint's workersMax), the live
// pod for what up leaves alone (a GPU preference list or a maxHourlyCost that is only recorded,
// a field ignoreChanges hides), and the catalog. After each up, the ledger's (StackCost) total is
// the sum of the live resources' prices. Each budget is a new plugin process, as each
// `pulumi preview` is. The plugin loads dist/: `npm run build` before this file alone.
import type * as pulumi from "@pulumi/pulumi";
import { Pod, type PodArgs } from "../../src/resources/pod";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { captureProgram, EngineStack, PROJECT, type ProviderPlugin, type Registration, SECRET_KEYS } from "../../tools/engine";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";
import { type EngineRig, nextCommand, startEngineRig } from "../../tools/engine/rig";
import { liveCost, ledgerTotal } from "../helpers/live-cost";

const KEY = "cp_sentinel_cost_truth_2d7f41a9";
const H100 = "NVIDIA H100 80GB HBM3";
const L40S = "NVIDIA L40S";
const TIMEOUT_MS = 120_000;

let rig: EngineRig;
let tpl: string;
const plugins: ProviderPlugin[] = [];

beforeAll(async () => {
  rig = await startEngineRig(KEY);
  tpl = await createServerlessTemplate(rig.emu.url, KEY, { name: "cost-truth-tpl" });
}, 60_000);

afterAll(async () => {
  for (const p of plugins) await p.stop();
  await rig?.close();
});

type Decl = { pods?: Record<string, { args: Partial<PodArgs>; opts?: pulumi.CustomResourceOptions }>; endpoint?: Record<string, unknown> };

const program = (decl: Decl, config: Record<string, string>): Promise<Registration[]> =>
  captureProgram(
    () => {
      for (const [name, { args, opts }] of Object.entries(decl.pods ?? {})) new Pod(name, { image: "trainer:1", ...args } as PodArgs, opts);
      if (decl.endpoint) new ServerlessEndpoint("api", { templateId: tpl, waitForWorkers: false, ...decl.endpoint } as any);
    },
    { project: PROJECT, stack: "dev", config, secretKeys: SECRET_KEYS },
  );

/** A later command on the same state, with `budget` set in stack config (or none). */
async function command(stack: EngineStack, budget?: number): Promise<{ stack: EngineStack; config: Record<string, string>; plugin: ProviderPlugin }> {
  const config = budget === undefined ? rig.config : { ...rig.config, "computeplatform:maxHourlyCost": String(budget) };
  const next = await nextCommand(rig, stack, config);
  plugins.push(next.plugin);
  return { ...next, config };
}

const costLines = (p: ProviderPlugin) =>
  p
    .transcript()
    .split("\n")
    .filter((l) => l.includes("cost: "))
    .map((l) => l.replace(/^.*?cost: /, "cost: "));

test(
  "case 3: an endpoint that leaves workersMax out is priced at the platform's default (3 workers), so a $1/h budget stops it",
  async () => {
    const empty = new EngineStack(rig.plugin, { project: PROJECT, stack: "defaults" });
    const decl: Decl = { endpoint: { gpuIds: "ADA_48_PRO" } };
    const budgeted = await command(empty, 1);
    const preview = await budgeted.stack.preview(await program(decl, budgeted.config));
    expect(preview.error?.message).toMatch(/over its budget \$1\.00\/h/);
    expect(preview.error?.message).toMatch(/endpoint api \$0\.00-\$2\.58\/h/);

    // Without a budget: made, and the ledger counts what the platform gave it.
    const free = await command(empty);
    const up = await free.stack.up(await program(decl, free.config));
    expect(up.error).toBeUndefined();
    const api = [...free.stack.resources.values()].find((r) => r.type.endsWith(":ServerlessEndpoint"))!;
    expect(api.outputs.workersMax).toBe(3);
    expect(api.outputs.hourlyCost).toEqual({ min: 0, max: 2.58 });
    expect(ledgerTotal(free.stack)).toEqual({ min: 0, max: 2.58 });
    expect(ledgerTotal(free.stack)).toEqual(await liveCost(rig));
    expect((await free.stack.destroy()).error).toBeUndefined();
  },
  TIMEOUT_MS,
);

test(
  "case 4: what up leaves alone is priced as it runs: a recorded-only GPU list and maxHourlyCost, a field ignoreChanges hides",
  async () => {
    const first = await command(new EngineStack(rig.plugin, { project: PROJECT, stack: "what-runs" }));
    const h100: Decl = { pods: { trainer: { args: { gpu: { id: H100 } } } } };
    expect((await first.stack.up(await program(h100, first.config))).error).toBeUndefined();
    expect(ledgerTotal(first.stack)).toEqual({ min: 2.99, max: 2.99 });

    // A preference list that still holds the pod's H100, and a maxHourlyCost it is over: both
    // only recorded (the pod is not touched), so the stack's cost stays $2.99/h.
    const listed: Decl = { pods: { trainer: { args: { gpu: { id: [H100, L40S] }, maxHourlyCost: 1 } } } };
    const next = await command(first.stack);
    const up = await next.stack.up(await program(listed, next.config));
    expect(up.error).toBeUndefined();
    expect(costLines(next.plugin)).toEqual([]);
    expect(ledgerTotal(next.stack)).toEqual({ min: 2.99, max: 2.99 });
    expect(ledgerTotal(next.stack)).toEqual(await liveCost(rig));

    // A second pod under a $3.50/h budget: the live pods would cost $3.85/h.
    const two: Decl = { pods: { ...listed.pods, helper: { args: { gpu: { id: L40S } } } } };
    const budgeted = await command(next.stack, 3.5);
    const refused = await budgeted.stack.preview(await program(two, budgeted.config));
    expect(refused.error?.message).toMatch(/would cost \$3\.85\/h, over its budget \$3\.50\/h/);

    // ignoreChanges: ["gpu"]: a new count in the program changes nothing up does, so it costs
    // nothing and a $1/h budget (the stack is over it already) does not refuse it.
    const ignored: Decl = { pods: { trainer: { args: { gpu: { id: [H100, L40S], count: 2 }, maxHourlyCost: 1 }, opts: { ignoreChanges: ["gpu"] } } } };
    const tight = await command(next.stack, 1);
    const same = await tight.stack.up(await program(ignored, tight.config));
    expect(same.error).toBeUndefined();
    expect(costLines(tight.plugin)).toEqual([]);
    expect(ledgerTotal(tight.stack)).toEqual(await liveCost(rig));
    expect((await tight.stack.destroy()).error).toBeUndefined();
  },
  TIMEOUT_MS,
);

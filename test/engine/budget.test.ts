// The budgets kept at the write, through Pulumi's own dynamic-provider plugin against the emulator
// over real HTTP: the moves that skip the StackCost's check (`--target` of a pod, `--exclude` of
// the StackCost, a transform that raises gpu.count after the ledger copied it, a pod priced from
// another pod's output) each meet the budget at the pod's create, before any POST; and the
// account's budget, with pods and an endpoint made by the client and by a second stack on the
// same account, stops a third stack's preview and up naming the spenders, or, under it, shows the
// account's total in the cost line, reading the account in one list per kind (a stack of twelve
// pods read so too: test/load/account-budget-fleet.test.ts, in test:faults). Each command is a
// new plugin process, as each `pulumi` command is. The plugin loads dist/: run `npm run build`
// before this file alone.
import * as pulumi from "@pulumi/pulumi";
import { engineRigForFile } from "../../tools/engine/rig";
import { commandsOn, L40S, pod } from "../helpers/commands";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";

const KEY = "cp_sentinel_budget_5e1a7c30b2";
const H100 = "NVIDIA H100 80GB HBM3"; // $2.99/h
const rig = engineRigForFile(KEY);

const { command, regs, urn } = commandsOn(rig);
/** The create and update requests since `from`. */
const writes = (from: number) => rig.emu.requestLog().slice(from).map((e) => e.op).filter((op) => /^(create|update|save|podAction)/.test(op));
const BUDGET = { "computeplatform:maxHourlyCost": "2" };

test("--target of a pod over the stack's budget, and --exclude of the StackCost, fail at the pod's create before any write", async () => {
  const first = await command("target", BUDGET);
  expect((await first.stack.up(await regs(first.stack, () => void pod("a")))).error).toBeUndefined();
  // Pod b ($1.72/h) beside a ($0.86/h): $2.58/h, over $2.00/h. A plain preview says so at the StackCost.
  const program = () => {
    pod("a");
    pod("b", { gpu: { id: L40S, count: 2 } });
  };
  const preview = await (await command(first.stack, BUDGET)).stack.preview(await regs(first.stack, program, true));
  expect(preview.error?.message).toMatch(/the stack would cost \$2\.58\/h, over its budget \$2\.00\/h/);

  let last = first.stack;
  for (const flags of [{ targets: [urn(first.stack, "Pod", "b")] }, { excludes: [urn(first.stack, "StackCost", "stack-cost")] }]) {
    const next = await command(first.stack, BUDGET);
    last = next.stack;
    const from = rig.emu.requestLog().length;
    const up = await next.stack.up(await regs(next.stack, program), flags);
    // The engine skipped the StackCost (no Check of it), and the pod's create held the budget.
    expect(next.stack.calls).not.toContain("Check stack-cost");
    expect(next.stack.calls).toContain("Create b");
    expect(up.error?.message).toContain("pod b-");
    expect(up.error?.message).toMatch(/create \(NVIDIA L40S x2, SECURE\) \(\$1\.72\/h\) would take the stack [^ ]*target to \$2\.58\/h, over its budget \$2\.00\/h \(computeplatform:maxHourlyCost\); it costs \$0\.86\/h now\. Nothing was sent for it\./);
    expect(up.error?.message).toMatch(/Ways out: raise computeplatform:maxHourlyCost.*--target.*will not get past it/);
    console.log(`${JSON.stringify(flags)}: ${up.error?.message}`);
    expect(writes(from)).toEqual([]);
    expect([...next.stack.resources.keys()].some((u) => u.endsWith("::b"))).toBe(false);
  }
  // A destroy in the last command's process (each command a process costs seconds on a busy machine).
  expect((await last.destroy()).error).toBeUndefined();
}, 240_000);

test("a transform that raises gpu.count after the ledger priced the pod fails the pod's create before any write", async () => {
  const { stack } = await command("transform", BUDGET);
  const program = () => {
    pulumi.runtime.registerResourceTransform((args) =>
      args.type.endsWith(":Pod") ? { props: { ...args.props, gpu: { ...args.props.gpu, count: 4 } }, opts: args.opts } : undefined,
    );
    pod("a");
  };
  const registered = await regs(stack, program);
  // The rig plays the engine's transform: the pod's inputs carry the count the transform set.
  expect(registered.find((r) => r.name === "a")!.inputs.gpu).toMatchObject({ count: 4 });
  const from = rig.emu.requestLog().length;
  const up = await stack.up(registered);
  expect(stack.calls).toContain("Create stack-cost");
  expect(up.error?.message).toMatch(/create \(NVIDIA L40S x4, SECURE\) \(\$3\.44\/h\) would take the stack [^ ]+ to \$3\.44\/h, over its budget \$2\.00\/h/);
  expect(writes(from)).toEqual([]);
}, 120_000);

test("a pod whose GPU comes from another pod's output is priced at its create, and refused there when over", async () => {
  const { stack, log } = await command("output", BUDGET);
  const program = () => {
    const a = pod("a");
    pod("b", { gpu: { id: a.gpu.apply((g) => g!.id), count: 2 } });
  };
  const preview = await stack.preview(await regs(stack, program, true));
  expect(preview.error).toBeUndefined();
  expect(log()).toContain("not counted: pod b (priced at its create or update: gpu from another resource's outputs)");

  const next = await command(stack, BUDGET);
  const from = rig.emu.requestLog().length;
  const up = await next.stack.up(await regs(next.stack, program));
  expect(up.error?.message).toMatch(/pod b-\w+: create \(NVIDIA L40S x2, SECURE\) \(\$1\.72\/h\) would take the stack [^ ]+ to \$2\.58\/h/);
  // Pod a was made; b was not: one POST, and b is in no state.
  expect(writes(from).filter((op) => op === "createPod")).toHaveLength(1);
  expect([...next.stack.resources.keys()].some((u) => u.endsWith("::b"))).toBe(false);
  expect((await next.stack.destroy()).error).toBeUndefined();
}, 180_000);

test("the account's budget: pods and an endpoint made by the client and by another stack stop a third stack's preview and up, naming them", async () => {
  // Made outside Pulumi: an H100 pod ($2.99/h) and an endpoint of 1 to 2 ADA_24 workers ($0.69-$1.38/h).
  const handPod = await rig.client.pods.create({ name: "by-hand", image: "img:1", gpu: { id: H100, count: 1 } });
  const templateId = await createServerlessTemplate(rig.emu.url, KEY);
  const handEndpoint = await rig.client.endpoints.save({ name: "console-endpoint", templateId, gpuIds: "ADA_24", workersMin: 1, workersMax: 2 });
  // A second stack's pod ($0.86/h).
  const other = await command("other");
  expect((await other.stack.up(await regs(other.stack, () => void pod("train")))).error).toBeUndefined();
  // The account runs $4.54-$5.23/h; the third stack's pod of two L40S ($1.72/h) takes it to $6.95/h.
  const third = { "computeplatform:accountMaxHourlyCost": "6" };
  const program = () => void pod("big", { gpu: { id: L40S, count: 2 } });

  const preview = await command("third", third);
  const from = rig.emu.requestLog().length;
  const refused = await preview.stack.preview(await regs(preview.stack, program, true));
  const message = refused.error?.message ?? "";
  console.log(`account budget, preview: ${message}`);
  expect(message).toMatch(/the account would cost \$6\.26-\$6\.95\/h, over its budget \$6\.00\/h \(computeplatform:accountMaxHourlyCost\); it costs \$4\.54-\$5\.23\/h now/);
  expect(message).toContain("pod by-hand $2.99/h (no stack (made outside Pulumi))");
  expect(message).toContain("endpoint console-endpoint $0.69-$1.38/h (owner unknown");
  expect(message).toMatch(/pod train-\w+ \$0\.86\/h \(stack [^ ]*\/other\)/);
  // One list per kind: the pods once, the endpoints once (REST lists what either API made).
  const reads = rig.emu.requestLog().slice(from).map((e) => `${e.method} ${e.path}`);
  expect(reads.filter((r) => r === "GET /v2/pods")).toHaveLength(1);
  expect(reads.filter((r) => r === "GET /v2/serverless")).toHaveLength(1);

  // up, and up --exclude of the StackCost (on a new stack --target of the pod alone fails in the
  // engine: the StackCost it depends on would not be made): the pod's create holds the budget.
  for (const flags of [{}, { excludes: [urn(preview.stack, "StackCost", "stack-cost")] }]) {
    const up = await command("third", third);
    const start = rig.emu.requestLog().length;
    const result = await up.stack.up(await regs(up.stack, program), flags);
    expect(result.error?.message).toMatch(/over its budget \$6\.00\/h \(computeplatform:accountMaxHourlyCost\)/);
    expect(result.error?.message).toContain("pod by-hand $2.99/h (no stack (made outside Pulumi))");
    expect(writes(start)).toEqual([]);
  }

  // Under a budget of $10/h the cost line shows the account beside the stack.
  const under = await command("third", { "computeplatform:accountMaxHourlyCost": "10" });
  const up = await under.stack.up(await regs(under.stack, program));
  expect(up.error).toBeUndefined();
  expect(under.log()).toContain("cost: $0.00/h -> $1.72/h (+$1.72/h): pod big added; account: $4.54-$5.23/h -> $6.26-$6.95/h (budget $10.00/h)");

  expect((await under.stack.destroy()).error).toBeUndefined();
  expect((await other.stack.carriedTo(under.stack.plugin).destroy()).error).toBeUndefined();
  await rig.client.pods.delete(handPod.id);
  await rig.client.endpoints.save({ id: handEndpoint.id, name: "console-endpoint", templateId, gpuIds: "ADA_24", workersMin: 0, workersMax: 0 });
}, 300_000);

// The account's budget is read in one list per kind per command whatever the stack's size: a
// preview of twelve pods, then their creates at once, each held to the account's budget, through
// Pulumi's own dynamic-provider plugin against the emulator. About size: npm test keeps the rule
// on a stack of one pod (test/engine/budget.test.ts). Each command is a new plugin process, as
// each `pulumi` command is. The plugin loads dist/: run `npm run build` before this file alone.
import { engineRigForFile } from "../../tools/engine/rig";
import { commandsOn, pod } from "../helpers/commands";

const rig = engineRigForFile("cp_sentinel_budget_fleet_3b9e51");
const { command, regs, urn } = commandsOn(rig);

test("the account is read in one list per kind per command, whatever the stack's size: a preview of 12 pods, and their creates each held to the budget", async () => {
  const budget = { "computeplatform:accountMaxHourlyCost": "1000" };
  const program = () => {
    for (let i = 0; i < 12; i++) pod(`w${i}`);
  };
  const lists = (from: number) => {
    const log = rig.emu.requestLog().slice(from).map((e) => `${e.method} ${e.path}`);
    return { pods: log.filter((r) => r === "GET /v2/pods").length, endpoints: log.filter((r) => r === "GET /v2/serverless").length };
  };
  const preview = await command("fleet", budget);
  let from = rig.emu.requestLog().length;
  expect((await preview.stack.preview(await regs(preview.stack, program, true))).error).toBeUndefined();
  expect(lists(from)).toEqual({ pods: 1, endpoints: 1 });
  // The StackCost excluded: twelve creates at once, each held to the account's budget, one endpoint list between them
  // (a stack of pods sends no other; its pod lists are the creates' waits as well).
  const up = await command("fleet", budget);
  from = rig.emu.requestLog().length;
  expect((await up.stack.up(await regs(up.stack, program), { parallel: Infinity, excludes: [urn(up.stack, "StackCost", "stack-cost")] })).error).toBeUndefined();
  const counted = lists(from);
  console.log(`12 pods, account budget: preview lists pods 1, endpoints 1; up lists pods ${counted.pods} (with the creates' waits), endpoints ${counted.endpoints}`);
  expect(counted.endpoints).toBe(1);
  expect((await up.stack.destroy({ parallel: Infinity })).error).toBeUndefined();
}, 240_000);

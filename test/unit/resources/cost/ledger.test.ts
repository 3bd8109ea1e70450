// The program side of the stack's cost, under Pulumi's mocks: what the SDK registers.
import { Pod } from "../../../../src/resources/pod";
import { ServerlessEndpoint } from "../../../../src/resources/serverless-endpoint";
import { captureProgram } from "../../../../tools/engine";

const pod = (name: string) => new Pod(name, { image: "img:1", gpu: { id: ["NVIDIA L40S", "NVIDIA RTX A6000"], count: 2 }, cloud: "COMMUNITY" });

test("the StackCost registers first with every costed resource's pricing fields; each costed resource depends on it", async () => {
  const regs = await captureProgram(() => {
    pod("a");
    new ServerlessEndpoint("api", { gpuIds: "ADA_24", templateId: "tpl-1", workersMax: 3 });
    pod("b");
    // Read-only: no part of the stack's cost.
    Pod.get("elsewhere", "pod-9");
  });
  expect(regs.map((r) => r.name)).toEqual(["stack-cost", "a", "api", "b"]);
  const [ledger, ...members] = regs;
  expect(ledger!.type).toMatch(/StackCost$/);
  expect(ledger!.inputs.entries).toEqual({
    "pod a": { kind: "pod", name: "a", gpu: { id: ["NVIDIA L40S", "NVIDIA RTX A6000"], count: 2 }, cloud: "COMMUNITY" },
    "endpoint api": { kind: "endpoint", name: "api", gpuIds: "ADA_24", workersMax: 3 },
    "pod b": { kind: "pod", name: "b", gpu: { id: ["NVIDIA L40S", "NVIDIA RTX A6000"], count: 2 }, cloud: "COMMUNITY" },
  });
  for (const m of members) expect(m.options.dependencies).toEqual([expect.stringMatching(/StackCost::stack-cost$/)]);
});

test("a costed resource declared after the ledger closed: left out with a warning, or refused when a budget is set", async () => {
  const late = async () => {
    pod("early");
    await new Promise((resolve) => setTimeout(resolve, 20));
    pod("late");
  };
  const regs = await captureProgram(late);
  expect(regs.map((r) => r.name)).toEqual(["stack-cost", "early", "late"]);
  expect(Object.keys(regs[0]!.inputs.entries as object)).toEqual(["pod early"]);
  await expect(captureProgram(late, { config: { "computeplatform:maxHourlyCost": "5" } })).rejects.toThrow(
    /Pod "late" was declared after the stack's cost was settled, so the budget cannot hold it; declare every Pod and ServerlessEndpoint in the same turn/,
  );
});

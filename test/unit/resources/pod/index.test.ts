// The Pod class (pod/index.ts): what it hands to Pulumi. Its outputs named, its arguments, the
// stack's identity, env and the account as secret outputs; a pod joins the stack's cost ledger
// (it then waits for the stack's cost) unless an argument it does not have is there to be
// refused or it is only read with `.get`.
import * as pulumi from "@pulumi/pulumi";
import { shimProvider } from "../../../../src/resources/engine/shim";
import { baseOwnerToken } from "../../../../src/resources/lifecycle/owner";
import { Pod } from "../../../../src/resources/pod";
import { registered, registrationOf } from "../../../helpers/registered";

jest.mock("@pulumi/pulumi", () => require("../../../helpers/registered").pulumiRecordingResources());

const TYPE = "computeplatform:Pod";
const dependsOn = (name: string) => [registrationOf(TYPE, name).opts?.dependsOn ?? []].flat(2) as unknown[];
const stackCosts = () => registered.filter((r) => r.type === "computeplatform:StackCost");

beforeEach(async () => {
  registered.splice(0);
  // A new program run for each test, so a new ledger.
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: () => ({}) }, "ml", "dev");
});

test("the outputs the engine fills in are named, beside the arguments, the logical name and the stack's identity", () => {
  new Pod("trainer", { image: "train:1", gpu: { id: "NVIDIA A100", count: 2 }, env: { A: "1" }, maxHourlyCost: 5 });
  const r = registrationOf(TYPE, "trainer");
  expect(r.provider).toBe(shimProvider("pod"));
  expect(r.props).toMatchObject({ image: "train:1", gpu: { id: "NVIDIA A100", count: 2 }, env: { A: "1" }, maxHourlyCost: 5, __logicalName: "trainer", __project: "ml", __stack: "dev" });
  for (const output of ["status", "actions", "dataCenterId", "template", "cost", "hourlyCost", "runtime", "createdAt", "startedAt"]) {
    expect(r.props).toHaveProperty(output, undefined);
  }
});

test("env and the account are secret outputs, after the program's own", () => {
  new Pod("trainer", { image: "train:1", gpu: { id: "NVIDIA A100" } }, { additionalSecretOutputs: ["name"] });
  expect(registrationOf(TYPE, "trainer").opts?.additionalSecretOutputs).toEqual(["name", "env", "account"]);
});

test("a pod joins the stack's cost: it waits for the one StackCost of the program, beside what it already waited for", () => {
  const holder = new Pod("holder", { image: "v:1", cpu: { id: "cpu3c", vcpuCount: 2 } });
  new Pod("trainer", { image: "train:1", gpu: { id: "NVIDIA A100" } }, { dependsOn: [holder] });
  expect(stackCosts()).toHaveLength(1);
  const cost = stackCosts()[0]!.resource;
  expect(dependsOn("holder")).toEqual([cost]);
  expect(dependsOn("trainer")).toEqual([holder, cost]);
});

test("the pod's ledger entry: the compute it is priced from, its account's name, its owner token and the pricing fields it ignores", async () => {
  new Pod(
    "trainer",
    { image: "train:1", gpu: { id: "NVIDIA A100", count: 2 }, cloud: "COMMUNITY", desiredStatus: "EXITED", maxHourlyCost: 5, account: { name: "b", apiKey: "cp_key_b" } },
    { ignoreChanges: ["image", "gpu.count", "cpu", "cloud", "desiredStatus"] },
  );
  const entries = (await stackCosts()[0]!.props.entries) as Record<string, unknown>;
  expect(entries).toEqual({
    "pod trainer": {
      kind: "pod",
      name: "trainer",
      gpu: { id: "NVIDIA A100", count: 2 },
      cpu: undefined,
      cloud: "COMMUNITY",
      desiredStatus: "EXITED",
      maxHourlyCost: 5,
      account: "b",
      owner: baseOwnerToken("Pod", { __project: "ml", __stack: "dev" }, "trainer"),
      ignore: ["gpu.count", "cpu", "cloud", "desiredStatus"],
    },
  });
});

test("a pod with an argument it does not have stays out of the ledger: its check fails before the stack's cost reads anything", () => {
  new Pod("odd", { image: "i", gpu: { id: "NVIDIA A100" }, colour: "red" } as never);
  const r = registrationOf(TYPE, "odd");
  expect(r.props).toMatchObject({ colour: "red" });
  expect(r.opts?.dependsOn).toBeUndefined();
  expect(stackCosts()).toHaveLength(0);
});

test(".get reads by id, outside the ledger; any state but the account is refused by name", () => {
  Pod.get("existing", "pod-1");
  expect(registrationOf(TYPE, "existing").opts).toEqual(expect.objectContaining({ id: "pod-1" }));
  expect(registrationOf(TYPE, "existing").opts?.dependsOn).toBeUndefined();
  Pod.get("elsewhere", "pod-3", { account: { name: "b", apiKey: "k" } });
  expect(registrationOf(TYPE, "elsewhere").props.account).toBeDefined();
  expect(stackCosts()).toHaveLength(0);
  expect(() => Pod.get("bad", "pod-2", { image: "x" } as never)).toThrow(/^Pod\.get\(name, id, state\?, opts\?\): "image" is not a field of its state \(account\)/);
});

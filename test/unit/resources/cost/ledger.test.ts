// The program side of the stack's cost (src/resources/cost/ledger.ts), under Pulumi's mocks: which
// resources join the ledger, what each adds, when it closes, and what a resource declared after
// it closed gets. test/engine/cost.test.ts runs the same through the engine.
import * as pulumi from "@pulumi/pulumi";
import { BUDGET_ENV } from "../../../../src/resources/engine/settings";
import { joinLedger, ledgerIdentity, STACK_COST_NAME, StackCost, stackAccountsInput } from "../../../../src/resources/cost/ledger";
import { baseOwnerToken } from "../../../../src/resources/lifecycle/owner";

/** The resources the program registered, by name, with their inputs. */
let registered: Map<string, pulumi.runtime.MockResourceArgs>;

beforeEach(async () => {
  registered = new Map();
  // A new monitor for each test: a new program run, so a new ledger.
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.set(args.name, args);
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: () => ({}),
    },
    "project",
    "dev",
    true,
  );
  pulumi.runtime.setAllConfig({});
  delete process.env[BUDGET_ENV];
});

afterEach(() => {
  delete process.env[BUDGET_ENV];
  jest.restoreAllMocks();
});

/** The program's current turn ends: the ledger closes and the StackCost registers with its entries. */
async function turnEnds(): Promise<Record<string, Record<string, unknown>>> {
  await new Promise((r) => setTimeout(r, 0));
  for (let i = 0; i < 100 && !registered.has(STACK_COST_NAME); i++) await new Promise((r) => setTimeout(r, 1));
  return registered.get(STACK_COST_NAME)!.inputs.entries;
}

const dependsOnOf = (opts: pulumi.CustomResourceOptions | undefined) => opts?.dependsOn as pulumi.Resource[];

test("every costed resource declared in the same turn joins one StackCost named stack-cost, and depends on it", async () => {
  const pod = joinLedger("pod", "trainer", { gpu: { id: "L40S", count: 1 } }, undefined);
  const endpoint = joinLedger("endpoint", "api", { gpuIds: "ADA_24", workersMax: 2 }, { protect: true });
  const [stackCost] = dependsOnOf(pod);
  expect(stackCost).toBeInstanceOf(StackCost);
  expect(dependsOnOf(endpoint)).toEqual([stackCost]);
  expect(endpoint).toMatchObject({ protect: true });
  expect(STACK_COST_NAME).toBe("stack-cost");
  expect(await turnEnds()).toEqual({
    "pod trainer": { kind: "pod", name: "trainer", gpu: { id: "L40S", count: 1 } },
    "endpoint api": { kind: "endpoint", name: "api", gpuIds: "ADA_24", workersMax: 2 },
  });
  const { type, inputs } = registered.get(STACK_COST_NAME)!;
  expect(type).toBe("pulumi-nodejs:dynamic/computeplatform:StackCost");
  // Its provider is the shim of the stack-cost kind; its total is an output only.
  expect(inputs.__provider).toContain('kind: "stack-cost"');
  expect(Object.keys(inputs).sort()).toEqual(["__provider", "entries"]);;
});

test("a pricing field taken from a Pod's or an endpoint's outputs is left out and named (priced at the write); other outputs are waited for", async () => {
  // Resources of the costed kinds' types (a Pod's shim is left out: it serializes its provider after the test).
  class Fake extends pulumi.CustomResource {}
  const a = new Fake("pulumi-nodejs:dynamic/computeplatform:Pod", "a", {});
  const e = new Fake("pulumi-nodejs:dynamic/computeplatform:ServerlessEndpoint", "e", {});
  const volume = new Fake("pulumi-nodejs:dynamic/computeplatform:NetworkVolume", "v", {});
  joinLedger(
    "pod",
    "b",
    { gpu: { id: a.urn.apply(() => "L40S"), count: 2 }, cloud: "SECURE", label: pulumi.output("from config"), mount: volume.urn.apply(() => "v-id") },
    undefined,
  );
  joinLedger("endpoint", "c", { gpuIds: "ADA_24", workersMax: e.id.apply(() => 2), workersMin: [[[[[e.id]]]]] }, undefined);
  joinLedger("pod", "d", { gpu: { id: "L40S", count: 1 }, maxHourlyCost: null, cpu: [[[[e.id]]]] }, undefined);
  const entries = await turnEnds();
  // Another resource's output is waited for (the volume's, the config's); a costed one's is left out and named.
  expect(entries["pod b"]).toEqual({ kind: "pod", name: "b", cloud: "SECURE", label: "from config", mount: "v-id", atWrite: ["gpu"] });
  // Nested no deeper than a few levels: the walk stops there (and the output is waited for).
  expect(entries["endpoint c"]).toMatchObject({ atWrite: ["workersMax"] });
  // Four levels down is still looked at; a null is no output.
  expect(entries["pod d"]).toMatchObject({ kind: "pod", name: "d", gpu: { id: "L40S", count: 1 }, atWrite: ["cpu"] });
  expect(entries["pod d"]).not.toHaveProperty("cpu");
});

test("a resource's own dependsOn is kept beside the StackCost", async () => {
  class Other extends pulumi.CustomResource {}
  const other = new Other("test:index:Other", "other", {});
  const opts = joinLedger("pod", "trainer", {}, { dependsOn: other });
  expect(dependsOnOf(opts)).toHaveLength(2);
  expect(dependsOnOf(opts)[0]).toBe(other);
  expect(dependsOnOf(opts)[1]).toBeInstanceOf(StackCost);
  await turnEnds();
});

test("two resources of one kind and name get their own entries (#2), not one in place of the other", async () => {
  joinLedger("pod", "trainer", { cloud: "SECURE" }, undefined);
  joinLedger("pod", "trainer", { cloud: "COMMUNITY" }, undefined);
  joinLedger("pod", "trainer", { cloud: "SECURE" }, undefined);
  expect(Object.keys(await turnEnds())).toEqual(["pod trainer", "pod trainer #2", "pod trainer #3"]);
});

test("Pod.get (an id given) is no part of the stack's cost: its options come back as they were, and no StackCost is made", async () => {
  const opts = { id: "pod-7" };
  expect(joinLedger("pod", "seen", {}, opts)).toBe(opts);
  await new Promise((r) => setTimeout(r, 5));
  expect(registered.has(STACK_COST_NAME)).toBe(false);
});

test("under a stack budget each resource that joined carries the program's accounts, each once and secret; none without a budget or for a .get", async () => {
  const shared = { name: "shared", apiKey: pulumi.secret("cp_key_shared"), apiUrl: "http://127.0.0.1:1" };
  const withoutBudget = joinLedger("pod", "a", {}, undefined, shared);
  expect(stackAccountsInput(withoutBudget)).toEqual({});
  process.env[BUDGET_ENV] = "3";
  expect(stackAccountsInput({ id: "pod-7" })).toEqual({});
  const opts = joinLedger("pod", "b", {}, undefined, { ...shared, apiKey: pulumi.secret("cp_key_shared_rotated") });
  joinLedger("endpoint", "c", {}, undefined, { name: "team", apiKey: "cp_key_team" });
  joinLedger("pod", "d", {}, undefined);
  const input = stackAccountsInput(opts);
  await turnEnds();
  const list = (await input.__stackAccounts) as pulumi.Output<unknown>;
  expect(await pulumi.isSecret(list)).toBe(true);
  expect(await new Promise((r) => list.apply(r))).toEqual([
    { name: "shared", apiKey: "cp_key_shared_rotated", apiUrl: "http://127.0.0.1:1" },
    { name: "team", apiKey: "cp_key_team" },
  ]);
});

test("a program that names no account gives its resources no list of accounts", async () => {
  process.env[BUDGET_ENV] = "3";
  const input = stackAccountsInput(joinLedger("pod", "a", {}, undefined));
  await turnEnds();
  expect(Object.keys(input)).toEqual(["__stackAccounts"]);
  expect(await input.__stackAccounts).toBeUndefined();
});

describe("a resource declared after the stack's cost was settled", () => {
  test("without a budget it is left out of the cost lines with a warning naming it and the fix", async () => {
    joinLedger("pod", "trainer", {}, undefined);
    await turnEnds();
    const warn = jest.spyOn(pulumi.log, "warn").mockResolvedValue(undefined as never);
    const opts = { protect: true };
    expect(joinLedger("endpoint", "late", {}, opts)).toBe(opts);
    expect(warn).toHaveBeenCalledWith(
      'ServerlessEndpoint "late" was declared after the stack\'s cost was settled: it is left out of the cost lines; ' +
        "declare every Pod and ServerlessEndpoint in the same turn of the program (before awaiting anything between them)",
    );
    expect(joinLedger("pod", "later", {}, undefined)).toBeUndefined();
    expect(warn).toHaveBeenLastCalledWith(expect.stringMatching(/^Pod "later" was declared after/));
  });

  test("with a budget in stack config or the environment it is an error, since the budget cannot hold it", async () => {
    joinLedger("pod", "trainer", {}, undefined);
    await turnEnds();
    pulumi.runtime.setAllConfig({ "computeplatform:maxHourlyCost": "3" });
    expect(() => joinLedger("pod", "late", {}, undefined)).toThrow(
      'Pod "late" was declared after the stack\'s cost was settled, so the budget cannot hold it; declare every Pod and ServerlessEndpoint',
    );
    pulumi.runtime.setAllConfig({});
    process.env[BUDGET_ENV] = "3";
    expect(() => joinLedger("endpoint", "late", {}, undefined)).toThrow(/^ServerlessEndpoint "late" was declared after .* so the budget cannot hold it/);
  });
});

describe("a resource's identity in the ledger", () => {
  const owner = { __project: "project", __stack: "dev" };

  test("its owner token is the base token of who declares it", () => {
    expect(ledgerIdentity("Pod", "trainer", owner, undefined, ["gpu"])).toEqual({ owner: baseOwnerToken("Pod", owner, "trainer") });
  });

  test("ignoreChanges paths that touch a pricing field are kept: the field, a part of it, or a whole that holds it; others are not", () => {
    const opts = { ignoreChanges: ["gpu", "cpu.vcpuCount", "env", "gpuCountry", "workers"] };
    expect(ledgerIdentity("Pod", "trainer", owner, opts, ["gpu", "cpu", "cloud"]).ignore).toEqual(["gpu", "cpu.vcpuCount"]);
    const whole = { ignoreChanges: ["template"] };
    expect(ledgerIdentity("Pod", "trainer", owner, whole, ["template.gpu"]).ignore).toEqual(["template"]);
    expect(ledgerIdentity("Pod", "trainer", owner, { ignoreChanges: ["env"] }, ["gpu"])).not.toHaveProperty("ignore");
  });
});

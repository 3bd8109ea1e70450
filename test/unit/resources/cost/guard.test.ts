// The budgets kept at the write (cost/guard.ts) over the account's lists (cost/account.ts), with
// a client that answers from memory and counts its lists: what is read (nothing without a budget,
// one list per kind however many writes), what is counted (the stack's pods by their mark, this
// process's earlier writes, not the pod a create replaces) and what is refused, in words.
import { accountView } from "../../../../src/resources/cost/account";
import { accountCost, type BudgetClient, type CostedWrite, holdBudgets } from "../../../../src/resources/cost/guard";
import { ACCOUNT_BUDGET_ENV, BUDGET_ENV } from "../../../../src/resources/engine/settings";

const GPUS = [
  { id: "L40S", pool: "ADA_48_PRO", price: { secure: 0.86, community: 0.69 } },
  { id: "H100", pool: "HOPPER_141", price: { secure: 2.99, community: 2.69 } },
  { id: "RTX4090", pool: "ADA_24", price: { secure: 0.69, community: 0.34 } },
];

function fakeClient(pods: unknown[], endpoints: unknown[] = []) {
  const calls = { pods: 0, endpoints: 0, gpus: 0 };
  const client = {
    pods: { list: async () => (calls.pods++, pods) },
    serverless: { list: async () => (calls.endpoints++, endpoints) },
    catalog: { gpus: async () => (calls.gpus++, GPUS), cpus: async () => [] },
  };
  return { client: (() => client) as unknown as BudgetClient, calls };
}

const pod = (id: string, gpu: string, count: number, env: Record<string, string> = {}, status = "RUNNING") => ({
  id, name: id, status, createdAt: "2026-01-01T00:00:00Z", env, gpu: { id: gpu, count }, cloud: "SECURE",
});
const create = (stack: string, gpu: string, count: number, key: string, replaces?: string): CostedWrite => ({
  label: `pod ${key}`, change: `create (${gpu} x${count})`, key, replaces, stack, compute: { kind: "pod", gpu: { id: gpu, count }, cloud: "SECURE", running: true },
});
const STACK = "acme/infra/dev";

afterEach(() => {
  delete process.env[BUDGET_ENV];
  delete process.env[ACCOUNT_BUDGET_ENV];
});

test("no budget set: a write reads nothing and is never refused", async () => {
  const { client, calls } = fakeClient([pod("p1", "H100", 8)]);
  await holdBudgets(client, create(STACK, "H100", 8, "k1"));
  expect(calls).toEqual({ pods: 0, endpoints: 0, gpus: 0 });
});

test("the stack's budget counts its own pods (by their mark) and this process's earlier writes, in one list per kind", async () => {
  process.env[BUDGET_ENV] = "2";
  const { client, calls } = fakeClient([
    pod("mine", "L40S", 1, { COMPUTEPLATFORM_STACK: STACK }),
    // Another stack's and a hand-made pod: not this stack's.
    pod("theirs", "H100", 1, { COMPUTEPLATFORM_STACK: "acme/infra/prod" }),
    pod("hand", "H100", 1),
  ]);
  accountView(client).renew();
  // $0.86 + $0.86 = $1.72: under $2.
  await holdBudgets(client, create(STACK, "L40S", 1, "a"));
  // The same create's next try (a fallback) replaces its note: $0.86 + $0.69.
  await holdBudgets(client, create(STACK, "RTX4090", 1, "a"));
  // + $0.86 = $2.41: over.
  await expect(holdBudgets(client, create(STACK, "L40S", 1, "b"))).rejects.toThrow(
    "pod b: create (L40S x1) ($0.86/h) would take the stack acme/infra/dev to $2.41/h, over its budget $2.00/h (COMPUTEPLATFORM_MAX_HOURLY_COST); it costs $1.55/h now. Nothing was sent for it. " +
      "The largest: pod mine $0.86/h (stack acme/infra/dev), pod b $0.86/h (this change), pod a $0.69/h (this change). Ways out: raise COMPUTEPLATFORM_MAX_HOURLY_COST",
  );
  // A create that replaces the stack's pod: the old one is not counted.
  await holdBudgets(client, create(STACK, "L40S", 1, "c", "mine"));
  expect(calls).toEqual({ pods: 1, endpoints: 1, gpus: 1 });
});

test("a write that does not raise its object's cost passes even over the budget; one that raises it is refused", async () => {
  process.env[BUDGET_ENV] = "1";
  const { client } = fakeClient([pod("big", "H100", 1, { COMPUTEPLATFORM_STACK: STACK }), pod("stopped", "L40S", 1, { COMPUTEPLATFORM_STACK: STACK }, "EXITED")]);
  accountView(client).renew();
  const update = (id: string, running: boolean): CostedWrite => ({ label: `pod ${id}`, change: "update", id, stack: STACK, compute: { kind: "pod", gpu: { id: "H100", count: 1 }, cloud: "SECURE", running } });
  await holdBudgets(client, update("big", true));
  await expect(holdBudgets(client, { ...update("stopped", true), change: "start", compute: { kind: "pod", gpu: { id: "L40S", count: 1 }, cloud: "SECURE", running: true } })).rejects.toThrow(
    /pod stopped: start \(\$0\.86\/h\) would take the stack acme\/infra\/dev to \$3\.85\/h, over its budget \$1\.00\/h/,
  );
  await holdBudgets(client, update("big", false));
});

test("the account's budget counts every pod and endpoint, and names each spender's owner as far as it can tell", async () => {
  process.env[ACCOUNT_BUDGET_ENV] = "5";
  const { client } = fakeClient(
    [pod("marked", "L40S", 1, { COMPUTEPLATFORM_STACK: "acme/infra/prod" }), pod("old", "L40S", 1, { COMPUTEPLATFORM_OWNER: "92b13169b090bce9.1db029bb" }), pod("hand", "H100", 1)],
    [{ id: "ep1", name: "console", gpu: { pools: ["ADA_24"], count: 1 }, workers: { min: 1, max: 2 } }],
  );
  accountView(client).renew();
  const err = await holdBudgets(client, create(STACK, "L40S", 1, "new")).then(() => undefined, (e: Error) => e.message);
  expect(err).toContain("would take the account to $6.26-$6.95/h, over its budget $5.00/h (COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST); it costs $5.40-$6.09/h now.");
  expect(err).toContain(
    "pod hand $2.99/h (no stack (made outside Pulumi)), endpoint console $0.69-$1.38/h (owner unknown (an endpoint carries no stack mark)), " +
      "pod marked $0.86/h (stack acme/infra/prod), pod old $0.86/h (a stack (made before pods carried their stack's name))",
  );
  // The stack's side of a preview: the account without the stack's live objects, plus the stack after.
  const preview = await accountCost(accountView(client), { liveIds: new Set(["marked"]), after: { min: 1, max: 1 } }, { usd: 10, source: "x" });
  expect(preview).toEqual({ line: "account: $5.40-$6.09/h -> $5.54-$6.23/h (budget $10.00/h)" });
});

test("the stack's budget counts the stack's pods on its other accounts, each named, and reads none of them without it", async () => {
  const here = fakeClient([pod("mine", "L40S", 1, { COMPUTEPLATFORM_STACK: STACK })]);
  // The other account: the stack's pod, another stack's and a hand-made one.
  const there = fakeClient([pod("far", "H100", 1, { COMPUTEPLATFORM_STACK: STACK }), pod("theirs", "H100", 1, { COMPUTEPLATFORM_STACK: "acme/infra/prod" }), pod("hand", "H100", 1)]);
  const accounts = () => [{ client: here.client() }, { name: "shared", client: there.client() }];
  for (const c of [here, there]) accountView(c.client).renew();
  process.env[ACCOUNT_BUDGET_ENV] = "100";
  await holdBudgets(here.client, create(STACK, "L40S", 1, "a"), accounts);
  expect(there.calls).toEqual({ pods: 0, endpoints: 0, gpus: 0 });
  delete process.env[ACCOUNT_BUDGET_ENV];
  process.env[BUDGET_ENV] = "4";
  // $0.86 + $0.86 (pod a, made by this process) here + $2.99 there + $0.86 = $5.57: over $4, though this account alone is $2.58.
  await expect(holdBudgets(here.client, create(STACK, "L40S", 1, "b"), accounts)).rejects.toThrow(
    "pod b: create (L40S x1) ($0.86/h) would take the stack acme/infra/dev to $5.57/h, over its budget $4.00/h (COMPUTEPLATFORM_MAX_HOURLY_COST); it costs $4.71/h now. Nothing was sent for it. " +
      'The largest: pod far on account "shared" $2.99/h (stack acme/infra/dev), pod mine $0.86/h (stack acme/infra/dev), pod a $0.86/h (this change), pod b $0.86/h (this change).',
  );
  // From the other account's side, the stack's own account is named as such; its list was read once.
  await expect(holdBudgets(there.client, create(STACK, "L40S", 1, "c"), accounts)).rejects.toThrow("pod mine on the stack's account $0.86/h (stack acme/infra/dev)");
  expect([here.calls.pods, there.calls.pods]).toEqual([1, 1]);
});

/** The refusal of `write`, or undefined when it passes. */
const refusalOf = (client: BudgetClient, write: CostedWrite, accounts?: Parameters<typeof holdBudgets>[2]) =>
  holdBudgets(client, write, accounts).then(
    () => undefined,
    (e: Error) => e.message,
  );

test("a total at the budget exactly passes; the refusal says that --target and --exclude will not get past it", async () => {
  process.env[BUDGET_ENV] = "1.72";
  const { client } = fakeClient([pod("mine", "L40S", 1, { COMPUTEPLATFORM_STACK: STACK })]);
  expect(await refusalOf(client, create(STACK, "L40S", 1, "a"))).toBeUndefined();
  expect(await refusalOf(client, create(STACK, "RTX4090", 1, "b"))).toContain(
    "Ways out: raise COMPUTEPLATFORM_MAX_HOURLY_COST, scale down or remove one of those, or make this change smaller. `pulumi up --target` or `--exclude` will not get past it: the budget is kept at every create and update.",
  );
});

test("writes with neither an id nor a key are each counted, none taken for another", async () => {
  process.env[BUDGET_ENV] = "2";
  const { client } = fakeClient([]);
  const keyless = { ...create(STACK, "L40S", 1, "x"), key: undefined };
  expect(await refusalOf(client, keyless)).toBeUndefined();
  expect(await refusalOf(client, keyless)).toBeUndefined();
  expect(await refusalOf(client, keyless)).toContain("would take the stack acme/infra/dev to $2.58/h, over its budget $2.00/h (COMPUTEPLATFORM_MAX_HOURLY_COST); it costs $1.72/h now.");
});

test("a create that replaces a pod: the replaced one is not counted beside it, and counts nothing once the create passed", async () => {
  process.env[BUDGET_ENV] = "3.5";
  const { client } = fakeClient([pod("old", "L40S", 1, { COMPUTEPLATFORM_STACK: STACK }), pod("keep", "L40S", 1, { COMPUTEPLATFORM_STACK: STACK })]);
  expect(await refusalOf(client, create(STACK, "H100", 1, "n", "old"))).toBe(
    "pod n: create (H100 x1) ($2.99/h) would take the stack acme/infra/dev to $3.85/h, over its budget $3.50/h (COMPUTEPLATFORM_MAX_HOURLY_COST); it costs $1.72/h now. Nothing was sent for it. " +
      "The largest: pod n $2.99/h (this change), pod keep $0.86/h (stack acme/infra/dev). Ways out: raise COMPUTEPLATFORM_MAX_HOURLY_COST, scale down or remove one of those, or make this change smaller. " +
      "`pulumi up --target` or `--exclude` will not get past it: the budget is kept at every create and update.",
  );
  process.env[BUDGET_ENV] = "4";
  expect(await refusalOf(client, create(STACK, "H100", 1, "n", "old"))).toBeUndefined();
  expect((await accountView(client).spenders()).map((s) => [s.label, s.id, s.hourly.max])).toEqual([
    ["pod keep", "keep", 0.86],
    ["pod n", undefined, 2.99],
    ["replaced", "old", 0],
  ]);
  // The next create is counted against the stack as the replacement leaves it: $0.86 + $2.99.
  expect(await refusalOf(client, create(STACK, "L40S", 1, "m"))).toContain("would take the stack acme/infra/dev to $4.71/h, over its budget $4.00/h (COMPUTEPLATFORM_MAX_HOURLY_COST); it costs $3.85/h now.");
  // A write that replaces nothing notes only itself.
  process.env[BUDGET_ENV] = "5";
  expect(await refusalOf(client, create(STACK, "RTX4090", 1, "s"))).toBeUndefined();
  expect((await accountView(client).spenders()).map((s) => s.label)).toEqual(["pod keep", "pod n", "replaced", "pod s"]);
});

test("over the budget, a replacement at the same price or a cheaper one passes: the stack costs no more than now", async () => {
  process.env[BUDGET_ENV] = "1";
  const same = fakeClient([pod("old", "H100", 1, { COMPUTEPLATFORM_STACK: STACK })]);
  expect(await refusalOf(same.client, create(STACK, "H100", 1, "n", "old"))).toBeUndefined();
  const cheaper = fakeClient([pod("old", "H100", 1, { COMPUTEPLATFORM_STACK: STACK })]);
  expect(await refusalOf(cheaper.client, create(STACK, "RTX4090", 1, "n", "old"))).toBeUndefined();
  // Taking over a running pod made by hand leaves its cost as it is: not a raise, though the stack then counts it.
  const hand = fakeClient([pod("hand", "H100", 1)]);
  const takeOver: CostedWrite = { label: "pod hand", change: "take over", id: "hand", stack: STACK, compute: { kind: "pod", gpu: { id: "H100", count: 1 }, cloud: "SECURE", running: true } };
  expect(await refusalOf(hand.client, takeOver)).toBeUndefined();
  expect(await refusalOf(hand.client, { ...takeOver, compute: { kind: "pod", gpu: { id: "H100", count: 2 }, cloud: "SECURE", running: true } })).toContain(
    "would take the stack acme/infra/dev to $5.98/h, over its budget $1.00/h",
  );
});

test("a write of no known stack is held by no stack budget, and reads none of the stack's other accounts", async () => {
  process.env[BUDGET_ENV] = "1";
  const here = fakeClient([pod("hand", "H100", 1)]);
  const there = fakeClient([pod("far", "H100", 1, { COMPUTEPLATFORM_STACK: STACK })]);
  const accounts = () => [{ name: "shared", client: there.client() }];
  expect(await refusalOf(here.client, { ...create(STACK, "L40S", 1, "a"), stack: undefined }, accounts)).toBeUndefined();
  expect(there.calls).toEqual({ pods: 0, endpoints: 0, gpus: 0 });
  // With its stack, the same write counts the stack's pod there (and only the stack's).
  expect(await refusalOf(here.client, create(STACK, "L40S", 1, "b"), accounts)).toContain('to $3.85/h, over its budget $1.00/h (COMPUTEPLATFORM_MAX_HOURLY_COST); it costs $2.99/h now. Nothing was sent for it. The largest: pod far on account "shared" $2.99/h');
});

describe("accountCost: the account before and after a stack's change, against the account's budget", () => {
  const budget = (usd: number) => ({ usd, source: "COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST" });
  const view = () => {
    const { client } = fakeClient([pod("mine", "L40S", 1, { COMPUTEPLATFORM_STACK: STACK }), pod("hand", "H100", 1)]);
    return accountView(client);
  };

  it("refuses a change that takes the account over its budget and above what it costs now, naming the largest spenders", async () => {
    expect(await accountCost(view(), { liveIds: new Set(["mine"]), after: { min: 1, max: 2 } }, budget(4.5))).toEqual({
      line: "account: $3.85/h -> $3.99-$4.99/h (budget $4.50/h)",
      refusal:
        "the account would cost $3.99-$4.99/h, over its budget $4.50/h (COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST); it costs $3.85/h now. Nothing was created or changed. " +
        "The largest spenders: pod hand $2.99/h (no stack (made outside Pulumi)), pod mine $0.86/h (stack acme/infra/dev). Ways out: raise COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST, " +
        "scale down or remove one of those, or lower this stack's cost. `pulumi up --target` or `--exclude` will not get past it: the budget is kept at every create and update.",
    });
  });

  it("passes a change that leaves the account at its budget exactly, or over it but no dearer than now", async () => {
    expect(await accountCost(view(), { liveIds: new Set(["mine"]), after: { min: 1, max: 1.51 } }, budget(4.5))).toEqual({ line: "account: $3.85/h -> $3.99-$4.50/h (budget $4.50/h)" });
    expect(await accountCost(view(), { liveIds: new Set(["mine"]), after: { min: 0.86, max: 0.86 } }, budget(1))).toEqual({ line: "account: $3.85/h -> $3.85/h (budget $1.00/h)" });
    expect(await accountCost(view(), { liveIds: new Set(["mine"]), after: { min: 0, max: 0 } }, budget(1))).toEqual({ line: "account: $3.85/h -> $2.99/h (budget $1.00/h)" });
  });
});

// What the account runs, priced (cost/account.ts): one list of pods and one of endpoints per
// command (a failed list is read again by the next caller), each object priced from the catalog
// (a stopped pod costs nothing; an endpoint's left-out fields are the platform's defaults), its
// owner in words from the marks the platform keeps, and this process's writes noted over what
// the lists said. A client answering from memory counts every read. (cost/guard's tests hold the
// budgets built on this.)
import {
  accountView,
  AccountView,
  endpointCompute,
  largest,
  podCompute,
  priceOf,
  type Spender,
  sum,
} from "../../../../src/resources/cost/account";
import { PriceBook } from "../../../../src/resources/cost/prices";
import { pendingName } from "../../../../src/resources/lifecycle/owner";

const GPUS = [
  { id: "L40S", pool: "ADA_48_PRO", price: { secure: 0.86, community: 0.69 } },
  { id: "L40", pool: "ADA_48_PRO", price: { secure: 0.99, community: 0.5 } },
  { id: "H100", pool: "HOPPER_141", price: { secure: 2.99, community: 2.69 } },
];
const CPUS = [{ id: "cpu3c", price: { securePerVcpu: 0.02 } }];

function fakeClient(pods: unknown[] | (() => Promise<unknown[]>), endpoints: unknown[] = []) {
  const calls = { pods: 0, endpoints: 0 };
  const client = {
    pods: { list: async () => (calls.pods++, typeof pods === "function" ? pods() : pods) },
    serverless: { list: async () => (calls.endpoints++, endpoints) },
    catalog: { gpus: async () => GPUS, cpus: async () => CPUS },
  };
  return { client: (() => client) as unknown as ConstructorParameters<typeof AccountView>[0], calls };
}
const pod = (id: string, over: Record<string, unknown> = {}) => ({
  id, name: id, status: "RUNNING", createdAt: "2026-01-01T00:00:00Z", env: {}, gpu: { id: "L40S", count: 1 }, cloud: "SECURE", ...over,
});
const restEndpoint = (id: string, over: Record<string, unknown> = {}) => ({
  id, name: id, gpu: { pools: ["ADA_48_PRO", "HOPPER_141"], count: 2 }, workers: { min: 1, max: 3 }, ...over,
});
const book = () => new PriceBook((() => ({ catalog: { gpus: async () => GPUS, cpus: async () => CPUS } })) as never);

describe("computes and prices", () => {
  it("a pod runs unless EXITED or TERMINATED", () => {
    expect(podCompute(pod("a") as never)).toEqual({ kind: "pod", gpu: { id: "L40S", count: 1 }, cpu: undefined, cloud: "SECURE", running: true });
    expect(podCompute(pod("a", { status: "EXITED" }) as never)).toMatchObject({ running: false });
    expect(podCompute(pod("a", { status: "TERMINATED" }) as never)).toMatchObject({ running: false });
    expect(podCompute(pod("a", { status: "ERROR" }) as never)).toMatchObject({ running: true });
  });

  it("an endpoint's left-out workers and GPU count are the platform's 0, 3 and 1", () => {
    expect(endpointCompute({ id: "e", name: "e", gpuIds: "ADA_48_PRO" })).toEqual({ kind: "endpoint", gpuIds: "ADA_48_PRO", workersMin: 0, workersMax: 3, gpuCount: 1 });
    expect(endpointCompute({ id: "e", name: "e", gpuIds: "X", workersMin: 2, workersMax: 0, gpuCount: 4 })).toMatchObject({ workersMin: 2, workersMax: 0, gpuCount: 4 });
  });

  it("priceOf: a running pod at its catalog price, a stopped one at nothing, an unpriced one unknown", async () => {
    expect(await priceOf(book(), { kind: "pod", gpu: { id: "H100", count: 2 }, cloud: "COMMUNITY", running: true })).toEqual({ min: 5.38, max: 5.38 });
    expect(await priceOf(book(), { kind: "pod", cpu: { id: "cpu3c", vcpuCount: 4 }, gpu: null, cloud: "SECURE", running: true })).toEqual({ min: 0.08, max: 0.08 });
    expect(await priceOf(book(), { kind: "pod", gpu: { id: "H100", count: 2 }, cloud: "SECURE", running: false })).toEqual({ min: 0, max: 0 });
    expect(await priceOf(book(), { kind: "pod", gpu: { id: "NOPE", count: 1 }, cloud: "SECURE", running: true })).toBeUndefined();
  });

  it("priceOf an endpoint: workersMin to workersMax workers of its first tier's highest price", async () => {
    expect(await priceOf(book(), { kind: "endpoint", gpuIds: "ADA_48_PRO,HOPPER_141", workersMin: 1, workersMax: 3, gpuCount: 2 })).toEqual({ min: 1.98, max: 5.94 });
  });
});

describe("AccountView", () => {
  it("one list per kind per command, however many read it; renew lists again", async () => {
    const { client, calls } = fakeClient([pod("a")], [restEndpoint("e")]);
    const view = new AccountView(client);
    await Promise.all([view.pods(), view.pods(), view.endpoints(), view.spenders()]);
    expect(calls).toEqual({ pods: 1, endpoints: 1 });
    view.renew();
    await view.spenders();
    expect(calls).toEqual({ pods: 2, endpoints: 2 });
  });

  it("a failed list is read again by the next caller", async () => {
    let fail = true;
    const { client, calls } = fakeClient(async () => {
      if (fail) throw new Error("503");
      return [pod("a")];
    });
    const view = new AccountView(client);
    await expect(view.pods()).rejects.toThrow("503");
    fail = false;
    await expect(view.pods()).resolves.toHaveLength(1);
    expect(calls.pods).toBe(2);
  });

  it("a failed list of endpoints is read again by the next caller", async () => {
    let reads = 0;
    const view = new AccountView((() => ({
      serverless: {
        list: async () => {
          if (reads++ === 0) throw new Error("503");
          return [restEndpoint("e")];
        },
      },
    })) as never);
    await expect(view.endpoints()).rejects.toThrow("503");
    await expect(view.endpoints()).resolves.toHaveLength(1);
    await view.endpoints();
    expect(reads).toBe(2);
  });

  it("a pod listed without its environment is owned by no stack", async () => {
    const { client } = fakeClient([pod("bare", { env: undefined })]);
    expect((await new AccountView(client).spenders()).map((s) => [s.label, s.owner, s.stack])).toEqual([["pod bare", "no stack (made outside Pulumi)", undefined]]);
  });

  it("endpoints are listed over REST, mapped to the GraphQL field names (pools joined, a missing gpu one GPU)", async () => {
    const { client } = fakeClient([], [restEndpoint("e1"), restEndpoint("e2", { gpu: undefined, workers: { min: 0, max: 0 } })]);
    expect(await new AccountView(client).endpoints()).toEqual([
      { id: "e1", name: "e1", gpuIds: "ADA_48_PRO,HOPPER_141", workersMin: 1, workersMax: 3, gpuCount: 2 },
      { id: "e2", name: "e2", gpuIds: "", workersMin: 0, workersMax: 0, gpuCount: 1 },
    ]);
  });

  it("a client without pods or serverless lists nothing", async () => {
    const view = new AccountView((() => ({ catalog: { gpus: async () => GPUS, cpus: async () => [] } })) as never);
    expect(await view.pods()).toEqual([]);
    expect(await view.endpoints()).toEqual([]);
  });

  it("spenders: each object priced, with its owner in words from its marks", async () => {
    const { client } = fakeClient(
      [
        pod("mine", { env: { COMPUTEPLATFORM_STACK: "acme/infra/prod" } }),
        pod("old", { env: { COMPUTEPLATFORM_OWNER: "tok.abcd1234" } }),
        pod("hand", { env: { COMPUTEPLATFORM_STACK: "" } }),
        pod("stopped", { status: "EXITED" }),
        pod("gone", { status: "TERMINATED" }),
        pod("odd", { gpu: { id: "NOPE", count: 1 } }),
      ],
      [restEndpoint("web"), restEndpoint("web-1234567-pending")],
    );
    const spenders = await new AccountView(client).spenders();
    expect(spenders.map((s) => [s.label, s.hourly, s.owner, s.stack])).toEqual([
      ["pod mine", { min: 0.86, max: 0.86 }, "stack acme/infra/prod", "acme/infra/prod"],
      ["pod old", { min: 0.86, max: 0.86 }, "a stack (made before pods carried their stack's name)", undefined],
      ["pod hand", { min: 0.86, max: 0.86 }, "no stack (made outside Pulumi)", undefined],
      ["pod stopped", { min: 0, max: 0 }, "no stack (made outside Pulumi)", undefined],
      ["pod odd", { min: 0, max: 0 }, "no stack (made outside Pulumi)", undefined],
      ["endpoint web", { min: 1.98, max: 5.94 }, "owner unknown (an endpoint carries no stack mark)", undefined],
      ["endpoint web-1234567-pending", { min: 1.98, max: 5.94 }, expect.any(String), undefined],
    ]);
    expect(spenders.map((s) => s.id)).toEqual(["mine", "old", "hand", "stopped", "odd", "web", "web-1234567-pending"]);
  });

  it("an endpoint whose create never finished is a stack's unfinished create", async () => {
    const { client } = fakeClient([], [restEndpoint("e", { name: pendingName("web-abc1234") })]);
    const [s] = await new AccountView(client).spenders();
    expect(s.owner).toBe("a stack's unfinished create");
  });

  it("a write noted after the lists replaces what they say of its object; a new object is added; a later note of the same replaces it", async () => {
    const { client } = fakeClient([pod("a"), pod("b")]);
    const view = new AccountView(client);
    await view.spenders();
    const priced = (label: string, max: number, key?: string): Spender => ({ label, hourly: { min: max, max }, owner: "this change", key });
    view.note(priced("pod a (updated)", 2.99), "a");
    view.note(priced("pod new", 0.5, "k1"), "k1");
    view.note(priced("pod new (fallback)", 0.69, "k1"), "k1");
    expect((await view.spenders()).map((s) => s.label)).toEqual(["pod b", "pod a (updated)", "pod new (fallback)"]);
    view.renew();
    expect((await view.spenders()).map((s) => s.label)).toEqual(["pod a", "pod b"]);
  });

  it("a note made before the first list is in that list already: the view starts without it", async () => {
    const { client } = fakeClient([pod("a")]);
    const view = new AccountView(client);
    view.note({ label: "pod a (updated)", hourly: { min: 9, max: 9 }, owner: "o" }, "a");
    expect((await view.spenders()).map((s) => s.label)).toEqual(["pod a"]);
  });

  it("notes without an id are all kept", async () => {
    const { client } = fakeClient([]);
    const view = new AccountView(client);
    await view.pods();
    view.note({ label: "x", hourly: { min: 1, max: 1 }, owner: "o" }, undefined);
    view.note({ label: "y", hourly: { min: 1, max: 1 }, owner: "o" }, undefined);
    expect((await view.spenders()).map((s) => s.label)).toEqual(["x", "y"]);
  });

  it("accountView: one view per client", () => {
    const { client } = fakeClient([]);
    expect(accountView(client)).toBe(accountView(client));
    expect(accountView(fakeClient([]).client)).not.toBe(accountView(client));
  });
});

describe("sum and largest", () => {
  const s = (label: string, min: number, max: number, owner = "o"): Spender => ({ label, hourly: { min, max }, owner });

  it("sum adds the ranges, to a tenth of a cent", () => {
    expect(sum([s("a", 0.1, 0.2), s("b", 0.2, 0.4)])).toEqual({ min: 0.3, max: 0.6 });
    expect(sum([s("a", 0.0004, 0.0006)])).toEqual({ min: 0, max: 0.001 });
    expect(sum([])).toEqual({ min: 0, max: 0 });
  });

  it("largest: the n costliest at the top of their range, with price and owner; nothing free", () => {
    const all = [s("pod a", 0.5, 0.5), s("endpoint e", 0, 5.94, "owner unknown"), s("pod free", 0, 0), s("pod b", 2.99, 2.99, "stack x"), s("pod c", 1, 1), s("pod d", 0.1, 0.1)];
    expect(largest(all)).toBe("endpoint e $0.00-$5.94/h (owner unknown), pod b $2.99/h (stack x), pod c $1.00/h (o), pod a $0.50/h (o)");
    expect(largest(all, 1)).toBe("endpoint e $0.00-$5.94/h (owner unknown)");
    expect(largest([s("pod free", 0, 0)])).toBe("");
  });
});

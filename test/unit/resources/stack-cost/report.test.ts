import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { ACCOUNT_BUDGET_ENV, accountBudget, BUDGET_ENV, budget, configureFromStack } from "../../../../src/resources/engine/settings";
import {
  type CostEntry,
  costLine,
  delta,
  costReport,
  normalizeEntry,
  overBudget,
  type PricedEntry,
  priceEntries,
  pricePod,
  UNPRICED,
} from "../../../../src/resources/stack-cost/report";

const PRICES: Record<string, number> = { L40S: 0.86, H100: 2.99, A100: 1.89 };
const podPrice = async (c: { gpu?: { id: string; count: number } }) => (c.gpu && PRICES[c.gpu.id] !== undefined ? PRICES[c.gpu.id]! * c.gpu.count : undefined);
const pricer = async (e: CostEntry) => (e.kind === "pod" ? pricePod(e, podPrice) : { min: 0.86 * (e.workersMin ?? 0), max: 0.86 * (e.workersMax ?? 0) });

const pod = (over: Record<string, unknown> = {}) => normalizeEntry({ kind: "pod", name: "trainer", gpu: { id: "L40S" }, ...over }) as CostEntry;
const endpoint = (over: Record<string, unknown> = {}) => normalizeEntry({ kind: "endpoint", name: "api", gpuIds: "ADA_48_PRO", workersMax: 2, ...over }) as CostEntry;

test("entries get the defaults their resources fill in, so a default written and left out cost the same", () => {
  expect(pod()).toEqual({ kind: "pod", name: "trainer", gpu: { id: "L40S", count: 1 }, cloud: "SECURE", desiredStatus: "RUNNING" });
  // A worker count left out is the platform's choice (priced from the live endpoint or its default), not 0.
  expect(endpoint()).toEqual({ kind: "endpoint", name: "api", gpuIds: "ADA_48_PRO", workersMax: 2 });
  expect(normalizeEntry({ kind: "volume", name: "x" })).toMatch(/kind must be pod or endpoint/);
});

test("a new pod: a preference list costs its first choice within maxHourlyCost (what its create tries first); an EXITED pod nothing", async () => {
  expect(await pricePod(pod({ gpu: { id: ["L40S", "H100"], count: 2 } }) as never, podPrice)).toEqual({ min: 1.72, max: 1.72 });
  expect(await pricePod(pod({ gpu: { id: ["H100", "A100", "L40S"] }, maxHourlyCost: 2 }) as never, podPrice)).toEqual({ min: 1.89, max: 1.89 });
  expect(await pricePod(pod({ desiredStatus: "EXITED" }) as never, podPrice)).toEqual({ min: 0, max: 0 });
  expect(await pricePod(pod({ gpu: { id: "B200" } }) as never, podPrice)).toBeUndefined();
});

test("an entry priced before with the same declaration keeps its price without asking; a changed, new or unknown one does not", async () => {
  const asked: string[] = [];
  const counting = async (e: CostEntry) => {
    asked.push(e.name);
    return pricer(e);
  };
  const olds = await priceEntries({}, { "pod trainer": pod(), "endpoint api": endpoint() }, counting);
  expect(asked).toEqual(["trainer", "api"]);
  const again = await priceEntries(olds, { "pod trainer": pod(), "endpoint api": endpoint({ workersMax: 4 }), "pod new": pod({ name: "new", gpu: { id: UNKNOWN } }) }, counting);
  expect(asked).toEqual(["trainer", "api", "api"]);
  expect(again["pod trainer"]!.hourly).toEqual({ min: 0.86, max: 0.86 });
  expect(again["pod new"]!.hourly).toBeUndefined();
});

describe("the cost line and the budget", () => {
  let olds: Record<string, PricedEntry>;
  beforeAll(async () => {
    olds = await priceEntries({}, { "pod trainer": pod(), "endpoint api": endpoint() }, pricer);
  });
  const after = (news: Record<string, CostEntry>) => priceEntries(olds, news, pricer);

  test("nothing for an unchanged stack; one line naming each resource whose cost changes", async () => {
    const same = await after({ "pod trainer": pod(), "endpoint api": endpoint() });
    expect(costLine(costReport(olds, same))).toBeUndefined();
    const count = await after({ "pod trainer": pod({ gpu: { id: "L40S", count: 2 } }), "endpoint api": endpoint() });
    expect(costLine(costReport(olds, count))).toBe("cost: $0.86-$2.58/h -> $1.72-$3.44/h (+$0.86/h): pod trainer gpu.count 1 -> 2");
    const several = await after({ "endpoint api": endpoint({ workersMin: 1 }), "pod big": pod({ name: "big", gpu: { id: "H100" } }) });
    expect(costLine(costReport(olds, several))).toBe(
      "cost: $0.86-$2.58/h -> $3.85-$4.71/h (+$2.99-$2.13/h): endpoint api workersMin none -> 1 (+$0.86-$0.00/h), pod big added (+$2.99/h), pod trainer removed (-$0.86/h)",
    );
    const fewer = await after({ "pod trainer": pod({ gpu: { id: "L40S", count: 2 } }), "endpoint api": endpoint({ workersMax: 0 }) });
    expect(costLine(costReport(olds, fewer))).toContain("cost: $0.86-$2.58/h -> $1.72/h (+$0.86 to -$0.86/h)");
    const unknown = await after({ "pod trainer": pod({ cloud: UNKNOWN }), "endpoint api": endpoint() });
    expect(costLine(costReport(olds, unknown))).toBe("cost: $0.86-$2.58/h -> $0.00-$1.72/h (-$0.86/h); not counted: pod trainer (cost unknown until up)");
  });

  test("resources on another account: named with it, and the line ends with what each account runs", async () => {
    const moved = await after({ "pod trainer": pod({ account: "shared", gpu: { id: "L40S", count: 2 } }), "endpoint api": endpoint() });
    expect(costLine(costReport(olds, moved))).toBe(
      "cost: $0.86-$2.58/h -> $1.72-$3.44/h (+$0.86/h): pod trainer (account shared) gpu.count 1 -> 2, account none -> shared; by account: the stack's $0.00-$1.72/h, shared $1.72/h",
    );
    // One account only, the stack's: no such tail.
    expect(costReport(olds, await after({ "pod trainer": pod(), "endpoint api": endpoint() })).byAccount).toBeUndefined();
  });

  test("over budget: only when the stack after the change costs more than the budget and more than before", async () => {
    const bigger = await after({ "pod trainer": pod({ gpu: { id: "L40S", count: 3 } }), "endpoint api": endpoint() });
    const message = overBudget(costReport(olds, bigger), bigger, 3, "computeplatform:maxHourlyCost");
    expect(message).toBe(
      "the stack would cost $2.58-$4.30/h, over its budget $3.00/h (computeplatform:maxHourlyCost); it costs $0.86-$2.58/h now. " +
        "Nothing was created or changed. The most: pod trainer $2.58/h, endpoint api $0.00-$1.72/h. Lower the cost, or raise computeplatform:maxHourlyCost.",
    );
    expect(overBudget(costReport(olds, bigger), bigger, 5, "b")).toBeUndefined();
    expect(overBudget(costReport(olds, bigger), bigger, undefined, "b")).toBeUndefined();
    // Already over a budget of $1: the same stack, or a cheaper one, passes.
    const same = await after({ "pod trainer": pod(), "endpoint api": endpoint() });
    expect(overBudget(costReport(olds, same), same, 1, "b")).toBeUndefined();
    const cheaper = await after({ "pod trainer": pod(), "endpoint api": endpoint({ workersMax: 1 }) });
    expect(overBudget(costReport(olds, cheaper), cheaper, 1, "b")).toBeUndefined();
  });
});

test("an endpoint's gpuCount: 1 written or left out is the same entry (as state written before it); more GPUs per worker cost more, in the line and the budget", async () => {
  expect(endpoint({ gpuCount: 1 })).toEqual(endpoint());
  expect(endpoint({ gpuCount: null })).toEqual(endpoint());
  expect(endpoint({ gpuCount: 4 })).toEqual({ kind: "endpoint", name: "api", gpuIds: "ADA_48_PRO", gpuCount: 4, workersMax: 2 });
  const perGpu = async (e: CostEntry) => {
    const worker = e.kind === "endpoint" ? 0.86 * (e.gpuCount ?? 1) : 0;
    return e.kind === "endpoint" ? { min: worker * (e.workersMin ?? 0), max: worker * (e.workersMax ?? 0) } : undefined;
  };
  const olds = await priceEntries({}, { "endpoint api": endpoint() }, perGpu);
  const more = await priceEntries(olds, { "endpoint api": endpoint({ gpuCount: 2 }) }, perGpu);
  expect(costLine(costReport(olds, more))).toBe("cost: $0.00-$1.72/h -> $0.00-$3.44/h (+$0.00-$1.72/h): endpoint api gpuCount 1 -> 2");
  expect(overBudget(costReport(olds, more), more, 2, "computeplatform:maxHourlyCost")).toMatch(/^the stack would cost \$0\.00-\$3\.44\/h, over its budget \$2\.00\/h/);
});

test("the budget: stack config first, else the environment; anything but a positive number is an error naming where it came from", () => {
  expect(budget({})).toBeUndefined();
  expect(budget({ [BUDGET_ENV]: "3.5" })).toEqual({ usd: 3.5, source: "COMPUTEPLATFORM_MAX_HOURLY_COST" });
  expect(() => budget({ [BUDGET_ENV]: "-1" })).toThrow('COMPUTEPLATFORM_MAX_HOURLY_COST must be a number of USD per hour, more than 0 (got "-1")');
  // The account's budget reads the same way, from its own key and variable.
  expect(accountBudget({ [BUDGET_ENV]: "3.5" })).toBeUndefined();
  expect(accountBudget({ [ACCOUNT_BUDGET_ENV]: "40" })).toEqual({ usd: 40, source: "COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST" });
  expect(() => accountBudget({ [ACCOUNT_BUDGET_ENV]: "lots" })).toThrow('COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST must be a number of USD per hour, more than 0 (got "lots")');
  const config: Record<string, unknown> = { "computeplatform:maxHourlyCost": "2", "computeplatform:accountMaxHourlyCost": 30 };
  configureFromStack({ get: (key: string) => config[key] } as never);
  try {
    expect(budget({ [BUDGET_ENV]: "3.5" })).toEqual({ usd: 2, source: "computeplatform:maxHourlyCost" });
    expect(accountBudget({ [ACCOUNT_BUDGET_ENV]: "40" })).toEqual({ usd: 30, source: "computeplatform:accountMaxHourlyCost" });
  } finally {
    configureFromStack({ get: () => undefined } as never);
  }
});

test("the sign of a change is the direction it moves: a removal is never shown with a plus", () => {
  expect(delta({ min: 0, max: 1.38 }, { min: 0, max: 0 })).toBe("-$0.00-$1.38/h");
  expect(delta({ min: 0, max: 0 }, { min: 0, max: 1.38 })).toBe("+$0.00-$1.38/h");
  expect(delta({ min: 1.55, max: 2.93 }, { min: 0, max: 0 })).toBe("-$1.55-$2.93/h");
  expect(delta({ min: 0.86, max: 0.86 }, { min: 0, max: 0 })).toBe("-$0.86/h");
  expect(delta({ min: 1, max: 1 }, { min: 0.5, max: 3 })).toBe("-$0.50 to +$2.00/h");
  // An endpoint that scales to zero removed: its line says it leaves, with a minus.
  const before = { "endpoint api": { ...endpoint(), hourly: { min: 0, max: 1.38 } } as PricedEntry };
  expect(costLine(costReport(before, {}))).toBe("cost: $0.00-$1.38/h -> $0.00/h (-$0.00-$1.38/h): endpoint api removed");
});

test("an entry left unpriced while the catalog was unreachable is priced at the next look, then kept", async () => {
  const unreachable = async (): Promise<typeof UNPRICED> => UNPRICED;
  const first = await priceEntries({}, { "pod trainer": pod() }, unreachable);
  expect(first["pod trainer"]).toEqual(pod());
  expect(costReport({}, first, "connect ECONNREFUSED").unpriced).toEqual(["pod trainer (catalog unreadable: connect ECONNREFUSED)"]);
  let asked = 0;
  const counting = async (e: CostEntry) => {
    asked++;
    return pricer(e);
  };
  const later = await priceEntries(first, { "pod trainer": pod() }, counting);
  expect(later["pod trainer"]!.hourly).toEqual({ min: 0.86, max: 0.86 });
  expect(await priceEntries(later, { "pod trainer": pod() }, counting)).toEqual(later);
  expect(asked).toBe(1);
});

describe("a ledger entry as the program sent it", () => {
  test("anything but an object is refused as such: null, a list, a text", () => {
    for (const raw of [null, [], ["pod"], "pod"]) expect(normalizeEntry(raw)).toBe("a ledger entry must be an object");
    expect(normalizeEntry({ kind: "pod" })).toMatchObject({ name: "?" });
  });

  test("a pod keeps what prices it and what finds it, each only when set: owner text, a non-empty ignore list, gpu, cpu, maxHourlyCost", () => {
    const full = normalizeEntry({
      kind: "pod",
      name: "t",
      owner: "Pod-web-3f9a1c2e",
      ignore: ["gpu.count"],
      cpu: { id: "cpu3c", vcpuCount: 4, extra: 1 },
      maxHourlyCost: 2,
      cloud: "COMMUNITY",
      desiredStatus: "EXITED",
    });
    expect(full).toEqual({
      kind: "pod",
      name: "t",
      owner: "Pod-web-3f9a1c2e",
      ignore: ["gpu.count"],
      cpu: { id: "cpu3c", vcpuCount: 4 },
      maxHourlyCost: 2,
      cloud: "COMMUNITY",
      desiredStatus: "EXITED",
    });
    const bare = normalizeEntry({ kind: "pod", name: "t", owner: 7, ignore: [], gpu: null, cpu: null, maxHourlyCost: null });
    expect(bare).toEqual({ kind: "pod", name: "t", cloud: "SECURE", desiredStatus: "RUNNING" });
    expect(normalizeEntry({ kind: "pod", name: "t", ignore: "gpu" })).not.toHaveProperty("ignore");
  });

  test("what is left out stays out, not a key holding undefined (state cannot hold undefined)", () => {
    expect(normalizeEntry({ kind: "pod", name: "t" })).toStrictEqual({ kind: "pod", name: "t", cloud: "SECURE", desiredStatus: "RUNNING" });
    expect(normalizeEntry({ kind: "endpoint", name: "api", gpuIds: "AMPERE_16" })).toStrictEqual({ kind: "endpoint", name: "api", gpuIds: "AMPERE_16" });
  });

  test("a gpu or cpu unknown at preview is kept as the marker, so the entry stays unknown", () => {
    expect(normalizeEntry({ kind: "pod", name: "t", gpu: UNKNOWN })).toMatchObject({ gpu: UNKNOWN });
    expect(normalizeEntry({ kind: "pod", name: "t", cpu: UNKNOWN })).toMatchObject({ cpu: UNKNOWN });
  });

  test("an endpoint keeps a worker count of 0 (not left to the platform), its owner and name as texts, a non-empty ignore list, and api only when rest", () => {
    const declared = {
      kind: "endpoint",
      name: "api",
      gpuIds: "AMPERE_16",
      workersMin: 0,
      workersMax: 0,
      owner: "ServerlessEndpoint-api-1a2b3c4d",
      declaredName: "my-api",
      ignore: ["workersMax"],
      api: "rest",
    };
    expect(normalizeEntry(declared)).toStrictEqual(declared);
    const bare = normalizeEntry({ kind: "endpoint", name: "api", gpuIds: "AMPERE_16", workersMin: null, workersMax: null, owner: 1, declaredName: 2, ignore: [], api: "graphql" });
    expect(bare).toEqual({ kind: "endpoint", name: "api", gpuIds: "AMPERE_16" });
  });
});

describe("a pod's price", () => {
  test("a CPU pod is priced by its flavor (none when the catalog does not list it); a pod with neither gpu nor cpu has no price", async () => {
    const asked: unknown[] = [];
    const byFlavor = async (c: { cpu?: { id: string; vcpuCount: number }; cloud: string }) => {
      asked.push(c);
      return c.cpu?.id === "cpu3c" ? 0.12 * c.cpu.vcpuCount : undefined;
    };
    expect(await pricePod(pod({ gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 4 } }) as never, byFlavor)).toEqual({ min: 0.48, max: 0.48 });
    expect(asked).toEqual([{ cpu: { id: "cpu3c", vcpuCount: 4 }, cloud: "SECURE" }]);
    expect(await pricePod(pod({ gpu: undefined, cpu: { id: "cpu9z", vcpuCount: 4 } }) as never, byFlavor)).toBeUndefined();
    expect(await pricePod(pod({ gpu: undefined }) as never, byFlavor)).toBeUndefined();
  });

  test("a GPU choice priced exactly at maxHourlyCost is within it", async () => {
    expect(await pricePod(pod({ gpu: { id: ["H100", "A100"] }, maxHourlyCost: 1.89 }) as never, podPrice)).toEqual({ min: 1.89, max: 1.89 });
  });
});

describe("the cost report's lines", () => {
  const priced = (entry: CostEntry, hourly: PricedEntry["hourly"], liveId?: string): PricedEntry => ({ ...entry, hourly, ...(liveId ? { liveId } : {}) });

  test("a price kept without asking keeps the live id the last look found, so the next look starts there", async () => {
    const olds = { "pod trainer": priced(pod(), { min: 0.86, max: 0.86 }, "pod-7") };
    const kept = await priceEntries(olds, { "pod trainer": pod() }, async () => {
      throw new Error("not asked");
    });
    expect(kept["pod trainer"]).toEqual(olds["pod trainer"]);
  });

  test("an entry the catalog does not price is not counted, and says so; it is no change", () => {
    const r = costReport({}, { "pod trainer": priced(pod({ gpu: { id: "B200" } }), null) });
    expect(r).toMatchObject({ changes: [], unpriced: ["pod trainer (not priced by the catalog)"] });
  });

  test("the same declaration at another catalog price is a change of price; several changed fields are listed together", () => {
    const olds = { "pod trainer": priced(pod(), { min: 0.86, max: 0.86 }) };
    expect(costReport(olds, { "pod trainer": priced(pod(), { min: 0.9, max: 0.9 }) }).changes).toEqual([
      { key: "pod trainer", label: "pod trainer", what: "price", before: { min: 0.86, max: 0.86 }, after: { min: 0.9, max: 0.9 } },
    ]);
    const both = costReport(olds, { "pod trainer": priced(pod({ gpu: { id: "L40S", count: 2 }, cloud: "COMMUNITY" }), { min: 1.5, max: 1.5 }) });
    expect(both.changes[0]!.what).toBe("gpu.count 1 -> 2, cloud SECURE -> COMMUNITY");
  });

  test("a changed field reads as the program writes it: a text bare, a list in brackets, a value left out as none, a CPU pod's flavor", () => {
    const list = costReport({ "pod t": priced(pod(), { min: 0.86, max: 0.86 }) }, { "pod t": priced(pod({ gpu: { id: ["H100", "L40S"] }, maxHourlyCost: 3 }), { min: 2.99, max: 2.99 }) });
    expect(list.changes[0]!.what).toBe("gpu.id L40S -> [H100, L40S], maxHourlyCost none -> 3");
    const cpu = (vcpuCount: number) => pod({ gpu: undefined, cpu: { id: "cpu3c", vcpuCount } });
    const flavor = costReport({ "pod c": priced(cpu(4), { min: 0.48, max: 0.48 }) }, { "pod c": priced(cpu(8), { min: 0.96, max: 0.96 }) });
    expect(flavor.changes[0]!.what).toBe("cpu.vcpuCount 4 -> 8");
  });

  test("removing what cost nothing (an EXITED pod) changes nothing; removing what cost something is listed", () => {
    const olds = {
      "pod idle": priced(pod({ name: "idle", desiredStatus: "EXITED" }), { min: 0, max: 0 }),
      "endpoint api": priced(endpoint(), { min: 0, max: 1.72 }),
    };
    expect(costReport(olds, {}).changes.map((c) => `${c.label} ${c.what}`)).toEqual(["endpoint api removed"]);
  });

  test("every entry not counted is named in the line", () => {
    const r = costReport({}, { "pod a": pod({ name: "a", cloud: UNKNOWN }), "pod b": priced(pod({ name: "b" }), null) });
    expect(costLine(r)).toBe("cost: $0.00/h -> $0.00/h (+$0.00/h); not counted: pod a (cost unknown until up), pod b (not priced by the catalog)");
  });

  test("an entry priced at the write (a field from another resource's outputs) is not priced here, and the line says why", async () => {
    const raw = { kind: "pod", name: "b", cloud: "SECURE", atWrite: ["gpu", "cloud"] };
    const entry = normalizeEntry(raw) as CostEntry;
    expect(entry).toMatchObject({ atWrite: ["gpu", "cloud"] });
    expect(normalizeEntry({ ...raw, atWrite: [] })).not.toHaveProperty("atWrite");
    expect(normalizeEntry({ kind: "endpoint", name: "e", gpuIds: "ADA_24", atWrite: ["workersMax"] })).toMatchObject({ atWrite: ["workersMax"] });
    expect(normalizeEntry({ kind: "endpoint", name: "e", gpuIds: "ADA_24", atWrite: [] })).not.toHaveProperty("atWrite");
    const pricer = jest.fn(async () => ({ min: 1, max: 1 }));
    const out = await priceEntries({}, { "pod b": entry }, pricer);
    expect(pricer).not.toHaveBeenCalled();
    expect(costLine(costReport({}, out))).toBe("cost: $0.00/h -> $0.00/h (+$0.00/h); not counted: pod b (priced at its create or update: gpu, cloud from another resource's outputs)");
  });

  test("a range whose top stays and whose bottom falls moves down: a minus, never a plus", () => {
    expect(delta({ min: 1, max: 2 }, { min: 0, max: 2 })).toBe("-$1.00-$0.00/h");
    expect(delta({ min: 1, max: 1 }, { min: 1, max: 1 })).toBe("+$0.00/h");
  });

  test("a stack that comes to exactly its budget is within it", () => {
    const news = { "pod t": priced(pod(), { min: 3, max: 3 }) };
    expect(overBudget(costReport({}, news), news, 3, "b")).toBeUndefined();
  });

  test("over budget names the three dearest resources, dearest first, and none that costs nothing or is not priced", () => {
    const news: Record<string, PricedEntry> = {
      "pod a": priced(pod({ name: "a" }), { min: 0.86, max: 0.86 }),
      "pod b": priced(pod({ name: "b" }), { min: 2.99, max: 2.99 }),
      "pod idle": priced(pod({ name: "idle" }), { min: 0, max: 0 }),
      "pod c": priced(pod({ name: "c" }), { min: 1.89, max: 1.89 }),
      "pod new": pod({ name: "new", cloud: UNKNOWN }),
      "endpoint api": priced(endpoint(), { min: 0, max: 1.72 }),
    };
    expect(overBudget(costReport({}, news), news, 1, "b")).toContain("The most: pod b $2.99/h, pod c $1.89/h, endpoint api $0.00-$1.72/h. ");
    const few = { "pod idle": news["pod idle"]!, "pod a": news["pod a"]! };
    expect(overBudget(costReport({}, few), few, 0.5, "b")).toContain("The most: pod a $0.86/h. ");
  });
});

import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { BUDGET_ENV, budget, configureFromStack } from "../../../../src/resources/engine/settings";
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
  configureFromStack({ get: (key: string) => (key === "computeplatform:maxHourlyCost" ? "2" : undefined) } as never);
  try {
    expect(budget({ [BUDGET_ENV]: "3.5" })).toEqual({ usd: 2, source: "computeplatform:maxHourlyCost" });
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

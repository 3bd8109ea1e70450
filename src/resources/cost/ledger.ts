/*
 * The program side of the stack's cost: a ledger every Pod and ServerlessEndpoint of a
 * program joins as it is declared, and one `StackCost` resource that holds it.
 *
 * Why a ledger in the program: the engine runs Check, Diff and Create of each resource as
 * soon as the program registers it, in parallel, so no provider call sees the whole stack
 * before the first create. Here each costed resource, as it is declared, adds what prices it
 * (GPU, CPU, cloud, workers) to the ledger and gets `dependsOn: StackCost`. The SDK sends a
 * resource's registration only once its dependencies are done, so no costed resource reaches
 * the engine before the StackCost step is over. The ledger closes when the program's turn
 * in which the costed resources were declared ends; then StackCost registers with every
 * entry, and its check (stack-cost/provider.ts) prices them, prints the cost line and holds the
 * budget. A budget it refuses fails the StackCost step, so nothing after it registers:
 * no create or update request is sent.
 *
 * Under a stack budget the ledger also lists the accounts the program names for its costed
 * resources, and each of them carries that list (secret: it holds the keys) as a hidden input:
 * under `pulumi up --target` only the targeted resources reach the provider, and the budget kept
 * at their writes (cost/guard.ts) counts the stack's pods on every account of the list.
 */
import * as pulumi from "@pulumi/pulumi";
import { BUDGET_ENV, CONFIG_KEYS } from "../engine/settings";
import { type AccountInput, accountIdentity, STACK_ACCOUNTS_KEY } from "../engine/account";
import { shimProvider } from "../engine/shim";
import { baseOwnerToken } from "../lifecycle/owner";

/**
 * The name of the one StackCost resource of a stack.
 *
 * @group Providers and checks
 */
export const STACK_COST_NAME = "stack-cost";

/**
 * The stack's hourly cost, as the last preview or up priced it: one per stack, made by the
 * ledger when the program declares a Pod or a ServerlessEndpoint. It sends no request of its
 * own beyond the catalog read that prices a new or changed resource.
 *
 * @group Resources
 */
export class StackCost extends pulumi.dynamic.Resource {
  /** USD per hour of the stack's pods and endpoints: `min` at each endpoint's workersMin, `max` at its workersMax. */
  declare readonly total: pulumi.Output<{ min: number; max: number }>;

  constructor(name: string, entries: Promise<Record<string, pulumi.Input<Record<string, unknown>>>>, opts?: pulumi.CustomResourceOptions) {
    super(shimProvider("stack-cost"), name, { entries, total: undefined }, opts, "computeplatform", "StackCost");
  }
}

interface Ledger {
  entries: Record<string, pulumi.Input<Record<string, unknown>>>;
  /** The `account` of each costed resource that names one, as declared. */
  accounts: pulumi.Input<AccountInput>[];
  /** Every account of `accounts` once, secret; settles when the ledger closes (none named: undefined). */
  accountList: Promise<pulumi.Output<AccountInput[]> | undefined>;
  resource: StackCost;
  close: () => void;
  timer?: ReturnType<typeof setTimeout>;
  closed: boolean;
}

/** One ledger per program run (the monitor the SDK talks to; a test's mocks make a new one each run). */
const ledgers = new WeakMap<object, Ledger>();
const NO_MONITOR = {};

/** Where a resource that joined a ledger got its options: the ledger it joined. */
const joinedTo = new WeakMap<object, Ledger>();

function openLedger(): Ledger {
  let resolve!: (entries: Ledger["entries"]) => void;
  let resolveAccounts!: (list: pulumi.Output<AccountInput[]> | undefined) => void;
  const entries = new Promise<Ledger["entries"]>((r) => (resolve = r));
  const ledger: Ledger = {
    entries: {},
    accounts: [],
    accountList: new Promise((r) => (resolveAccounts = r)),
    resource: new StackCost(STACK_COST_NAME, entries),
    closed: false,
    close: () => {
      ledger.closed = true;
      resolve(ledger.entries);
      resolveAccounts(ledger.accounts.length === 0 ? undefined : pulumi.secret(pulumi.all(ledger.accounts).apply(oncePerAccount)));
    },
  };
  return ledger;
}

/** Each account once, by its identity (name and addresses); the last key given for it. */
function oncePerAccount(accounts: AccountInput[]): AccountInput[] {
  const byIdentity = new Map<string, AccountInput>();
  for (const a of accounts as unknown as { name: string; apiKey: string; apiUrl?: string; serverlessUrl?: string }[]) {
    byIdentity.set(accountIdentity(a), { name: a.name, apiKey: a.apiKey, ...(a.apiUrl ? { apiUrl: a.apiUrl } : {}), ...(a.serverlessUrl ? { serverlessUrl: a.serverlessUrl } : {}) });
  }
  return [...byIdentity.values()];
}

/** Whether the program's stack config or environment sets a budget (a late resource cannot be held to it). */
function budgetSet(): boolean {
  const fromConfig = new pulumi.Config("computeplatform").get(CONFIG_KEYS.maxHourlyCost.split(":")[1]!);
  return Boolean(fromConfig || process.env[BUDGET_ENV]);
}

/**
 * What the ledger needs to find a resource's live object and to know what up leaves alone:
 * its owner token (from who declares it, as its own hidden inputs say) and the pricing fields
 * its `ignoreChanges` hides.
 */
export function ledgerIdentity(kind: string, logicalName: string, owner: Record<string, string>, opts: pulumi.CustomResourceOptions | undefined, pricing: readonly string[]): Record<string, unknown> {
  const ignore = (opts?.ignoreChanges ?? []).filter((p) => pricing.some((f) => p === f || p.startsWith(`${f}.`) || f.startsWith(`${p}.`)));
  return { owner: baseOwnerToken(kind, owner, logicalName), ...(ignore.length > 0 ? { ignore } : {}) };
}

const COSTED_TYPE = /^pulumi-nodejs:dynamic\/computeplatform:(Pod|ServerlessEndpoint)$/;

/** Whether `value` (an input, walked a few levels deep) takes an output of a Pod or a ServerlessEndpoint. */
function fromCostedOutputs(value: unknown, depth = 0): boolean {
  if (pulumi.Output.isInstance(value)) {
    const resources = (value as unknown as { resources?: () => Set<{ __pulumiType?: unknown }> }).resources?.() ?? new Set();
    return [...resources].some((r) => COSTED_TYPE.test(String(r.__pulumiType)));
  }
  if (depth > 3 || value === null || typeof value !== "object") return false;
  return Object.values(value).some((v) => fromCostedOutputs(v, depth + 1));
}

/**
 * The entry as the ledger can wait for it: a pricing field taken from another costed resource's
 * outputs would wait for that resource, which waits for the stack's cost, which would wait for
 * the field. Such a field is left out and named (`atWrite`): the cost line says the resource is
 * priced at its write, and the budget is held there (cost/guard.ts), with the value it sends.
 */
function pricedHere(entry: Record<string, pulumi.Input<unknown>>): Record<string, unknown> {
  const atWrite = Object.keys(entry).filter((k) => fromCostedOutputs(entry[k]));
  if (atWrite.length === 0) return entry;
  return { ...Object.fromEntries(Object.entries(entry).filter(([k]) => !atWrite.includes(k))), atWrite };
}

/**
 * Adds a costed resource to the program's ledger: `entry` holds what prices it (inputs, as
 * declared). Returns the options to register it with: `dependsOn` the StackCost, so it
 * reaches the engine only after the stack's cost has passed. `Pod.get` (an `id` given) is no
 * part of the stack's cost. `account` is the resource's own, for the list of the stack's
 * accounts ({@link stackAccountsInput}).
 */
export function joinLedger(
  kind: "pod" | "endpoint",
  name: string,
  entry: Record<string, pulumi.Input<unknown>>,
  opts: pulumi.CustomResourceOptions | undefined,
  account?: pulumi.Input<AccountInput>,
): pulumi.CustomResourceOptions | undefined {
  if (opts?.id !== undefined) return opts;
  const key = pulumi.runtime.getMonitor() ?? NO_MONITOR;
  let ledger = ledgers.get(key);
  if (ledger?.closed) {
    const where = `${kind === "pod" ? "Pod" : "ServerlessEndpoint"} "${name}" was declared after the stack's cost was settled`;
    const fix = "declare every Pod and ServerlessEndpoint in the same turn of the program (before awaiting anything between them)";
    if (budgetSet()) throw new Error(`${where}, so the budget cannot hold it; ${fix}`);
    void pulumi.log.warn(`${where}: it is left out of the cost lines; ${fix}`);
    return opts;
  }
  if (!ledger) {
    ledger = openLedger();
    ledgers.set(key, ledger);
  }
  let slot = `${kind} ${name}`;
  for (let n = 2; slot in ledger.entries; n++) slot = `${kind} ${name} #${n}`;
  ledger.entries[slot] = { kind, name, ...pricedHere(entry) };
  if (account !== undefined) ledger.accounts.push(account);
  // Closes once the program's current turn is over: every resource declared with this one is in.
  clearTimeout(ledger.timer);
  ledger.timer = setTimeout(ledger.close, 0);
  const dependsOn = [opts?.dependsOn, ledger.resource].filter((d) => d !== undefined) as pulumi.Input<pulumi.Resource>[];
  const joined = { ...opts, dependsOn };
  joinedTo.set(joined, ledger);
  return joined;
}

/**
 * The hidden input of a resource registered with `opts` from {@link joinLedger}: the accounts
 * the program names for its costed resources, secret, once the ledger closes. None without a
 * stack budget (nothing reads it), nor for a resource that did not join.
 */
export function stackAccountsInput(opts: pulumi.CustomResourceOptions | undefined): Record<string, pulumi.Input<unknown>> {
  const ledger = opts && joinedTo.get(opts);
  return ledger && budgetSet() ? { [STACK_ACCOUNTS_KEY]: ledger.accountList } : {};
}

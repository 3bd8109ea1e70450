/*
 * The budgets, kept at the write. Every create or update that can raise what the platform bills
 * (a pod made, started or taken over; an endpoint's workers or GPUs saved) calls `holdBudgets`
 * with what it is about to send, before it sends it. The engine skips the StackCost's check
 * under `--target` and `--exclude`, a transform changes inputs after the program's ledger copied
 * them, and an input taken from another resource's output is unknown when the ledger is priced:
 * none of them skips the provider's own create or update, so the budgets hold here whatever the
 * engine did before.
 *
 *   no budget set        nothing read, nothing refused
 *   a budget set         the account's pods and endpoints (cost/account.ts: one list per kind per
 *                        command, shared with the stack's cost line), the catalog's prices (one read)
 *
 * The stack's budget counts the pods carrying this stack's mark (lifecycle/owner.ts) and what this
 * process's writes made, on every account the process knows the stack to have (engine/settings.ts,
 * `stackAccountClients`: the stack's own, and each the program names for a Pod or an endpoint,
 * which every costed resource carries under a stack budget, cost/ledger.ts): one list per kind
 * per account per command. The account's budget counts everything the write's account runs. A write is refused
 * only when it raises its own object's cost and leaves the total over the budget and above what it
 * is now: a stack or account already over its budget may still get cheaper, or stay as it is. A
 * refused write has sent nothing.
 */
import type { ComputePlatform } from "../../client";
import { accountLabel } from "../engine/account";
import { accountBudget, budget, type Budget, stackAccountClients } from "../engine/settings";
import { type AccountView, accountView, type Compute, largest, priceOf, type Spender, sum } from "./account";
import { type HourlyRange, perHour, priceBook, range } from "./prices";

/** A write about to be sent, as the budgets see it. */
export interface CostedWrite {
  /** `pod trainer-1a2b3c4`, `endpoint api-5d6e7f8`. */
  label: string;
  /** What it changes, in words: `create (NVIDIA L40S x4, SECURE)`, `start`, `workersMin 0, workersMax 6`. */
  change: string;
  /** The object it changes; undefined for a create. */
  id?: string;
  /** A create's own key (the tries of one create, a GPU fallback's, are one object). */
  key?: string;
  /** The object a create replaces: the engine deletes it once this one exists. */
  replaces?: string;
  /** The stack that writes, `<organization>/<project>/<stack>`. */
  stack?: string;
  /** What the object runs once the write is done. */
  compute: Compute;
}

const ZERO: HourlyRange = { min: 0, max: 0 };

/** What the client must offer: the lists and the catalog. */
export type BudgetClient = () => Partial<Pick<ComputePlatform, "pods" | "serverless">> & Pick<ComputePlatform, "catalog">;

/** The stack's other accounts, as the budgets read them: each one's name (none: the stack's own) and client. */
export type StackAccounts = () => readonly { name?: string; client: ReturnType<BudgetClient> }[];

/**
 * Refuses `write` when it would take the stack or the account over its budget; otherwise notes
 * what it leaves, so the next write of this process counts it. Reads nothing without a budget.
 * `accounts` are the stack's accounts; the write's own among them is read once.
 */
export async function holdBudgets(client: BudgetClient, write: CostedWrite, accounts: StackAccounts = stackAccountClients): Promise<void> {
  const limits = { stack: budget(), account: accountBudget() };
  if (!limits.stack && !limits.account) return;
  const view = accountView(client);
  const [own, after, elsewhere] = await Promise.all([view.spenders(), priceOf(priceBook(client), write.compute), onOtherAccounts(client(), limits.stack && write.stack, accounts)]);
  const now = [...own, ...elsewhere];
  const self = write.id ?? write.key;
  const mine = (s: Spender & { key?: string }) => self !== undefined && (s.id === self || s.key === self);
  const before = now.find(mine)?.hourly ?? ZERO;
  // A price the catalog does not have counts nothing: the budgets cannot see it (documented).
  const me: Spender & { key?: string } = { label: write.label, id: write.id, key: write.key, hourly: after ?? ZERO, stack: write.stack, owner: "this change" };
  const others = now.filter((s) => !mine(s) && !(write.replaces !== undefined && s.id === write.replaces));
  const raises = me.hourly.max > before.max;
  const here = new Set(own);
  const scopes: { whose: string; limit?: Budget; spenders: (s: Spender) => boolean }[] = [
    { whose: `the stack ${write.stack}`, limit: limits.stack, spenders: (s) => write.stack !== undefined && s.stack === write.stack },
    { whose: "the account", limit: limits.account, spenders: (s) => here.has(s) },
  ];
  for (const scope of scopes) {
    if (!scope.limit || !raises) continue;
    const total = { now: sum(now.filter(scope.spenders)), after: sum([...others.filter(scope.spenders), me]) };
    if (total.after.max > scope.limit.usd && total.after.max > total.now.max) {
      throw new Error(refusal(write, scope.whose, scope.limit, total, [...others.filter(scope.spenders), me]));
    }
  }
  view.note(me, self);
  if (write.replaces) view.note({ label: "replaced", id: write.replaces, hourly: ZERO, owner: "" }, write.replaces);
}

/**
 * What the stack's accounts other than the write's run, each object labelled with its account
 * (the writes of this process there included): the stack's budget counts those carrying its mark.
 * None are read when no stack budget is kept for `stack` (undefined).
 */
async function onOtherAccounts(mine: object, stack: string | undefined, accounts: StackAccounts): Promise<Spender[]> {
  const others = stack === undefined ? [] : accounts().filter((a) => a.client !== mine);
  const lists = await Promise.all(others.map((a) => accountView(() => a.client).spenders()));
  return lists.flatMap((list, i) => list.map((s) => ({ ...s, label: `${s.label} on ${accountLabel(others[i]!.name === undefined ? undefined : { name: others[i]!.name })}` })));
}

/** The refusal: the budget, the figures, the change that broke it and the ways out. */
function refusal(write: CostedWrite, whose: string, limit: Budget, total: { now: HourlyRange; after: HourlyRange }, spenders: Spender[]): string {
  return (
    `${write.label}: ${write.change} (${range(spenders.at(-1)!.hourly)}) would take ${whose} to ${range(total.after)}, ` +
    `over its budget ${perHour(limit.usd)} (${limit.source}); it costs ${range(total.now)} now. Nothing was sent for it. ` +
    `The largest: ${largest(spenders)}. Ways out: raise ${limit.source}, scale down or remove one of those, or make this change smaller. ` +
    "`pulumi up --target` or `--exclude` will not get past it: the budget is kept at every create and update."
  );
}

/** The stack's side of the account, as its cost line prices it: the ids of its live objects, and what it costs before and after the change. */
export interface StackShare {
  liveIds: ReadonlySet<string>;
  after: HourlyRange;
}

/**
 * The account before and after a stack's change (the cost line's part `account: $a/h -> $b/h`),
 * and the refusal when the change takes it over `limit`: the account's objects other than the
 * stack's, plus the stack as it will be.
 */
export async function accountCost(view: AccountView, share: StackShare, limit: Budget): Promise<{ line: string; refusal?: string }> {
  const now = await view.spenders();
  const others = now.filter((s) => !(s.id && share.liveIds.has(s.id)));
  const total = { now: sum(now), after: sum([...others, { hourly: share.after }]) };
  const line = `account: ${range(total.now)} -> ${range(total.after)} (budget ${perHour(limit.usd)})`;
  if (total.after.max <= limit.usd || total.after.max <= total.now.max) return { line };
  return {
    line,
    refusal:
      `the account would cost ${range(total.after)}, over its budget ${perHour(limit.usd)} (${limit.source}); it costs ${range(total.now)} now. ` +
      `Nothing was created or changed. The largest spenders: ${largest(now)}. Ways out: raise ${limit.source}, scale down or remove one of those, ` +
      "or lower this stack's cost. `pulumi up --target` or `--exclude` will not get past it: the budget is kept at every create and update.",
  };
}

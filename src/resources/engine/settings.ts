import { AsyncLocalStorage } from "node:async_hooks";
import type * as pulumi from "@pulumi/pulumi";
import { type Account, accountIdentity } from "./account";
import { type Clock, ComputePlatform, MISSING_API_KEY, MISSING_API_URL, MissingApiKeyError, MissingApiUrlError } from "../../client";

/**
 * Credentials and addresses for the providers, read at run time inside the plugin:
 * stack config (delivered through the provider's `configure()`), then the environment,
 * then the client's defaults. Nothing here is captured when the program runs, so no
 * secret reaches `__provider` in state.
 */
export interface PlatformSettings {
  apiKey?: string;
  apiUrl?: string;
  serverlessUrl?: string;
}

let settings: PlatformSettings = {};
let client: ComputePlatform | undefined;

/** Config keys under the `computeplatform` namespace. */
export const CONFIG_KEYS = {
  apiKey: "computeplatform:apiKey",
  apiUrl: "computeplatform:apiUrl",
  serverlessUrl: "computeplatform:serverlessUrl",
  maxHourlyCost: "computeplatform:maxHourlyCost",
  accountMaxHourlyCost: "computeplatform:accountMaxHourlyCost",
} as const;

/** The environment variable of the stack's budget when the stack config does not set one. */
export const BUDGET_ENV = "COMPUTEPLATFORM_MAX_HOURLY_COST";

/** The environment variable of the account's budget when the stack config does not set one. */
export const ACCOUNT_BUDGET_ENV = "COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST";

/** The environment variable of the client's first backoff ceiling inside the plugin, in ms. */
export const RETRY_BASE_ENV = "COMPUTEPLATFORM_RETRY_BASE_MS";

/**
 * The first backoff ceiling the environment sets (a fast pace against the emulator, a slower one
 * for a crowded account), or undefined for the client's default (500 ms). A value that is not a
 * whole number of milliseconds is an error naming the variable.
 */
export function retryBaseMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env[RETRY_BASE_ENV];
  if (raw === undefined || raw.trim() === "") return undefined;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`${RETRY_BASE_ENV} must be a whole number of milliseconds, 0 or more (got "${raw}")`);
  return ms;
}

/** A budget in USD per hour and where it was set; none when neither sets one. */
export interface Budget {
  usd: number;
  source: string;
}

let stackBudget: string | undefined;
let accountBudgetText: string | undefined;

/**
 * The stack's budget: stack config `computeplatform:maxHourlyCost`, else the environment. A value
 * that is not a positive number is an error naming where it came from.
 */
export function budget(env: NodeJS.ProcessEnv = process.env): Budget | undefined {
  return readBudget(stackBudget, CONFIG_KEYS.maxHourlyCost, env[BUDGET_ENV], BUDGET_ENV);
}

/**
 * The account's budget, the most every pod and endpoint of the account together may cost:
 * stack config `computeplatform:accountMaxHourlyCost`, else the environment.
 */
export function accountBudget(env: NodeJS.ProcessEnv = process.env): Budget | undefined {
  return readBudget(accountBudgetText, CONFIG_KEYS.accountMaxHourlyCost, env[ACCOUNT_BUDGET_ENV], ACCOUNT_BUDGET_ENV);
}

function readBudget(fromConfig: string | undefined, configKey: string, fromEnv: string | undefined, envKey: string): Budget | undefined {
  const [raw, source] = fromConfig !== undefined ? [fromConfig, configKey] : [fromEnv, envKey];
  if (raw === undefined || raw.trim() === "") return undefined;
  const usd = Number(raw);
  if (!Number.isFinite(usd) || usd <= 0) throw new Error(`${source} must be a number of USD per hour, more than 0 (got "${raw}")`);
  return { usd, source };
}

/**
 * Called with the stack's config by the provider registry (`registerProvider` wraps every
 * provider's `configure()`), so no resource provider has to call it. Pulumi's plugin calls
 * `configure()` once per serialized provider, that is once per resource kind.
 */
export function configureFromStack(config: pulumi.dynamic.Config): void {
  const text = (key: string): string | undefined => {
    const value: unknown = config.get(key);
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const setting = (key: string): string | undefined => {
    const value: unknown = config.get(key);
    return value === undefined || value === null || value === "" ? undefined : String(value);
  };
  stackBudget = setting(CONFIG_KEYS.maxHourlyCost);
  accountBudgetText = setting(CONFIG_KEYS.accountMaxHourlyCost);
  setPlatformSettings({
    apiKey: text(CONFIG_KEYS.apiKey),
    apiUrl: text(CONFIG_KEYS.apiUrl),
    serverlessUrl: text(CONFIG_KEYS.serverlessUrl),
  });
}

/**
 * Replace the settings (tests, or a program that configures in-process). The same settings
 * again keep the current client: each kind's `configure()` brings the same stack config, and a
 * new client mid-deployment would split what should be one client.
 */
export function setPlatformSettings(next: PlatformSettings): void {
  const same =
    settings.apiKey === next.apiKey && settings.apiUrl === next.apiUrl && settings.serverlessUrl === next.serverlessUrl;
  settings = { apiKey: next.apiKey, apiUrl: next.apiUrl, serverlessUrl: next.serverlessUrl };
  if (!same) client = undefined;
}

/**
 * The account the provider call at hand acts on: the resource's own `account`, set by the
 * registry's wrapper for the length of the call (and every wait it starts); none for the stack's.
 */
let accountScope: AsyncLocalStorage<Account> | undefined;

/**
 * Runs `op` on `account` (none: the stack's default account): what `platform()` returns inside
 * it. The scope is made on the first resource that names an account: a live AsyncLocalStorage
 * puts a cost on every promise of the process, which a stack of one account does not pay.
 */
export function inAccount<T>(account: Account | undefined, op: () => T): T {
  if (!account) return op();
  accountScope ??= new AsyncLocalStorage<Account>();
  return accountScope.run(account, op);
}

/** One client per account and key, so pacing, shared lists and reads are each account's own. */
const accountClients = new Map<string, ComputePlatform>();

/**
 * The client of the account at hand: the resource's `account` inside a provider call on one,
 * else the one client of the stack's account. Each is shared by every provider of the process,
 * so rate-limit pacing is one budget per API key however many resources are in flight.
 */
export function platform(): ComputePlatform {
  return clientOf(accountScope?.getStore());
}

/** The client of `account` (none: the stack's own account), made once per account, key and addresses. */
function clientOf(account: Account | undefined): ComputePlatform {
  if (account) {
    const apiUrl = account.apiUrl ?? settings.apiUrl;
    const serverlessUrl = account.serverlessUrl ?? settings.serverlessUrl;
    const id = JSON.stringify([account.name, account.apiKey, apiUrl ?? null, serverlessUrl ?? null]);
    let made = accountClients.get(id);
    if (!made) {
      made = new ComputePlatform({ apiKey: account.apiKey, apiUrl, serverlessUrl, baseDelayMs: retryBaseMs() });
      accountClients.set(id, made);
    }
    return made;
  }
  client ??= new ComputePlatform({
    apiKey: settings.apiKey,
    apiUrl: settings.apiUrl,
    serverlessUrl: settings.serverlessUrl,
    baseDelayMs: retryBaseMs(),
  });
  return client;
}

/**
 * The accounts the program names for its Pods and ServerlessEndpoints, by identity, as the
 * resources of this command brought them (the ledger's list, cost/ledger.ts): a process knows
 * another account only from a resource's inputs, and under `--target` only targeted resources
 * reach it. The latest key of an account is kept (a rotation).
 */
const stackAccounts = new Map<string, Account>();

/** Notes accounts the program names (each command's process starts with none). */
export function noteStackAccounts(accounts: readonly Account[]): void {
  for (const a of accounts) stackAccounts.set(accountIdentity(a), a);
}

/** An account of the stack and its client; `name` undefined for the stack's own account. */
export interface StackAccount {
  name?: string;
  client: ComputePlatform;
}

/**
 * Every account this process knows the stack to have costed resources on: the stack's own, when
 * its key and address are set, then each the program names ({@link noteStackAccounts}); none
 * while the program names none (the write's own account is then the stack's only one).
 */
export function stackAccountClients(env: NodeJS.ProcessEnv = process.env): StackAccount[] {
  if (stackAccounts.size === 0) return [];
  const own = (settings.apiUrl || env.COMPUTEPLATFORM_API_URL) && (settings.apiKey || env.COMPUTEPLATFORM_API_KEY) ? [{ client: clientOf(undefined) }] : [];
  return [...own, ...[...stackAccounts.values()].map((a) => ({ name: a.name, client: clientOf(a) }))];
}

/**
 * Refuses, before any request, when the key or the address is set neither in stack config nor
 * in the environment: what the client would refuse at its first request, said at preview. The
 * error is the client's; the registry (src/resources/kinds.ts) adds the stack config that sets it.
 */
export function requirePlatformSettings(env: NodeJS.ProcessEnv = process.env, account?: Account): void {
  if (!(account?.apiUrl || settings.apiUrl || env.COMPUTEPLATFORM_API_URL)) throw new MissingApiUrlError(MISSING_API_URL);
  if (!(account?.apiKey || settings.apiKey || env.COMPUTEPLATFORM_API_KEY)) throw new MissingApiKeyError(MISSING_API_KEY);
}

/** What every provider lets a caller inject (tests: a client, a fake clock, a signal). */
export interface ProviderOptions<C> {
  /**
   * The client to call.
   * @default the process-wide client of `platform()` (stack config, then environment)
   */
  client?: () => C;
  /**
   * Time source of every wait.
   * @default the system clock
   */
  clock?: Clock;
  /** Cancels every wait of the provider. */
  signal?: AbortSignal;
  /**
   * Where the provider's lines go: what each step does to what runs (lifecycle/step-line.ts).
   * @default Pulumi's log (the plugin's output, which the engine shows)
   */
  print?: (line: string) => void;
}

// Credentials and addresses for the providers, read at run time in the plugin (settings.ts):
// stack config first, then the environment; one client for the stack's account kept while the
// settings are the same (each kind's configure() brings them again), one per account and key
// inside a call on a resource's own account; and a refusal before any request when the key or
// the address is set nowhere, the address named first; the budgets, from stack config or else
// the environment, refused naming where they came from. (The retry base: retry-base.test.ts.)
import { MissingApiKeyError, MissingApiUrlError } from "../../../../src/client";
import {
  ACCOUNT_BUDGET_ENV,
  accountBudget,
  budget,
  BUDGET_ENV,
  CONFIG_KEYS,
  configureFromStack,
  inAccount,
  noteStackAccounts,
  platform,
  requirePlatformSettings,
  setPlatformSettings,
  stackAccountClients,
} from "../../../../src/resources/engine/settings";

const URL_A = "http://127.0.0.1:18001";
const URL_B = "http://127.0.0.1:18002";
const config = (values: Record<string, unknown>) => ({ get: (key: string) => values[key] }) as never;
const clients: { close(): Promise<void> }[] = [];
const made = <T extends { close(): Promise<void> }>(c: T) => (clients.push(c), c);

afterEach(async () => {
  configureFromStack(config({}));
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe("the stack's client", () => {
  it("comes from the stack config: key, API address and serverless address", () => {
    configureFromStack(config({ [CONFIG_KEYS.apiKey]: "cp_stack_key", [CONFIG_KEYS.apiUrl]: URL_A, [CONFIG_KEYS.serverlessUrl]: URL_B }));
    const cp = made(platform());
    expect(cp.apiUrl).toBe(URL_A);
    expect(cp.serverlessUrl).toBe(URL_B);
  });

  it("a setting that is not a non-empty string is not set (the environment then decides)", () => {
    configureFromStack(config({ [CONFIG_KEYS.apiKey]: "", [CONFIG_KEYS.apiUrl]: 42 }));
    expect(() => requirePlatformSettings({})).toThrow(MissingApiUrlError);
    expect(() => requirePlatformSettings({ COMPUTEPLATFORM_API_URL: URL_A })).toThrow(MissingApiKeyError);
  });

  it("the same settings again keep the one client; new settings make a new one", () => {
    setPlatformSettings({ apiKey: "k1", apiUrl: URL_A });
    const first = made(platform());
    expect(platform()).toBe(first);
    setPlatformSettings({ apiKey: "k1", apiUrl: URL_A });
    expect(platform()).toBe(first);
    setPlatformSettings({ apiKey: "k2", apiUrl: URL_A });
    const second = made(platform());
    expect(second).not.toBe(first);
    setPlatformSettings({ apiKey: "k2", apiUrl: URL_A, serverlessUrl: URL_B });
    const third = made(platform());
    expect(third).not.toBe(second);
    setPlatformSettings({ apiKey: "k2", apiUrl: URL_B, serverlessUrl: URL_B });
    expect(made(platform())).not.toBe(third);
  });
});

describe("a resource's own account", () => {
  const team = { name: "team", apiKey: "cp_team_key", apiUrl: URL_B };

  it("inside the call, platform() is that account's client; outside, the stack's", async () => {
    setPlatformSettings({ apiKey: "cp_stack_key", apiUrl: URL_A });
    const stack = made(platform());
    const inside = await inAccount(team, async () => {
      await Promise.resolve();
      return made(platform());
    });
    expect(inside).not.toBe(stack);
    expect(inside.apiUrl).toBe(URL_B);
    expect(platform()).toBe(stack);
    expect(inAccount(undefined, () => platform())).toBe(stack);
  });

  it("one client per account and key: the same again is shared, a rotated key or another name is another", () => {
    setPlatformSettings({ apiKey: "cp_stack_key", apiUrl: URL_A });
    const a = made(inAccount(team, () => platform()));
    expect(inAccount({ ...team }, () => platform())).toBe(a);
    expect(made(inAccount({ ...team, apiKey: "rotated" }, () => platform()))).not.toBe(a);
    expect(made(inAccount({ ...team, name: "other" }, () => platform()))).not.toBe(a);
    // Another address of the same account and key is another client too.
    expect(made(inAccount({ ...team, apiUrl: URL_A }, () => platform()))).not.toBe(a);
    const s1 = made(inAccount({ ...team, serverlessUrl: URL_A }, () => platform()));
    expect(s1).not.toBe(a);
    expect(made(inAccount({ ...team, serverlessUrl: URL_B }, () => platform()))).not.toBe(s1);
  });

  it("an account without addresses uses the stack's", () => {
    setPlatformSettings({ apiKey: "cp_stack_key", apiUrl: URL_A, serverlessUrl: URL_B });
    const cp = made(inAccount({ name: "bare", apiKey: "k" }, () => platform()));
    expect(cp.apiUrl).toBe(URL_A);
    expect(cp.serverlessUrl).toBe(URL_B);
  });

  it("the stack's accounts: none while the program names none; then the stack's own (when set) and each named once, with their clients", () => {
    setPlatformSettings({ apiKey: "cp_stack_key", apiUrl: URL_A });
    expect(stackAccountClients({})).toEqual([]);
    setPlatformSettings({});
    expect(stackAccountClients({})).toEqual([]);
    noteStackAccounts([team, { ...team, apiKey: "rotated" }]);
    // The stack's own account only with both its address and its key.
    expect(stackAccountClients({ COMPUTEPLATFORM_API_URL: URL_A }).map((a) => a.name)).toEqual(["team"]);
    expect(stackAccountClients({ COMPUTEPLATFORM_API_KEY: "k" }).map((a) => a.name)).toEqual(["team"]);
    const [only, ...rest] = stackAccountClients({});
    expect(rest).toEqual([]);
    expect(only!.name).toBe("team");
    // The latest key of the account: the client a call on it with that key gets.
    expect(only!.client).toBe(made(inAccount({ ...team, apiKey: "rotated" }, () => platform())));
    setPlatformSettings({ apiKey: "cp_stack_key", apiUrl: URL_A });
    const both = stackAccountClients({});
    expect(both.map((a) => a.name)).toEqual([undefined, "team"]);
    expect(both[0]!.client).toBe(made(platform()));
  });
});

describe("requirePlatformSettings", () => {
  it("refuses before any request: the address first, then the key, each the client's own error", () => {
    expect(() => requirePlatformSettings({})).toThrow(MissingApiUrlError);
    expect(() => requirePlatformSettings({ COMPUTEPLATFORM_API_URL: URL_A })).toThrow(MissingApiKeyError);
    expect(() => requirePlatformSettings({ COMPUTEPLATFORM_API_URL: URL_A, COMPUTEPLATFORM_API_KEY: "k" })).not.toThrow();
  });

  it("stack config, the environment or the resource's account each satisfy it", () => {
    setPlatformSettings({ apiKey: "k", apiUrl: URL_A });
    expect(() => requirePlatformSettings({})).not.toThrow();
    setPlatformSettings({});
    expect(() => requirePlatformSettings({}, { name: "a", apiKey: "k", apiUrl: URL_A })).not.toThrow();
    expect(() => requirePlatformSettings({ COMPUTEPLATFORM_API_URL: URL_A }, { name: "a", apiKey: "k" })).not.toThrow();
    expect(() => requirePlatformSettings({}, { name: "a", apiKey: "k" })).toThrow(MissingApiUrlError);
  });
});

describe("the budgets", () => {
  it("are read from the variables the README names", () => {
    expect([BUDGET_ENV, ACCOUNT_BUDGET_ENV]).toEqual(["COMPUTEPLATFORM_MAX_HOURLY_COST", "COMPUTEPLATFORM_ACCOUNT_MAX_HOURLY_COST"]);
  });

  it("none when neither stack config nor the environment sets one (a blank value sets none)", () => {
    expect(budget({})).toBeUndefined();
    expect(accountBudget({})).toBeUndefined();
    expect(budget({ [BUDGET_ENV]: "  " })).toBeUndefined();
    expect(accountBudget({ [ACCOUNT_BUDGET_ENV]: "" })).toBeUndefined();
  });

  it("from the environment, each from its own variable", () => {
    const env = { [BUDGET_ENV]: "2.5", [ACCOUNT_BUDGET_ENV]: "10" };
    expect(budget(env)).toEqual({ usd: 2.5, source: BUDGET_ENV });
    expect(accountBudget(env)).toEqual({ usd: 10, source: ACCOUNT_BUDGET_ENV });
  });

  it("stack config before the environment, a number as well as a string; an empty or null setting leaves it to the environment", () => {
    const env = { [BUDGET_ENV]: "2.5", [ACCOUNT_BUDGET_ENV]: "10" };
    configureFromStack(config({ [CONFIG_KEYS.maxHourlyCost]: 4, [CONFIG_KEYS.accountMaxHourlyCost]: "20" }));
    expect(budget(env)).toEqual({ usd: 4, source: CONFIG_KEYS.maxHourlyCost });
    expect(accountBudget(env)).toEqual({ usd: 20, source: CONFIG_KEYS.accountMaxHourlyCost });
    configureFromStack(config({ [CONFIG_KEYS.maxHourlyCost]: "", [CONFIG_KEYS.accountMaxHourlyCost]: null }));
    expect(budget(env)).toEqual({ usd: 2.5, source: BUDGET_ENV });
    expect(accountBudget(env)).toEqual({ usd: 10, source: ACCOUNT_BUDGET_ENV });
  });

  it("a value that is not a number of USD per hour above 0 is refused, naming where it came from and what it was", () => {
    for (const bad of ["abc", "0", "-1", "Infinity"]) {
      expect(() => budget({ [BUDGET_ENV]: bad })).toThrow(`${BUDGET_ENV} must be a number of USD per hour, more than 0 (got "${bad}")`);
    }
    configureFromStack(config({ [CONFIG_KEYS.accountMaxHourlyCost]: "0" }));
    expect(() => accountBudget({})).toThrow(`${CONFIG_KEYS.accountMaxHourlyCost} must be a number of USD per hour, more than 0 (got "0")`);
    expect(budget({ [BUDGET_ENV]: "0.01" })).toEqual({ usd: 0.01, source: BUDGET_ENV });
  });
});

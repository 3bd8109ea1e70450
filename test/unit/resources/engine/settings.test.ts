// Credentials and addresses for the providers, read at run time in the plugin (settings.ts):
// stack config first, then the environment; one client for the stack's account kept while the
// settings are the same (each kind's configure() brings them again), one per account and key
// inside a call on a resource's own account; and a refusal before any request when the key or
// the address is set nowhere, the address named first. (The budgets' reading is held by
// stack-cost/report.test.ts, the retry base by retry-base.test.ts.)
import { MissingApiKeyError, MissingApiUrlError } from "../../../../src/client";
import {
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
    expect(made(platform())).not.toBe(second);
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
  });

  it("an account without addresses uses the stack's", () => {
    setPlatformSettings({ apiKey: "cp_stack_key", apiUrl: URL_A, serverlessUrl: URL_B });
    const cp = made(inAccount({ name: "bare", apiKey: "k" }, () => platform()));
    expect(cp.apiUrl).toBe(URL_A);
    expect(cp.serverlessUrl).toBe(URL_B);
  });

  it("the stack's accounts: none while the program names none; then the stack's own (when set) and each named once, with their clients", () => {
    setPlatformSettings({});
    expect(stackAccountClients({})).toEqual([]);
    noteStackAccounts([team, { ...team, apiKey: "rotated" }]);
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

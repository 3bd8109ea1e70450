// The account a resource lives on (engine/account.ts): check() refuses a bad `account` one field
// at a time, naming it and the rule, and lets a value not known at preview through; the identity
// that decides replace-or-update is the name and addresses, never the key (a new key is a
// rotation); an account is named by its name, never its key.
import { ACCOUNT_KEY, accountFailures, accountIdentity, accountIn, accountLabel, STACK_ACCOUNTS_KEY, stackAccountsIn } from "../../../../src/resources/engine/account";

const UNKNOWN = Symbol("unknown");
const isUnknown = (v: unknown) => v === UNKNOWN;
const ok = { name: "team-b", apiKey: "cp_key_123", apiUrl: "https://api.example", serverlessUrl: "http://127.0.0.1:8787" };
const reasons = (v: unknown) => accountFailures(v, isUnknown);

describe("accountFailures", () => {
  it("no account, or one not known yet, is no failure; a whole valid one neither", () => {
    expect(reasons(undefined)).toEqual([]);
    expect(reasons(null)).toEqual([]);
    expect(reasons(UNKNOWN)).toEqual([]);
    expect(reasons(ok)).toEqual([]);
    expect(reasons({ name: "a", apiKey: "k" })).toEqual([]);
  });

  it("not an object: one failure naming the shape", () => {
    for (const v of ["team", 5, ["a"]]) {
      expect(reasons(v)).toEqual([{ property: ACCOUNT_KEY, reason: "account must be an object { name, apiKey, apiUrl?, serverlessUrl? }" }]);
    }
  });

  it("name: required; 1 to 64 letters, digits, '.', '_' or '-'", () => {
    const rule = { property: "account.name", reason: "account.name must be 1 to 64 letters, digits, '.', '_' or '-'" };
    expect(reasons({ ...ok, name: undefined })).toEqual([{ property: "account.name", reason: "account.name is required: what the stack calls the account" }]);
    for (const bad of ["", "a b", "a/b", "x".repeat(65), 7]) expect(reasons({ ...ok, name: bad })).toEqual([rule]);
    for (const good of ["a", "A.b_c-9", "x".repeat(64)]) expect(reasons({ ...ok, name: good })).toEqual([]);
    expect(reasons({ ...ok, name: UNKNOWN })).toEqual([]);
  });

  it("apiKey: required, a non-empty string (unknown at preview is fine)", () => {
    const rule = [{ property: "account.apiKey", reason: "account.apiKey is required, a non-empty string" }];
    expect(reasons({ ...ok, apiKey: undefined })).toEqual(rule);
    expect(reasons({ ...ok, apiKey: "  " })).toEqual(rule);
    expect(reasons({ ...ok, apiKey: 12 })).toEqual(rule);
    expect(reasons({ ...ok, apiKey: UNKNOWN })).toEqual([]);
  });

  it("apiUrl and serverlessUrl: http(s) URLs when given", () => {
    expect(reasons({ ...ok, apiUrl: "ftp://x", serverlessUrl: "127.0.0.1:8787" })).toEqual([
      { property: "account.apiUrl", reason: "account.apiUrl must be an http(s) URL" },
      { property: "account.serverlessUrl", reason: "account.serverlessUrl must be an http(s) URL" },
    ]);
    expect(reasons({ ...ok, apiUrl: "http:// spaced" })).toHaveLength(1);
    expect(reasons({ ...ok, apiUrl: UNKNOWN, serverlessUrl: undefined })).toEqual([]);
  });

  it("a field that is not an account's is named, with the ones that are", () => {
    expect(reasons({ ...ok, key: "x" })).toEqual([{ property: "account.key", reason: "account.key is not an account field; they are name, apiKey, apiUrl, serverlessUrl" }]);
  });

  it("every broken field at once, and no failure text holds the key", () => {
    const failures = reasons({ name: "", apiKey: "secret-key-xyz", apiUrl: "nope", extra: 1 });
    expect(failures.map((f) => f.property)).toEqual(["account.name", "account.apiUrl", "account.extra"]);
    expect(JSON.stringify(failures)).not.toContain("secret-key-xyz");
  });
});

describe("accountIn", () => {
  it("the account of inputs or state, with only the addresses given", () => {
    expect(accountIn({ [ACCOUNT_KEY]: ok })).toEqual(ok);
    expect(accountIn({ [ACCOUNT_KEY]: { name: "a", apiKey: "k", apiUrl: 5 } })).toEqual({ name: "a", apiKey: "k" });
  });

  it("none: no props, no account, not an object, or without a name or key", () => {
    expect(accountIn(undefined)).toBeUndefined();
    expect(accountIn({})).toBeUndefined();
    expect(accountIn({ [ACCOUNT_KEY]: null })).toBeUndefined();
    expect(accountIn({ [ACCOUNT_KEY]: "a" })).toBeUndefined();
    expect(accountIn({ [ACCOUNT_KEY]: { name: "a" } })).toBeUndefined();
    expect(accountIn({ [ACCOUNT_KEY]: { apiKey: "k" } })).toBeUndefined();
  });
});

describe("accountIdentity and accountLabel", () => {
  it("a new key under the same name and addresses is the same account; a new name or address is another", () => {
    const id = accountIdentity(ok);
    expect(accountIdentity({ ...ok, apiKey: "rotated" })).toBe(id);
    expect(accountIdentity({ ...ok, name: "other" })).not.toBe(id);
    expect(accountIdentity({ ...ok, apiUrl: "https://other" })).not.toBe(id);
    expect(accountIdentity({ ...ok, serverlessUrl: undefined })).not.toBe(id);
    expect(id).not.toContain(ok.apiKey);
    expect(accountIdentity(undefined)).toBe("default");
    // A missing address is not the string "null".
    expect(accountIdentity({ name: "a", apiKey: "k" })).not.toBe(accountIdentity({ name: "a", apiKey: "k", apiUrl: "null" }));
  });

  it("names an account by its name, never its key", () => {
    expect(accountLabel(ok)).toBe('account "team-b"');
    expect(accountLabel(undefined)).toBe("the stack's account");
  });
});

describe("stackAccountsIn", () => {
  it("the accounts listed under the hidden input, those that are accounts; none when absent or not a list", () => {
    const team = { name: "team", apiKey: "k1", apiUrl: "http://127.0.0.1:1" };
    expect(STACK_ACCOUNTS_KEY).toBe("__stackAccounts");
    expect(stackAccountsIn({ [STACK_ACCOUNTS_KEY]: [team, { name: "other", apiKey: "k2", serverlessUrl: "http://127.0.0.1:2" }, null, "x", { name: "nokey" }] })).toEqual([
      team,
      { name: "other", apiKey: "k2", serverlessUrl: "http://127.0.0.1:2" },
    ]);
    expect(stackAccountsIn({ [STACK_ACCOUNTS_KEY]: "x" })).toEqual([]);
    expect(stackAccountsIn({})).toEqual([]);
    expect(stackAccountsIn(undefined)).toEqual([]);
  });
});

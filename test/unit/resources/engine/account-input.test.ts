// The `account` argument on the program's side (engine/account-input.ts): the key made secret on
// the way in and nothing else with it, and the account's name taken for the cost ledger without
// the key, so the ledger's entry is secret only when the account itself is.
import * as pulumi from "@pulumi/pulumi";
import { accountInput, accountName } from "../../../../src/resources/engine/account-input";

/** The value of an input, once known (pulumi.output lifts the outputs nested in it). */
const valueOf = <T>(o: pulumi.Input<T>) => new Promise<T>((resolve) => pulumi.output(o).apply((v) => (resolve(v as T), v)));
/** The value an output's apply sees, nested outputs as they are. */
const shallowValueOf = (o: unknown) => new Promise<Record<string, unknown>>((resolve) => (o as pulumi.Output<Record<string, unknown>>).apply((v) => (resolve(v), v)));
const isSecret = (o: unknown) => (o as { isSecret: Promise<boolean> }).isSecret;

const account = { name: "team-b", apiKey: "cp_key_team_b_5e1f", apiUrl: "http://127.0.0.1:9" };

describe("accountInput", () => {
  test("no account is none (the stack's default account)", () => {
    expect(accountInput(undefined)).toBeUndefined();
  });

  test("the key is wrapped as a secret; the name and address stay as given, in the clear", async () => {
    const input = accountInput(account)!;
    expect(pulumi.Output.isInstance(input)).toBe(true);
    expect(await isSecret(input)).toBe(false);
    const value = await shallowValueOf(input);
    expect(value).toMatchObject({ name: "team-b", apiUrl: "http://127.0.0.1:9" });
    expect(pulumi.Output.isInstance(value.apiKey)).toBe(true);
    expect(await isSecret(value.apiKey)).toBe(true);
    expect(await valueOf(value.apiKey as pulumi.Output<string>)).toBe(account.apiKey);
    // Lifted whole, as the engine serializes it, the account is secret because of its key.
    expect(await isSecret(pulumi.output(input))).toBe(true);
    expect(await valueOf(input)).toEqual(account);
  });

  test("an account given as an output (say, from another stack) is wrapped the same way", async () => {
    const value = await shallowValueOf(accountInput(pulumi.output(account)));
    expect(value.name).toBe("team-b");
    expect(await isSecret(value.apiKey)).toBe(true);
  });
});

describe("accountName", () => {
  test("no account has no name; a plain account's name is the plain value", () => {
    expect(accountName(undefined)).toBeUndefined();
    expect(accountName(account)).toBe("team-b");
  });

  test("an account that is an output or a promise cannot be split: its name comes through it", async () => {
    const fromOutput = accountName(pulumi.output(account))!;
    expect(pulumi.Output.isInstance(fromOutput)).toBe(true);
    expect(await valueOf(fromOutput)).toBe("team-b");
    expect(await valueOf(accountName(Promise.resolve(account) as never)!)).toBe("team-b");
  });

  test("the name is secret only when the whole account was, never because of the key", async () => {
    expect(await isSecret(accountName(pulumi.output(account)))).toBe(false);
    expect(await isSecret(accountName(pulumi.secret(account)))).toBe(true);
  });
});

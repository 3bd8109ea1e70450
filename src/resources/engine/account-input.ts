import * as pulumi from "@pulumi/pulumi";
import type { AccountInput } from "./account";

/**
 * The `account` argument as a class registers it: the key wrapped as a secret on the way in.
 * Apart from account.ts, which the providers load inside Pulumi's plugin: this is the program's
 * side, and the plugin has no need of the SDK's values.
 */
export function accountInput(account: pulumi.Input<AccountInput> | undefined): pulumi.Input<AccountInput> | undefined {
  if (account === undefined) return undefined;
  return pulumi.output(account).apply((a) => ({ ...a, apiKey: pulumi.secret(a.apiKey) })) as unknown as pulumi.Input<AccountInput>;
}

/**
 * The account's name, for the stack's cost ledger: taken without the key, so the entry is not
 * made secret by it (an account that is itself an Output cannot be split, and its name then is).
 */
export function accountName(account: pulumi.Input<AccountInput> | undefined): pulumi.Input<string> | undefined {
  if (account === undefined) return undefined;
  if (pulumi.Output.isInstance(account) || account instanceof Promise) return pulumi.output(account).apply((a) => a.name);
  return account.name;
}

import type * as pulumi from "@pulumi/pulumi";

/**
 * The account a resource lives on, as a value of the program, beside the stack-wide default
 * (stack config `computeplatform:apiKey` and `apiUrl`), as pulumi-command's `connection` names
 * the host of each command. Every kind takes it as `account`.
 *
 * @group Providers and checks
 */
export interface AccountInput {
  /**
   * What the stack calls this account: the account's identity in state. A new `name` (or
   * address) is another account, so the resource is replaced; a new `apiKey` under the same
   * name is the same account with a rotated key, recorded without a request.
   */
  name: pulumi.Input<string>;
  /** The account's API key. Made secret here: state holds it encrypted, never in plain text. */
  apiKey: pulumi.Input<string>;
  /**
   * The account's REST and GraphQL address.
   * @default the stack's `computeplatform:apiUrl` (else `COMPUTEPLATFORM_API_URL`)
   */
  apiUrl?: pulumi.Input<string>;
  /**
   * Where the account's serverless jobs go.
   * @default the stack's `computeplatform:serverlessUrl` (else `COMPUTEPLATFORM_SERVERLESS_URL`)
   */
  serverlessUrl?: pulumi.Input<string>;
}

/** An account as the providers receive it, known and checked. */
export interface Account {
  name: string;
  apiKey: string;
  apiUrl?: string;
  serverlessUrl?: string;
}

/** The argument every kind takes, and the input and output it is kept under. */
export const ACCOUNT_KEY = "account";

/** What an account name may be (it names the account in logs, errors and the cost line). */
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Why the `account` a check received is refused, one failure per field, naming it; none for
 * no account or one not known yet (a preview of a key from another resource's output).
 */
export function accountFailures(value: unknown, isUnknown: (v: unknown) => boolean): pulumi.dynamic.CheckFailure[] {
  if (value === undefined || value === null || isUnknown(value)) return [];
  if (typeof value !== "object" || Array.isArray(value)) return [{ property: ACCOUNT_KEY, reason: "account must be an object { name, apiKey, apiUrl?, serverlessUrl? }" }];
  const a = value as Record<string, unknown>;
  const failures: pulumi.dynamic.CheckFailure[] = [];
  const known = (v: unknown) => v !== undefined && !isUnknown(v);
  if (known(a.name) && !(typeof a.name === "string" && NAME.test(a.name))) {
    failures.push({ property: "account.name", reason: "account.name must be 1 to 64 letters, digits, '.', '_' or '-'" });
  } else if (a.name === undefined) failures.push({ property: "account.name", reason: "account.name is required: what the stack calls the account" });
  if (a.apiKey === undefined || (known(a.apiKey) && !(typeof a.apiKey === "string" && a.apiKey.trim() !== ""))) {
    failures.push({ property: "account.apiKey", reason: "account.apiKey is required, a non-empty string" });
  }
  for (const field of ["apiUrl", "serverlessUrl"] as const) {
    const v = a[field];
    if (known(v) && !(typeof v === "string" && /^https?:\/\/[^\s/]+/.test(v))) failures.push({ property: `account.${field}`, reason: `account.${field} must be an http(s) URL` });
  }
  for (const field of Object.keys(a)) {
    if (!["name", "apiKey", "apiUrl", "serverlessUrl"].includes(field)) failures.push({ property: `account.${field}`, reason: `account.${field} is not an account field; they are name, apiKey, apiUrl, serverlessUrl` });
  }
  return failures;
}

/** The account in a resource's inputs or state, or none (the stack's default account). */
export function accountIn(props: Record<string, unknown> | undefined): Account | undefined {
  const a = props?.[ACCOUNT_KEY];
  if (a === undefined || a === null || typeof a !== "object") return undefined;
  const { name, apiKey, apiUrl, serverlessUrl } = a as Record<string, unknown>;
  if (typeof name !== "string" || typeof apiKey !== "string") return undefined;
  return { name, apiKey, ...(typeof apiUrl === "string" ? { apiUrl } : {}), ...(typeof serverlessUrl === "string" ? { serverlessUrl } : {}) };
}

/** The account's identity: its name and addresses. The key is not part of it: a new key is a rotation. */
export function accountIdentity(a: Account | undefined): string {
  return a ? JSON.stringify([a.name, a.apiUrl ?? null, a.serverlessUrl ?? null]) : "default";
}

/** How an error or a log line names the account: its name, never its key. */
export function accountLabel(a: Pick<Account, "name"> | undefined): string {
  return a ? `account "${a.name}"` : "the stack's account";
}

/**
 * The hidden input of each Pod and ServerlessEndpoint, under a stack budget, that lists every
 * account the program names for one (cost/ledger.ts): how the budget at a write on one account
 * finds the stack's pods on the others when the command touches no resource of theirs
 * (`pulumi up --target`). Secret as a whole: it holds the keys.
 */
export const STACK_ACCOUNTS_KEY = "__stackAccounts";

/** The accounts listed under {@link STACK_ACCOUNTS_KEY} in a resource's inputs; none when absent or not known yet. */
export function stackAccountsIn(props: Record<string, unknown> | undefined): Account[] {
  const list = props?.[STACK_ACCOUNTS_KEY];
  if (!Array.isArray(list)) return [];
  return list.map((a) => accountIn({ [ACCOUNT_KEY]: a })).filter((a): a is Account => a !== undefined);
}

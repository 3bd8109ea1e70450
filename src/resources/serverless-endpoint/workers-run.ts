/**
 * What an endpoint's workers run, as its program declared it (known at preview, unlike the
 * endpoint's outputs while it changes): the Template's fingerprint when `templateId` is a
 * Template's id, else the REST `container`, else the template id itself. Kept beside each
 * `ServerlessEndpoint` object for the smoke test, which runs again when it changes; and the
 * account the program put the endpoint on, where the smoke test sends its job.
 */
import * as pulumi from "@pulumi/pulumi";
import type { AccountInput } from "../engine/account";
import { templateBehind } from "../inputs/template-ref";
import { recordKey } from "../lifecycle/applied";

const declared = new WeakMap<object, pulumi.Output<string>>();
const accounts = new WeakMap<object, pulumi.Input<AccountInput> | undefined>();

/**
 * Records, for `endpoint`, a digest of what its workers run (a container's env holds credentials:
 * only the digest), and its `account` as the program gave it.
 */
export function noteWorkersRun(
  endpoint: object,
  args: { templateId?: pulumi.Input<string>; container?: pulumi.Input<unknown>; account?: pulumi.Input<AccountInput> },
): void {
  const subject = templateBehind(args.templateId)?.rolls ?? args.container ?? args.templateId ?? null;
  declared.set(endpoint, pulumi.output(subject).apply((v) => recordKey(v ?? null)));
  accounts.set(endpoint, args.account);
}

/** The account `endpoint` was given in the program; undefined for the stack's account (or not a ServerlessEndpoint). */
export function accountOfEndpoint(endpoint: object): pulumi.Input<AccountInput> | undefined {
  return accounts.get(endpoint);
}

/** The digest noted for `endpoint`; undefined for an object that is not a ServerlessEndpoint of this program. */
export function workersRun(endpoint: object): pulumi.Output<string> | undefined {
  return declared.get(endpoint);
}

/*
 * RegistryCredential: the Pulumi class and its arguments. The lifecycle and its API calls are
 * in provider.ts; the check in schema.ts; the verdict and the wire mapping in plan.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { checkGetState, undeclaredArgs } from "../inputs/arguments";
import type { AccountInput } from "../engine/account";
import { accountInput } from "../engine/account-input";
import { shimProvider } from "../engine/shim";
import { LOGICAL_NAME_KEY } from "../lifecycle/owner";
import { withSecretOutputs } from "../engine/secret-outputs";
import { REGISTRY_CREDENTIAL_ARGS, SECRET_PROPERTIES } from "./schema";

export { planRegistryCredentialChange, type RegistryCredentialPlan, registryUsers } from "./plan";
export { RegistryCredentialProvider, type RegistryCredentialProviderOptions } from "./provider";
export {
  checkRegistryCredential,
  registryCredentialArgsSchema,
  type RegistryCredentialInputs,
  type RegistryCredentialOutputs,
} from "./schema";

/**
 * Arguments of a {@link RegistryCredential}.
 *
 * @group Resource arguments
 */
export interface RegistryCredentialArgs {
  /**
   * The account this resource lives on, `{ name, apiKey, apiUrl?, serverlessUrl? }` (the key is
   * made secret), as pulumi-command's `connection` names a command's host. A new `name` or
   * address replaces the resource: it is made on the new account, then deleted from the old with
   * the old key. A new `apiKey` under the same `name` (a rotated key) is recorded in place.
   * @default the stack's account: stack config `computeplatform:apiKey` and `apiUrl`, else the environment
   */
  account?: pulumi.Input<AccountInput>;
  /**
   * The credential's name on the platform. The platform cannot rename a credential: a change
   * replaces it (a new credential first, the pods that use it follow, then the old one goes).
   * @default the resource's logical name plus a random 7-character suffix (e.g. `ghcr-1a2b3c4`)
   */
  name?: pulumi.Input<string>;
  /**
   * The user name the container registry knows. Stored as a Pulumi secret whether or not it
   * is given as one. A change replaces the credential.
   */
  username: pulumi.Input<string>;
  /**
   * The registry password or access token, e.g. from `config.requireSecret("registryToken")`.
   * Stored as a Pulumi secret whether or not it is given as one. The platform never returns
   * it, so only a change in the program is seen; a change replaces the credential.
   */
  password: pulumi.Input<string>;
  /**
   * How long delete waits, in seconds (0..3600), for pods and templates that still use the
   * credential to go, before it fails naming them. Pulumi updates or deletes this stack's pods
   * first; the wait covers pods made outside the stack and ones still shutting down. Changes
   * in place with no request.
   * @default 120
   */
  deleteWaitSeconds?: pulumi.Input<number>;
  /**
   * ID of an existing credential to take under management instead of creating one (the way
   * in, since `pulumi import` does not work for dynamic resources: pulumi/pulumi#16175). Its
   * `name` must be declared as it is (the platform has no update), which the preview checks.
   * The platform never returns a credential's user name and password, so adopting cannot
   * check them: the first `up` sends nothing and records the program's `username` and
   * `password` as the credential's, unverified. If they are not what the credential holds,
   * pulls keep using the old ones until a change of either (with `adopt` removed) or
   * `pulumi up --replace` makes a new credential with the program's. From then on the stack
   * owns it: `pulumi destroy` deletes it. Read at creation only: a later change or removal
   * shows no diff and sends nothing (it neither replaces nor updates the credential).
   * @default undefined (create a new credential)
   */
  adopt?: pulumi.Input<string>;
}

/**
 * Credentials for a private container registry. Give a pod `registry: credential.id` to pull
 * its image with them; the pod then depends on the credential. The platform keeps the user
 * name and password write-only: they are never read back, and in the stack they are secrets.
 *
 * @group Resources
 */
export class RegistryCredential extends pulumi.dynamic.Resource {
  /** The credential's name on the platform. */
  declare public readonly name: pulumi.Output<string>;
  /** The registry user name (secret). */
  declare public readonly username: pulumi.Output<string>;
  /** The registry password or token (secret). */
  declare public readonly password: pulumi.Output<string>;
  /**
   * Seconds delete waits for pods and templates that use the credential.
   * @default 120
   */
  declare public readonly deleteWaitSeconds: pulumi.Output<number>;

  /**
   * Read an existing credential by its ID without managing it: the stack records its id and
   * name (the platform never returns the secrets), and destroying the stack leaves it alone.
   * @param state.account the account it is read from (see {@link RegistryCredentialArgs.account}); the stack's when left out
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, state?: { account?: pulumi.Input<AccountInput> }, opts?: pulumi.CustomResourceOptions): RegistryCredential {
    checkGetState("RegistryCredential", state, ["account"]);
    return new RegistryCredential(name, state?.account === undefined ? undefined : ({ account: state.account } as RegistryCredentialArgs), { ...opts, id });
  }

  constructor(name: string, args: RegistryCredentialArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const a: Partial<RegistryCredentialArgs> = args ?? {};
    // Secret on the way in, so the engine stores the inputs, and every output of the same
    // name, encrypted; additionalSecretOutputs covers the outputs on their own.
    const secret = (v: pulumi.Input<string> | undefined) => (v === undefined ? undefined : pulumi.secret(v));
    super(
      shimProvider("registry-credential"),
      name,
      {
        // An argument it does not have goes on, so check() refuses it by name (not dropped);
        // as a secret, since a misspelled `password` holds one.
        ...undeclaredArgs(a, REGISTRY_CREDENTIAL_ARGS, (v) => pulumi.secret(v as pulumi.Input<unknown>)),
        name: a.name,
        username: secret(a.username),
        password: secret(a.password),
        deleteWaitSeconds: a.deleteWaitSeconds,
        adopt: a.adopt,
        account: accountInput(a.account),
        [LOGICAL_NAME_KEY]: name,
      },
      withSecretOutputs(opts, [...SECRET_PROPERTIES, "account"]),
      "computeplatform",
      "RegistryCredential",
    );
  }
}

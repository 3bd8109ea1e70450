// RegistryCredential's check: the rules of its arguments. No message ever quotes a value: the
// username and the password are secrets, and a check failure is shown to the user and logged.
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { checkNamedArgs } from "../inputs/check";
import { adoptId } from "../inputs/container";
import { deleteWaitSecondsSchema } from "../lifecycle/in-use";
import { LOGICAL_NAME_KEY } from "../lifecycle/owner";

/**
 * The checked inputs: what `check()` returns and `create`/`diff` receive.
 *
 * @group Providers and checks
 */
export interface RegistryCredentialInputs {
  name: string;
  username: string;
  password: string;
  deleteWaitSeconds?: number;
  adopt?: string;
  [LOGICAL_NAME_KEY]?: string;
}

/**
 * What a RegistryCredential holds in state. `username` and `password` are stored as secrets.
 *
 * @group Resource outputs
 */
export interface RegistryCredentialOutputs {
  /** The platform's credential ID; a pod names it in `registry`. */
  id: string;
  /** The credential's name on the platform. */
  name: string;
  /** The registry user name, kept from the inputs: the platform never returns it. Secret. */
  username: string;
  /** The registry password or token, kept from the inputs: the platform never returns it. Secret. */
  password: string;
  /**
   * Seconds delete waits for pods and templates that use the credential.
   * @default 120
   */
  deleteWaitSeconds: number;
}

/** The properties that are secrets, in inputs and outputs alike. */
export const SECRET_PROPERTIES = ["username", "password"] as const;

const required = (field: string, what: string) => (iss: { input: unknown }) =>
  iss.input === undefined ? `${field} is required: ${what}` : `${field} must be a string: ${what}`;

/**
 * The rules of {@link RegistryCredentialArgs} once every input is known and `name` is settled.
 *
 * @group Providers and checks
 */
export const registryCredentialArgsSchema = z
  .object({
    name: z.string({ error: "name must be a string" }).min(1, "name must be at least 1 character"),
    username: z
      .string({ error: required("username", "the user name the registry knows") })
      .min(1, "username must not be empty"),
    password: z
      .string({ error: required("password", "the registry password or access token") })
      .min(1, "password must not be empty"),
    deleteWaitSeconds: deleteWaitSecondsSchema,
    adopt: adoptId("registry credential"),
  })
  .strict();

/** The arguments a RegistryCredential has: any other is refused at check (inputs/arguments.ts). */
export const REGISTRY_CREDENTIAL_ARGS: readonly string[] = Object.keys(registryCredentialArgsSchema.shape);

/** `check()` as a pure function of (old inputs, new inputs). */
export function checkRegistryCredential(
  olds: Record<string, unknown> | undefined,
  news: Record<string, unknown>,
): pulumi.dynamic.CheckResult<RegistryCredentialInputs> {
  return checkNamedArgs<RegistryCredentialInputs>("RegistryCredential", registryCredentialArgsSchema, olds, news, "registry", ["deleteWaitSeconds", "adopt"]);
}

import type * as pulumi from "@pulumi/pulumi";

/**
 * A resource's options with `names` added to `additionalSecretOutputs`. Pulumi's dynamic
 * provider accepts no secrets, so an output is stored secret only when the input of its name was
 * secret or the resource lists it here. A value the platform returns (an `env` read by `.get`,
 * `adopt` or refresh, which the program never gave) has no secret input: only this list keeps it
 * out of plain state.
 */
export function withSecretOutputs(opts: pulumi.CustomResourceOptions | undefined, names: readonly string[]): pulumi.CustomResourceOptions {
  return { ...opts, additionalSecretOutputs: [...new Set([...(opts?.additionalSecretOutputs ?? []), ...names])] };
}

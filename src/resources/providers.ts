import type * as pulumi from "@pulumi/pulumi";
import type { ProviderKind } from "./shim";

/**
 * The real providers, by kind; the serialized shim looks them up here inside the plugin.
 * Each resource file registers its provider with `registerProvider`.
 */
export const dynamicProviders: Partial<Record<ProviderKind, pulumi.dynamic.ResourceProvider>> = {};

export function registerProvider(kind: ProviderKind, provider: pulumi.dynamic.ResourceProvider): void {
  dynamicProviders[kind] = provider;
}

import type * as pulumi from "@pulumi/pulumi";

/** The resource kinds this package serves through Pulumi's dynamic provider. */
export type ProviderKind = "pod" | "serverless-endpoint" | "network-volume";

/**
 * The provider object a dynamic resource hands to Pulumi. Pulumi serializes it into state as
 * `__provider`, so it must capture nothing but `kind`: each method loads this package by name
 * inside the plugin process and delegates to the real provider. State then holds no client,
 * no secret, no absolute path, and a newer package version takes effect without a diff.
 */
export function shimProvider(kind: ProviderKind): pulumi.dynamic.ResourceProvider {
  // `require` by package name, resolved in the plugin process (from the program's directory).
  const target = (): pulumi.dynamic.ResourceProvider =>
    require("pulumi-computeplatform").dynamicProviders[kind];
  return {
    configure: async (req) => target().configure?.(req),
    check: (olds, news) => target().check!(olds, news),
    diff: (id, olds, news) => target().diff!(id, olds, news),
    create: (inputs) => target().create(inputs),
    read: (id, props) => target().read!(id, props),
    update: (id, olds, news) => target().update!(id, olds, news),
    delete: (id, props) => target().delete!(id, props),
  };
}

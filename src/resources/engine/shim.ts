import type * as pulumi from "@pulumi/pulumi";

/**
 * The resource kinds this package serves through Pulumi's dynamic provider. Stored in users' state: never renamed.
 *
 * @group Providers and checks
 */
export type ProviderKind = "pod" | "serverless-endpoint" | "network-volume" | "template" | "registry-credential" | "stack-cost";

/**
 * The provider object a dynamic resource hands to Pulumi. Pulumi serializes it into state as
 * `__provider`, so it must capture nothing but `kind`: each method loads this package's
 * registry of kinds by name inside the plugin process and delegates to the real provider.
 * State then holds no client, no secret, no absolute path, and a newer package version takes
 * effect without a diff.
 *
 * It loads `pulumi-computeplatform/providers` (src/resources/kinds.ts), not the package root: the
 * plugin needs the providers, not the resource classes. State written before that entry
 * existed loads the root, which still exports `dynamicProviders`.
 *
 * @group Providers and checks
 */
export function shimProvider(kind: ProviderKind): pulumi.dynamic.ResourceProvider {
  // One object per kind: Pulumi caches a provider's serialized text by the object's identity,
  // so every resource of a kind after the first reuses it instead of serializing the closure
  // again (about 30 ms a resource: a program of 300 pods spent 9 s doing it). The text is the same.
  const made = shims.get(kind);
  if (made) return made;
  const shim = newShim(kind);
  shims.set(kind, shim);
  return shim;
}

const shims = new Map<ProviderKind, pulumi.dynamic.ResourceProvider>();

function newShim(kind: ProviderKind): pulumi.dynamic.ResourceProvider {
  // `require` by package name: Pulumi's plugin loads this text with require-from-string, so the
  // name resolves from the plugin's cwd, the project directory, as it would from the program.
  // Everything else (stack config, defaults, partial failures) lives in the package, not here:
  // what is frozen into state stays this small.
  const target = (): pulumi.dynamic.ResourceProvider => {
    let pkg: { dynamicProviders?: Record<string, pulumi.dynamic.ResourceProvider> };
    try {
      pkg = require("pulumi-computeplatform/providers");
    } catch (e) {
      throw new Error(
        `cannot load pulumi-computeplatform from ${process.cwd()}; add it to the project's dependencies: ${(e as Error).message}`,
      );
    }
    const provider = pkg.dynamicProviders?.[kind];
    if (!provider) throw new Error(`the installed pulumi-computeplatform serves no "${kind}" resource`);
    return provider;
  };
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

import type * as pulumi from "@pulumi/pulumi";

/**
 * The resource kinds this package serves through Pulumi's dynamic provider. Stored in users' state: never renamed.
 *
 * @group Providers and checks
 */
export type ProviderKind = "pod" | "serverless-endpoint" | "network-volume" | "template" | "registry-credential" | "stack-cost" | "smoke-test";

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

/** The methods the plugin calls after configure: the package's provider's own. */
const METHODS = ["check", "diff", "create", "read", "update", "delete"] as const;

function newShim(kind: ProviderKind): pulumi.dynamic.ResourceProvider {
  // `require` by package name: Pulumi's plugin loads this text with require-from-string, so the
  // name resolves from the plugin's cwd, the project directory, as it would from the program.
  // Everything else (stack config, defaults, partial failures, the error for a kind the package
  // does not serve) lives in the package, not here: what is frozen into state stays this small.
  //
  // One method, not seven: the text travels with every resource in every Check and Diff (twice
  // and three times), and each serialized function costs about 200 bytes of Pulumi's wrapping; at
  // 2.6 KB it made a preview's Check and Diff 1.45 times a no-op provider's (issue 37). Pulumi's
  // plugin makes the provider object from this text once per process and calls `configure` on it
  // before any other method (cmd/dynamic-provider `getProvider`; the object is cached as soon as
  // it is made, so the methods are put on it before configure's first await). A `function`, not
  // an arrow: `this` is the object the plugin holds.
  const shim = {
    configure: async function (this: Record<string, unknown>, req: pulumi.dynamic.ConfigureRequest) {
      let providers: { dynamicProvider(kind: ProviderKind): pulumi.dynamic.ResourceProvider };
      try {
        providers = require("pulumi-computeplatform/providers");
      } catch (e) {
        throw new Error(`add pulumi-computeplatform to the dependencies of the project in ${process.cwd()}: ${(e as Error).message}`);
      }
      const provider = providers.dynamicProvider(kind) as unknown as Record<string, (...args: unknown[]) => unknown>;
      for (const m of METHODS) if (provider[m]) this[m] = provider[m].bind(provider);
      return provider.configure?.(req);
    },
  };
  return shim as unknown as pulumi.dynamic.ResourceProvider;
}

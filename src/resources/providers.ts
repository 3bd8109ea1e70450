import type * as pulumi from "@pulumi/pulumi";
import { configureFromStack } from "./runtime";
import type { ProviderKind } from "./shim";

/** Pulumi's name for the serialized provider among a dynamic resource's inputs and outputs. */
const PROVIDER_KEY = "__provider";

/**
 * The module that registers each kind. The plugin loads only the package root, and a root that
 * forgot to import a resource file must not leave its shim with nothing to call, so a kind's
 * module is loaded on first use.
 */
const MODULES: Record<ProviderKind, string> = {
  pod: "./pod",
  "serverless-endpoint": "./serverless-endpoint",
  "network-volume": "./network-volume",
};

const registry: Partial<Record<ProviderKind, pulumi.dynamic.ResourceProvider>> = {};

/**
 * Register the real provider of a kind (each resource file does, at load). What is stored is a
 * wrapper that does, once for every kind, what the engine needs from all of them:
 * - `configure()` first hands the stack config to {@link configureFromStack}, so stack config
 *   `computeplatform:apiKey` / `apiUrl` / `serverlessUrl` reach the shared client whether or not
 *   the provider defines `configure`;
 * - a create or update that fails after the resource exists (an error with `id`, which Pulumi
 *   stores with `properties` as the outputs) gets `__provider` put into those properties: the
 *   plugin loads the provider from the stored outputs on delete and read, and without it the
 *   half-made resource could not be deleted.
 * - `undefined` is left out of what goes back to the engine (inputs, outputs, partial
 *   properties): the plugin's `Struct.fromJavaScript` rejects it with "Unexpected struct type",
 *   which an in-process test of a provider never shows.
 * Methods a provider leaves out behave as Pulumi's plugin treats them.
 */
export function registerProvider(kind: ProviderKind, provider: pulumi.dynamic.ResourceProvider): void {
  registry[kind] = {
    configure: async (req) => {
      configureFromStack(req.config);
      await provider.configure?.(req);
    },
    check: async (olds, news) => {
      const r = provider.check ? await provider.check(olds, news) : { inputs: news };
      return { ...r, inputs: defined(r.inputs) };
    },
    diff: async (id, olds, news) => (provider.diff ? provider.diff(id, olds, news) : {}),
    create: async (inputs) => {
      const r = await keepProviderOnPartialFailure(() => provider.create(inputs), inputs);
      return { ...r, outs: defined(r.outs) };
    },
    read: async (id, props) => {
      const r = provider.read ? await provider.read(id, props) : { id, props };
      return { ...r, props: defined(r.props), inputs: defined(r.inputs) };
    },
    update: async (id, olds, news) => {
      const r: pulumi.dynamic.UpdateResult = await keepProviderOnPartialFailure(
        async () => (provider.update ? provider.update(id, olds, news) : {}),
        news,
      );
      return { ...r, outs: defined(r?.outs) };
    },
    delete: async (id, props) => provider.delete?.(id, props),
  };
}

async function keepProviderOnPartialFailure<T>(op: () => Promise<T>, inputs: Record<string, unknown>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    const partial = e as { id?: unknown; properties?: Record<string, unknown> };
    if (partial?.id) {
      const provider = partial.properties?.[PROVIDER_KEY] ?? inputs?.[PROVIDER_KEY];
      partial.properties = defined({ ...partial.properties, [PROVIDER_KEY]: provider });
    }
    throw e;
  }
}

/** The value as JSON would carry it: keys with `undefined` left out, `undefined` in arrays null. */
export function defined<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : defined(v))) as T;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = defined(v);
    return out as T;
  }
  return value;
}

/** The registered provider of a kind, loading the module that registers it if need be. */
export function dynamicProvider(kind: ProviderKind): pulumi.dynamic.ResourceProvider {
  if (!registry[kind] && Object.hasOwn(MODULES, kind)) {
    try {
      require(MODULES[kind]);
    } catch (e) {
      throw new Error(`pulumi-computeplatform could not load the provider of "${kind}": ${(e as Error).message}`);
    }
  }
  const provider = registry[kind];
  if (!provider) {
    throw new Error(
      `pulumi-computeplatform has no provider for "${kind}" (known: ${Object.keys(MODULES).join(", ")}); ` +
        "the installed package is older or newer than the one that wrote this state",
    );
  }
  return provider;
}

/**
 * The providers by kind, as the serialized shim reads them inside the plugin
 * (`require("pulumi-computeplatform").dynamicProviders[kind]`). Each entry is a getter over
 * {@link dynamicProvider}, so a lookup loads the kind's module on first use.
 */
export const dynamicProviders = {} as Readonly<Record<ProviderKind, pulumi.dynamic.ResourceProvider>>;
for (const kind of Object.keys(MODULES) as ProviderKind[]) {
  Object.defineProperty(dynamicProviders, kind, { enumerable: true, get: () => dynamicProvider(kind) });
}

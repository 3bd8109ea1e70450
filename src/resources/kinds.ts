import type * as pulumi from "@pulumi/pulumi";
import { MissingApiKeyError, MissingApiUrlError, requireSupportedNode, UnsupportedRuntimeError } from "../client";
import { canonical } from "./lifecycle/applied";
import { defined, isUnknown } from "./inputs/check";
import { type Account, ACCOUNT_KEY, accountFailures, accountIdentity, accountIn, STACK_ACCOUNTS_KEY, stackAccountsIn } from "./engine/account";
import { CONFIG_KEYS, configureFromStack, inAccount, noteStackAccounts, requirePlatformSettings } from "./engine/settings";
import type { ProviderKind } from "./engine/shim";

/** Pulumi's name for the serialized provider among a dynamic resource's inputs and outputs. */
const PROVIDER_KEY = "__provider";

type Provider = pulumi.dynamic.ResourceProvider;

/**
 * The registry of kinds, on top of them: each kind name the shim in state carries, and how to
 * make its real provider. It imports the kinds; no kind imports it (the package root and the
 * `pulumi-computeplatform/providers` entry do). A module is required on the kind's first use
 * only, so the plugin, which loads the package by name for one resource, loads that resource's
 * provider and nothing else. The kind names are in users' state: they never change.
 */
const KINDS: Record<ProviderKind, () => Provider> = {
  pod: () => {
    const { PodProvider } = require("./pod/provider") as typeof import("./pod/provider");
    return new PodProvider();
  },
  "serverless-endpoint": () => {
    const { ServerlessEndpointProvider } = require("./serverless-endpoint/provider") as typeof import("./serverless-endpoint/provider");
    return new ServerlessEndpointProvider();
  },
  "network-volume": () => {
    const { NetworkVolumeProvider } = require("./network-volume/provider") as typeof import("./network-volume/provider");
    return new NetworkVolumeProvider();
  },
  template: () => {
    const { TemplateProvider } = require("./template/provider") as typeof import("./template/provider");
    return new TemplateProvider();
  },
  "registry-credential": () => {
    const { RegistryCredentialProvider } = require("./registry-credential/provider") as typeof import("./registry-credential/provider");
    return new RegistryCredentialProvider();
  },
  "stack-cost": () => {
    const { StackCostProvider } = require("./stack-cost/provider") as typeof import("./stack-cost/provider");
    return new StackCostProvider();
  },
  "smoke-test": () => {
    const { SmokeTestProvider } = require("./serverless-endpoint/smoke-provider") as typeof import("./serverless-endpoint/smoke-provider");
    return new SmokeTestProvider();
  },
};

const loaded: Partial<Record<ProviderKind, Provider>> = {};

/**
 * A provider as the engine needs every kind to behave, done here once:
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
 * - a check whose inputs pass and differ from the last applied ones (a create, an update)
 *   refuses a missing API key or address, or a Node.js the client cannot run on, at preview,
 *   as the up's first request would;
 * - a missing API key or address names the stack config that sets it (the client knows nothing of Pulumi).
 * - the resource's `account`, when it names one, is checked here, kept out of the kind's own
 *   inputs and outputs (no kind knows of it), put back into what goes to the engine, and every
 *   call runs on it (`inAccount`: the kind's `platform()` is that account's client); a new
 *   account (name or address) replaces the resource, a new key for the same account is recorded
 *   in place.
 * - the stack's accounts a costed resource carries (`__stackAccounts`, under a stack budget:
 *   cost/ledger.ts) are kept out of the kind's inputs and out of diff, and noted before its
 *   create or update, so the stack's budget at that write counts the stack's pods on each.
 * Methods a provider leaves out behave as Pulumi's plugin treats them.
 */
export function engineProvider(provider: Provider): Provider {
  return {
    configure: async (req) => {
      configureFromStack(req.config);
      await provider.configure?.(req);
    },
    check: async (olds, news) =>
      hinted(async () => {
        const failures = accountFailures(news?.[ACCOUNT_KEY], isUnknown);
        if (failures.length > 0) return { inputs: news, failures };
        const account = accountIn(news);
        const r: pulumi.dynamic.CheckResult = await inAccount(account, async () => (provider.check ? provider.check(own(olds), own(news)) : { inputs: own(news) }));
        if ((r.failures ?? []).length === 0) refuseMissingSettings(olds, r.inputs, account);
        return { ...r, inputs: defined(withAccount(r.inputs, news, [ACCOUNT_KEY, STACK_ACCOUNTS_KEY])) };
      }),
    diff: async (id, olds, news) => {
      // Another account is another object: the resource is made there and the old one deleted from its own.
      if (isUnknown(news?.[ACCOUNT_KEY]) || accountIdentity(accountIn(olds)) !== accountIdentity(accountIn(news))) {
        return { changes: true, replaces: [ACCOUNT_KEY], deleteBeforeReplace: false };
      }
      const r = provider.diff ? await inAccount(accountIn(news), () => provider.diff!(id, own(olds), own(news))) : {};
      // The same account with a rotated key: recorded by an update that sends nothing.
      if (!r.changes && accountIn(olds)?.apiKey !== accountIn(news)?.apiKey) return { ...r, changes: true };
      return r;
    },
    create: async (inputs) => {
      noteStackAccounts(stackAccountsIn(inputs));
      const r = await keepProviderOnPartialFailure(() => hinted(() => inAccount(accountIn(inputs), () => provider.create(own(inputs)))), inputs);
      return { ...r, outs: defined(withAccount(r.outs, inputs)) };
    },
    read: async (id, props) => {
      const r = provider.read ? await hinted(() => inAccount(accountIn(props), () => provider.read!(id, own(props)))) : { id, props };
      return { ...r, props: defined(r.props && withAccount(r.props, props)), inputs: defined(r.inputs && withAccount(r.inputs, props)) };
    },
    update: async (id, olds, news) => {
      noteStackAccounts(stackAccountsIn(news));
      const r: pulumi.dynamic.UpdateResult = await keepProviderOnPartialFailure(
        async () => (provider.update ? hinted(() => inAccount(accountIn(news), () => provider.update!(id, own(olds), own(news)))) : {}),
        news,
      );
      return { ...r, outs: defined(withAccount(r?.outs ?? own(olds), news)) };
    },
    delete: async (id, props) => hinted(async () => inAccount(accountIn(props), async () => provider.delete?.(id, own(props)))),
  };
}

/** The properties without `account` and the stack's accounts: what the kind's own provider sees. */
function own<T extends Record<string, unknown> | undefined>(props: T): T {
  if (!props || !(ACCOUNT_KEY in props || STACK_ACCOUNTS_KEY in props)) return props;
  const { [ACCOUNT_KEY]: _account, [STACK_ACCOUNTS_KEY]: _stackAccounts, ...rest } = props;
  return rest as T;
}

/** `props` with the `account` of `from` put back (and the other `keys`), those `from` has. */
function withAccount<T extends Record<string, unknown> | undefined>(props: T, from: Record<string, unknown> | undefined, keys: readonly string[] = [ACCOUNT_KEY]): T {
  const back = keys.filter((k) => from?.[k] !== undefined);
  return back.length === 0 || props === undefined ? props : ({ ...props, ...Object.fromEntries(back.map((k) => [k, from![k]])) } as T);
}

/**
 * {@link requirePlatformSettings}'s refusal when the checked inputs differ from the last applied
 * ones (none: a create), so that up sends requests. The settings are looked at first: set, as in
 * every configured stack, they make the comparison moot, and a preview does not pay for two
 * canonical texts of each resource's inputs (the StackCost's are the whole ledger).
 */
function refuseMissingSettings(olds: Record<string, unknown> | undefined, inputs: Record<string, unknown>, account?: Account): void {
  try {
    requireSupportedNode();
    requirePlatformSettings(process.env, account);
  } catch (missing) {
    if (changes(olds, inputs)) throw missing;
  }
}

/** Whether checked inputs differ from the last applied ones (none: a create), so that up sends requests. */
function changes(olds: Record<string, unknown> | undefined, inputs: Record<string, unknown>): boolean {
  const own = (v: Record<string, unknown> | undefined) => canonical(Object.fromEntries(Object.entries(v ?? {}).filter(([k]) => k !== PROVIDER_KEY)));
  return olds === undefined || Object.keys(olds).length === 0 || own(olds) !== own(defined(inputs));
}

/** A missing API key or address gets the stack-config way to set it, which only this layer knows of. */
async function hinted<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    if (e instanceof MissingApiKeyError) {
      e.message += `; in a Pulumi program, set stack config ${CONFIG_KEYS.apiKey} (\`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>\`)`;
    } else if (e instanceof UnsupportedRuntimeError) {
      e.message += "; Pulumi runs a program and its providers with the node first on PATH (`node --version` shows it)";
    } else if (e instanceof MissingApiUrlError) {
      e.message += `; in a Pulumi program, set stack config ${CONFIG_KEYS.apiUrl} (\`pulumi config set ${CONFIG_KEYS.apiUrl} <url>\`)`;
    }
    throw e;
  }
}

async function keepProviderOnPartialFailure<T>(op: () => Promise<T>, inputs: Record<string, unknown>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    const partial = e as { id?: unknown; properties?: Record<string, unknown> };
    if (partial?.id) {
      const provider = partial.properties?.[PROVIDER_KEY] ?? inputs?.[PROVIDER_KEY];
      // Its account too: the next up or destroy must find the half-made object where it is.
      partial.properties = defined(withAccount({ ...partial.properties, [PROVIDER_KEY]: provider }, inputs));
    }
    throw e;
  }
}

/** The provider of a kind, its module required on first use. */
export function dynamicProvider(kind: ProviderKind): Provider {
  if (!Object.hasOwn(KINDS, kind)) {
    throw new Error(
      `pulumi-computeplatform has no provider for "${kind}" (known: ${Object.keys(KINDS).join(", ")}); ` +
        "the installed package is older or newer than the one that wrote this state",
    );
  }
  if (!loaded[kind]) {
    try {
      loaded[kind] = engineProvider(KINDS[kind]());
    } catch (e) {
      throw new Error(`pulumi-computeplatform could not load the provider of "${kind}": ${(e as Error).message}`);
    }
  }
  return loaded[kind];
}

/**
 * The providers by kind, as the serialized shim reads them inside the plugin
 * (`require("pulumi-computeplatform/providers").dynamicProviders[kind]`; state written by 0.1.0
 * reads the package root, which exports the same object). Each entry is a getter over
 * `dynamicProvider(kind)`, so a lookup loads the kind's module on first use.
 *
 * @group Providers and checks
 */
export const dynamicProviders = {} as Readonly<Record<ProviderKind, Provider>>;
for (const kind of Object.keys(KINDS) as ProviderKind[]) {
  Object.defineProperty(dynamicProviders, kind, { enumerable: true, get: () => dynamicProvider(kind) });
}

// The one way tests, benchmarks and scripts start Pulumi's plugin against an emulator, and the
// emulator-plus-plugin rigs the engine tests of the resources stand on.
import { ComputePlatform } from "../../src/client";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../src/emulator";
import { type PluginOptions, ProviderPlugin } from "./plugin";
import { PROJECT, PROJECT_DIR, SECRET_KEYS } from "./project";
import { EngineStack } from "./stack";

/**
 * The environment of a plugin against an emulator: the key reaches it only through Configure
 * (stack config), never the environment, pods and endpoints are polled every 10 ms, and a
 * retry or a look after an ambiguous answer waits milliseconds, not seconds: the emulator's
 * faults end when their count runs out, not with time, so the real pace only adds wall time.
 */
export const EMULATOR_ENV: Readonly<Record<string, string | undefined>> = {
  COMPUTEPLATFORM_API_KEY: undefined,
  COMPUTEPLATFORM_POLL_INTERVAL_MS: "10",
  COMPUTEPLATFORM_RETRY_BASE_MS: "4",
};

export interface StartPluginOptions extends Partial<Omit<PluginOptions, "config">> {
  /** Config keys the engine marks secret in Configure. @default SECRET_KEYS (the API key) */
  secretKeys?: string[];
}

/**
 * A fresh plugin process, as each `pulumi` command starts one: in the quickstart project unless
 * `cwd` and `project` say otherwise, `config` in `PULUMI_CONFIG` and in Configure (the secret
 * keys marked), `env` on top of {@link EMULATOR_ENV}. A Configure that fails stops the plugin.
 */
export async function startPlugin(config: Record<string, string>, opts: StartPluginOptions = {}): Promise<ProviderPlugin> {
  const { secretKeys = SECRET_KEYS, env, ...rest } = opts;
  const plugin = await ProviderPlugin.start({ cwd: PROJECT_DIR, project: PROJECT, ...rest, config, env: { ...EMULATOR_ENV, ...env } });
  try {
    await plugin.configure(config, secretKeys);
  } catch (e) {
    await plugin.stop();
    throw e;
  }
  return plugin;
}

/** The stack config that points a plugin at `emu` with `key`. */
export function emulatorConfig(emu: Emulator, key: string): Record<string, string> {
  return { "computeplatform:apiKey": key, "computeplatform:apiUrl": emu.url };
}

export interface EngineRig {
  emu: Emulator;
  plugin: ProviderPlugin;
  /** The stack config the plugin was configured with (`computeplatform:apiKey`, `apiUrl`). */
  config: Record<string, string>;
  /** A client with the same key, pacing off: changes made outside the stack. */
  client: ComputePlatform;
  close(): Promise<void>;
}

/** Quotas no engine test reaches. */
export const ENGINE_QUOTAS = { minute: 100_000, hour: 1_000_000, day: 10_000_000 };

/** The emulator's timings in engine tests: pods and endpoints settle in tens of milliseconds. */
export const ENGINE_TIMINGS = { provisioningMs: 10, startingMs: 10, drainMs: 10, restartDelayMs: 20 };

/**
 * Start the emulator with `key` as its only key, then the plugin in the quickstart project
 * with the key in stack config only (not the environment) and a short poll interval.
 */
export async function startEngineRig(key: string, emulator: Partial<EmulatorOptions> = {}): Promise<EngineRig> {
  const emu = await startEmulator({ port: 0, keys: [{ key, scopes: ["read", "write"] }], quotas: ENGINE_QUOTAS, timings: ENGINE_TIMINGS, ...emulator });
  const config = emulatorConfig(emu, key);
  const plugin = await startPlugin(config).catch(async (e: unknown) => {
    await emu.close();
    throw e;
  });
  const client = new ComputePlatform({ apiKey: key, apiUrl: emu.url, pacing: false });
  return {
    emu,
    plugin,
    config,
    client,
    close: async () => {
      await client.close();
      await plugin.stop();
      await emu.close();
    },
  };
}

/**
 * A new plugin process on the rig's emulator and config, and `stack`'s state carried over to
 * it: the engine starts a plugin per command, so nothing one `pulumi up` kept in memory reaches
 * the next. Stop the plugin when done.
 */
export async function nextCommand(rig: EngineRig, stack: EngineStack, config = rig.config): Promise<{ stack: EngineStack; plugin: ProviderPlugin }> {
  const plugin = await startPlugin(config);
  return { stack: stack.carriedTo(plugin), plugin };
}

/** The emulator and client of a provider test, which calls the providers in-process (no plugin). */
export interface ProviderRig {
  emu: Emulator;
  /** Pacing off, one retry: what the providers under test are handed. */
  client: ComputePlatform;
  close(): Promise<void>;
}

/**
 * An emulator with the engine tests' fast timings and quotas, and a client on its key (pacing
 * off, one retry); `emulator` and `client` options on top.
 */
export async function startProviderRig(
  opts: { emulator?: Partial<EmulatorOptions>; client?: Partial<ConstructorParameters<typeof ComputePlatform>[0]> } = {},
): Promise<ProviderRig> {
  const emu = await startEmulator({ port: 0, quotas: ENGINE_QUOTAS, timings: { provisioningMs: 10, startingMs: 10, drainMs: 10 }, ...opts.emulator });
  const client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, maxRetries: 1, ...opts.client });
  return {
    emu,
    client,
    close: async () => {
      await client.close();
      await emu.close();
    },
  };
}

/**
 * One {@link startEngineRig} for the tests of a file (jest): started before the first, closed
 * after the last. The object is filled in by that `beforeAll`: read it in tests and hooks.
 */
export function engineRigForFile(key: string, emulator: Partial<EmulatorOptions> = {}): EngineRig {
  const rig = {} as EngineRig;
  beforeAll(async () => {
    Object.assign(rig, await startEngineRig(key, emulator));
  }, 60_000);
  afterAll(async () => {
    await rig.close?.();
  });
  return rig;
}

/** One {@link startProviderRig} for the tests of a file (jest), as {@link engineRigForFile}. */
export function providerRigForFile(): ProviderRig {
  const rig = {} as ProviderRig;
  beforeAll(async () => {
    Object.assign(rig, await startProviderRig());
  });
  afterAll(async () => {
    await rig.close?.();
  });
  return rig;
}

// An emulator with one known key and Pulumi's plugin configured against it through stack
// config, as the engine tests of the resources start them.
import { ComputePlatform } from "../../src/client";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../src/emulator";
import { EngineStack, PROJECT, PROJECT_DIR, ProviderPlugin, SECRET_KEYS } from "../../tools/engine";

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

/**
 * Start the emulator with `key` as its only key, then the plugin in the quickstart project
 * with the key in stack config only (not the environment) and a short poll interval.
 */
export async function startEngineRig(key: string, emulator: Partial<EmulatorOptions> = {}): Promise<EngineRig> {
  const emu = await startEmulator({
    port: 0,
    keys: [{ key, scopes: ["read", "write"] }],
    quotas: ENGINE_QUOTAS,
    timings: { provisioningMs: 10, startingMs: 10, drainMs: 10, restartDelayMs: 20 },
    ...emulator,
  });
  const config = { "computeplatform:apiKey": key, "computeplatform:apiUrl": emu.url };
  const plugin = await ProviderPlugin.start({
    cwd: PROJECT_DIR,
    project: PROJECT,
    config,
    env: { COMPUTEPLATFORM_API_KEY: undefined, COMPUTEPLATFORM_POLL_INTERVAL_MS: "10" },
  });
  await plugin.configure(config, SECRET_KEYS);
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
  const plugin = await ProviderPlugin.start({
    cwd: PROJECT_DIR,
    project: PROJECT,
    config,
    env: { COMPUTEPLATFORM_API_KEY: undefined, COMPUTEPLATFORM_POLL_INTERVAL_MS: "10" },
  });
  await plugin.configure(config, SECRET_KEYS);
  const next = new EngineStack(plugin, { project: stack.project, stack: stack.stack });
  for (const [urn, res] of stack.resources) next.resources.set(urn, structuredClone(res));
  return { stack: next, plugin };
}

/** The emulator and client of a provider test, which calls the providers in-process (no plugin). */
export interface ProviderRig {
  emu: Emulator;
  /** Pacing off, one retry: what the providers under test are handed. */
  client: ComputePlatform;
  close(): Promise<void>;
}

/** An emulator with the engine tests' fast timings and quotas, and a client on its key. */
export async function startProviderRig(): Promise<ProviderRig> {
  const emu = await startEmulator({ port: 0, quotas: ENGINE_QUOTAS, timings: { provisioningMs: 10, startingMs: 10, drainMs: 10 } });
  const client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, maxRetries: 1 });
  return {
    emu,
    client,
    close: async () => {
      await client.close();
      await emu.close();
    },
  };
}

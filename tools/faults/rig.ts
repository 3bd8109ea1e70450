/**
 * What the fault suite, the bad-input properties and `npm run soak` share: an emulator with a
 * sentinel key, a client whose waits are compressed (the emulator's `Retry-After: 1` becomes
 * 10 ms, so a 429 storm costs milliseconds, not seconds), the real providers wired to that
 * client (`startRig`), or Pulumi's plugin configured for that emulator (`startPlugin`). The
 * small engine that drives the providers is mini-engine.ts; the audit of what the platform
 * holds against what the stacks know is audit.ts.
 *
 * Why a small engine beside tools/engine: the providers are called in-process here
 * (hundreds of operations in seconds), and the engine's bookkeeping after a failure is what
 * decides whether anything leaks, so it is modelled as the engine does it: a create or update
 * that fails with an id (ErrorResourceInitFailed) keeps the resource in state with its
 * outputs; a create that fails without one leaves nothing in state; the old resource of a
 * create-before-delete replace whose delete fails stays in state as a pending delete, deleted
 * first by the next operation; properties cross the wire as JSON (undefined dropped).
 */
import type * as pulumi from "@pulumi/pulumi";
import { type Clock, ComputePlatform } from "../../src/client";
import { type Emulator, type Faults, startEmulator } from "../../src/emulator";
import { PodProvider, ServerlessEndpointProvider } from "../../src";
import { priceBook } from "../../src/internal";
import { PROJECT, PROJECT_DIR, type ProviderPlugin, SECRET_KEYS } from "../engine";
import { emulatorConfig, startPlugin as startEmulatorPlugin } from "../engine/rig";

export { PROJECT, PROJECT_DIR };

/** A key no other string in the repo has: any place it shows up, it leaked from here. */
export const SENTINEL_KEY = "cp_sentinel_7f3a9c_do_not_leak_e41b";
export const READ_ONLY_KEY = "cp_sentinel_readonly_0c8d52_e41b";

export type Kind = "pod" | "endpoint";

/** A clock whose sleeps last `1 / factor` of what was asked: retries and backoff stay in order, just shorter. */
export function compressedClock(factor: number): Clock {
  return {
    now: () => Date.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = setTimeout(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }, Math.max(0, ms / factor));
        const onAbort = () => {
          clearTimeout(timer);
          reject(signal!.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
  };
}

/** Keys, quotas and millisecond timings every rig uses; `faults` and the log size vary. */
export function startSentinelEmulator(opts: { faults?: Faults; requestLogSize?: number; listOrder?: "created" | "shuffled" } = {}): Promise<Emulator> {
  return startEmulator({
    port: 0,
    keys: [
      { key: SENTINEL_KEY, scopes: ["read", "write"] },
      { key: READ_ONLY_KEY, scopes: ["read"] },
    ],
    quotas: { minute: 10_000_000, hour: 10_000_000, day: 10_000_000 },
    timings: { provisioningMs: 15, startingMs: 15, drainMs: 15, restartDelayMs: 20 },
    requestLogSize: opts.requestLogSize ?? 1_000_000,
    faults: opts.faults ?? {},
    listOrder: opts.listOrder ?? "created",
  });
}

// ---------------------------------------------------------------------------------------------
// Through Pulumi's plugin

/** Stack config keys the engine marks secret in Configure. */
export const CONFIG_SECRETS = SECRET_KEYS;

export function stackConfig(emu: Emulator, key = SENTINEL_KEY): Record<string, string> {
  return emulatorConfig(emu, key);
}

/** A fresh plugin process, as each `pulumi` command starts one, configured from stack config with `key`. */
export async function startPlugin(emu: Emulator, key = SENTINEL_KEY): Promise<ProviderPlugin> {
  return startEmulatorPlugin(stackConfig(emu, key));
}

// ---------------------------------------------------------------------------------------------
// In-process

export interface RigOptions {
  faults?: Faults;
  /** Debug lines of the client go here (the secret scan reads them). */
  logger?: { debug(line: string): void };
  maxRetries?: number;
  /** The emulator's list order (`shuffled`: a new order each answer). @default "created" */
  listOrder?: "created" | "shuffled";
}

export interface Rig {
  emu: Emulator;
  client: ComputePlatform;
  providers: Record<Kind, pulumi.dynamic.ResourceProvider>;
  gpuId: string;
  /** A second NVIDIA GPU type, for the no-capacity profile. */
  otherGpuId: string;
  /** A serverless template of the key's owner, what an endpoint's `templateId` must name. */
  templateId: string;
  close(): Promise<void>;
}

export async function startRig(opts: RigOptions = {}): Promise<Rig> {
  const emu = await startSentinelEmulator({ faults: opts.faults, listOrder: opts.listOrder });
  const client = new ComputePlatform({
    apiKey: SENTINEL_KEY,
    apiUrl: emu.url,
    serverlessUrl: emu.url,
    pacing: false,
    maxRetries: opts.maxRetries ?? 4,
    timeoutMs: 5_000,
    clock: compressedClock(100),
    logger: opts.logger,
    env: {},
  });
  const providers = {
    pod: new PodProvider({ client: () => client, poll: { intervalMs: 5, maxIntervalMs: 15, backoff: 1.5 } }),
    endpoint: new ServerlessEndpointProvider({ client: () => client, pollIntervalMs: 5, maxPollIntervalMs: 15 }),
  };
  // The catalog is read once with no faults on, so the profile under test decides what fails:
  // through the deployment's price book, as a stack's cost line reads it before any pod's check
  // (which then reads nothing more).
  const saved = opts.faults ?? {};
  emu.setFaults({});
  const book = priceBook(() => client);
  const nvidia = (await book.gpus()).filter((g) => g.manufacturer === "NVIDIA").map((g) => g.id);
  await book.cpus();
  const { id: templateId } = await client.templates.create({ name: "worker", image: "worker:1", serverless: true });
  emu.setFaults(saved);
  return {
    emu,
    client,
    providers,
    gpuId: nvidia[0],
    otherGpuId: nvidia[1],
    templateId,
    close: async () => {
      await client.close();
      await emu.close();
    },
  };
}

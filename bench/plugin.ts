// Benchmark 3: what Pulumi's dynamic-provider plugin adds to each provider call. The same
// Pod lifecycle (Check, Create, Check + Diff of a rename, Update, Delete) runs through the
// plugin over gRPC (the engine harness of tools/engine, the package loaded by name from
// dist/ inside the plugin) and directly against a PodProvider in this process, both against
// one emulator with instant pod states and a 5 ms poll, so the difference is the plugin's:
// gRPC, marshalling, deserializing `__provider`, loading the package. Also the size of
// `__provider` as the SDK serializes it into state (captured under setMocks from a compiled
// program, as `pulumi up` would store it).
import { ComputePlatform } from "../src/client";
import { startEmulator } from "../src/emulator";
import { PodProvider } from "../src";
import { capturePods, PROJECT, ProviderPlugin, urnOf } from "../tools/engine";
import { median } from "./common";
import { startPlugin } from "../tools/engine/rig";

const KEY = "cp_bench_plugin_000000000000000";
const POLL_MS = 5;

export const CALLS = ["Check", "Create", "Diff", "Update", "Delete"] as const;
export type Call = (typeof CALLS)[number];

export interface PluginResult {
  rounds: number;
  /** Real ms of each call, per path, in round order. */
  plugin: Record<Call, number[]>;
  direct: Record<Call, number[]>;
  /** Bytes of the serialized `__provider` of a Pod. */
  providerBytes: number;
  error?: string;
}

const empty = (): Record<Call, number[]> => ({ Check: [], Create: [], Diff: [], Update: [], Delete: [] });

async function timed<T>(into: number[], fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const v = await fn();
  into.push(performance.now() - t0);
  return v;
}

export async function runPlugin(rounds: number): Promise<PluginResult> {
  const result: PluginResult = { rounds, plugin: empty(), direct: empty(), providerBytes: 0 };
  const emu = await startEmulator({
    port: 0,
    keys: [{ key: KEY, scopes: ["read", "write"] }],
    quotas: { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 },
    timings: { provisioningMs: 0, startingMs: 0 },
  });
  const config = { "computeplatform:apiKey": KEY, "computeplatform:apiUrl": emu.url };
  const client = new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, env: {} });
  let plugin: ProviderPlugin | undefined;
  try {
    const gpuId = (await client.catalog.gpus()).find((g) => g.manufacturer === "NVIDIA")!.id;
    const args = { image: "bench/plugin:1", gpu: { id: gpuId } };
    const pods = Object.fromEntries(Array.from({ length: rounds }, (_, i) => [`b${i}`, args]));
    const regs = await capturePods(pods, config);
    // The program also registers its StackCost: only the Pods are measured.
    const podRegs = regs.filter((r) => r.type.endsWith(":Pod"));
    if (podRegs.length !== rounds) throw new Error(`the program registered ${podRegs.length} Pods, not ${rounds}`);
    const provider = podRegs[0].inputs.__provider;
    result.providerBytes = Buffer.byteLength(typeof provider === "string" ? provider : JSON.stringify(provider));

    plugin = await startPlugin(config, { env: { COMPUTEPLATFORM_POLL_INTERVAL_MS: String(POLL_MS) } });
    const direct = new PodProvider({ client: () => client, poll: { intervalMs: POLL_MS, maxIntervalMs: 5 * POLL_MS } });

    for (const reg of podRegs) {
      // Through the plugin, in the engine's order for create, an in-place update and delete.
      const p = plugin;
      const t = result.plugin;
      const urn = urnOf("dev", PROJECT, reg.type, reg.name);
      const checked = await timed(t.Check, () => p.check(urn, {}, reg.inputs));
      const made = await timed(t.Create, () => p.create(urn, checked.inputs));
      const renamed = (await p.check(urn, checked.inputs, { ...reg.inputs, name: `${reg.name}-renamed` })).inputs;
      const diff = await timed(t.Diff, () => p.diff(urn, made.id, checked.inputs, made.outputs, renamed));
      if (diff.changes !== "some" || diff.replaces.length > 0) throw new Error(`plugin diff: ${JSON.stringify(diff)}`);
      const outs = await timed(t.Update, () => p.update(urn, made.id, made.outputs, renamed, checked.inputs));
      await timed(t.Delete, () => p.delete(urn, made.id, outs, renamed));

      // The same calls made directly to a provider in this process.
      const d = result.direct;
      const { __provider: _p, ...raw } = reg.inputs;
      const dc = await timed(d.Check, () => direct.check({}, raw));
      const dm = await timed(d.Create, () => direct.create(dc.inputs!));
      const dr = (await direct.check(dc.inputs, { ...raw, name: `${reg.name}-direct-renamed` })).inputs!;
      await timed(d.Diff, () => direct.diff(dm.id, dm.outs!, dr));
      const du = await timed(d.Update, () => direct.update(dm.id, dm.outs!, dr));
      await timed(d.Delete, () => direct.delete(dm.id, du.outs!));
    }
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    await plugin?.stop();
    await client.close();
    await emu.close();
  }
  return result;
}

/** Per call: the first through the plugin, and the median overhead of the rest. */
export function overhead(r: PluginResult): { call: Call; first: number; plugin: number; direct: number; overhead: number }[] {
  return CALLS.map((call) => {
    const plugin = median(r.plugin[call].slice(1));
    const direct = median(r.direct[call].slice(1));
    return { call, first: r.plugin[call][0] ?? Number.NaN, plugin, direct, overhead: plugin - direct };
  });
}

// The soak's fleet through Pulumi's plugin (issue 50): one `up` of many pods at once, the engine's
// parallelism unbounded, then a `destroy` by a new plugin process, as two `pulumi` commands.
// Against an emulator whose quota never binds, so the plugin's own handling of a thousand calls
// at once is what is tried (the failure issue 50 reported appeared from 600 pods up). Counts
// what the emulator holds after each: every pod RUNNING after the up, none alive after the destroy.
import { startEmulator } from "../src/emulator";
import { Pod } from "../src/resources/pod";
import { captureProgram, EngineStack, PROJECT, SECRET_KEYS } from "../tools/engine";
import { emulatorConfig, ENGINE_QUOTAS, ENGINE_TIMINGS, startPlugin } from "../tools/engine/rig";

const KEY = "cp_soak_fleet_5e0c9a1d";
/** One gRPC call's bound: a create waits its turn among a thousand (the rig's minute is a test's). */
const CALL_TIMEOUT_MS = 10 * 60_000;

export interface FleetFigures {
  pods: number;
  /** Pods RUNNING on the emulator when the up returned. */
  running: number;
  /** Pods not TERMINATED after the destroy. */
  left: number;
  upMs: number;
  destroyMs: number;
  error?: string;
}

export async function soakFleet(pods: number): Promise<FleetFigures> {
  const emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], quotas: ENGINE_QUOTAS, timings: ENGINE_TIMINGS });
  const config = emulatorConfig(emu, KEY);
  const figures: FleetFigures = { pods, running: 0, left: 0, upMs: 0, destroyMs: 0 };
  const alive = () => emu.state().pods.filter((p) => p.status !== "TERMINATED");
  try {
    // In this process (a program file would take a thousand pods' specs on its command line).
    const regs = await captureProgram(
      () => {
        for (let i = 0; i < pods; i++) new Pod(`pod${i}`, { image: "bench/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } });
      },
      { project: PROJECT, stack: "soak", config, secretKeys: SECRET_KEYS },
    );
    const up = await startPlugin(config, { callTimeoutMs: CALL_TIMEOUT_MS });
    const stack = new EngineStack(up, { project: PROJECT, stack: "soak" });
    let t0 = Date.now();
    const made = await stack.up(regs, { parallel: Number.POSITIVE_INFINITY }).finally(() => up.stop());
    figures.upMs = Date.now() - t0;
    figures.running = alive().filter((p) => p.status === "RUNNING").length;
    if (made.error) throw made.error;
    const down = await startPlugin(config, { callTimeoutMs: CALL_TIMEOUT_MS });
    t0 = Date.now();
    const gone = await stack
      .carriedTo(down)
      .destroy({ parallel: Number.POSITIVE_INFINITY })
      .finally(() => down.stop());
    figures.destroyMs = Date.now() - t0;
    if (gone.error) throw gone.error;
  } catch (err) {
    figures.error = err instanceof Error ? err.message : String(err);
  } finally {
    figures.left = alive().length;
    await emu.close();
  }
  return figures;
}

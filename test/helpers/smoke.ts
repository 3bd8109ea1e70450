// The smoke test's provider as the tests drive it: on a client, its clock fixed, its lines kept.
import { ComputePlatform, systemClock } from "../../src/client";
import { type Emulator, startEmulator } from "../../src/emulator";
import { SmokeTestProvider } from "../../src/resources/serverless-endpoint/smoke-provider";

/** The smoke test's provider on `on`, its clock at 2026-01-02T03:04:05Z, its lines kept. */
export function smokeProvider(on: () => ComputePlatform, lines: string[] = []) {
  return new SmokeTestProvider({ client: on, clock: { ...systemClock, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) }, print: (l) => lines.push(l) });
}

/** A checked create's outputs, its job id as the id: what runSyncSmokeTest's result holds. */
export async function settleSmokeTest(on: () => ComputePlatform, inputs: Record<string, unknown>) {
  const p = smokeProvider(on);
  const checked = await p.check({}, inputs);
  expect(checked.failures).toEqual([]);
  const made = await p.create(checked.inputs!);
  return { ...made.outs, id: made.outs.jobId };
}

/** The job input the smoke tests send a hosted model. */
export const SMOKE_INPUT = { prompt: 'a "quoted" lighthouse', width: 16, height: 8 };

/** An emulator and a client of it; its workers start in 30 ms instead of the platform's 3 s, since each smoke job waits for its endpoint's first worker. */
export async function startSmokeEmulator(): Promise<{ emu: Emulator; client: ComputePlatform }> {
  const emu = await startEmulator({ port: 0, timings: { provisioningMs: 20, startingMs: 30, drainMs: 30, restartDelayMs: 20 } });
  return { emu, client: new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, serverlessUrl: emu.url, pacing: false, maxRetries: 0 }) };
}

/** For one test file: the smoke emulator and its client, started before its tests and closed after. */
export function smokeEmulatorPerFile(): { emu: Emulator; client: ComputePlatform } {
  const on = {} as { emu: Emulator; client: ComputePlatform };
  beforeAll(async () => Object.assign(on, await startSmokeEmulator()));
  afterAll(async () => {
    await on.client?.close();
    await on.emu?.close();
  });
  return on;
}

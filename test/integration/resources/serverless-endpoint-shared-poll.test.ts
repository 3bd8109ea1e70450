/**
 * Endpoints waited on together share their reads: one `myself` per poll tick answers every
 * endpoint of the process, for the wait for workers on create and for the drain on delete.
 * Against the emulator over real HTTP, with a fixed poll pace so the ticks are comparable.
 */
import { ComputePlatform } from "../../../src/client";
import { type Emulator, startEmulator } from "../../../src/emulator";
import { ServerlessEndpointProvider } from "../../../src/resources/serverless-endpoint";

let emu: Emulator;
let client: ComputePlatform;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 },
    timings: { provisioningMs: 10, startingMs: 150, drainMs: 150 },
  });
  client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, maxRetries: 1 });
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

const myself = () => emu.counts().myself ?? 0;

async function fleet(count: number) {
  const p = new ServerlessEndpointProvider({ client: () => client, pollIntervalMs: 25, maxPollIntervalMs: 25 });
  const inputs = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const r = await p.check({}, { gpuIds: "AMPERE_24", templateId: "tpl-s", workersMin: 1, workersMax: 1, __logicalName: `ep${i}` });
      expect(r.failures ?? []).toEqual([]);
      return r.inputs!;
    }),
  );
  const m0 = myself();
  const made = await Promise.all(inputs.map((i) => p.create(i)));
  for (const m of made) expect(m.outs!.pods).toEqual([{ desiredStatus: "RUNNING" }]);
  const m1 = myself();
  await Promise.all(made.map((m) => p.delete(m.id, m.outs!)));
  for (const m of made) expect(emu.state().endpoints.find((e: any) => e.id === m.id)).toBeUndefined();
  return { up: m1 - m0, down: myself() - m1 };
}

test("six endpoints created and deleted at once read about as often as one", async () => {
  const one = await fleet(1);
  const six = await fleet(6);
  console.log(`myself reads: one endpoint ${JSON.stringify(one)}, six at once ${JSON.stringify(six)}`);
  // Each endpoint polling alone would read about six times as often.
  expect(one.up).toBeGreaterThan(1);
  expect(six.up).toBeLessThanOrEqual(one.up + 2);
  expect(six.down).toBeLessThanOrEqual(one.down + 2);
});

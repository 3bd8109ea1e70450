/**
 * 50 pod lifecycles (create, update in place, stop, start, delete) against an emulator that answers 429s
 * and 5xx and drops connections after processing. An operation that fails is run again the
 * way the next `pulumi up` or `destroy` would: with the id Pulumi kept when the error carried
 * one. Counted from the emulator's own state at the end: no pod leaked, none duplicated.
 */
import { ComputePlatform } from "../../../../src/client";
import type { Emulator } from "../../../../src/emulator";
import type { PodInitError, PodOutputs } from "../../../../src/resources/pod";
import { PodProvider } from "../../../../src/resources/pod/provider";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import type { PodInputs } from "../../../../src/resources/pod/schema";
import { type ProviderRig, startProviderRig } from "../../../../tools/engine/rig";

const LIFECYCLES = 50;
const CONCURRENCY = 10;
/** Runs of one operation: the first `pulumi up`, then the ones a user would start after a failure. */
const RUNS = 4;

let emu: Emulator;
let client: ComputePlatform;

let rig: ProviderRig;

beforeAll(async () => {
  rig = await startProviderRig({
    emulator: { quotas: { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 }, timings: { provisioningMs: 20, startingMs: 20, restartDelayMs: 20 } },
    client: { maxRetries: 4, baseDelayMs: 2, maxBackoffMs: 20 },
  });
  ({ emu, client } = rig);
});

afterAll(() => rig?.close());

interface Tracked {
  name: string;
  id?: string;
  outs?: PodOutputs;
  deleted: boolean;
  failures: number;
}

test(`${LIFECYCLES} lifecycles under 429s, 5xx and dropped connections: zero leaked, zero duplicated pods`, async () => {
  const p = new PodProvider({ client: () => client, poll: { intervalMs: 5, maxIntervalMs: 20 } });
  const gpuId = (await client.catalog.gpus()).find((g) => g.manufacturer === "NVIDIA")!.id;
  // A 429 storm asks for a real 1 s wait, which the client honours: fewer of those keep it short.
  emu.setFaults({ seed: 42, rate429: 0.03, rate5xx: 0.08, dropAfterProcessRate: 0.08 });

  const inputs = async (name: string, image: string, desiredStatus = "RUNNING"): Promise<PodInputs> =>
    (await p.check({}, { name, image, desiredStatus, gpu: { id: gpuId }, env: { N: name }, [LOGICAL_NAME_KEY]: name }))
      .inputs!;

  /** Run `op` like successive `pulumi up`s: a partial failure hands its id and outputs on. */
  async function runs(t: Tracked, op: () => Promise<void>): Promise<void> {
    for (let run = 1; ; run++) {
      try {
        await op();
        return;
      } catch (err) {
        t.failures++;
        const partial = err as PodInitError;
        if (partial.id) {
          t.id = partial.id;
          t.outs = partial.properties;
        }
        if (run >= RUNS) throw err;
      }
    }
  }

  async function lifecycle(t: Tracked): Promise<void> {
    const v1 = await inputs(t.name, "img/app:1");
    await runs(t, async () => {
      if (!t.id) {
        const r = await p.create(v1);
        t.id = r.id;
        t.outs = r.outs;
      } else {
        t.outs = (await p.update(t.id, t.outs!, v1)).outs;
      }
    });
    for (const [image, status] of [
      ["img/app:2", "RUNNING"],
      ["img/app:2", "EXITED"],
      ["img/app:2", "RUNNING"],
    ]) {
      const next = await inputs(t.name, image, status);
      await runs(t, async () => {
        t.outs = (await p.update(t.id!, t.outs!, next)).outs;
      });
      expect(t.outs).toMatchObject({ image, status });
    }
    await runs(t, async () => {
      await p.delete(t.id!, t.outs!);
      t.deleted = true;
    });
  }

  const tracked: Tracked[] = Array.from({ length: LIFECYCLES }, (_, i) => ({ name: `fault-${i}`, deleted: false, failures: 0 }));
  const queue = [...tracked];
  const errors: unknown[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let t = queue.shift(); t; t = queue.shift()) await lifecycle(t).catch((e) => errors.push(e));
    }),
  );
  emu.setFaults({});

  const log = emu.requestLog();
  const injected = {
    rate429: log.filter((e) => e.status === 429).length,
    rate5xx: log.filter((e) => e.status >= 500).length,
    dropped: log.filter((e) => e.dropped).length,
    droppedCreates: log.filter((e) => e.dropped && e.op === "createPod" && e.status === 201).length,
    droppedActions: log.filter((e) => e.dropped && e.op === "podAction").length,
  };
  const pods = emu.state().pods as { id: string; name: string; status: string }[];
  const leaked = pods.filter((x) => x.status !== "TERMINATED");
  const byName = new Map<string, number>();
  for (const x of pods) byName.set(x.name, (byName.get(x.name) ?? 0) + 1);
  const duplicated = [...byName].filter(([, n]) => n > 1);
  console.log(
    `pod lifecycles under faults: ${LIFECYCLES} lifecycles, ${pods.length} pods made, ` +
      `${tracked.reduce((n, t) => n + t.failures, 0)} operation re-runs; injected ${JSON.stringify(injected)}`,
  );

  expect(errors).toEqual([]);
  expect(tracked.every((t) => t.deleted)).toBe(true);
  expect(leaked).toEqual([]);
  expect(duplicated).toEqual([]);
  expect(pods).toHaveLength(LIFECYCLES);
  // The faults did fire, including drops after a create was processed (the duplicate risk).
  expect(injected.rate429).toBeGreaterThan(0);
  expect(injected.rate5xx).toBeGreaterThan(0);
  expect(injected.dropped).toBeGreaterThan(0);
  expect(injected.droppedCreates).toBeGreaterThan(0);
  expect(injected.droppedActions).toBeGreaterThan(0);
});

// Benchmark 2: how long after the emulator marks a pod RUNNING the provider's create returns,
// against the status calls spent. Pods are created a little apart, so their transitions fall
// at every phase of the shared poller's ticks. The transition time is the pod's `startedAt`
// (the emulator sets it to the instant the container became RUNNING); the return time is
// taken when `create` resolves. Both are reported in emulated seconds.
import { ComputePlatform, PacingRegistry } from "../src/client";
import { PodProvider } from "../src";
import type { PollerTimings } from "../src/internal";
import { bounded, calls, median, type Shape, setupGpuId, startBench } from "./common";

export interface ReadinessResult {
  label: string;
  poll: PollerTimings;
  pods: number;
  /** Emulated seconds from RUNNING to create's return, one per pod. */
  latencies: number[];
  /** listPods calls while the pods were waited on. */
  lists: number;
  /** Emulated seconds after create at which each list went, for the first pod alone (one-pod runs). */
  listTimes: number[];
  error?: string;
}

/** `poll` is in emulated ms; the provider gets it in real ms. */
export async function runReadiness(shape: Shape, label: string, poll: PollerTimings, pods: number, staggerEmuMs: number): Promise<ReadinessResult> {
  const b = await startBench(shape);
  const result: ReadinessResult = { label, poll, pods, latencies: [], lists: 0, listTimes: [] };
  const client = new ComputePlatform({ apiKey: b.key, apiUrl: b.emu.url, pacing: new PacingRegistry() });
  try {
    const gpuId = await setupGpuId(b.emu);
    const from = b.emu.requestLog().length;
    const s = shape.timeScale;
    await bounded(`readiness ${label}`, 120_000, async (signal) => {
      const provider = new PodProvider({
        client: () => client,
        poll: {
          intervalMs: (poll.intervalMs ?? 2000) / s,
          maxIntervalMs: (poll.maxIntervalMs ?? 10_000) / s,
          backoff: poll.backoff,
        },
        signal,
      });
      const returned = new Map<string, number>();
      await Promise.all(
        Array.from({ length: pods }, async (_, i) => {
          await new Promise((r) => setTimeout(r, (i * staggerEmuMs) / s));
          const checked = await provider.check({}, { image: "bench/ready:1", gpu: { id: gpuId }, __logicalName: `r${i}` });
          const made = await provider.create(checked.inputs!);
          returned.set(made.id, Date.now());
        }),
      );
      for (const p of b.emu.state().pods) {
        const back = returned.get(p.id);
        if (back === undefined || p.startedAt === null) throw new Error(`pod ${p.id} has no RUNNING time`);
        result.latencies.push(((back - Date.parse(p.startedAt)) * s) / 1000);
      }
    });
    const log = b.emu.requestLog().slice(from);
    result.lists = calls(b.emu, from).byOp.listPods ?? 0;
    if (pods === 1) {
      const created = log.find((e) => e.op === "createPod");
      const t0 = created ? Date.parse(created.at) : 0;
      result.listTimes = log.filter((e) => e.op === "listPods").map((e) => ((Date.parse(e.at) - t0) * s) / 1000);
    }
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    await client.close();
    await b.emu.close();
  }
  return result;
}

export const summarize = (r: ReadinessResult) => ({
  median: median(r.latencies),
  worst: Math.max(...r.latencies),
});

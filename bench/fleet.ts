// Benchmarks 1 and 4: a fleet of N pods and N/5 serverless endpoints created concurrently and
// then destroyed, through the real providers (the objects the plugin calls), against the
// emulator with the default quotas and realistic start times under its time scale. The
// baseline does the same work with per-resource polling and retry-on-429 only (naive.ts).
// Each run gets its own emulator and key, so the rate-limit windows start with the run.
import { ComputePlatform, PacingRegistry, systemClock } from "../src/client";
import type { EndpointInput, PodCreateParams } from "../src/client";
import { PodProvider, ServerlessEndpointProvider } from "../src";
import { type Bench, bounded, calls, type Shape, setupGpuId, setupServerlessTemplate, startBench } from "./common";
import { NaiveFleet } from "./naive";

export type Variant = "provider" | "baseline";

export interface FleetResult {
  variant: Variant;
  pods: number;
  endpoints: number;
  /** Real ms. */
  wallMs: number;
  upMs: number;
  downMs: number;
  byOp: Record<string, number>;
  /** Requests that reached the emulator, 429s included. */
  sent: number;
  rejected429: number;
  /** The calls the work cannot do without (see `callsNeeded`). */
  needed: number;
  /** Shortest time between two consecutive pod lists, emulated s (undefined with fewer than two). */
  minListGapS?: number;
  /** max(start time, calls needed / quota), real ms. */
  lowerBoundMs: number;
  /** What the lower bound is made of. */
  bound: "time" | "quota";
  error?: string;
}

/**
 * The calls the fleet's design needs: per pod its create, the rename that ends a create (the
 * pending name says "unfinished" until the pod is RUNNING: one request traded for safety) and
 * its delete; per endpoint a save,
 * a save to 0/0 workers and a delete; and the status reads no provider can skip: one pod list
 * that sees every pod RUNNING, one that sees them gone, one endpoint read that sees the
 * workers up and one that sees them drained.
 */
export function callsNeeded(pods: number, endpoints: number): number {
  return 3 * pods + 3 * endpoints + 2 + (endpoints > 0 ? 2 : 0);
}

/**
 * `max(start time, calls needed / quota)` in real ms: the start time of the whole up-and-down
 * is a pod's PROVISIONING + STARTING plus an endpoint's drain (delete must wait for it).
 */
export function lowerBound(shape: Shape, pods: number, endpoints: number): { ms: number; bound: "time" | "quota" } {
  const timeMs = (shape.provisioningMs + shape.startingMs + (endpoints > 0 ? shape.drainMs : 0)) / shape.timeScale;
  const quotaMs = ((callsNeeded(pods, endpoints) / shape.quotaPerMinute) * 60_000) / shape.timeScale;
  return timeMs >= quotaMs ? { ms: timeMs, bound: "time" } : { ms: quotaMs, bound: "quota" };
}

const endpointInput = (i: number, templateId: string): EndpointInput => ({
  name: `bench-ep-${i}`,
  gpuIds: "AMPERE_24",
  templateId,
  type: "QB",
  workersMin: 1,
  workersMax: 2,
});

/** One fleet run of `variant` on a fresh emulator. */
export async function runFleet(shape: Shape, variant: Variant, n: number, limitMs: number): Promise<FleetResult> {
  const e = Math.floor(n / 5);
  const b = await startBench(shape);
  try {
    const gpuId = await setupGpuId(b.emu);
    const templateId = await setupServerlessTemplate(b.emu);
    const from = b.emu.requestLog().length;
    const lb = lowerBound(shape, n, e);
    const result: FleetResult = {
      variant,
      pods: n,
      endpoints: e,
      wallMs: 0,
      upMs: 0,
      downMs: 0,
      byOp: {},
      sent: 0,
      rejected429: 0,
      needed: callsNeeded(n, e),
      lowerBoundMs: lb.ms,
      bound: lb.bound,
    };
    const t0 = performance.now();
    try {
      await bounded(`fleet ${variant} N=${n}`, limitMs, async (signal) => {
        const phases = variant === "provider" ? await providerFleet(b, gpuId, templateId, n, e, signal) : await naiveFleet(b, gpuId, templateId, n, e, signal);
        result.upMs = phases.upMs;
        result.downMs = phases.downMs;
      });
      verifyGone(b, n, e);
    } catch (err) {
      result.error = err instanceof Error ? err.message : String(err);
    }
    result.wallMs = performance.now() - t0;
    const c = calls(b.emu, from);
    const lists = b.emu
      .requestLog()
      .slice(from)
      .filter((x) => x.op === "listPods")
      .map((x) => Date.parse(x.at));
    for (let i = 1; i < lists.length; i++) {
      const gap = b.emuSec(lists[i] - lists[i - 1]);
      result.minListGapS = Math.min(result.minListGapS ?? gap, gap);
    }
    result.byOp = c.byOp;
    result.sent = c.total;
    result.rejected429 = c.rejected429;
    return result;
  } finally {
    await b.emu.close();
  }
}

/** The run did the work: every pod terminated, every endpoint deleted. */
function verifyGone(b: Bench, n: number, e: number): void {
  const state = b.emu.state();
  const alive = state.pods.filter((p) => p.status !== "TERMINATED").length;
  if (state.pods.length !== n || alive > 0) throw new Error(`expected ${n} terminated pods, found ${state.pods.length} (${alive} alive)`);
  if (state.endpoints.length !== 0) throw new Error(`${state.endpoints.length} of ${e} endpoints left`);
}

async function providerFleet(b: Bench, gpuId: string, templateId: string, n: number, e: number, signal: AbortSignal) {
  const s = b.shape.timeScale;
  // Its own pacing registry: the budget of this key in this process, as in the plugin.
  const client = new ComputePlatform({ apiKey: b.key, apiUrl: b.emu.url, pacing: new PacingRegistry() });
  // The providers' default pace (lifecycle/poller.ts: 1.5 s, backing off to 10 s while PROVISIONING;
  // endpoints from 1 s to 15 s) in emulated time, as COMPUTEPLATFORM_POLL_INTERVAL_MS would set it.
  const pods = new PodProvider({ client: () => client, poll: { intervalMs: 1500 / s, maxIntervalMs: 10_000 / s }, signal });
  const eps = new ServerlessEndpointProvider({
    client: () => client,
    pollIntervalMs: 1000 / s,
    maxPollIntervalMs: 15_000 / s,
    signal,
  });
  try {
    const podInputs = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const r = await pods.check({}, { image: "bench/worker:1", gpu: { id: gpuId }, __logicalName: `pod${i}` });
        if (r.failures?.length) throw new Error(`check: ${JSON.stringify(r.failures)}`);
        return r.inputs!;
      }),
    );
    const epInputs = await Promise.all(
      Array.from({ length: e }, async (_, i) => {
        const { name: _name, ...rest } = endpointInput(i, templateId);
        const r = await eps.check({}, { ...rest, __logicalName: `ep${i}` });
        if (r.failures?.length) throw new Error(`check: ${JSON.stringify(r.failures)}`);
        return r.inputs!;
      }),
    );
    const t0 = performance.now();
    const [made, madeEps] = await Promise.all([
      Promise.all(podInputs.map((i) => pods.create(i))),
      Promise.all(epInputs.map((i) => eps.create(i))),
    ]);
    for (const m of made) if (m.outs?.status !== "RUNNING") throw new Error(`pod ${m.id} returned ${m.outs?.status}`);
    const t1 = performance.now();
    await Promise.all([
      ...made.map((m) => pods.delete(m.id, m.outs!)),
      ...madeEps.map((m) => eps.delete(m.id, m.outs!)),
    ]);
    return { upMs: t1 - t0, downMs: performance.now() - t1 };
  } finally {
    await client.close();
  }
}

async function naiveFleet(b: Bench, gpuId: string, templateId: string, n: number, e: number, signal: AbortSignal) {
  const client = new ComputePlatform({ apiKey: b.key, apiUrl: b.emu.url, pacing: false, maxRetries: 0 });
  const naive = new NaiveFleet(client, systemClock, 2000 / b.shape.timeScale, signal);
  try {
    const bodies: PodCreateParams[] = Array.from({ length: n }, (_, i) => ({
      name: `pod${i}-naive`,
      image: "bench/worker:1",
      gpu: { id: gpuId },
    }));
    const inputs = Array.from({ length: e }, (_, i) => endpointInput(i, templateId));
    const t0 = performance.now();
    const [podIds, epIds] = await Promise.all([
      Promise.all(bodies.map((p) => naive.createPod(p))),
      Promise.all(inputs.map((i) => naive.createEndpoint(i))),
    ]);
    const t1 = performance.now();
    await Promise.all([...podIds.map((id) => naive.deletePod(id)), ...epIds.map((id, i) => naive.deleteEndpoint(id, inputs[i]))]);
    return { upMs: t1 - t0, downMs: performance.now() - t1 };
  } finally {
    await client.close();
  }
}

// Benchmark 5 (issue 16): a whole stack through Pulumi's dynamic-provider plugin (the engine
// harness of tools/engine, the engine's default unbounded parallelism): N pods, N network
// volumes and N/5 endpoints. Per size, on one emulator with the default quotas:
//   up        with a setup key whose quota never binds (it builds the stack, not measured);
//   preview   of the unchanged stack, one step at a time: requests (none) and the plugin's
//             total time in Check and Diff;
//   refresh   through a new plugin with its own key, beside the per-resource baseline (each
//             resource read by its own GET, one `myself` per endpoint: what read did before);
//   destroy   of the N pods through a third plugin with its own key, beside the per-pod
//             baseline (DELETE, then GET until TERMINATED, retry-on-429) on N other pods;
// and the plugin processes' resident memory, sampled through every phase.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ComputePlatform, systemClock } from "../src/client";
import type { ApiKey, Exchange } from "../src/emulator";
import { NetworkVolume, Pod, ServerlessEndpoint } from "../src";
import { captureProgram, EngineStack, PROJECT, ProviderPlugin, type Registration, SECRET_KEYS } from "../tools/engine";
import { type Bench, calls, median, noPodLeft, type Shape, setupServerlessTemplate, SETUP_KEY, startBench } from "./common";
import type { Floor, FloorResult } from "./floor";
import { type PreviewTiming, timeCheckAndDiff } from "./preview-timing";
import { NaiveFleet } from "./naive";
import { startPlugin as startConfiguredPlugin } from "../tools/engine/rig";
import { probeOf, probeSince, recordCreates, upTimeline, type UpTimeline } from "./up-timeline";

/** The engine's default `--parallel`: unbounded. */
const UNBOUNDED = Number.POSITIVE_INFINITY;
/** A quota no setup step reaches. */
const FREE = { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 };
/** How often the plugins' memory is sampled, real ms. */
const SAMPLE_MS = 50;
/**
 * In the run that samples memory, pods take this many times longer to start, so the up's waits
 * last a hundred poll ticks or so: memory must not grow with them. (A quota-bound phase has few
 * ticks: its lists wait for the window like every other request.)
 */
const SLOW_START = 10;
/**
 * Requests the emulator keeps with their bodies: the last ones of a phase of a few requests (a
 * refresh: a list per kind, a split read's documents) are there to be told apart.
 */
const EXCHANGES_KEPT = 64;
/** Lone reads measured, 2.1 s apart (a read within 2 s of another counts as together). */
const LONE_READS = 3;
/**
 * Previews of the unchanged stack, each a fresh plugin process, alternating with the no-op
 * floor's when one is given: the machine's pace drifts by a third between minutes, so the two are
 * measured side by side and each reported as its median.
 */
export const PREVIEW_ROUNDS = 3;

export interface PhaseResult {
  /** Real ms. */
  wallMs: number;
  byOp: Record<string, number>;
  /** Requests that reached the emulator, 429s included. */
  sent: number;
  rejected429: number;
  /** The shortest time between two pod lists that reached the emulator, real ms (undefined: fewer than two). */
  minListGapMs?: number;
  /** The plugin process's peak resident memory in the phase, MB (sampled every SAMPLE_MS; undefined: not sampled). */
  peakRssMb?: number;
  /** Its reads of the account's endpoints over GraphQL (undefined: more requests than the emulator kept with their bodies). */
  endpointReads?: EndpointReads;
  error?: string;
}

/**
 * Reads of the account's endpoints over GraphQL (`myself { endpoints }`). A read too costly for
 * one document is sent as several, each over its own slice of the fields (src/client/endpoints.ts),
 * so the documents of one read are not each a list: in the order they came, a document that asks
 * no field the documents of the read before it asked is part of that read, one that asks one
 * again begins the next.
 */
export interface EndpointReads {
  /** Reads, however each was split. */
  lists: number;
  /** Documents answered. */
  documents: number;
  /** Documents refused for their cost (the read then sent again as smaller ones). */
  refused: number;
}

/** "1 endpoint list (3 documents, 1 refused for cost)": a phase's reads of the endpoints, a split read's documents apart from its lists. */
export function endpointLists(e: EndpointReads): string {
  const refused = e.refused > 0 ? `, ${e.refused} refused for cost` : "";
  return `${e.lists} endpoint list${e.lists === 1 ? "" : "s"} (${e.documents} document${e.documents === 1 ? "" : "s"}${refused})`;
}

/** The endpoint fields besides `id` a `myself` document asks for, or undefined when it reads no endpoints. */
function endpointFields(e: Exchange): string[] | undefined {
  const query = (e.requestBody as { query?: unknown } | undefined)?.query;
  const start = typeof query === "string" ? /\bmyself\s*\{\s*endpoints\s*\{/.exec(query) : null;
  if (!start) return undefined;
  const fields: string[] = [];
  let depth = 1;
  for (const [token] of (query as string).slice(start.index + start[0].length).matchAll(/[{}]|\w+/g)) {
    if (token === "{") depth++;
    else if (token === "}") depth--;
    else if (depth === 1 && token !== "id") fields.push(token);
    if (depth === 0) break;
  }
  return fields;
}

/** The endpoint reads among `exchanges`: lists, their documents, and the documents refused for their cost. */
export function endpointReadsOf(exchanges: readonly Exchange[]): EndpointReads {
  const reads: EndpointReads = { lists: 0, documents: 0, refused: 0 };
  let asked = new Set<string>();
  for (const e of exchanges) {
    const fields = endpointFields(e);
    if (fields === undefined) continue;
    const body = e.responseBody as { data?: { myself?: unknown }; errors?: { extensions?: { code?: unknown } }[] } | undefined;
    if (body?.data?.myself) {
      reads.documents++;
      if (reads.lists === 0 || fields.some((f) => asked.has(f))) {
        reads.lists++;
        asked = new Set();
      }
      for (const f of fields) asked.add(f);
    } else if (body?.errors?.some((err) => err.extensions?.code === "QUERY_TOO_COSTLY")) reads.refused++;
  }
  return reads;
}

/** The endpoint reads of the last `total` requests, if the emulator kept them all with their bodies. */
function endpointReadsIn(b: Bench, total: number): EndpointReads | undefined {
  if (total === 0) return { lists: 0, documents: 0, refused: 0 };
  const kept = b.emu.exchanges();
  return kept.length >= total ? endpointReadsOf(kept.slice(-total)) : undefined;
}

export interface MemorySample {
  /** Real ms since the phase began. */
  t: number;
  rssMb: number;
  /** Live heap after the last full collection (heap-probe.js), MB. */
  heapMb: number;
  /** Pod list calls answered so far in the phase (the poller's ticks, while it waits). */
  ticks: number;
}

export interface StackResult {
  pods: number;
  volumes: number;
  endpoints: number;
  up: PhaseResult;
  /** Where the up's time went against its quota bound (bench/up-timeline.ts). */
  upTimeline?: UpTimeline;
  /** The median round's preview (by Check + Diff), with every round's ms per resource. */
  preview: PhaseResult & PreviewTiming & { rounds: number[] };
  /** The no-op floor's previews, alternating with this stack's (asked for at one size). */
  floor?: FloorResult & { rounds: number[] };
  refresh: PhaseResult;
  /** Undefined where baselines were not run (above BASELINE_MAX). */
  refreshBaseline?: PhaseResult;
  /** Of the whole stack: pods, volumes, endpoints and the StackCost. */
  destroy: PhaseResult;
  destroyBaseline?: PhaseResult;
  /** A pod's PROVISIONING + STARTING in this run, real ms (the memory run's pods start SLOW_START times slower). */
  startMs: number;
  /** The stack's state as the engine keeps it (every resource's inputs and outputs), JSON bytes after the up. */
  stateBytes: number;
  /** What the destroy left on the platform: pods not TERMINATED, volumes, endpoints. */
  left: { pods: number; volumes: number; endpoints: number };
  /** Reads of one pod, alone, through the plugin, and the same GET sent directly (real ms, median of LONE_READS). */
  lone?: { pluginMs: number; directMs: number; byOp: Record<string, number> };
  /** Resident memory of the plugin process in each phase (sampled when asked). */
  memory?: Record<"up" | "refresh" | "destroy", MemorySample[]>;
  error?: string;
}

/** Above this many pods the per-resource baselines are not run: they only spend the quota, with 429s, for minutes. */
export const BASELINE_MAX = 300;

/** One request per kind read: pods, volumes, endpoints. */
export const REFRESH_NEEDED = 3;

/** The fewest calls of a destroy of N pods: a DELETE each, and one list that sees them gone. */
export const destroyNeeded = (pods: number) => pods + 1;

/**
 * What the design needs of the quota for an up of the stack: per pod its create and the rename
 * that ends a create, per volume its create, per endpoint its create, the rename that ends it (an
 * auto-name's pending mark) and one read of its releases (its version; the platform lists no
 * endpoint's releases beside another's); one list per kind before the creates (find-again's,
 * shared by them all), two catalog reads (the pods' CPU price, the endpoints' GPU price) and one
 * pod list that sees them RUNNING.
 */
export const stackUpNeeded = (r: Pick<StackResult, "pods" | "volumes" | "endpoints">) => 2 * r.pods + r.volumes + 3 * r.endpoints + 3 + 2 + 1;

/**
 * Of a destroy of the stack: a DELETE per pod and per volume, per endpoint its scale-down to 0/0
 * and its DELETE, one read of the endpoints (their drain loops share it) and one pod list that
 * sees the pods gone.
 */
export const stackDestroyNeeded = (r: Pick<StackResult, "pods" | "volumes" | "endpoints">) => r.pods + r.volumes + 2 * r.endpoints + 1 + 1;

/**
 * `needed / quota` in real ms (the emulator terminates a pod at once: no time term). The hour's
 * quota binds past it: each hour window (fixed, from the key's first request) lets `quotaPerHour`
 * go, at the minute's pace, so `needed` takes every full hour it fills, then the rest at the
 * minute's pace (3,000 an hour at 60 a minute: an hour's requests go in 50 minutes, then wait 10).
 */
export function quotaBoundMs(shape: Shape, needed: number): number {
  const hours = Math.max(0, Math.floor((needed - 1) / shape.quotaPerHour));
  const rest = needed - hours * shape.quotaPerHour;
  return (hours * 3_600_000 + (rest / shape.quotaPerMinute) * 60_000) / shape.timeScale;
}

const key = (name: string) => `cp_bench_${name}_${Math.random().toString(16).slice(2).padEnd(12, "0")}`;

/** Resident set size of process `pid` in MB (Linux); NaN where /proc is missing. */
function rssMb(pid: number | undefined): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The live heap the plugin's heap probe printed last, MB (NaN before its first line). */
function liveHeapMb(plugin: ProviderPlugin): number {
  const at = plugin.stderr.lastIndexOf("heap-probe ");
  return at < 0 ? Number.NaN : Number.parseInt(plugin.stderr.slice(at + 11), 10) / 2 ** 20;
}

/** Sample the plugin's memory every SAMPLE_MS while `fn` runs. */
async function sampled<T>(b: Bench, plugin: ProviderPlugin, into: MemorySample[], fn: () => Promise<T>): Promise<T> {
  // The emulator's counts, not its log: the log is copied entry by entry on each read, and the
  // emulator shares this process, so reading tens of thousands of entries 20 times a second
  // slowed the very phase measured (destroy of 1,000 pods: 3.85 x its bound, issue 50).
  const lists = () => b.emu.counts().listPods ?? 0;
  const from = lists();
  const t0 = performance.now();
  const sample = () => {
    into.push({ t: performance.now() - t0, rssMb: rssMb(plugin.pid), heapMb: liveHeapMb(plugin), ticks: lists() - from });
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
    sample();
  }
}

/** The highest resident memory sampled, MB (undefined: none read). */
const peak = (xs: MemorySample[]) => {
  const rss = xs.map((x) => x.rssMb).filter(Number.isFinite);
  return rss.length > 0 ? Math.max(...rss) : undefined;
};

/** A phase measured while the plugin's memory is sampled: its peak beside its requests. */
async function watched(b: Bench, plugin: ProviderPlugin, into: MemorySample[], fn: () => Promise<unknown>): Promise<PhaseResult> {
  const p = await phase(b, () => sampled(b, plugin, into, fn));
  return { ...p, peakRssMb: peak(into) };
}

/** Run `fn` as one measured phase: wall time and the requests it sent. */
export async function phase(b: Bench, fn: () => Promise<unknown>): Promise<PhaseResult> {
  const from = b.emu.requestLog().length;
  const t0 = performance.now();
  let error: string | undefined;
  try {
    const r = await fn();
    const failed = (r as { error?: unknown; failures?: unknown } | undefined) ?? {};
    if (failed.error) error = String((failed.error as Error).message ?? failed.error);
    else if (failed.failures) error = JSON.stringify(failed.failures);
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  const wallMs = performance.now() - t0;
  const c = calls(b.emu, from);
  const lists = b.emu
    .requestLog()
    .slice(from)
    .filter((e) => e.op === "listPods" && e.status !== 429)
    .map((e) => Date.parse(e.at));
  const gaps = lists.slice(1).map((at, i) => at - lists[i]);
  const endpointReads = endpointReadsIn(b, c.total);
  return {
    wallMs,
    byOp: c.byOp,
    sent: c.total,
    rejected429: c.rejected429,
    ...(gaps.length > 0 ? { minListGapMs: Math.min(...gaps) } : {}),
    ...(endpointReads ? { endpointReads } : {}),
    ...(error ? { error } : {}),
  };
}

/** The providers' default poll pace (1.5 s) in real ms at the bench's time scale, as COMPUTEPLATFORM_POLL_INTERVAL_MS sets it. */
export const pollMs = (shape: Shape) => Math.max(1, Math.round(1500 / shape.timeScale));

/**
 * Every promise settled, then the first failure passed on: a read that fails must not leave the
 * others running into the next phase's counts (retrying on 429 on their own).
 */
async function settledAll(work: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(work);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

/** The bound of one gRPC call in the bench: the whole run's, not the rig's minute for a test. */
const CALL_TIMEOUT_MS = 30 * 60_000;

export async function startPlugin(
  b: Bench,
  apiKey: string,
  probe: boolean,
  pacingProbe = false,
): Promise<{ plugin: ProviderPlugin; config: Record<string, string> }> {
  const preloads = [...(probe ? ["heap-probe.js"] : []), ...(pacingProbe ? ["pacing-probe.js"] : [])];
  const config = { "computeplatform:apiKey": apiKey, "computeplatform:apiUrl": b.emu.url };
  const plugin = await startConfiguredPlugin(config, {
    // The engine sets no deadline on a provider call: a create that waits its turn under the
    // quota takes as long as the quota makes it (300 pods at 60 a minute: minutes, emulated).
    callTimeoutMs: CALL_TIMEOUT_MS,
    env: {
      // The providers' default pace in emulated time, as COMPUTEPLATFORM_POLL_INTERVAL_MS sets it.
      COMPUTEPLATFORM_POLL_INTERVAL_MS: String(pollMs(b.shape)),
      ...(preloads.length > 0 ? { NODE_OPTIONS: preloads.map((p) => `--require ${join(__dirname, p)}`).join(" ") } : {}),
    },
  });
  return { plugin, config };
}

function program(n: number, templateId: string, config: Record<string, string>): Promise<Registration[]> {
  return captureProgram(
    () => {
      for (let i = 0; i < n; i++) new Pod(`pod${i}`, { image: "bench/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } });
      for (let i = 0; i < n; i++) new NetworkVolume(`vol${i}`, { size: 10, dataCenter: "EU-RO-1" });
      for (let i = 0; i < Math.floor(n / 5); i++) {
        new ServerlessEndpoint(`ep${i}`, { gpuIds: "AMPERE_24", templateId, workersMin: 0, workersMax: 1 });
      }
    },
    { project: PROJECT, stack: "bench", config, secretKeys: SECRET_KEYS },
  );
}

/** Until every pod the emulator holds is RUNNING (the baseline's pods, made with the setup key). */
async function untilRunning(b: Bench, ids: Set<string>, signal: AbortSignal): Promise<void> {
  while (!b.emu.state().pods.filter((p) => ids.has(p.id)).every((p) => p.status === "RUNNING")) {
    await systemClock.sleep(20, signal);
  }
}

/** One size: build the stack, then every measured phase on its own key. */
export async function runStack(shape: Shape, n: number, opts: { memory: boolean; lone: boolean; signal: AbortSignal; floor?: Floor }): Promise<StackResult> {
  const keys = { up: key("up"), refresh: key("refresh"), refreshBase: key("refresh_base"), destroy: key("destroy"), destroyBase: key("destroy_base") };
  const baselines = n <= BASELINE_MAX;
  const bench: ApiKey[] = Object.values(keys).map((k) => ({ key: k, scopes: ["read", "write"] }));
  const run = opts.memory ? { ...shape, startingMs: SLOW_START * shape.startingMs } : shape;
  const b = await startBench(run, { keys: [{ key: SETUP_KEY, scopes: ["read", "write"], quotas: FREE }, ...bench], recordExchanges: EXCHANGES_KEPT });
  const startMs = (run.provisioningMs + run.startingMs) / run.timeScale;
  const result: StackResult = { pods: n, volumes: n, endpoints: Math.floor(n / 5), startMs } as StackResult;
  // Every phase's memory is sampled at every size (its peak beside the state's size); the heap
  // probe only in the memory run: its full collection every 250 ms of a plugin holding a
  // thousand resources starved the up it measured (N = 1,000: no result in 32 minutes with it,
  // 297 s without, issue 50), as the request-log sampler once did.
  const memory: Record<"up" | "preview" | "refresh" | "destroy", MemorySample[]> = { up: [], preview: [], refresh: [], destroy: [] };
  if (opts.memory) result.memory = memory;
  const plugins = new Set<ProviderPlugin>();
  const clients: ComputePlatform[] = [];
  const stop = async (p: ProviderPlugin) => {
    if (plugins.delete(p)) await p.stop();
  };
  const started = async (apiKey: string, probe = opts.memory, pacingProbe = false) => {
    const s = await startPlugin(b, apiKey, probe, pacingProbe);
    plugins.add(s.plugin);
    return s;
  };
  try {
    const templateId = await setupServerlessTemplate(b.emu);
    // The baseline destroy's own pods, made first with the setup key: they start while the stack is built.
    const setup = new ComputePlatform({ apiKey: SETUP_KEY, apiUrl: b.emu.url });
    clients.push(setup);
    const others = await Promise.all(
      Array.from({ length: baselines ? n : 0 }, (_, i) => setup.pods.create({ name: `base${i}`, image: "bench/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } })),
    );

    // Up, on its own key at the platform's quotas: the stack to measure.
    const a = await started(keys.up, opts.memory, true);
    const regs = await program(n, templateId, a.config);
    const stack = new EngineStack(a.plugin, { project: PROJECT, stack: "bench" });
    let t0 = 0;
    const engineCreates = recordCreates(a.plugin, () => t0);
    const from = b.emu.requestLog().length;
    const probed = probeOf(a.plugin);
    const since = Date.now();
    t0 = performance.now();
    result.up = await watched(b, a.plugin, memory.up, () => stack.up(regs, { parallel: UNBOUNDED }));
    const arrivals = b.emu
      .requestLog()
      .slice(from)
      .map((e) => ({ atMs: Date.parse(e.at) - since, op: e.op, status: e.status }));
    result.upTimeline = upTimeline(run, arrivals, engineCreates, result.up.wallMs, probeSince(a.plugin, probed));
    if (result.up.error) throw new Error(`up: ${result.up.error}`);
    await stop(a.plugin);
    result.stateBytes = JSON.stringify([...stack.resources.values()]).length;

    // Preview: a new plugin (a new `pulumi` command), the heap probe off (its collections would
    // be counted in every Check and Diff). Requests would go on the refresh's key; none go.
    const resources = result.pods + result.volumes + result.endpoints;
    const perResource = (t: { checkMs: number; diffMs: number }, count: number) => (t.checkMs + t.diffMs) / count;
    const ours: StackResult["preview"][] = [];
    const floors: FloorResult[] = [];
    for (let round = 0; round < PREVIEW_ROUNDS; round++) {
      const v = await started(keys.refresh, false);
      const viewing = new EngineStack(v.plugin, { project: PROJECT, stack: "bench" });
      for (const [urn, res] of stack.resources) viewing.resources.set(urn, structuredClone(res));
      const timing = timeCheckAndDiff(v.plugin);
      const previewed = await watched(b, v.plugin, memory.preview, () => viewing.preview(regs)).finally(timing.stop);
      ours.push({ ...previewed, ...timing.figures(), rounds: [] });
      await stop(v.plugin);
      if (opts.floor) floors.push(await opts.floor.preview());
    }
    const middle = <T extends { checkMs: number; diffMs: number }>(xs: T[], count: number): T =>
      [...xs].sort((x, y) => perResource(x, count) - perResource(y, count))[Math.floor(xs.length / 2)]!;
    result.preview = { ...middle(ours, resources), rounds: ours.map((t) => perResource(t, resources)) };
    if (opts.floor) {
      const failed = floors.find((f) => f.error);
      const count = opts.floor.resources;
      result.floor = failed ? { ...failed, rounds: [] } : { ...middle(floors, count), rounds: floors.map((f) => perResource(f, count)) };
    }

    // Refresh: another plugin, its own key.
    const r = await started(keys.refresh);
    const fresh = new EngineStack(r.plugin, { project: PROJECT, stack: "bench" });
    for (const [urn, res] of stack.resources) fresh.resources.set(urn, structuredClone(res));
    result.refresh = await watched(b, r.plugin, memory.refresh, () => fresh.refresh({ parallel: UNBOUNDED }));

    if (opts.lone) {
      // Later, alone: one pod read through the plugin, and the same GET sent directly.
      const one = [...fresh.resources.values()].find((x) => x.type.endsWith(":Pod"))!;
      const direct = new ComputePlatform({ apiKey: keys.refresh, apiUrl: b.emu.url });
      clients.push(direct);
      await direct.pods.get(one.id);
      const viaPlugin: number[] = [];
      const directly: number[] = [];
      const from = b.emu.requestLog().length;
      for (let i = 0; i < LONE_READS; i++) {
        await systemClock.sleep(2100, opts.signal);
        const t0 = performance.now();
        await r.plugin.read(one.urn, one.id, one.outputs, one.inputs);
        viaPlugin.push(performance.now() - t0);
        const t1 = performance.now();
        await direct.pods.get(one.id);
        directly.push(performance.now() - t1);
      }
      // What the plugin's reads sent (the direct GETs apart).
      const byOp = calls(b.emu, from).byOp;
      byOp.getPod -= LONE_READS;
      result.lone = { pluginMs: median(viaPlugin), directMs: median(directly), byOp: Object.fromEntries(Object.entries(byOp).map(([k, v]) => [k, v / LONE_READS])) };
    }
    await stop(r.plugin);

    // The baseline refresh: every resource the platform holds read by its own request, all at
    // once, as the engine sends them (the StackCost resource reads nothing from the platform).
    if (baselines) {
      const naiveClient = new ComputePlatform({ apiKey: keys.refreshBase, apiUrl: b.emu.url, pacing: false, maxRetries: 0 });
      clients.push(naiveClient);
      const naive = new NaiveFleet(naiveClient, systemClock, 2000 / shape.timeScale, opts.signal);
      const read: Record<string, (id: string) => Promise<unknown>> = {
        Pod: (id) => naive.readPod(id),
        NetworkVolume: (id) => naive.readVolume(id),
        ServerlessEndpoint: (id) => naive.readEndpoint(id),
      };
      const platformHeld = [...stack.resources.values()].filter((res) => read[res.type.split(":").at(-1)!]);
      result.refreshBaseline = await phase(b, () => settledAll(platformHeld.map((res) => read[res.type.split(":").at(-1)!](res.id))));
      await untilRunning(b, new Set(others.map((p) => p.id)), opts.signal);
    }

    // Destroy of the whole stack: a third plugin, its own key.
    const d = await started(keys.destroy);
    const destroying = new EngineStack(d.plugin, { project: PROJECT, stack: "bench" });
    for (const [urn, res] of stack.resources) destroying.resources.set(urn, structuredClone(res));
    result.destroy = await watched(b, d.plugin, memory.destroy, () => destroying.destroy({ parallel: UNBOUNDED }));
    await stop(d.plugin);
    const after = b.emu.state();
    result.left = {
      pods: after.pods.filter((p) => p.status !== "TERMINATED" && !p.name.startsWith("base")).length,
      volumes: after.networkVolumes.length,
      endpoints: after.endpoints.length,
    };

    if (baselines) {
      const naiveDown = new ComputePlatform({ apiKey: keys.destroyBase, apiUrl: b.emu.url, pacing: false, maxRetries: 0 });
      clients.push(naiveDown);
      const down = new NaiveFleet(naiveDown, systemClock, 2000 / shape.timeScale, opts.signal);
      result.destroyBaseline = await phase(b, () => settledAll(others.map((p) => down.deletePod(p.id))));
    }
    noPodLeft(b.emu);
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    for (const p of [...plugins]) await stop(p);
    for (const c of clients) await c.close();
    await b.emu.close();
  }
  return result;
}

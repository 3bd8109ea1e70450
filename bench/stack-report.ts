// The tables and targets of benchmark 5 (stack.ts): refresh, preview and destroy through the
// plugin, each beside its per-resource baseline, and the plugin's memory over time.
import { fmt, median, percentile, type Shape, table } from "./common";
import type { FloorResult } from "./floor";
import type { CallTimes } from "./preview-timing";
import { BASELINE_MAX, destroyNeeded, endpointLists, type MemorySample, type PhaseResult, pollMs, quotaBoundMs, REFRESH_NEEDED, stackDestroyNeeded, type StackResult } from "./stack";

/** A target: what, met (undefined: not run), what was measured. */
export type Target = [string, boolean | undefined, string];

const sum = (r: PhaseResult, ...ops: string[]) => ops.reduce((n, op) => n + (r.byOp[op] ?? 0), 0);

/** "1 list", "30 get", "1 list + 2 get": how a kind was read. */
function reads(r: PhaseResult, list: string, get: string): string {
  const parts = [sum(r, list) ? `${sum(r, list)} list` : "", sum(r, get) ? `${sum(r, get)} get` : ""].filter(Boolean);
  return parts.join(" + ") || "-";
}

const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => total(xs) / Math.max(1, xs.length);

/**
 * How resident memory moved with the poll ticks of a phase: its mean over the second half of
 * the ticks minus its mean over the first half (the burst of calls that starts a phase is
 * before the first tick). NaN when the phase had fewer than MIN_TICKS ticks: too few to tell.
 */
export function tickGrowthMb(samples: MemorySample[], of: "rssMb" | "heapMb"): number {
  const ticks = samples.at(-1)?.ticks ?? 0;
  if (ticks < MIN_TICKS) return Number.NaN;
  const avg = (keep: (s: MemorySample) => boolean) => mean(samples.filter(keep).map((s) => s[of]));
  return avg((s) => s.ticks > ticks / 2) - avg((s) => s.ticks >= 1 && s.ticks <= ticks / 2);
}

/**
 * The provider's row and the baseline's, per size: variant, N, the phase's own `cells`, then
 * requests, 429s, wall, lower bound and their ratio.
 */
function beside(
  results: StackResult[],
  phase: "refresh" | "destroy",
  lbMs: (r: StackResult, variant: "provider" | "baseline") => number,
  cells: (r: StackResult, p: PhaseResult) => (string | number)[],
): (string | number)[][] {
  return results.flatMap((r) =>
    (["provider", "baseline"] as const).flatMap((variant) => {
      const p = variant === "provider" ? r[phase] : r[phase === "refresh" ? "refreshBaseline" : "destroyBaseline"];
      if (!p) return [];
      const lb = lbMs(r, variant);
      return [[
        variant,
        r.pods,
        ...cells(r, p),
        p.sent,
        p.rejected429,
        fmt(p.wallMs / 1000, 2),
        fmt(lb / 1000, 2),
        p.error ? `FAILED: ${p.error}` : fmt(p.wallMs / lb, 2),
      ]];
    }),
  );
}

/** Memory moves with garbage collection; growth with the ticks is what must not happen. */
const GROWTH_LIMIT_MB = 5;
/** Fewer ticks than this say nothing about growth with them. */
const MIN_TICKS = 20;
/** The plugin overhead budget per call of benchmark 3: a lone read must not lose more than that. */
const LONE_LIMIT_MS = 50;
/** How long one list answers the reads of its kind (shared-reads.ts, SharedList's maxAgeMs), real ms. */
const TICK_MS = 2000;

/**
 * Where a preview's time goes, call by call: for each kind and method, its first call (the one
 * that loads the kind's code), its median and 90th-percentile call and its sum. Then the
 * one-off part: every first call's excess over its kind's median, and the StackCost's calls
 * (one resource whose Check and Diff carry every costed resource's entry, so they grow with
 * the stack but happen once); and what is left per resource, against the floor's.
 */
function previewShape(ours: CallTimes, ourCount: number, floor: CallTimes, floorCount: number): string {
  const rows: (string | number)[][] = [];
  const oneOff = (by: CallTimes) =>
    total(Object.entries(by).map(([call, xs]) => (call.startsWith("StackCost ") ? total(xs) : xs[0]! - median(xs))));
  for (const [who, by] of [["this stack", ours], ["no-op floor", floor]] as const) {
    for (const [call, xs] of Object.entries(by)) {
      rows.push([who, call, xs.length, fmt(xs[0]!, 1), fmt(median(xs), 2), fmt(percentile(xs, 90), 2), fmt(total(xs), 0)]);
    }
  }
  const all = (by: CallTimes) => total(Object.values(by).flat());
  const left = (by: CallTimes, count: number) => (all(by) - oneOff(by)) / count;
  return (
    "   Where the time goes (the median rounds), call by call:\n" +
    table(["preview of", "kind and call", "calls", "first ms", "median ms", "p90 ms", "sum ms"], rows).replace(/^/gm, "   ") +
    `\n   One-off: the first calls' excess over their kind's median and the StackCost's calls, ${fmt(oneOff(ours), 0)} ms of this stack's ` +
    `${fmt(all(ours), 0)} ms (the floor's first calls: ${fmt(oneOff(floor), 0)} ms of ${fmt(all(floor), 0)}). Without them, ` +
    `${fmt(left(ours, ourCount), 2)} ms per resource against ${fmt(left(floor, floorCount), 2)} ms: ` +
    `${fmt(left(ours, ourCount) / left(floor, floorCount), 2)} x (a diagnosis; the target below counts every call).`
  );
}

/** A preview's Check + Diff per resource may cost this many times the no-op provider's. */
const FLOOR_LIMIT = 1.2;

const perResource = (p: { checkMs: number; diffMs: number }, resources: number) => (p.checkMs + p.diffMs) / resources;

export function stackReport(shape: Shape, results: StackResult[], floor?: FloorResult & { rounds?: number[] }): { text: string; targets: Target[] } {
  const out: string[] = [];
  const targets: Target[] = [];
  const s = shape.timeScale;
  const ok = results.filter((r) => !r.error);
  for (const r of results.filter((x) => x.error)) out.push(`   N=${r.pods} FAILED: ${r.error}`);

  out.push(
    `\n5. Refresh through Pulumi's plugin: N pods + N volumes + N/5 endpoints, the engine's parallelism unbounded ` +
      `(times real; emulated = x${s}; quota ${shape.quotaPerMinute}/min, each phase its own key)`,
  );
  const refreshLb = quotaBoundMs(shape, REFRESH_NEEDED);
  out.push(
    table(
      ["variant", "N", "resources", "pods", "volumes", "endpoints", "requests", "429s", "wall s", "LB s", "wall/LB"],
      beside(ok, "refresh", () => refreshLb, (r, p) => [
        r.pods + r.volumes + r.endpoints,
        reads(p, "listPods", "getPod"),
        reads(p, "listNetworkVolumes", "getNetworkVolume"),
        p.endpointReads ? endpointLists(p.endpointReads) : `${sum(p, "myself")} myself`,
      ]),
    ),
  );
  out.push(
    `   LB = ${REFRESH_NEEDED} requests (one read per kind) / quota, a fluid bound; the provider's wall is the plugin's handling of every Read.\n` +
      "   Baseline: each resource read by its own request (GET by id, one myself per endpoint), all at once, retry-on-429, pacing off.",
  );
  const lone = ok.find((r) => r.lone)?.lone;
  if (lone) {
    out.push(
      `   A lone read (one pod, 2 s after the refresh, median of 3): ${Object.entries(lone.byOp).map(([op, n]) => `${n} ${op}`).join(", ")} each; ` +
        `${fmt(lone.pluginMs)} ms through the plugin, the same GET sent directly ${fmt(lone.directMs)} ms (the batching window is 15 ms of the difference).`,
    );
  }

  out.push(`\n6. Destroy of the stack through the plugin, beside the per-pod baseline on N other pods (times real; emulated = x${s})`);
  out.push(
    table(
      ["variant", "N", "deletePod", "status reads", "min list gap ms", "requests", "429s", "wall s", "LB s", "wall/LB"],
      beside(ok, "destroy", (r, variant) => quotaBoundMs(shape, variant === "provider" ? stackDestroyNeeded(r) : destroyNeeded(r.pods)), (_, p) => [
        sum(p, "deletePod"),
        reads(p, "listPods", "getPod"),
        p.minListGapMs === undefined ? "-" : fmt(p.minListGapMs, 0),
      ]),
    ),
  );
  out.push(
    "   The provider destroys the whole stack (its LB: table 11's); the baseline only N pods. LB = max(terminate time, needed / quota):\n" +
      "   the emulator terminates at once, so the quota term; fluid, so a run may end up to a window before it. Baseline (N <= " +
      `${BASELINE_MAX} only): N DELETEs + 1 list, each DELETE then its own GET every 2 emulated s until TERMINATED, retry-on-429.\n` +
      `   min list gap: the shortest time between two pod lists reaching the emulator; the poll tick is ${pollMs(shape)} ms (1.5 emulated s).`,
  );

  out.push(`\n7. Preview of the unchanged stack through the plugin, one step at a time, a fresh plugin process, heap probe off (real ms)`);
  out.push(
    table(
      ["N", "resources", "requests", "Check ms", "Diff ms", "calls", "ms per resource", "up: catalog requests"],
      ok.map((r) => {
        const resources = r.pods + r.volumes + r.endpoints;
        const catalog = Object.entries(r.up.byOp).filter(([op]) => /Gpu|Cpu|DataCenter/.test(op));
        return [
          r.pods,
          resources,
          r.preview.sent,
          fmt(r.preview.checkMs, 0),
          fmt(r.preview.diffMs, 0),
          r.preview.calls,
          fmt(perResource(r.preview, resources), 2),
          catalog.length ? catalog.map(([op, n]) => `${n} ${op}`).join(", ") : "0",
        ];
      }),
    ),
  );
  if (floor) {
    out.push(
      floor.error
        ? `   No-op floor FAILED: ${floor.error}`
        : `   The floor: ${floor.resources} resources of a no-op dynamic provider (check returns its inputs, diff no change) through the same plugin,\n` +
            `   previewed the same way: Check ${fmt(floor.checkMs, 0)} ms + Diff ${fmt(floor.diffMs, 0)} ms in ${floor.calls} calls, ` +
            `${fmt(perResource(floor, floor.resources), 2)} ms per resource (bench/floor.ts), the median of ${floor.rounds?.length ?? 1} previews.`,
    );
    const beside = ok.find((r) => r.floor === floor);
    if (beside && floor.rounds?.length) {
      out.push(
        `   Round by round, each a fresh plugin, this stack's preview then the floor's (ms per resource): ` +
          floor.rounds.map((f, i) => `${fmt(beside.preview.rounds[i] ?? Number.NaN, 2)} / ${fmt(f, 2)} = ${fmt((beside.preview.rounds[i] ?? Number.NaN) / f, 2)} x`).join("; "),
      );
    }
    if (beside && floor.byCall) {
      const count = beside.pods + beside.volumes + beside.endpoints;
      out.push(previewShape(beside.preview.byCall, count, floor.byCall, floor.resources));
      if (floor.rigMs !== undefined) {
        const less = (p: { checkMs: number; diffMs: number; rigMs?: number }, n: number) => (p.checkMs + p.diffMs - (p.rigMs ?? 0)) / n;
        out.push(
          `   The rig's own side of the wire (tools/engine encodes each request and decodes each response with google-protobuf in this\n` +
            `   process, the work Pulumi's Go engine does under the CLI): ${fmt(beside.preview.rigMs, 0)} ms of this stack's Check + Diff, ` +
            `${fmt(floor.rigMs, 0)} ms of the floor's. Without it, ${fmt(less(beside.preview, count), 2)} ms per resource against ` +
            `${fmt(less(floor, floor.resources), 2)} ms: ${fmt(less(beside.preview, count) / less(floor, floor.resources), 2)} x (a diagnosis).`,
        );
      }
    }
  }

  const mem = ok.find((r) => r.memory);
  if (mem?.memory) {
    out.push(`\n8. The plugin process's resident memory at N = ${mem.pods}, sampled every 50 ms (each phase a new plugin process, as each pulumi command)`);
    const phases = Object.entries(mem.memory) as [string, MemorySample[]][];
    out.push(
      table(
        ["phase", "s", "samples", "pod lists", "RSS start MB", "max MB", "end MB", "RSS growth over the ticks", "live heap end MB", "heap growth over the ticks"],
        phases.map(([name, xs]) => [
          name,
          fmt((xs.at(-1)?.t ?? 0) / 1000, 1),
          xs.length,
          xs.at(-1)?.ticks ?? 0,
          fmt(xs[0]?.rssMb ?? Number.NaN),
          fmt(Math.max(...xs.map((x) => x.rssMb))),
          fmt(xs.at(-1)?.rssMb ?? Number.NaN),
          fmt(tickGrowthMb(xs, "rssMb")),
          fmt(xs.at(-1)?.heapMb ?? Number.NaN),
          fmt(tickGrowthMb(xs, "heapMb")),
        ]),
      ),
    );
    out.push(
      `   growth over the ticks = the mean over the second half of the phase's pod lists minus over the first half, MB ("-": under ${MIN_TICKS} lists).\n` +
        "   Live heap: after a full collection every 250 ms (bench/heap-probe.js, preloaded into the plugin of this run only): what RSS\n" +
        "   cannot tell, garbage not yet collected from memory that stays.\n" +
        "   The rise before the first list is the burst of calls a phase starts with; refresh and destroy send few lists (refresh reads\n" +
        "   share them; destroy's wait for the quota window like every other request), so the up, whose pods start slowly here, shows the ticks.",
    );
    const measured = phases
      .map(([name, xs]) => [name, tickGrowthMb(xs, "heapMb"), tickGrowthMb(xs, "rssMb"), xs.at(-1)?.ticks ?? 0] as const)
      .filter(([, g]) => Number.isFinite(g));
    targets.push([
      `plugin memory does not grow with the poll ticks at N = ${mem.pods} (live heap: under ${GROWTH_LIMIT_MB} MB from the first half of the ticks to the second)`,
      measured.length > 0 ? measured.every(([, g]) => g < GROWTH_LIMIT_MB) : undefined,
      measured.length > 0
        ? measured.map(([n, heap, rss, t]) => `${n}: live heap ${fmt(heap)} MB, RSS ${fmt(rss)} MB over ${t} lists`).join(", ")
        : `no phase had ${MIN_TICKS} lists`,
    ]);
  }

  // Targets of issue 16. A list answers the reads of its kind for 2 s (shared-reads.ts): a
  // refresh the plugin takes longer to answer than that may send one more per kind per 2 s.
  const ticks = (r: StackResult) => Math.max(1, Math.ceil(r.refresh.wallMs / TICK_MS));
  const perKind = (r: StackResult) =>
    ["listPods", "listNetworkVolumes", "myself"].every((op) => sum(r.refresh, op) <= ticks(r)) && sum(r.refresh, "getPod", "getNetworkVolume") <= 2;
  targets.push([
    "refresh: at most one list per kind per 2 s tick, whatever N; no GET by id but a lone first read",
    ok.length ? ok.every(perKind) : undefined,
    ok
      .map((r) => `N=${r.pods}: ${r.refresh.sent} requests in ${ticks(r)} tick(s)${r.refreshBaseline ? ` (baseline ${r.refreshBaseline.sent}, ${r.refreshBaseline.rejected429} x 429)` : ""}`)
      .join("; "),
  ]);
  if (lone) {
    const ones = total(Object.values(lone.byOp));
    targets.push([`a lone read: one request, not slowed noticeably (plugin - direct under ${LONE_LIMIT_MS} ms)`, ones === 1 && lone.pluginMs - lone.directMs < LONE_LIMIT_MS, `${ones} request, ${fmt(lone.pluginMs - lone.directMs)} ms over the direct GET`]);
  }
  // Lists answer before the next tick starts, so two lists closer than a tick are two lists in one tick.
  const tick = pollMs(shape);
  targets.push([
    `destroy: one DELETE per pod, no GET by id, at most one list per poll tick (${tick} ms)`,
    ok.length
      ? ok.every((r) => sum(r.destroy, "deletePod") === r.pods && sum(r.destroy, "getPod") === 0 && (r.destroy.minListGapMs ?? tick) >= tick)
      : undefined,
    ok
      .map(
        (r) =>
          `N=${r.pods}: ${sum(r.destroy, "deletePod")} DELETE, ${reads(r.destroy, "listPods", "getPod")}, min gap ${r.destroy.minListGapMs === undefined ? "-" : fmt(r.destroy.minListGapMs, 0)} ms`,
      )
      .join("; "),
  ]);
  // The destroy's wall and every phase's 429s: table 11's targets (bench/stack-scale.ts).
  const big = ok.find((r) => r.pods + r.volumes + r.endpoints >= 300) ?? ok.at(-1);
  if (big) {
    targets.push([
      `preview of ${big.pods + big.volumes + big.endpoints} resources sends no request`,
      big.preview.sent === 0,
      `${big.preview.sent} requests; Check ${fmt(big.preview.checkMs, 0)} ms + Diff ${fmt(big.preview.diffMs, 0)} ms in the plugin`,
    ]);
    const resources = big.pods + big.volumes + big.endpoints;
    const same = floor && !floor.error && floor.resources === resources;
    const ratio = same ? perResource(big.preview, resources) / perResource(floor, resources) : Number.NaN;
    targets.push([
      `preview Check + Diff per resource within ${FLOOR_LIMIT} x a no-op dynamic provider's, ${resources} resources`,
      same ? ratio <= FLOOR_LIMIT : undefined,
      same
        ? `${fmt(perResource(big.preview, resources), 2)} ms against ${fmt(perResource(floor, resources), 2)} ms: ${fmt(ratio, 2)} x`
        : floor?.error
          ? `floor FAILED: ${floor.error}`
          : `floor not run at ${resources} resources`,
    ]);
  }
  return { text: out.join("\n"), targets };
}

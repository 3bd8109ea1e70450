// Scale as a measured property (issue 50): every phase of benchmark 5 at each size, against what
// the design needs of the quota and beside the reference size's cost per resource, and the
// targets a stack of thousands must meet.
import { fmt, type Shape, table } from "./common";
import { byKind } from "./quota";
import { endpointLists, type PhaseResult, quotaBoundMs, stackDestroyNeeded, type StackResult, stackUpNeeded } from "./stack";
import type { Target } from "./stack-report";

/** The size the others are compared with: the issue's smallest, N = 300 pods. */
export const REFERENCE_N = 300;
/** Up and destroy within this many times their quota bound. */
const WALL_LIMIT = 1.15;
/** A preview's Check + Diff per resource at the largest size within this many times the reference size's. */
const PREVIEW_LIMIT = 1.2;

const PHASES = ["up", "preview", "refresh", "destroy"] as const;
type PhaseName = (typeof PHASES)[number];

export const resourcesOf = (r: StackResult) => r.pods + r.volumes + r.endpoints;
const op = (p: PhaseResult, ...ops: string[]) => ops.reduce((n, o) => n + (p.byOp[o] ?? 0), 0);

/**
 * A phase's requests by kind, its GraphQL reads of the endpoints counted as lists with their
 * documents (`myself`, and the `graphql` of a document refused before any field ran) when known.
 */
export function kindsOf(p: PhaseResult): string {
  const e = p.endpointReads;
  if (!e || e.documents + e.refused === 0) return byKind(p);
  const rest = { ...p.byOp, myself: op(p, "myself") - e.documents, graphql: op(p, "graphql") - e.refused };
  const others = byKind({ ...p, byOp: Object.fromEntries(Object.entries(rest).filter(([, n]) => n > 0)) });
  return [others, endpointLists(e)].filter(Boolean).join(", ");
}

/** A phase's quota bound, real ms; preview and refresh need one read per kind at most. */
function boundMs(shape: Shape, r: StackResult, name: PhaseName): number {
  if (name === "up") return Math.max(r.startMs, quotaBoundMs(shape, stackUpNeeded(r)));
  if (name === "destroy") return quotaBoundMs(shape, stackDestroyNeeded(r));
  return name === "refresh" ? quotaBoundMs(shape, 3) : 0;
}

/** A phase's cost per resource: a preview's Check + Diff in the plugin, any other phase's wall (real ms). */
function perResource(r: StackResult, name: PhaseName): number {
  const p = r[name];
  return (name === "preview" ? r.preview.checkMs + r.preview.diffMs : p.wallMs) / resourcesOf(r);
}

export function scaleReport(shape: Shape, results: StackResult[]): { text: string; targets: Target[] } {
  const ok = results.filter((r) => !r.error).sort((a, b) => a.pods - b.pods);
  const ref = ok.find((r) => r.pods === REFERENCE_N) ?? ok[0];
  const out: string[] = [];
  const targets: Target[] = [];
  if (!ref) return { text: "", targets };
  out.push(
    `\n11. Scale: every phase of the stack at each N (N pods + N volumes + N/5 endpoints), each a fresh plugin on its own key at ` +
      `${shape.quotaPerMinute}/min and ${shape.quotaPerHour}/h (time scale ${shape.timeScale}; times real), beside N = ${ref.pods}'s cost per resource`,
  );
  const rows: (string | number)[][] = [];
  for (const r of ok) {
    for (const name of PHASES) {
      const p = r[name];
      const lb = boundMs(shape, r, name);
      const cost = perResource(r, name);
      rows.push([
        name,
        r.pods,
        resourcesOf(r),
        kindsOf(p) || "-",
        p.sent,
        p.rejected429,
        fmt(p.wallMs / 1000, 1),
        lb > 0 ? fmt(lb / 1000, 1) : "-",
        lb > 0 && name !== "refresh" ? fmt(p.wallMs / lb, 2) : "-",
        fmt(p.peakRssMb ?? Number.NaN, 0),
        fmt(cost, 2),
        fmt(cost / perResource(ref, name), 2),
      ]);
    }
  }
  out.push(
    table(["phase", "N", "resources", "requests by kind", "requests", "429s", "wall s", "LB s", "wall/LB", "peak RSS MB", "ms per resource", `x N=${ref.pods}`], rows),
  );
  out.push(
    `   LB: up = max(start time, needed / quota), needed = 2 per pod + 1 per volume + 3 per endpoint (create, rename, releases) + 3 lists\n` +
      `   + 2 catalog reads + 1 list that sees the pods RUNNING; destroy = needed / quota, needed = 1 per pod + 1 per volume + 2 per endpoint\n` +
      `   (scale-down, DELETE) + 1 endpoints read + 1 pod list. Past ${shape.quotaPerHour} requests the hour's window binds: each full hour, then the rest at the minute's pace.\n` +
      "   ms per resource: preview, the plugin's Check + Diff (the median of its rounds); other phases, the wall. Peak RSS: the plugin's,\n" +
      "   sampled every 50 ms (the memory run's up, refresh and destroy also under the heap probe, a full collection every 250 ms).",
  );
  out.push(upTimes(shape, ok));
  const states = ok.map((r) => `N=${r.pods}: ${fmt(r.stateBytes / 2 ** 20, 1)} MB (${fmt(r.stateBytes / resourcesOf(r), 0)} B per resource)`);
  out.push(`   The state after the up (every resource's inputs and outputs, as JSON): ${states.join(", ")}.`);

  const each = (f: (r: StackResult) => string) => ok.map((r) => `N=${r.pods}: ${f(r)}`).join("; ");
  for (const name of ["up", "destroy"] as const) {
    targets.push([
      `scale: ${name} within ${WALL_LIMIT} x its quota bound at every N`,
      ok.every((r) => !r[name].error && r[name].wallMs / boundMs(shape, r, name) <= WALL_LIMIT),
      each((r) => `${fmt(r[name].wallMs / boundMs(shape, r, name), 2)} x of ${fmt(boundMs(shape, r, name) / 1000, 0)} s`),
    ]);
  }
  // The endpoints' list is counted as reads, not documents: one read of 600 endpoints is two or more.
  const lists = ["listPods", "listNetworkVolumes"];
  const endpointsRead = (r: StackResult) => r.refresh.endpointReads;
  targets.push([
    "scale: refresh reads one list per kind (pods, volumes, endpoints) and nothing by id, at every N",
    ok.every((r) => lists.every((l) => op(r.refresh, l) <= 1) && (endpointsRead(r)?.lists ?? Number.POSITIVE_INFINITY) <= 1 && op(r.refresh, "getPod", "getNetworkVolume") === 0),
    each((r) => {
      const e = endpointsRead(r);
      const endpoints = e ? endpointLists(e) : `endpoint lists not counted (${op(r.refresh, "myself")} myself: more requests than the emulator kept with their bodies)`;
      return `${lists.map((l) => `${op(r.refresh, l)} ${l}`).join(", ")}, ${endpoints}, ${op(r.refresh, "getPod", "getNetworkVolume")} GETs`;
    }),
  ]);
  const big = ok.at(-1)!;
  targets.push([
    `scale: preview's Check + Diff per resource at N = ${big.pods} within ${PREVIEW_LIMIT} x N = ${ref.pods}'s`,
    big === ref ? undefined : perResource(big, "preview") / perResource(ref, "preview") <= PREVIEW_LIMIT,
    `${fmt(perResource(big, "preview"), 2)} ms against ${fmt(perResource(ref, "preview"), 2)} ms: ${fmt(perResource(big, "preview") / perResource(ref, "preview"), 2)} x`,
  ]);
  // The plugin's memory against the state it holds: its peak's growth from the reference size no
  // faster than the state's (a fixed part, Pulumi's SDK and this package, makes the ratio small).
  const growth = (r: StackResult, name: PhaseName) => (r[name].peakRssMb ?? Number.NaN) / (ref[name].peakRssMb ?? Number.NaN);
  const stateGrowth = big.stateBytes / ref.stateBytes;
  // Peaks compare where both sizes ran alike: the memory run's up, refresh and destroy are under the heap probe.
  const alike = PHASES.filter((name) => name === "preview" || Boolean(ref.memory) === Boolean(big.memory));
  targets.push([
    `scale: the plugin's peak memory grows no faster than the state from N = ${ref.pods} to N = ${big.pods} (the phases both ran alike)`,
    big === ref ? undefined : alike.every((name) => growth(big, name) <= stateGrowth),
    `state x ${fmt(stateGrowth, 2)}; peak RSS ${alike.map((name) => `${name} x ${fmt(growth(big, name), 2)} (${fmt(ref[name].peakRssMb ?? Number.NaN, 0)} -> ${fmt(big[name].peakRssMb ?? Number.NaN, 0)} MB)`).join(", ")}`,
  ]);
  targets.push([
    "scale: 0 x 429 in every phase at every N",
    ok.every((r) => PHASES.every((name) => r[name].rejected429 === 0)),
    each((r) => PHASES.map((name) => `${name} ${r[name].rejected429}`).join(", ")),
  ]);
  targets.push([
    "scale: nothing left behind by the destroy (pods not TERMINATED, volumes, endpoints)",
    ok.every((r) => r.left.pods + r.left.volumes + r.left.endpoints === 0),
    each((r) => `${r.left.pods} pods, ${r.left.volumes} volumes, ${r.left.endpoints} endpoints`),
  ]);
  for (const r of results.filter((x) => x.error)) targets.push([`scale: N = ${r.pods} completes`, false, r.error!]);
  return { text: out.join("\n"), targets };
}

/** Table 12: where each up's time went against its bound (bench/up-timeline.ts), a diagnosis beside table 11. */
function upTimes(shape: Shape, ok: StackResult[]): string {
  const s = (ms: number | undefined) => (ms === undefined ? "-" : fmt(ms / 1000, 1));
  const rows = ok
    .filter((r) => r.upTimeline)
    .map((r) => {
      const t = r.upTimeline!;
      const kinds = (side: "engineMs" | "sentMs") => [t.firstCreate.volume[side], t.firstCreate.pod[side], t.firstCreate.endpoint[side]].map(s).join(" / ");
      const lb = boundMs(shape, r, "up");
      return [
        r.pods,
        fmt(r.up.wallMs / 1000, 1),
        fmt(lb / 1000, 1),
        fmt((r.up.wallMs - lb) / 1000, 1),
        s(t.firstRequestMs),
        kinds("engineMs"),
        kinds("sentMs"),
        s(t.unusedWhileWaitingMs),
        s(t.unusedIdleMs),
        s(t.gapsMs),
        s(t.afterLastMs),
        t.asksPerRequest === undefined ? "-" : fmt(t.asksPerRequest, 1),
        s(t.loopLateMs),
      ];
    });
  if (rows.length === 0) return "";
  return [
    `\n12. Where each up's time went against its bound (real s from the up's start; the emulator's windows replayed over the up key's requests)`,
    table(
      [
        "N",
        "wall s",
        "LB s",
        "over LB s",
        "first request",
        "engine's first Create: volume / pod / endpoint",
        "first create sent: volume / pod / endpoint",
        "quota unused, creates waiting",
        "quota unused, none waiting",
        "no window open",
        "after last request",
        "budget asks per request",
        "plugin loop late s",
      ],
      rows,
    ),
    "   quota unused: each minute window's room left (the hour's window not spent), as time at the minute's pace, split by whether pod or volume\n" +
      "   creates the engine had handed to the plugin were still unsent at the window's end (the plugin or its pacer held them: the two requests\n" +
      "   a window keeps for a neighbour count here) or none were. no window open: from a window's reset (or a spent hour's) to the next request.\n" +
      "   budget asks per request: the pacer's asks of the rate-limit budget per request it let go; plugin loop late: how late the plugin's event\n" +
      "   loop ran its timers in total (bench/pacing-probe.js): a request the budget lets go leaves only when the loop gets to it.",
  ].join("\n");
}

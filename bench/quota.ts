// Benchmark 9 (issue 37): up and destroy of N pods through Pulumi's plugin on a key at the
// platform's default quota (60 a minute), at the real ratio: the emulated clock runs
// `timeScale` times faster and the plugin's poll tick with it (the default 1.5 s becomes
// 1.5 s / timeScale), so the share of status reads is the one a user meets. Each phase is a
// fresh plugin process (a `pulumi` command) with its own key, so its rate-limit windows start
// with it. Counted from the emulator's log: requests by kind, status reads (pod lists and GETs)
// and their share, 429s; the wall time against what the design needs of the quota.
import { PROJECT, type ProviderPlugin, captureProgram, EngineStack } from "../tools/engine";
import { Pod } from "../src";
import { type Bench, fmt, noPodLeft, type Shape, startBench, table } from "./common";
import { destroyNeeded, phase, type PhaseResult, quotaBoundMs, startPlugin } from "./stack";
import type { Target } from "./stack-report";

/** The engine's default `--parallel`: unbounded. */
const UNBOUNDED = Number.POSITIVE_INFINITY;

/** Status reads: what a poller (or a lone read) sends to learn where an object is. */
export const STATUS_OPS = ["listPods", "getPod"];

/**
 * What the design needs of the quota for an up: per pod its create and the rename that ends a
 * create (the pending name says "unfinished" until the pod is RUNNING), one catalog read (the
 * pods' price), and one list that sees them RUNNING. (A destroy: `destroyNeeded`, a DELETE per
 * pod and one list that sees them gone.)
 */
export const upNeeded = (pods: number) => 2 * pods + 2;

export interface QuotaPhase extends PhaseResult {
  needed: number;
  /** max(start time, needed / quota), real ms. */
  boundMs: number;
}

export interface QuotaResult {
  pods: number;
  up?: QuotaPhase;
  destroy?: QuotaPhase;
  error?: string;
}

const key = (name: string) => `cp_bench_${name}_${Math.random().toString(16).slice(2).padEnd(12, "0")}`;

/** Up and destroy of `n` pods, each phase a fresh plugin on its own key at the shape's quota. */
export async function runQuota(shape: Shape, n: number, signal: AbortSignal): Promise<QuotaResult> {
  const keys = { up: key("up"), destroy: key("destroy") };
  const b = await startBench(shape, { keys: Object.values(keys).map((k) => ({ key: k, scopes: ["read", "write"] })) });
  const result: QuotaResult = { pods: n };
  const plugins = new Set<ProviderPlugin>();
  const stop = async (p: ProviderPlugin) => {
    if (plugins.delete(p)) await p.stop();
  };
  try {
    const up = await startPlugin(b, keys.up, false);
    plugins.add(up.plugin);
    const regs = await captureProgram(
      () => {
        for (let i = 0; i < n; i++) new Pod(`pod${i}`, { image: "bench/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } });
      },
      { project: PROJECT, stack: "quota", config: up.config },
    );
    const stack = new EngineStack(up.plugin, { project: PROJECT, stack: "quota" });
    const startMs = (shape.provisioningMs + shape.startingMs) / shape.timeScale;
    result.up = measured(b, upNeeded(n), startMs, await phase(b, () => stack.up(regs, { parallel: UNBOUNDED })));
    await stop(up.plugin);
    if (result.up.error) throw new Error(`up: ${result.up.error}`);
    signal.throwIfAborted();

    const down = await startPlugin(b, keys.destroy, false);
    plugins.add(down.plugin);
    const destroying = new EngineStack(down.plugin, { project: PROJECT, stack: "quota" });
    for (const [urn, res] of stack.resources) destroying.resources.set(urn, structuredClone(res));
    result.destroy = measured(b, destroyNeeded(n), 0, await phase(b, () => destroying.destroy({ parallel: UNBOUNDED })));
    await stop(down.plugin);
    noPodLeft(b.emu);
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    for (const p of [...plugins]) await stop(p);
    await b.emu.close();
  }
  return result;
}

function measured(b: Bench, needed: number, startMs: number, p: PhaseResult): QuotaPhase {
  return { ...p, needed, boundMs: Math.max(startMs, quotaBoundMs(b.shape, needed)) };
}

const statusReads = (p: PhaseResult) => STATUS_OPS.reduce((s, op) => s + (p.byOp[op] ?? 0), 0);
const answered = (p: PhaseResult) => p.sent - p.rejected429;
/** Status reads' share of the requests answered. */
export const statusShare = (p: PhaseResult) => statusReads(p) / Math.max(1, answered(p));

/** "60 createPod, 60 updatePod, 2 listPods": every kind of request a phase sent. */
export const byKind = (p: PhaseResult) =>
  Object.entries(p.byOp)
    .sort(([, a], [, b]) => b - a)
    .map(([op, k]) => `${k} ${op}`)
    .join(", ");

/** At most this share of a phase's requests may be status reads when the quota binds. */
const SHARE_LIMIT = 0.1;
/** A phase's wall within this many times what it needs of the quota. */
const WALL_LIMIT = 1.15;

export function quotaReport(shape: Shape, results: QuotaResult[]): { text: string; targets: Target[] } {
  const out: string[] = [];
  const targets: Target[] = [];
  out.push(
    `\n9. Up and destroy of N pods through the plugin on a key at ${shape.quotaPerMinute}/min, at the real ratio: time scale ${shape.timeScale}, ` +
      `the poll tick ${fmt(1500 / shape.timeScale, 0)} ms (1.5 emulated s); each phase a fresh plugin process on its own key (times real)`,
  );
  const rows: (string | number)[][] = [];
  for (const r of results) {
    if (r.error && !r.up) rows.push(["-", r.pods, `FAILED: ${r.error}`, "", "", "", "", "", "", "", ""]);
    for (const [name, p] of [
      ["up", r.up],
      ["destroy", r.destroy],
    ] as const) {
      if (!p) continue;
      rows.push([
        name,
        r.pods,
        byKind(p),
        statusReads(p),
        `${fmt(100 * statusShare(p), 1)}%`,
        p.sent,
        p.needed,
        p.rejected429,
        fmt(p.wallMs / 1000, 2),
        fmt(p.boundMs / 1000, 2),
        p.error ? `FAILED: ${p.error}` : fmt(p.wallMs / p.boundMs, 2),
      ]);
    }
  }
  out.push(table(["phase", "N", "requests by kind", "status reads", "share", "requests", "needed", "429s", "wall s", "LB s", "wall/LB"], rows));
  out.push(
    "   needed: up = 2 per pod (its create and the rename that ends a create) + 1 catalog read (the price) + 1 list that sees\n" +
      "   them RUNNING; destroy = 1 DELETE per pod + 1 list that sees them gone. LB = max(start time, needed / quota), start time\n" +
      `   = PROVISIONING + STARTING = ${(shape.provisioningMs + shape.startingMs) / 1000} emulated s for up. needed / quota is a fluid bound: the\n` +
      "   emulator's windows are fixed and start at the key's first request, so a run may end up to a window before it.\n" +
      "   Status reads: pod lists and GETs by id; share = status reads / requests answered.",
  );
  const phases = results.flatMap((r) => [r.up, r.destroy].filter((p): p is QuotaPhase => p !== undefined && !p.error));
  const ok = results.every((r) => !r.error) && phases.length > 0;
  const each = (f: (p: QuotaPhase) => string) =>
    results.map((r) => `N=${r.pods}: ${r.error ? `FAILED ${r.error}` : `up ${r.up ? f(r.up) : "-"}, destroy ${r.destroy ? f(r.destroy) : "-"}`}`).join("; ");
  targets.push([
    `up and destroy at the quota: status reads at most ${100 * SHARE_LIMIT}% of the requests`,
    ok ? phases.every((p) => statusShare(p) <= SHARE_LIMIT) : undefined,
    each((p) => `${fmt(100 * statusShare(p), 1)}%`),
  ]);
  targets.push([
    `up and destroy at the quota: wall within ${WALL_LIMIT} x max(start time, needed / quota)`,
    ok ? phases.every((p) => p.wallMs / p.boundMs <= WALL_LIMIT) : undefined,
    each((p) => `${fmt(p.wallMs / p.boundMs, 2)} x`),
  ]);
  targets.push(["up and destroy at the quota: 0 x 429", ok ? phases.every((p) => p.rejected429 === 0) : undefined, each((p) => String(p.rejected429))]);
  return { text: out.join("\n"), targets };
}

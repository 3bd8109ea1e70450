// What every benchmark shares: the emulated platform's shape, time conversion, and counting
// what reached the emulator.
import { type Emulator, type EmulatorOptions, startEmulator } from "../src/emulator";

/**
 * The platform the fleet and readiness benchmarks run against, in emulated time: the platform's default
 * quotas (60 a minute, 3000 an hour) and start times of a real GPU pod (tens of
 * seconds). Everything runs `timeScale` times faster than real time, timers and rate-limit
 * windows alike, so the benchmark keeps the shape of a real minute quota.
 */
export interface Shape {
  /** Emulated ms per real ms. */
  timeScale: number;
  provisioningMs: number;
  startingMs: number;
  drainMs: number;
  quotaPerMinute: number;
  /** The platform's hour quota: it binds once a phase needs more than it. */
  quotaPerHour: number;
}

export const DEFAULT_SHAPE: Shape = {
  timeScale: 10,
  provisioningMs: 20_000,
  startingMs: 15_000,
  drainMs: 10_000,
  quotaPerMinute: 60,
  quotaPerHour: 3000,
};

/** A second key, for setup reads that must not spend the benchmark key's quota. */
export const SETUP_KEY = "cp_bench_setup_0000000000000000";

export interface Bench {
  emu: Emulator;
  key: string;
  shape: Shape;
  /** Real ms to emulated seconds. */
  emuSec(realMs: number): number;
  /** Emulated ms to real ms. */
  real(emuMs: number): number;
}

export async function startBench(shape: Shape, extra: Partial<EmulatorOptions> = {}): Promise<Bench> {
  const key = `cp_bench_${Math.random().toString(16).slice(2).padEnd(16, "0")}`;
  const emu = await startEmulator({
    port: 0,
    keys: [
      { key, scopes: ["read", "write"] },
      { key: SETUP_KEY, scopes: ["read", "write"] },
    ],
    quotas: { minute: shape.quotaPerMinute, hour: shape.quotaPerHour },
    timings: { provisioningMs: shape.provisioningMs, startingMs: shape.startingMs, drainMs: shape.drainMs },
    timeScale: shape.timeScale,
    requestLogSize: 200_000,
    ...extra,
  });
  return {
    emu,
    key,
    shape,
    emuSec: (realMs) => (realMs * shape.timeScale) / 1000,
    real: (emuMs) => emuMs / shape.timeScale,
  };
}

/** Throws when a pod the emulator holds is not TERMINATED: a destroy left it behind. */
export function noPodLeft(emu: Emulator): void {
  const alive = emu.state().pods.filter((p) => p.status !== "TERMINATED").length;
  if (alive > 0) throw new Error(`${alive} pods left alive`);
}

/** Requests that reached the emulator since entry `fromIndex` of its log, by operation; 429s apart. */
export function calls(emu: Emulator, fromIndex = 0): { byOp: Record<string, number>; total: number; rejected429: number } {
  const byOp: Record<string, number> = {};
  let total = 0;
  let rejected429 = 0;
  for (const e of emu.requestLog().slice(fromIndex)) {
    total++;
    if (e.status === 429) {
      rejected429++;
      continue;
    }
    for (const op of e.op.split(",")) byOp[op] = (byOp[op] ?? 0) + 1;
  }
  return { byOp, total, rejected429 };
}

/** The GPU type a benchmark pod uses, read with the setup key (the benchmark key's windows stay untouched). */
export async function setupGpuId(emu: Emulator): Promise<string> {
  const res = await fetch(`${emu.url}/v2/catalog/gpus`, { headers: { authorization: `Bearer ${SETUP_KEY}` } });
  const body = (await res.json()) as { gpus: { id: string; manufacturer: string }[] };
  return body.gpus.find((g) => g.manufacturer === "NVIDIA")!.id;
}

/** A serverless template for the fleet's endpoints: the platform checks that templateId names one. */
export async function setupServerlessTemplate(emu: Emulator): Promise<string> {
  const res = await fetch(`${emu.url}/v2/templates`, {
    method: "POST",
    headers: { authorization: `Bearer ${SETUP_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench-worker", image: "bench/worker:1", serverless: true }),
  });
  if (res.status !== 201) throw new Error(`creating the bench's serverless template: ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}

export function median(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** A plain-text table: header row, a rule, rows; columns padded to their widest cell. */
export function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const width = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(width[i]) : c.padStart(width[i]))).join("  ");
  return [line(head), width.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

export function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "-";
}

/** Run `fn` with a hard upper bound: a benchmark that hangs is a finding, not a stuck terminal. */
export async function bounded<T>(what: string, ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctl.abort(new Error(`${what}: no result within ${ms / 1000} s`));
      reject(ctl.signal.reason);
    }, ms);
  });
  try {
    return await Promise.race([fn(ctl.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

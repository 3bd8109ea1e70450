// Where an up's time goes (issue 50): against its quota bound, what the quota was not spending and
// why. From three sides of one run: the emulator's request log of the up's key (when each request
// reached the platform), the engine's provider calls (when the engine handed each create to the
// plugin) and the plugin's pacing probe (bench/pacing-probe.js: the budget's asks, the event
// loop's lateness).
import type { ProviderPlugin } from "../tools/engine";
import type { Shape } from "./common";

/** The kinds an up creates, as the engine's URNs and the platform's create operations name them. */
const KINDS = {
  volume: { type: "NetworkVolume", op: "createNetworkVolume" },
  pod: { type: "Pod", op: "createPod" },
  endpoint: { type: "ServerlessEndpoint", op: "saveEndpoint" },
} as const;
type Kind = keyof typeof KINDS;

/** One request of the up's key as the emulator logged it: real ms since the up began. */
export interface Arrival {
  atMs: number;
  op: string;
  status: number;
}

export interface UpTimeline {
  /** Real ms from the up's start to its first request. */
  firstRequestMs: number;
  /** Per kind, real ms from the up's start: the engine's first Create call, and the first create request that reached the platform. */
  firstCreate: Record<Kind, { engineMs?: number; sentMs?: number }>;
  /**
   * The quota's room left unused in its minute windows (the hour's window not spent), as real ms
   * at the minute's pace: while pod or volume creates the engine had handed to the plugin were
   * not yet sent (the plugin or its pacer held them), and while none were.
   */
  unusedWhileWaitingMs: number;
  unusedIdleMs: number;
  /** Time with no minute window open between one's reset and the next request (past a spent hour's reset), real ms. */
  gapsMs: number;
  /** From the last request to the up's end, real ms. */
  afterLastMs: number;
  /** The plugin's pacer: asks of the budget per request it let go (undefined: no probe line). */
  asksPerRequest?: number;
  /** How late the plugin's event loop ran its timers, in total, real ms. */
  loopLateMs?: number;
}

/** When the engine handed each create to the plugin: the plugin's `create` wrapped, real ms since `t0` (performance.now). */
export function recordCreates(plugin: ProviderPlugin, t0: () => number): Record<Kind, number[]> {
  const started: Record<Kind, number[]> = { volume: [], pod: [], endpoint: [] };
  const create = plugin.create.bind(plugin);
  plugin.create = (urn, props) => {
    const kind = (Object.keys(KINDS) as Kind[]).find((k) => urn.includes(`:${KINDS[k].type}::`));
    if (kind) started[kind].push(performance.now() - t0());
    return create(urn, props);
  };
  return started;
}

/** What the plugin's pacing probe counted since the plugin started. */
export interface ProbeCounts {
  asks: number;
  granted: number;
  loopLateMs: number;
}

/** The plugin's last pacing-probe line (undefined: none printed yet). */
export function probeOf(plugin: ProviderPlugin): ProbeCounts | undefined {
  const at = plugin.stderr.lastIndexOf("pacing-probe ");
  if (at < 0) return undefined;
  const line = plugin.stderr.slice(at + 13).split("\n")[0]!;
  return JSON.parse(line) as ProbeCounts;
}

/** What the probe counted from `before` (its line when a phase began) to its last line. */
export function probeSince(plugin: ProviderPlugin, before: ProbeCounts | undefined): ProbeCounts | undefined {
  const now = probeOf(plugin);
  if (!now) return undefined;
  return { asks: now.asks - (before?.asks ?? 0), granted: now.granted - (before?.granted ?? 0), loopLateMs: now.loopLateMs - (before?.loopLateMs ?? 0) };
}

/**
 * The emulator's fixed windows replayed over the up's requests (each window opened by the first
 * request after the last one reset, as src/emulator/core/rate-limit.ts counts), minute and hour.
 */
export function upTimeline(
  shape: Shape,
  arrivals: Arrival[],
  engineCreates: Record<Kind, number[]>,
  wallMs: number,
  probe?: ProbeCounts,
): UpTimeline {
  const counted = arrivals.filter((a) => a.status !== 429).sort((a, b) => a.atMs - b.atMs);
  const minuteMs = 60_000 / shape.timeScale;
  const hourMs = 3_600_000 / shape.timeScale;
  const firstCreate = Object.fromEntries(
    (Object.keys(KINDS) as Kind[]).map((k) => [k, { engineMs: min(engineCreates[k]), sentMs: counted.find((a) => a.op === KINDS[k].op)?.atMs }]),
  ) as UpTimeline["firstCreate"];
  // Pod and volume creates handed to the plugin by `t` and not yet sent (an endpoint's save is
  // also its rename, so its creates cannot be told from the log).
  const handed = [...engineCreates.pod, ...engineCreates.volume].sort((a, b) => a - b);
  const creates = counted.filter((a) => a.op === KINDS.pod.op || a.op === KINDS.volume.op).map((a) => a.atMs);
  const waitingAt = (t: number) => countUpTo(handed, t) - countUpTo(creates, t);

  let unusedWhileWaitingMs = 0;
  let unusedIdleMs = 0;
  let gapsMs = 0;
  let minute: { start: number; count: number } | undefined;
  let hour: { start: number; count: number } | undefined;
  const closeMinute = (m: { start: number; count: number }, h: { start: number; count: number }) => {
    if (h.count >= shape.quotaPerHour) return;
    const unused = ((shape.quotaPerMinute - m.count) / shape.quotaPerMinute) * minuteMs;
    if (waitingAt(m.start + minuteMs) > 0) unusedWhileWaitingMs += unused;
    else unusedIdleMs += unused;
  };
  for (const a of counted) {
    if (minute && hour && a.atMs >= minute.start + minuteMs) {
      closeMinute(minute, hour);
      // The minute's reset, or a spent hour's, whichever came later: then a request could go.
      const open = Math.max(minute.start + minuteMs, hour.count >= shape.quotaPerHour ? hour.start + hourMs : 0);
      gapsMs += Math.max(0, a.atMs - open);
      minute = undefined;
    }
    if (hour && a.atMs >= hour.start + hourMs) hour = undefined;
    minute ??= { start: a.atMs, count: 0 };
    hour ??= { start: a.atMs, count: 0 };
    minute.count++;
    hour.count++;
  }
  const last = counted.at(-1)?.atMs ?? 0;
  return {
    firstRequestMs: counted[0]?.atMs ?? Number.NaN,
    firstCreate,
    unusedWhileWaitingMs,
    unusedIdleMs,
    gapsMs,
    afterLastMs: Math.max(0, wallMs - last),
    ...(probe ? { asksPerRequest: probe.asks / Math.max(1, probe.granted), loopLateMs: probe.loopLateMs } : {}),
  };
}

const min = (xs: number[]) => (xs.length > 0 ? Math.min(...xs) : undefined);

/** How many of the sorted `xs` are at most `t`. */
function countUpTo(xs: number[], t: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

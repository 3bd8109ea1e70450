// Benchmark 10 (issue 46): a promotion of N endpoints at the quota. A stack of N serverless
// Templates, each bound to its ServerlessEndpoint (one worker kept), is built on a setup key
// whose quota never binds; then a fresh plugin (a `pulumi up`) on its own key at the platform's
// default quota (60 a minute) changes every Template's image: N template PATCHes, each a new
// release that rolls its endpoint's worker, and N endpoint updates that wait for their rollout.
// At the real ratio (the emulated clock and the plugin's poll tick scaled alike). Counted from the
// emulator's log: requests by kind, status reads (the rollout's workers and releases reads, the
// endpoints' list) and their share, the polls (status reads beyond the one releases read per
// endpoint that no wait can save) and theirs, 429s; the wall time against the rollout's own bound.
import { captureProgram, EngineStack, PROJECT, type ProviderPlugin, SECRET_KEYS } from "../tools/engine";
import { resolvingIds } from "../tools/engine/examples";
import { ServerlessEndpoint, Template } from "../src";
import { type Shape, fmt, startBench, table } from "./common";
import { phase, type PhaseResult, quotaBoundMs, startPlugin } from "./stack";
import { byKind } from "./quota";
import type { Target } from "./stack-report";

const UNBOUNDED = Number.POSITIVE_INFINITY;

/** Status reads of a promotion: what the waits send to learn where a rollout is. */
export const PROMOTION_STATUS_OPS = ["listEndpointWorkers", "listEndpointReleases", "myself"];

/**
 * What the design needs of the quota: per endpoint its Template's PATCH and the one releases
 * read that says its rollout is over, and one list of the endpoints their updates share.
 */
export const promotionNeeded = (n: number) => 2 * n + 1;

/**
 * The status reads of what is needed: the releases read of each endpoint and the one list. The
 * contract lists no endpoint's releases beside another's, so no wait can go below it.
 */
export const promotionStatusFloor = (n: number) => n + 1;

export interface PromotionResult {
  endpoints: number;
  phase?: PhaseResult & { needed: number; rolloutMs: number; boundMs: number; onNewImage: number };
  error?: string;
}

const key = (name: string) => `cp_bench_${name}_${Math.random().toString(16).slice(2).padEnd(12, "0")}`;

function program(n: number, image: string, config: Record<string, string>) {
  return captureProgram(
    () => {
      for (let i = 0; i < n; i++) {
        const worker = new Template(`worker${i}`, { image, serverless: true, env: { RELEASE: image } });
        new ServerlessEndpoint(`ep${i}`, { gpuIds: "AMPERE_24", templateId: worker.id, workersMin: 1, workersMax: 1, idleTimeout: 5 });
      }
    },
    { project: PROJECT, stack: "promotion", config, secretKeys: SECRET_KEYS },
  );
}

/** Build N endpoints on a key whose quota never binds, then promote them all on a key at the quota. */
export async function runPromotion(shape: Shape, n: number, signal: AbortSignal): Promise<PromotionResult> {
  const keys = { setup: key("setup"), promote: key("promote") };
  const b = await startBench(shape, {
    keys: [
      { key: keys.setup, scopes: ["read", "write"], quotas: { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 } },
      { key: keys.promote, scopes: ["read", "write"] },
    ],
  });
  const result: PromotionResult = { endpoints: n };
  const plugins: ProviderPlugin[] = [];
  try {
    const setup = await startPlugin(b, keys.setup, false);
    plugins.push(setup.plugin);
    const stack = new EngineStack(setup.plugin, { project: PROJECT, stack: "promotion" });
    // Each endpoint's templateId is its Template's placeholder id under mocks: the engine hands it the real one.
    const built = await stack.up(resolvingIds(stack, await program(n, "bench/worker:1", setup.config), { preview: false }), { parallel: UNBOUNDED });
    if (built.error) throw new Error(`setup: ${built.error.message}`);
    signal.throwIfAborted();

    const promote = await startPlugin(b, keys.promote, false);
    plugins.push(promote.plugin);
    const promoting = stack.carriedTo(promote.plugin);
    const regs = resolvingIds(promoting, await program(n, "bench/worker:2", promote.config), { preview: false });
    const measured = await phase(b, () => promoting.up(regs, { parallel: UNBOUNDED }));
    const needed = promotionNeeded(n);
    // The rollout's own bound: one worker each, so one replacement starts (a surge of 1) and is ready after STARTING.
    const rolloutMs = shape.startingMs / shape.timeScale;
    const workers = (b.emu.state().endpoints as { pods: { desiredStatus: string }[] }[]).flatMap((e) => e.pods);
    const onNewImage = await countOnImage(b.emu.url, keys.setup, promoting, "bench/worker:2");
    result.phase = { ...measured, needed, rolloutMs, boundMs: Math.max(rolloutMs, quotaBoundMs(shape, needed)), onNewImage };
    if (workers.length < n) result.error = `${workers.length} workers for ${n} endpoints`;
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    for (const p of plugins) await p.stop();
    await b.emu.close();
  }
  return result;
}

/** Workers that run `image` and are not stale, across the stack's endpoints (read on the setup key). */
async function countOnImage(url: string, apiKey: string, stack: EngineStack, image: string): Promise<number> {
  let count = 0;
  for (const res of stack.resources.values()) {
    if (!res.type.endsWith(":ServerlessEndpoint")) continue;
    const r = await fetch(`${url}/v2/serverless/${res.id}/workers`, { headers: { authorization: `Bearer ${apiKey}` } });
    const body = (await r.json()) as { workers: { image?: string; isStale: boolean }[] };
    count += body.workers.filter((w) => w.image === image && !w.isStale).length;
  }
  return count;
}

const statusReads = (p: PhaseResult) => PROMOTION_STATUS_OPS.reduce((s, op) => s + (p.byOp[op] ?? 0), 0);
const answered = (p: PhaseResult) => Math.max(1, p.sent - p.rejected429);
const share = (p: PhaseResult) => statusReads(p) / answered(p);
/** The polls: status reads beyond the floor (each endpoint's releases read and the one list), what sharing the waits' reads saves. */
const polls = (r: PromotionResult) => Math.max(0, statusReads(r.phase!) - promotionStatusFloor(r.endpoints));
const pollShare = (r: PromotionResult) => polls(r) / answered(r.phase!);

export function promotionReport(shape: Shape, results: PromotionResult[]): { text: string; targets: Target[] } {
  const out: string[] = [];
  out.push(
    `\n10. A promotion of N endpoints through the plugin on a key at ${shape.quotaPerMinute}/min (issue 46): every Template's image changed, ` +
      `each endpoint's up waits for its rollout; time scale ${shape.timeScale}, worker STARTING ${shape.startingMs / 1000} emulated s (times real)`,
  );
  const rows = results.map((r) => {
    const p = r.phase;
    if (!p) return [r.endpoints, `FAILED: ${r.error}`, "", "", "", "", "", "", "", "", "", "", ""];
    return [
      r.endpoints,
      byKind(p),
      statusReads(p),
      `${fmt(100 * share(p), 1)}%`,
      polls(r),
      `${fmt(100 * pollShare(r), 1)}%`,
      p.sent,
      p.needed,
      p.rejected429,
      `${p.onNewImage}/${r.endpoints}`,
      fmt(p.wallMs / 1000, 2),
      fmt(p.boundMs / 1000, 2),
      p.error || r.error ? `FAILED: ${p.error ?? r.error}` : fmt(p.wallMs / p.boundMs, 2),
    ];
  });
  out.push(table(["N", "requests by kind", "status reads", "share", "polls", "polls' share", "requests", "needed", "429s", "on new image", "wall s", "LB s", "wall/LB"], rows));
  out.push(
    "   needed: per endpoint its Template's PATCH and one releases read that says its rollout is over, + 1 endpoints list the\n" +
      "   updates share. LB = max(the rollout's own bound, needed / quota); the rollout's bound is one worker STARTING (one worker\n" +
      "   per endpoint: a surge of 1). Status reads: listEndpointWorkers, listEndpointReleases and myself; share: of the requests.\n" +
      "   The target (status reads at most 10%) cannot be met by any wait here: the contract lists no endpoint's releases beside\n" +
      "   another's, so each endpoint's end is confirmed by a releases read of its own, and needed already holds N + 1 status\n" +
      "   reads of its 2N + 1 requests (the floor, about half). polls: the status reads beyond that floor (the waits' ticks: one\n" +
      "   myself per tick shared by every endpoint that waits, and any endpoint's own workers reads), and polls' share: their share\n" +
      "   of the requests, which is what sharing the waits' reads can lower.",
  );
  const done = results.filter((r) => r.phase && !r.phase.error && !r.error);
  const ok = done.length === results.length && done.length > 0;
  const each = (f: (r: PromotionResult) => string) => results.map((r) => `N=${r.endpoints}: ${r.phase ? f(r) : `FAILED ${r.error}`}`).join("; ");
  const targets: Target[] = [
    ["promotion at the quota: every worker on the new image when up returns", ok ? done.every((r) => r.phase!.onNewImage === r.endpoints) : undefined, each((r) => `${r.phase!.onNewImage}/${r.endpoints}`)],
    [
      "promotion at the quota: status reads at most 10% of the requests",
      ok ? done.every((r) => share(r.phase!) <= 0.1) : undefined,
      each((r) => `${fmt(100 * share(r.phase!), 1)}% (floor ${fmt((100 * promotionStatusFloor(r.endpoints)) / promotionNeeded(r.endpoints), 1)}%; polls beyond it ${fmt(100 * pollShare(r), 1)}%)`),
    ],
    ["promotion at the quota: 0 x 429", ok ? done.every((r) => r.phase!.rejected429 === 0) : undefined, each((r) => String(r.phase!.rejected429))],
  ];
  return { text: out.join("\n"), targets };
}

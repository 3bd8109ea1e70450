// Phases through Pulumi's own plugin against the emulator's rate limits, each command a fresh
// plugin process, as `pulumi` starts one (issue 24). What is counted is the requests the
// emulator answered, never a time:
//   - destroy of 60 pods: 60 DELETEs, no GET by id, status reads (the shared pod lists) at most
//     one in ten of the requests: while DELETEs wait for the quota the poller's list waits too,
//     then answers every waiter at once (issue 37); no two lists closer than the tick, no 429;
//   - two stacks' `up` at once on one key (two plugin processes that cannot see each other's
//     spending): no 429 between them.
// The emulator runs its clock 15 times faster (a minute lasts 4 s), so the quota binds within
// seconds. Not faster: a process the machine delays by 100 ms would lose 1.5 s of the platform's
// minute, more than a real one ever does, and beside the rest of npm test on 2 cores the two
// processes' counts went stale enough for a 429 at 30 times (twice in seven full runs).
// The plugin loads dist/: `npm run build` before this file alone.
import { type Emulator, startEmulator } from "../../src/emulator";
import { fingerprint } from "../../src/emulator/core/request-log";
import { Pod } from "../../src/resources/pod";
import { captureProgram, EngineStack, PROJECT, ProviderPlugin, type Registration, SECRET_KEYS } from "../../tools/engine";
import { startPlugin } from "../../tools/engine/rig";

const SETUP_KEY = "cp_quota_setup_7d41c09b2e55";
/** Each test's own key: a window one test spent is not the next one's cold start. */
const DESTROY_KEY = "cp_quota_destroy_51e08c7a9f3b";
const SHARED_KEY = "cp_quota_shared_3a9f6b10c4d2";
/** Emulated ms per real ms. */
const TIME_SCALE = 15;
/** The poll tick inside the plugins, real ms (the default 1.5 s in emulated time). */
const POLL_MS = Math.round(1500 / TIME_SCALE);
const PARALLEL = Number.POSITIVE_INFINITY;

let emu: Emulator;
const plugins: ProviderPlugin[] = [];

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    keys: [
      // Builds what a test destroys without spending the measured key's quota.
      { key: SETUP_KEY, scopes: ["read", "write"], quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 } },
      { key: DESTROY_KEY, scopes: ["read", "write"] },
      { key: SHARED_KEY, scopes: ["read", "write"] },
    ],
    // The platform's default quota: 60 a minute.
    timings: { provisioningMs: 3000, startingMs: 3000, drainMs: 1000 },
    timeScale: TIME_SCALE,
    requestLogSize: 100_000,
  });
});

afterAll(async () => {
  for (const p of plugins) await p.stop();
  await emu?.close();
});

/** A fresh plugin process with `apiKey` in its stack config: one `pulumi` command. */
async function command(apiKey: string): Promise<{ plugin: ProviderPlugin; config: Record<string, string> }> {
  const config = { "computeplatform:apiKey": apiKey, "computeplatform:apiUrl": emu.url };
  const plugin = await startPlugin(config, { env: { COMPUTEPLATFORM_POLL_INTERVAL_MS: String(POLL_MS) } });
  plugins.push(plugin);
  return { plugin, config };
}

async function done(plugin: ProviderPlugin): Promise<void> {
  plugins.splice(plugins.indexOf(plugin), 1);
  await plugin.stop();
}

function pods(n: number, stack: string, config: Record<string, string>): Promise<Registration[]> {
  return captureProgram(
    () => {
      for (let i = 0; i < n; i++) new Pod(`pod${i}`, { image: "img/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } });
    },
    { project: PROJECT, stack, config, secretKeys: SECRET_KEYS },
  );
}

/** What the emulator answered to `key`: operations, 429s, when each pod list arrived. */
function answered(key: string): { ops: Record<string, number>; rejected: number; lists: number[] } {
  const ops: Record<string, number> = {};
  let rejected = 0;
  const lists: number[] = [];
  for (const e of emu.requestLog().filter((x) => x.key === fingerprint(key))) {
    if (e.status === 429) {
      rejected++;
      continue;
    }
    ops[e.op] = (ops[e.op] ?? 0) + 1;
    if (e.op === "listPods") lists.push(Date.parse(e.at));
  }
  return { ops, rejected, lists };
}

test("destroy of 60 pods in a fresh plugin: 60 DELETEs, no GET by id, status reads at most 10% of the requests, no 429", async () => {
  const up = await command(SETUP_KEY);
  const regs = await pods(60, "destroy", up.config);
  const stack = new EngineStack(up.plugin, { project: PROJECT, stack: "destroy" });
  expect((await stack.up(regs, { parallel: PARALLEL })).error).toBeUndefined();
  await done(up.plugin);

  // 60 DELETEs and their lists take more than a window of 60: the quota paces them.
  const down = await command(DESTROY_KEY);
  const destroying = new EngineStack(down.plugin, { project: PROJECT, stack: "destroy" });
  for (const [urn, res] of stack.resources) destroying.resources.set(urn, structuredClone(res));
  expect((await destroying.destroy({ parallel: PARALLEL })).error).toBeUndefined();
  await done(down.plugin);

  const { ops, rejected, lists } = answered(DESTROY_KEY);
  expect(rejected).toBe(0);
  expect(ops.deletePod).toBe(60);
  expect(ops.getPod ?? 0).toBe(0);
  expect(Object.keys(ops).sort()).toEqual(["deletePod", "listPods"]);
  // A count, not a time: the status reads' share of what the destroy sent.
  expect(ops.listPods / (ops.listPods + ops.deletePod)).toBeLessThanOrEqual(0.1);
  // A tick starts one interval after the last list's answer: no two lists closer than that.
  const gaps = lists.slice(1).map((at, i) => at - lists[i]);
  expect(lists.length).toBeGreaterThanOrEqual(1);
  if (gaps.length > 0) expect(Math.min(...gaps)).toBeGreaterThanOrEqual(POLL_MS);
  expect(emu.state().pods.filter((p) => p.status !== "TERMINATED")).toEqual([]);
  console.log(`destroy of 60 pods: ${JSON.stringify(ops)}, min list gap ${gaps.length ? Math.min(...gaps) : "-"} ms`);
}, 240_000);

test("two stacks' up at once on one key, 40 pods each, each its own plugin process: no 429 between them", async () => {
  const one = await command(SHARED_KEY);
  const two = await command(SHARED_KEY);
  // Captured one after the other (the capture runs the SDK's mocks, one program at a time).
  const regsOne = await pods(40, "one", one.config);
  const regsTwo = await pods(40, "two", two.config);
  const stackOne = new EngineStack(one.plugin, { project: PROJECT, stack: "one" });
  const stackTwo = new EngineStack(two.plugin, { project: PROJECT, stack: "two" });
  const [a, b] = await Promise.all([stackOne.up(regsOne, { parallel: PARALLEL }), stackTwo.up(regsTwo, { parallel: PARALLEL })]);
  expect(a.error).toBeUndefined();
  expect(b.error).toBeUndefined();

  const { ops, rejected } = answered(SHARED_KEY);
  expect(rejected).toBe(0);
  expect(ops.createPod).toBe(80);
  expect(emu.state().pods.filter((p) => p.status === "RUNNING" && /^pod\d+-/.test(p.name))).toHaveLength(80);
  console.log(`two ups of 40 pods on one key: ${JSON.stringify(ops)}`);

  await done(one.plugin);
  await done(two.plugin);
  // The clean-up is not what is measured: a later command on the setup key, which the quota does not pace.
  const clean = await command(SETUP_KEY);
  const cleanup = await Promise.all([stackOne.carriedTo(clean.plugin).destroy({ parallel: PARALLEL }), stackTwo.carriedTo(clean.plugin).destroy({ parallel: PARALLEL })]);
  expect(cleanup.map((r) => r.error)).toEqual([undefined, undefined]);
  expect(emu.state().pods.filter((p) => p.status !== "TERMINATED")).toEqual([]);
  await done(clean.plugin);
}, 240_000);

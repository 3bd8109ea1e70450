/**
 * One stack lifecycle through Pulumi's own dynamic-provider plugin (tools/engine)
 * while the emulator injects 429s, 5xx and cut connections, and the first pod ends in ERROR:
 * create (fails, the pod kept with its id), the fixed program, an in-place update, a replace
 * of both resources, refresh, destroy; each operation run again until it succeeds, as a user
 * would. After every operation the emulator's state is audited against the engine's: nothing
 * live the engine never knew, no name on two live objects. At the end the sentinel key is
 * searched for in everything the run left: state with `__provider`, the registered programs,
 * the plugin's stdout, stderr and engine log calls, every error, the request log.
 * The plugin loads the package from dist/: run `npm run build` first (`npm test` does).
 */
import type { Emulator } from "../../src/emulator";
import { Pod } from "../../src/resources/pod";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { captureProgram, EngineStack, type OperationResult, type ProviderPlugin, type Registration } from "../../tools/engine";
import { CONFIG_SECRETS, errorSurfaces, faultCounts, liveEndpoints, livePods, placesWith, PROJECT, SENTINEL_KEY, stackConfig, startPlugin, startSentinelEmulator } from "../../tools/faults";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";
/** Runs of one operation before the test gives up on it, as a user would give up. */
const ATTEMPTS = 6;

let emu: Emulator;
let plugin: ProviderPlugin;
let config: Record<string, string>;
/** The serverless template the endpoint names (the platform checks that it exists). */
let tpl: string;

beforeAll(async () => {
  emu = await startSentinelEmulator({ requestLogSize: 100_000 });
  config = stackConfig(emu);
  // The template is made before the faults are on; their seed starts the sequence afterwards.
  tpl = await createServerlessTemplate(emu.url, SENTINEL_KEY);
  // 429s are few: the plugin honours Retry-After (1 s) in real time, and this run must stay quick.
  emu.setFaults({ seed: 11, rate429: 0.03, rate5xx: 0.2, dropAfterProcessRate: 0.12, errorImages: [/crash/] });
  plugin = await startPlugin(emu);
});
afterAll(async () => {
  await plugin?.stop();
  await emu?.close();
});

type Step = "crash" | "create" | "update" | "replace";

function program(step: Step): Promise<Registration[]> {
  const image = step === "crash" ? "img/crash:1" : "img/app:2";
  const gpuCount = step === "replace" ? 2 : 1;
  const env = { MODEL: step === "update" || step === "replace" ? "large" : "small", TOKEN_LIKE: "Bearer not-the-key" };
  // No workers: delete has nothing to drain, so the plugin's 1 s drain poll never runs.
  const idleTimeout = step === "create" || step === "crash" ? 5 : 30;
  const type = step === "replace" ? "LB" : "QB";
  return captureProgram(
    () => {
      new Pod("worker", { name: "engine-worker", image, gpu: { id: "NVIDIA L40S", count: gpuCount }, env });
      new ServerlessEndpoint("api", { gpuIds: "AMPERE_24", templateId: tpl, type, workersMin: 0, workersMax: 0, idleTimeout });
    },
    { project: PROJECT, stack: "dev", config, secretKeys: CONFIG_SECRETS },
  );
}

test("create (ERROR), fix, update, replace, refresh, destroy under faults: no orphan, no duplicate, no key anywhere", async () => {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
  const results: OperationResult[] = [];
  const problems: string[] = [];
  /** Every id the engine's state ever held: the harness does not keep a replaced resource whose delete failed. */
  const everKnown = new Set<string>();
  const auditAfter = (label: string) => {
    for (const r of stack.resources.values()) everKnown.add(r.id);
    const s = emu.state();
    const live = [...livePods(s).map((p) => ({ id: p.id, name: `pod ${p.name}` })), ...liveEndpoints(s).map((e) => ({ id: e.id, name: `endpoint ${e.name}` }))];
    for (const o of live) if (!everKnown.has(o.id)) problems.push(`${label}: orphan ${o.name} ${o.id}`);
    // During a replace both halves may be live at once; after the operation only one may be in state.
    const inState = live.filter((o) => [...stack.resources.values()].some((r) => r.id === o.id));
    const names = inState.map((o) => o.name);
    for (const n of names.filter((x, i) => names.indexOf(x) !== i)) problems.push(`${label}: duplicate ${n}`);
  };
  const run = async (label: string, op: () => Promise<OperationResult>, until = (r: OperationResult) => !r.error) => {
    for (let i = 0; i < ATTEMPTS; i++) {
      const r = await op();
      results.push(r);
      auditAfter(label);
      if (until(r)) return r;
    }
    throw new Error(`${label} did not succeed in ${ATTEMPTS} runs: ${results.at(-1)?.error?.message}`);
  };
  const regs = { crash: await program("crash"), create: await program("create"), update: await program("update"), replace: await program("replace") };

  // The crashing image: the pod is made but ends in ERROR; the engine keeps it with its id.
  const crashed = await stack.up(regs.crash);
  results.push(crashed);
  auditAfter("crash");
  expect(crashed.error?.message).toMatch(/ERROR/);
  expect([...stack.resources.values()].find((r) => r.urn.endsWith("worker"))?.initErrors?.[0]).toMatch(/ERROR/);

  await run("create", () => stack.up(regs.create));
  await run("update", () => stack.up(regs.update));
  await run("replace", () => stack.up(regs.replace));
  await run("refresh", () => stack.refresh());
  await run("destroy", () => stack.destroy(), () => stack.resources.size === 0);

  expect(problems).toEqual([]);
  expect(livePods(emu.state())).toEqual([]);
  expect(liveEndpoints(emu.state())).toEqual([]);
  // One pod per create the engine asked for, and the ERROR pod was repaired in place, not re-made.
  expect(emu.state().pods.map((p) => p.name)).toEqual(["engine-worker", "engine-worker"]);

  const errors = results.flatMap((r) => (r.error ? [r.error] : []));
  const faults = faultCounts(emu);
  console.log(
    `engine run: ${results.length} operations (${errors.length} failed and run again), ${faults.requests} requests; ` +
      `injected: 429 ${faults["429"]}, 5xx ${faults["5xx"]}, dropped ${faults.dropped}, pods in ERROR 1`,
  );
  expect(faults["429"] + faults["5xx"] + faults.dropped).toBeGreaterThanOrEqual(4);

  const places = {
    state: stack.stateText(),
    programs: JSON.stringify(regs),
    "plugin stdout": plugin.stdout,
    "plugin stderr": plugin.stderr,
    "engine log calls": JSON.stringify(plugin.engine.logs),
    "request log": JSON.stringify(emu.requestLog()),
    ...Object.fromEntries(errors.map((e, i) => [`operation error ${i}`, errorSurfaces(e).join("\n")])),
  };
  // __provider is in the programs (and was in state): the scan covers it.
  expect(places.programs).toContain("__provider");
  expect(placesWith(SENTINEL_KEY, { ...places, control: `Bearer ${SENTINEL_KEY}` })).toEqual(["control"]);
  console.log(`engine run secret scan: ${Object.keys(places).length} places, the key found in none`);
});

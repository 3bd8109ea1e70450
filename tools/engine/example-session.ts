/**
 * The quickstart's life through the engine harness, against a running emulator: preview and
 * up of a new stack, a change that updates in place (a new image), a change that replaces (a
 * new GPU type), a new worker image that rolls the endpoint's workers, refresh and destroy. Each phase runs the program under mocks with the stack
 * config of that moment, then drives Pulumi's own dynamic-provider plugin as the engine would.
 * `npm run demo` prints what it returns; test/examples/examples-lifecycle.test.ts asserts it.
 *
 * Under `pulumi up` the program runs once, and a function of it that takes a resource's id
 * (`runSyncSmokeTest({ endpointId: api.id })`) runs once the engine has made that resource.
 * The harness runs the program before the engine's steps, for what it registers, with Pulumi's
 * mocks giving each resource a placeholder id (`api-id`). So that run is a preview's
 * (`isDryRun()`: no function sends anything), and after an up's steps the program runs again
 * against the stack's state (tools/engine/stack-outputs.ts), where `api.id` is the endpoint's
 * real id: its functions run then, once, and its exports are the stack's outputs. Both runs are
 * child processes, so each sees the program afresh.
 */
import type { Emulator } from "../../src/emulator";
import { EngineStack, type OperationResult, type ProviderPlugin, type Registration } from ".";
import { startPlugin } from "./rig";
import { captureExample, exampleDir, exampleExports, type ExampleName, projectName, resolvingIds } from "./examples";
import type { StackOutputs } from "./stack-outputs";

export const QUICKSTART_IMAGE = "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime";
export const UPDATED_IMAGE = "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime";
export const QUICKSTART_GPU = "NVIDIA GeForce RTX 4090";
export const REPLACEMENT_GPU = "NVIDIA L40S";
export const SMOKE_PROMPT = "Say hello again";
/** The endpoint workers' image the demo rolls out (the quickstart's is runpod/worker-v1-vllm:v2.4.0). */
export const ROLLED_WORKER_IMAGE = "runpod/worker-v1-vllm:v2.5.0";
const SECRET_KEYS = ["computeplatform:apiKey"];

export interface PhaseStep {
  /** Logical name, e.g. `trainer`. */
  name: string;
  /** `computeplatform:index:Pod` shortened to `Pod`. */
  type: string;
  op: string;
  /** Properties whose value the program changed (for updates and replaces). */
  changed: string[];
  /** Properties the provider said force a replacement. */
  replaces: string[];
}

export interface Phase {
  title: string;
  steps: PhaseStep[];
  /** Provider calls the engine made, in order (`Check trainer`, `Create trainer`, ...). */
  calls: string[];
  /** Requests the emulator served during the phase, by operation. */
  api: Record<string, number>;
  /** Resource ids after the phase, by logical name. */
  ids: Record<string, string>;
  /** Wall-clock duration. */
  ms: number;
  /** The stack's cost lines the plugin printed during the phase (`cost: $a/h -> $b/h ...`). */
  costLines: string[];
  /** The smoke test's lines the plugin printed during the phase (whether its job runs, and why). */
  smokeLines: string[];
  /** The steps' lines the plugin printed during the phase: what each change or delete does to what runs. */
  stepLines: string[];
  /** After an up: the program's exports, from its run against the stack's state (its functions ran then). */
  outputs?: StackOutputs;
  error?: string;
}

export interface LifecycleOptions {
  emulator: Emulator;
  /** Stack name. @default "dev" */
  stack?: string;
  /** Called as each phase starts and ends, and with progress lines while resources settle. */
  onEvent?: (line: string) => void;
  /**
   * Real ms between looks at the emulator for progress lines; 0 for none.
   * @default 0
   */
  watchMs?: number;
  /**
   * Pace of the pod poller inside the plugin (`COMPUTEPLATFORM_POLL_INTERVAL_MS`).
   * @default 100
   */
  podPollMs?: number;
}

export interface LifecycleResult {
  phases: Phase[];
  /** The provider's stdout, stderr and engine log lines. */
  transcript: string;
  /** The stack's state as text after the last `up`, before destroy. */
  stateText: string;
  /** `__provider` of the pod as stored in state. */
  providerText: string;
}

/** A step's line (src/resources/lifecycle/step-line.ts): the kind, the logical name or id, what the step does. */
const STEP_LINE = /(?:Pod|NetworkVolume|Template|ServerlessEndpoint|RegistryCredential) (?:"[^"]*"|\S+): (?:no request|no write|updated in place|replaced|deleted)/;

const maskIds = (line: string) => line.replace(/\b(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,}\b/g, "ID");

/**
 * The plugin's output once it is quiet: a line is written to its stdout before the answer it
 * belongs to, but may be read after it, so a phase's last lines could fall into the next.
 */
async function settled(plugin: ProviderPlugin): Promise<void> {
  for (let i = 0, seen = -1; i < 50 && plugin.transcript().length !== seen; i++) {
    seen = plugin.transcript().length;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The plugin's lines since `from` that carry `mark`, from the mark on. */
const printedLines = (plugin: ProviderPlugin, from: number, mark: string) =>
  plugin
    .transcript()
    .slice(from)
    .split("\n")
    .filter((l) => l.includes(mark))
    .map((l) => l.slice(l.indexOf(mark)));

const shortType = (type: string) => type.split(":").at(-1) ?? type;

function delta(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [op, n] of Object.entries(after)) {
    const d = n - (before[op] ?? 0);
    if (d > 0) out[op] = d;
  }
  return out;
}

/** Program inputs that differ from what the state holds (keys the program set, platform keys left out). */
function changedKeys(stack: EngineStack, reg: Registration): string[] {
  const old = [...stack.resources.values()].find((r) => r.urn.endsWith(`::${reg.type}::${reg.name}`));
  if (!old) return [];
  return Object.entries(reg.inputs)
    .filter(([k, v]) => !k.startsWith("__") && v !== undefined && JSON.stringify(v) !== JSON.stringify(old.inputs[k]))
    .map(([k]) => k);
}

/**
 * Progress lines from the emulator's own view: pod status and endpoint workers, each time one
 * changes. `seen` carries over between phases, so a phase prints only its own changes.
 */
function watch(emu: Emulator, everyMs: number, seen: Map<string, string>, print: (line: string) => void): () => void {
  if (everyMs <= 0) return () => {};
  const started = Date.now();
  const look = () => {
    const s = emu.state();
    const lines: [string, string][] = [
      ...s.pods.map((p) => [`pod ${p.name} (${p.id})`, p.status] as [string, string]),
      ...(s.endpoints as { id: string; name: string; pods: { desiredStatus: string }[] }[]).map(
        (e) => [`endpoint ${e.name} (${e.id})`, `workers [${e.pods.map((w) => w.desiredStatus).join(", ")}]`] as [string, string],
      ),
    ];
    for (const [what, status] of lines) {
      if (seen.get(what) === status) continue;
      seen.set(what, status);
      print(`    t+${String(Date.now() - started).padStart(5)} ms  ${what}: ${status}`);
    }
  };
  look();
  const timer = setInterval(look, everyMs);
  return () => {
    clearInterval(timer);
    look();
  };
}

/** An example's stack on a running emulator: the plugin, and phases that record what each step did. */
export interface ExampleSession {
  stack: EngineStack;
  plugin: ProviderPlugin;
  /** The stack config every phase starts from: the emulator's address and key. */
  config: Record<string, string>;
  phases: Phase[];
  /** Runs `run` as one recorded phase. */
  phase(title: string, run: () => Promise<{ result: OperationResult; changed?: Map<string, string[]>; outputs?: StackOutputs }>): Promise<Phase>;
  /** The program run under mocks with `programConfig`, then the engine's steps of a preview or an up. */
  programPhase(title: string, mode: "preview" | "up", programConfig: Record<string, string>): Promise<Phase>;
  /** Stops the plugin. */
  close(): Promise<void>;
}

/**
 * Starts the plugin in `examples/<example>` with the emulator's address and key as stack config
 * (the key through Configure only, never the environment), for `npm run demo` and `npm run example`.
 */
export async function openExample(example: ExampleName, opts: LifecycleOptions & { secretKeys?: string[] }): Promise<ExampleSession> {
  const emu = opts.emulator;
  const say = opts.onEvent ?? (() => {});
  const project = projectName(example);
  const stackName = opts.stack ?? "dev";
  const secretKeys = [...SECRET_KEYS, ...(opts.secretKeys ?? [])];
  const config: Record<string, string> = {
    "computeplatform:apiUrl": emu.url,
    "computeplatform:serverlessUrl": emu.url,
    "computeplatform:apiKey": emu.apiKey,
  };
  // The key reaches the plugin only through Configure (stack config), never the environment.
  const plugin = await startPlugin(config, { cwd: exampleDir(example), project, env: { COMPUTEPLATFORM_POLL_INTERVAL_MS: String(opts.podPollMs ?? 100) } });
  const phases: Phase[] = [];
  const stack = new EngineStack(plugin, { project, stack: stackName });
  const seen = new Map<string, string>();
  const ids = () => Object.fromEntries([...stack.resources.values()].map((r) => [r.urn.split("::").at(-1) ?? r.urn, r.id]));

  const phase: ExampleSession["phase"] = async (title, run) => {
    say(`== ${title}`);
    const before = emu.counts();
    const firstCall = stack.calls.length;
    const printed = plugin.transcript().length;
    const started = Date.now();
    const stopWatching = watch(emu, opts.watchMs ?? 0, seen, say);
    let outcome: Awaited<ReturnType<typeof run>> | undefined;
    let failure: unknown;
    try {
      outcome = await run();
    } catch (err) {
      // The program's own run failed (a smoke test's job that failed): the phase fails, as the up would.
      failure = err;
    } finally {
      stopWatching();
    }
    await settled(plugin);
    const { result, changed, outputs } = outcome ?? { result: { steps: [] } };
    const p: Phase = {
      title,
      steps: result.steps.map((s) => {
        const [type, name] = s.urn.split("::").slice(-2);
        const touched = s.op === "update" || s.op === "replace" ? (changed?.get(name) ?? []) : [];
        return { name, type: shortType(type), op: s.op, changed: touched, replaces: s.diff?.replaces ?? [] };
      }),
      calls: stack.calls.slice(firstCall),
      api: delta(emu.counts(), before),
      ids: ids(),
      ms: Date.now() - started,
      costLines: printedLines(plugin, printed, "cost: "),
      smokeLines: printedLines(plugin, printed, "smoke test "),
      stepLines: plugin
        .transcript()
        .slice(printed)
        .split("\n")
        .map((l) => STEP_LINE.exec(l) && l.slice(l.search(STEP_LINE)))
        .filter((l): l is string => !!l)
        // Steps run side by side print in any order: sorted, ids aside, a phase reads the same every run.
        .sort((a, b) => maskIds(a).localeCompare(maskIds(b))),
      ...(outputs ? { outputs } : {}),
    };
    if (failure !== undefined) {
      p.error = `the program failed: ${failure instanceof Error ? failure.message : String(failure)}`;
    } else if (result.failures) {
      p.error = `check failed for ${result.failures.urn}: ${result.failures.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`;
    } else if (result.error) {
      p.error = result.error.message;
    }
    phases.push(p);
    return p;
  };

  // What the program registers (a preview's run under mocks: see the top of this file), the
  // engine's steps, and after an up the program's run against the stack's state.
  const programPhase: ExampleSession["programPhase"] = (title, mode, programConfig) =>
    phase(title, async () => {
      const regs = await captureExample(example, { stack: stackName, config: programConfig, preview: true, secretKeys });
      const resolved = resolvingIds(stack, regs, { preview: mode === "preview" });
      // What the program changed, against the state before the step runs (read now, before up applies it).
      const changed = new Map(resolved.map((r) => [r.name, changedKeys(stack, r)]));
      const result = mode === "preview" ? await stack.preview(resolved) : await stack.up(resolved);
      if (mode === "preview" || result.error || result.failures) return { result, changed };
      const outputs = await exampleExports(example, stack, { stack: stackName, config: programConfig, secretKeys });
      return { result, changed, outputs };
    });

  return { stack, plugin, config, phases, phase, programPhase, close: () => plugin.stop() };
}

/** Run the quickstart's lifecycle; the plugin is started and stopped here. */
export async function runQuickstartLifecycle(opts: LifecycleOptions): Promise<LifecycleResult> {
  const say = opts.onEvent ?? (() => {});
  const session = await openExample("quickstart", opts);
  const { stack, plugin, config, phases, phase, programPhase } = session;
  try {
    const base = { ...config, "quickstart:image": QUICKSTART_IMAGE, "quickstart:gpuType": QUICKSTART_GPU };
    const inPlace = { ...base, "quickstart:image": UPDATED_IMAGE };
    const replacing = { ...inPlace, "quickstart:gpuType": REPLACEMENT_GPU };
    const rolling = { ...replacing, "quickstart:workerImage": ROLLED_WORKER_IMAGE };
    const prompted = { ...rolling, "quickstart:smokePrompt": SMOKE_PROMPT };

    const steps: [string, "preview" | "up", Record<string, string>][] = [
      ["preview (new stack)", "preview", base],
      ["up (new stack)", "up", base],
      [`preview: image -> ${UPDATED_IMAGE}`, "preview", inPlace],
      ["up: change in place", "up", inPlace],
      [`preview: gpu -> ${REPLACEMENT_GPU}`, "preview", replacing],
      ["up: change that replaces", "up", replacing],
      // The workers' image: the Template updates in place, the endpoint's workers roll (a new
      // release), the up waits for the rollout, and the smoke test runs on the new release.
      [`preview: worker image -> ${ROLLED_WORKER_IMAGE}`, "preview", rolling],
      ["up: the endpoint's workers roll", "up", rolling],
      // Nothing changed: two previews in a row and an up, no step, no paid job; then only the
      // smoke test's input: its job once.
      ["preview: unchanged", "preview", rolling],
      ["preview: still unchanged", "preview", rolling],
      ["up: unchanged", "up", rolling],
      [`preview: smoke prompt -> ${SMOKE_PROMPT}`, "preview", prompted],
      ["up: smoke prompt", "up", prompted],
    ];
    let failed = false;
    for (const [title, mode, cfg] of steps) {
      const p = await programPhase(title, mode, cfg);
      say(describe(p));
      if (p.error) {
        failed = true;
        break;
      }
    }
    const stateText = stack.stateText();
    const pod = [...stack.resources.values()].find((r) => r.type.endsWith(":Pod"));
    const providerText = typeof pod?.outputs.__provider === "string" ? pod.outputs.__provider : "";

    if (!failed) {
      const refreshed = await phase("refresh", async () => ({ result: await stack.refresh() }));
      say(describe(refreshed));
    }
    // Also after a failure: whatever the stack holds is deleted, so nothing is left behind.
    const destroyed = await phase("destroy", async () => ({ result: await stack.destroy() }));
    say(describe(destroyed));
    return { phases, transcript: plugin.transcript(), stateText, providerText };
  } finally {
    await session.close();
  }
}

/** One phase as text: its steps, the provider calls and the API requests it spent. */
export function describe(p: Phase): string {
  const sign: Record<string, string> = { create: "+", update: "~", replace: "+-", delete: "-", same: " ", refresh: "=", "read-gone": "x" };
  const lines = p.steps.map((s) => {
    const why = s.op === "replace" ? ` (replaces on ${s.replaces.join(", ")})` : s.op === "update" ? ` (${s.changed.join(", ")})` : "";
    const id = p.ids[s.name] ? `  id ${p.ids[s.name]}` : "";
    return `  ${(sign[s.op] ?? "?").padEnd(2)} ${s.op.padEnd(9)} ${s.type} ${s.name}${why}${id}`;
  });
  const api = Object.entries(p.api)
    .map(([op, n]) => `${op} ${n}`)
    .join(", ");
  for (const line of [...p.stepLines, ...p.costLines, ...p.smokeLines]) lines.push(`  ${line}`);
  // The program's smoke job, sent once the endpoint it names exists (runSyncSmokeTest).
  const smoke = p.outputs?.smokeStatus?.value;
  if (smoke !== undefined) {
    const on = p.outputs?.endpointId?.value;
    const release = p.outputs?.smokeRelease?.value;
    lines.push(
      `  smoke job${on ? ` on endpoint ${on}` : ""}: ${String(smoke)}${release === undefined ? "" : `, answered by release ${String(release)}`}, output ${JSON.stringify(p.outputs?.smokeOutput?.value ?? null)}`,
    );
  }
  lines.push(`  provider calls: ${p.calls.join(", ") || "none"}`);
  lines.push(`  API requests:   ${api || "none"}  (${p.ms} ms)`);
  if (p.error) lines.push(`  FAILED: ${p.error}`);
  return lines.join("\n");
}

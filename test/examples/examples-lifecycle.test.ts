// The examples through Pulumi's own dynamic-provider plugin against the emulator, over real
// HTTP: the quickstart's whole life as `npm run demo` runs it (preview, up, a change in place,
// a change that replaces, refresh, destroy), and the promotion program's dev and prod configs
// previewed against a prod stack.
import * as fs from "node:fs";
import * as path from "node:path";
import { ComputePlatform } from "../../src/client";
import { type Emulator, startEmulator } from "../../src/emulator";
import { captureExample, type ExampleName, exampleDir, projectName, resolvingIds, stackConfig } from "../../tools/engine/examples";
import {
  type LifecycleResult,
  QUICKSTART_GPU,
  REPLACEMENT_GPU,
  ROLLED_WORKER_IMAGE,
  runQuickstartLifecycle,
  SMOKE_PROMPT,
  UPDATED_IMAGE,
} from "../../tools/engine/example-session";
import { PROMOTED_WORKERS_MAX } from "../../scripts/example";
import { formatOutputs, stackOutputs } from "../../tools/engine/stack-outputs";
import { captureProgram, EngineStack } from "../../tools/engine";
import { resourcesOf } from "../helpers/ledger";
import { startPlugin } from "../../tools/engine/rig";

let emu: Emulator;

beforeAll(async () => {
  // Pods provision and start in a few ms; the providers' own poll pace bounds the run.
  emu = await startEmulator({ port: 0, timeScale: 1000 });
});

afterAll(async () => {
  await emu?.close();
});

/** A plugin for an example's project, configured as the engine does, and an empty stack on it. */
async function startExample(example: ExampleName, config: Record<string, string>, stack: string) {
  const project = projectName(example);
  const plugin = await startPlugin(config, { cwd: exampleDir(example), project, env: { COMPUTEPLATFORM_POLL_INTERVAL_MS: "20" } });
  return { plugin, stack: new EngineStack(plugin, { project, stack }) };
}

describe("quickstart lifecycle", () => {
  let result: LifecycleResult;
  const phase = (title: string) => {
    const p = result.phases.find((x) => x.title.startsWith(title));
    if (!p) throw new Error(`no phase ${title}; ran ${result.phases.map((x) => x.title).join(", ")}`);
    return p;
  };
  const ops = (title: string) => Object.fromEntries(phase(title).steps.map((s) => [s.name, s.op]));

  beforeAll(async () => {
    result = await runQuickstartLifecycle({ emulator: emu, stack: "lifecycle", podPollMs: 20 });
    // A bound for a hung run, not a speed target: four resources and fourteen phases, each a
    // plugin process, took 86 s alone in CI; CI runs this file in one jest run with the fault,
    // load and property suites (three workers on two cores), where 180 s was once too short.
  }, 420_000);

  test("every phase ran without error, in order", () => {
    expect(result.phases.map((p) => [p.title.split(":")[0], p.error])).toEqual([
      ["preview (new stack)", undefined],
      ["up (new stack)", undefined],
      ["preview", undefined],
      ["up", undefined],
      ["preview", undefined],
      ["up", undefined],
      ["preview", undefined],
      ["up", undefined],
      ["preview", undefined],
      ["preview", undefined],
      ["up", undefined],
      ["preview", undefined],
      ["up", undefined],
      ["refresh", undefined],
      ["destroy", undefined],
    ]);
  });

  test("previews only Check and Diff, and send no request but the catalog read that prices the stack's cost; the smoke job runs when what it tests changed", () => {
    for (const p of result.phases.filter((x) => x.title.startsWith("preview"))) {
      // The stack's cost (cost/ledger.ts): one read of the GPU prices at most, none once read.
      // And a look at what runs for a changed resource: one list of the live pods or endpoints at most.
      const ledgerRead = (op: string, n: number) => (op === "listGpus" || op === "listPods" || op === "myself" || op === "listEndpoints") && n <= 1;
      expect(Object.entries(p.api).filter(([op, n]) => !ledgerRead(op, n))).toEqual([]);
      expect(p.calls.every((c) => c.startsWith("Check ") || c.startsWith("Diff "))).toBe(true);
    }
    // The first up, the up that rolled the endpoint's workers and the up that changed the smoke
    // test's input; never for a pod's change or an unchanged stack.
    expect(result.phases.filter((x) => x.title.startsWith("up")).map((p) => p.api.runSync ?? 0)).toEqual([1, 0, 0, 1, 0, 1]);
  });

  test("up of a new stack creates the volume, the serverless template, the endpoint on it and the pod mounting that volume", () => {
    expect(ops("up (new stack)")).toEqual({ "stack-cost": "create", data: "create", worker: "create", api: "create", trainer: "create", "smoke-test": "create" });
    // The endpoint's save, then the save that gives it its own name once its create finished (lifecycle/owner.ts).
    expect(phase("up (new stack)").api).toMatchObject({ createNetworkVolume: 1, createTemplate: 1, saveEndpoint: 2, createPod: 1 });
    const preview = phase("preview (new stack)");
    expect(ops("preview (new stack)")).toEqual({ "stack-cost": "create", data: "create", worker: "create", api: "create", trainer: "create", "smoke-test": "create" });
    expect(preview.calls).toEqual(["Check data", "Check worker", "Check stack-cost", "Check trainer", "Check api", "Check smoke-test"]);
  });

  test("a new image: preview says update, up updates the same pod in place", () => {
    // The provider's line beside the engine's step, from the tables that decide it (lifecycle/step-line.ts).
    expect(result.transcript).toContain('Pod "trainer": updated in place; the container restarts, its container disk wiped (image)');
    expect(ops("preview: image")).toEqual({ "stack-cost": "same", data: "same", worker: "same", api: "same", trainer: "update", "smoke-test": "same" });
    expect(phase("preview: image").steps.find((s) => s.name === "trainer")?.changed).toEqual(["image"]);
    const up = phase("up: change in place");
    expect(ops("up: change in place")).toEqual({ "stack-cost": "same", data: "same", worker: "same", api: "same", trainer: "update", "smoke-test": "same" });
    expect(up.ids.trainer).toBe(phase("up (new stack)").ids.trainer);
    expect(up.api.updatePod).toBe(1);
    expect(up.api.createPod).toBeUndefined();
    expect(up.calls.filter((c) => c.startsWith("Update "))).toEqual(["Update trainer"]);
  });

  test("a new GPU type: preview says replace on gpu, up creates the new pod before deleting the old", () => {
    // The pod's new GPU type changes the stack's cost: the ledger records it.
    expect(result.transcript).toContain(
      'Pod "trainer": replaced (gpu): a new one is made, then the old deleted; lost: its container disk and its public address (IP and ports); kept: the data on its network volume, mounted again',
    );
    expect(ops("preview: gpu")).toEqual({ "stack-cost": "update", data: "same", worker: "same", api: "same", trainer: "replace", "smoke-test": "same" });
    expect(phase("preview: gpu").steps.find((s) => s.name === "trainer")?.replaces).toEqual(["gpu"]);
    const up = phase("up: change that replaces");
    expect(up.calls.filter((c) => c.endsWith(" trainer")).slice(-3)).toEqual(["Check trainer", "Create trainer", "Delete trainer"]);
    expect(up.api).toMatchObject({ createPod: 1, deletePod: 1 });
    expect(up.ids.trainer).not.toBe(phase("up: change in place").ids.trainer);
    expect(up.ids.data).toBe(phase("up (new stack)").ids.data);
  });

  test("a new worker image: the template updates, the endpoint previews its workers rolling, up waits for the rollout, the smoke job runs again", () => {
    const rolls = { "stack-cost": "same", data: "same", worker: "update", api: "update", trainer: "same", "smoke-test": "update" };
    expect(phase("preview: worker image").title).toBe(`preview: worker image -> ${ROLLED_WORKER_IMAGE}`);
    expect(ops("preview: worker image")).toEqual(rolls);
    expect(phase("preview: worker image").steps.find((s) => s.name === "api")?.changed).toEqual(["template"]);
    const up = phase("up: the endpoint's workers roll");
    expect(ops("up: the endpoint's workers roll")).toEqual(rolls);
    expect(up.ids.api).toBe(phase("up (new stack)").ids.api);
    expect(up.calls.filter((c) => c.startsWith("Update "))).toEqual(["Update worker", "Update api", "Update smoke-test"]);
    // One PATCH of the template; the endpoint's update read it (myself), its wait read the account's
    // endpoints (myself, the poller's tick every wait of the process shares) until the rollout
    // looked over, then its releases confirmed it.
    expect(up.api).toMatchObject({ updateTemplate: 1, listEndpointReleases: 1, runSync: 1 });
    expect(up.api.myself).toBeGreaterThanOrEqual(2);
    expect(up.api.saveEndpoint).toBeUndefined();
  });

  test("the emulator saw what the phases say: the old pod terminated, the new one on the same volume", () => {
    const pods = emu.state().pods.filter((p) => p.name.startsWith("trainer-"));
    const first = pods.find((p) => p.id === phase("up (new stack)").ids.trainer)!;
    const second = pods.find((p) => p.id === phase("up: change that replaces").ids.trainer)!;
    expect(first.gpu?.id).toBe(QUICKSTART_GPU);
    expect(first.image).toBe(UPDATED_IMAGE);
    expect(second.gpu?.id).toBe(REPLACEMENT_GPU);
    expect(second.image).toBe(UPDATED_IMAGE);
    const volumeId = phase("up (new stack)").ids.data;
    for (const p of [first, second]) expect(p.mounts.network?.[0]).toEqual({ volumeId, path: "/workspace" });
    // No dataCenterIds in the program: the pod runs where the volume is.
    expect(second.dataCenterId).toBe("US-TX-3");
  });

  test("unchanged, two previews in a row and an up show no change and send no paid job; a changed smoke prompt runs the job once, saying why", () => {
    const same = { "stack-cost": "same", data: "same", worker: "same", api: "same", trainer: "same", "smoke-test": "same" };
    for (const title of ["preview: unchanged", "preview: still unchanged", "up: unchanged"]) {
      expect(ops(title)).toEqual(same);
      expect(phase(title).api.runSync).toBeUndefined();
      expect(phase(title).calls.filter((c) => !c.startsWith("Check ") && !c.startsWith("Diff "))).toEqual([]);
    }
    // The plugin's lines, in order, over the whole life (one may reach the plugin's output after its
    // phase ended): the first up's run, one "no job" per preview and up that left it alone, then
    // the changed prompt's preview, up and job.
    const id = phase("up (new stack)").ids.api;
    const first = expect.stringMatching(new RegExp(`^smoke test "smoke-test": ran job \\S+ on ${id} at \\S+ \\(first run\\): COMPLETED$`));
    const noJob = expect.stringMatching(/^smoke test "smoke-test": no job \(nothing it tests changed\); keeps the answer of job \S+, run at /);
    const runs = `smoke test "smoke-test": runs one paid job on ${id} (the job's input changed)`;
    const ran = expect.stringMatching(new RegExp(`^smoke test "smoke-test": ran job \\S+ on ${id} at \\S+ \\(the job's input changed\\): COMPLETED$`));
    const rolled = `smoke test "smoke-test": runs one paid job on ${id} (what its workers run changed (a new release))`;
    const ranRolled = expect.stringMatching(new RegExp(`^smoke test "smoke-test": ran job \\S+ on ${id} at \\S+ \\(what its workers run changed \\(a new release\\)\\): COMPLETED$`));
    expect(result.phases.flatMap((p) => p.smokeLines)).toEqual([first, noJob, noJob, noJob, noJob, rolled, rolled, ranRolled, noJob, noJob, noJob, runs, runs, ran]);
    const kept = phase("up (new stack)").outputs!;
    expect(phase("up: unchanged").outputs!.smokeOutput).toEqual(kept.smokeOutput);
    expect(ops("preview: smoke prompt")).toEqual({ ...same, "smoke-test": "update" });
    expect(phase("preview: smoke prompt").api.runSync).toBeUndefined();
    const up = phase("up: smoke prompt");
    expect(ops("up: smoke prompt")).toEqual({ ...same, "smoke-test": "update" });
    expect(up.api.runSync).toBe(1);
    expect(up.calls.filter((c) => c.startsWith("Update ") || c.startsWith("Create "))).toEqual(["Update smoke-test"]);
    expect(up.outputs!.smokeOutput.value).toMatchObject({ prompt: SMOKE_PROMPT });
  });

  test("refresh reads all of them and finds them, sending no job; destroy deletes the endpoint before its template and leaves nothing", () => {
    expect(ops("refresh")).toEqual({ "stack-cost": "refresh", data: "refresh", worker: "refresh", api: "refresh", trainer: "refresh", "smoke-test": "refresh" });
    expect(phase("refresh").api.runSync).toBeUndefined();
    expect(phase("refresh").ids).toEqual(phase("up: change that replaces").ids);
    expect(phase("destroy").calls).toEqual(["Delete smoke-test", "Delete api", "Delete trainer", "Delete stack-cost", "Delete worker", "Delete data"]);
    const s = emu.state();
    expect(s.pods.filter((p) => p.status !== "TERMINATED")).toEqual([]);
    expect(s.networkVolumes).toEqual([]);
    expect(s.endpoints).toEqual([]);
    expect(s.templates).toEqual([]);
  });

  test("the API key is in neither the plugin's output nor the state; __provider is the by-name shim", () => {
    expect(result.transcript).not.toContain(emu.apiKey);
    expect(result.stateText).not.toContain(emu.apiKey);
    expect(result.providerText).toContain('require("pulumi-computeplatform/providers")');
    expect(result.providerText).not.toContain(exampleDir("quickstart"));
  });

  test("the README quotes the shim's size as this run measures it (the demo prints the same figure)", () => {
    // `npm run demo` prints `__provider in state: N characters` from this same lifecycle; the
    // README shows that output and cites the figure in its notes.
    const readme = fs.readFileSync(path.join(__dirname, "../../README.md"), "utf8");
    const quoted = [...readme.matchAll(/__provider in state: (\d+) characters|demo measured it at (\d+) characters/g)].map((m) => Number(m[1] ?? m[2]));
    expect(quoted).toHaveLength(2);
    expect(quoted).toEqual([result.providerText.length, result.providerText.length]);
  });
});

test("promotion: against a prod stack, the dev tag is an in-place update, the promotion's change shows its cost line; the whole dev config replaces the pod", async () => {
  const platform = {
    "computeplatform:apiUrl": emu.url,
    "computeplatform:apiKey": emu.apiKey,
  };
  const prodConfig: Record<string, string> = { ...platform, ...stackConfig("promotion", "prod") };
  const devConfig: Record<string, string> = { ...platform, ...stackConfig("promotion", "dev") };
  const { plugin, stack: prod } = await startExample("promotion", prodConfig, "prod");
  try {
    const ops = (steps: { urn: string; op: string }[]) => Object.fromEntries(steps.map((s) => [s.urn.split("::").at(-1), s.op]));
    // The three program runs are independent of the stack's state; run them side by side.
    const promotion = { ...prodConfig, "promotion:imageTag": devConfig["promotion:imageTag"]!, "promotion:workersMax": PROMOTED_WORKERS_MAX };
    const [currentRegs, tagOnlyRegs, devAllRegs, promotionRegs] = await Promise.all([
      // Captured as a preview's run (the program's smoke job is sent only once the endpoint exists).
      captureExample("promotion", { stack: "prod", config: prodConfig, preview: true }),
      // Review step 1: the release candidate's tag promoted to prod.
      captureExample("promotion", { stack: "prod", config: { ...prodConfig, "promotion:imageTag": devConfig["promotion:imageTag"] }, preview: true }),
      // Every difference between the two stack files, as a preview of prod would show it.
      captureExample("promotion", { stack: "prod", config: devConfig, preview: true }),
      // What `npm run example -- promotion` promotes: the tag, and room for the launch's load.
      captureExample("promotion", { stack: "prod", config: promotion, preview: true }),
    ]);

    // The engine hands the endpoint its template's real id (an unknown while previewing one not made yet).
    const up = await prod.up(resolvingIds(prod, currentRegs, { preview: false }));
    expect(up.error ?? up.failures).toBeUndefined();
    expect(ops(up.steps)).toEqual({ data: "create", "stack-cost": "create", batch: "create", "inference-worker": "create", inference: "create", "smoke-test": "create" });
    // The stack's outputs as `pulumi up` prints them (the example prints them after each up).
    const outputs = await stackOutputs(path.join(exampleDir("promotion"), "index.ts"), { project: projectName("promotion"), stack: prod, config: prodConfig, secretKeys: [] });
    const batchId = [...prod.resources.values()].find((r) => r.urn.endsWith("::batch"))!.id;
    expect(outputs.release).toEqual({ value: "1.4.2", secret: false });
    expect(outputs.batchPodId).toEqual({ value: batchId, secret: false });
    expect(formatOutputs(outputs)).toContain(`\n    batchPodId     : "${batchId}"\n`);
    // The smoke job ran once the endpoint's up was over, answered by the endpoint's release.
    expect(outputs.smokeStatus).toEqual({ value: "COMPLETED", secret: false });
    expect(outputs.smokeRelease).toEqual(outputs.endpointVersion);

    // Prod unchanged: every step same, the smoke test's too, and no paid job.
    const jobs = emu.counts().runSync;
    const still = await prod.preview(resolvingIds(prod, currentRegs, { preview: true }));
    expect(ops(still.steps)).toEqual({ data: "same", "stack-cost": "same", batch: "same", "inference-worker": "same", inference: "same", "smoke-test": "same" });
    expect(emu.counts().runSync).toBe(jobs);

    const before = emu.counts();
    const tagOnly = await prod.preview(resolvingIds(prod, tagOnlyRegs, { preview: true }));
    expect(tagOnly.error ?? tagOnly.failures).toBeUndefined();
    // The tag is the pod's image and the workers' template image: both PATCHed, and the endpoint
    // bound to that template shows as an update, since its workers roll to the new image.
    // The smoke test runs again: what the workers run and its input (which names the tag) changed.
    expect(ops(tagOnly.steps)).toEqual({ data: "same", "stack-cost": "same", batch: "update", "inference-worker": "update", inference: "update", "smoke-test": "update" });

    const printed = plugin.transcript().length;
    const promoted = await prod.preview(resolvingIds(prod, promotionRegs, { preview: true }));
    expect(promoted.error ?? promoted.failures).toBeUndefined();
    expect(ops(promoted.steps)).toEqual({ data: "same", "stack-cost": "update", batch: "update", "inference-worker": "update", inference: "update", "smoke-test": "update" });
    expect(plugin.transcript().slice(printed)).toMatch(/cost: \$[\d.]+-\$[\d.]+\/h -> \$[\d.]+-\$[\d.]+\/h \(\+\$0\.00-\$[\d.]+\/h\): endpoint inference workersMax 8 -> 10\n/);

    const devAll = await prod.preview(resolvingIds(prod, devAllRegs, { preview: true }));
    expect(devAll.error ?? devAll.failures).toBeUndefined();
    expect(ops(devAll.steps)).toEqual({ data: "same", "stack-cost": "update", batch: "replace", "inference-worker": "update", inference: "update", "smoke-test": "update" });
    expect(devAll.steps.find((s) => s.urn.endsWith("::batch"))?.diff?.replaces).toEqual(["gpu"]);
    // No write; reads only: the stack's cost looks once at the live objects whose cost changes
    // (the promotion's, the endpoint; the whole dev config's, the pod and the endpoint).
    const after = emu.counts();
    expect({ ...after, listPods: before.listPods, myself: before.myself }).toEqual(before);
    expect([after.listPods! - before.listPods!, after.myself! - before.myself!]).toEqual([1, 2]);

    // Prod's volume is protected: a change that would replace it (a new data center: a new,
    // empty volume) prints the volume's line, then the engine refuses it; nothing is written.
    const moved = await captureExample("promotion", { stack: "prod", config: { ...prodConfig, "promotion:dataCenter": "EU-RO-1" }, preview: true });
    const [atMove, linesFrom] = [emu.counts(), plugin.transcript().length];
    const refused = await prod.preview(resolvingIds(prod, moved, { preview: true }));
    expect(refused.error?.message).toMatch(/^unable to replace resource ".*NetworkVolume::data"\nas it is currently marked for protection/);
    await plugin.waitForTranscript("[DESTROYS DATA]");
    expect(plugin.transcript().slice(linesFrom)).toContain('NetworkVolume "data": replaced (dataCenter): a new one is made, then the old deleted; lost: its data (the new volume is empty; nothing is copied) [DESTROYS DATA]');
    expect({ ...emu.counts(), listPods: atMove.listPods, myself: atMove.myself }).toEqual(atMove);
    // The protection stops a destroy too, until a reviewed change lifts it: an up that sends nothing.
    expect((await prod.destroy()).error?.message).toMatch(/cannot be deleted\nbecause it is protected/);
    const unprotected = await captureExample("promotion", { stack: "prod", config: { ...prodConfig, "promotion:protectData": "false" }, preview: true });
    expect(ops((await prod.up(resolvingIds(prod, unprotected, { preview: false }))).steps)).toMatchObject({ data: "same" });

    const down = await prod.destroy();
    expect(down.error).toBeUndefined();
    expect(emu.state().networkVolumes).toEqual([]);
    expect(emu.state().endpoints).toEqual([]);
    expect(emu.state().templates).toEqual([]);
  } finally {
    await plugin.stop();
  }
}, 240_000);

test("README: a pod made outside the stack is taken over with adopt (no second pod), then owned by destroy", async () => {
  const cp = new ComputePlatform({ apiUrl: emu.url, apiKey: emu.apiKey });
  const existing = await cp.pods.create({ name: "legacy-notebook", image: "jupyter/base-notebook:2024-10", gpu: { id: "NVIDIA RTX A6000" } });
  const config = { "computeplatform:apiUrl": emu.url, "computeplatform:apiKey": emu.apiKey };
  const project = projectName("quickstart");
  // The README's declaration, with the id of the pod made above.
  const regs = await captureProgram(
    () => {
      // By name, as a user's program loads it: `__provider` is then the built package's shim.
      const { Pod } = require("pulumi-computeplatform");
      new Pod("notebook", {
        name: "legacy-notebook",
        image: "jupyter/base-notebook:2024-12",
        gpu: { id: "NVIDIA RTX A6000" },
        adopt: existing.id,
      });
    },
    { cwd: exampleDir("quickstart"), project, stack: "adopt", config },
  );
  const { plugin, stack } = await startExample("quickstart", config, "adopt");
  try {
    const before = emu.counts();
    const up = await stack.up(regs);
    expect(up.error ?? up.failures).toBeUndefined();
    expect(resourcesOf(stack)[0]!.id).toBe(existing.id);
    expect(emu.counts().createPod ?? 0).toBe(before.createPod ?? 0);
    expect(emu.state().pods.find((p) => p.id === existing.id)).toMatchObject({ image: "jupyter/base-notebook:2024-12" });
    const down = await stack.destroy();
    expect(down.error).toBeUndefined();
    expect(emu.state().pods.find((p) => p.id === existing.id)?.status).toBe("TERMINATED");
  } finally {
    await plugin.stop();
  }
}, 180_000);

test("cpu-pod: up makes a CPU pod on the stack's volume in the volume's data center; destroy leaves nothing", async () => {
  const config = { "computeplatform:apiUrl": emu.url, "computeplatform:apiKey": emu.apiKey };
  const { plugin, stack } = await startExample("cpu-pod", config, "dev");
  try {
    const regs = await captureExample("cpu-pod", { stack: "dev", config });
    const up = await stack.up(resolvingIds(stack, regs, { preview: false }));
    expect(up.error ?? up.failures).toBeUndefined();
    const ids = Object.fromEntries([...stack.resources.values()].map((r) => [r.urn.split("::").at(-1), r.id]));
    const pod = emu.state().pods.find((p) => p.id === ids.etl);
    expect(pod).toMatchObject({
      status: "RUNNING",
      dataCenterId: "EU-RO-1",
      // cpu3g has 4 GB per vCPU.
      cpu: { id: "cpu3g", vcpuCount: 4, memory: 16 },
      mounts: { network: [{ volumeId: ids.datasets, path: "/data" }] },
    });
    expect(pod?.gpu).toBeUndefined();
    const down = await stack.destroy();
    expect(down.error).toBeUndefined();
    expect(emu.state().pods.find((p) => p.id === ids.etl)?.status).toBe("TERMINATED");
    expect(emu.state().networkVolumes.find((v) => v.id === ids.datasets)).toBeUndefined();
  } finally {
    await plugin.stop();
  }
}, 180_000);

// The example programs as a user's repo runs them: each type-checks against the built package
// resolved by name, the quickstart compiles under the TypeScript `pulumi up` would use, and
// each program's resources are asserted under `pulumi.runtime.setMocks` (run in a child node,
// so `__provider` is the text the SDK would store). No emulator: nothing here sends a request.
import { execFile } from "node:child_process";
import * as path from "node:path";
import { captureExample, type ExampleName, exampleDir, ROOT, stackConfig } from "../../tools/engine/examples";
import type { Registration } from "../../tools/engine";

const TSC = path.join(ROOT, "node_modules/typescript-native/bin/tsc");
// Nothing listens here: a program that sent a request during preview would fail loudly.
const CONFIG = { "computeplatform:apiUrl": "http://127.0.0.1:9", "computeplatform:apiKey": "cp_examples_unused_key" };

function run(file: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file, ...args], { cwd, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

const byName = (regs: Registration[]) => Object.fromEntries(regs.map((r) => [r.name, r]));

test("each example type-checks with its own tsconfig against the built package, imported by name", async () => {
  const examples: ExampleName[] = ["quickstart", "cpu-pod", "promotion"];
  const results = await Promise.all(
    examples.map((name) => run(TSC, ["-p", path.join(exampleDir(name), "tsconfig.json"), "--noEmit"], ROOT)),
  );
  for (const [i, r] of results.entries()) expect({ example: examples[i], ...r }).toEqual({ example: examples[i], code: 0, out: "" });
});

test("quickstart, type-checked as pulumi up compiles it, registers a volume, a GPU pod on that volume, a serverless template and an endpoint on it; preview sends nothing (a request to the unused apiUrl would fail the program)", async () => {
  const regs = await captureExample("quickstart", { stack: "dev", config: CONFIG, preview: true, typeCheck: true });
  expect(regs.map((r) => `${r.type} ${r.name}`).sort()).toEqual([
    "pulumi-nodejs:dynamic/computeplatform:NetworkVolume data",
    "pulumi-nodejs:dynamic/computeplatform:Pod trainer",
    "pulumi-nodejs:dynamic/computeplatform:ServerlessEndpoint api",
    // The smoke test's job, sent only when what it tests changed (runSyncSmokeTest).
    "pulumi-nodejs:dynamic/computeplatform:SmokeTest smoke-test",
    // The stack's cost ledger, which the pod and the endpoint wait for (src/resources/cost/ledger.ts).
    "pulumi-nodejs:dynamic/computeplatform:StackCost stack-cost",
    "pulumi-nodejs:dynamic/computeplatform:Template worker",
  ]);
  const { data, trainer, api, worker } = byName(regs);
  expect(data.inputs).toMatchObject({ size: 50, dataCenter: "US-TX-3" });
  expect(trainer.inputs).toMatchObject({
    image: "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
    gpu: { id: "NVIDIA GeForce RTX 4090", count: 1 },
    // The mock id of the stack's own volume: the mount follows the NetworkVolume resource.
    mounts: { network: [{ volumeId: "data-id", path: "/workspace" }] },
  });
  expect(trainer.inputs.cpu).toBeUndefined();
  // Its volume, and the stack's cost ledger (every Pod and ServerlessEndpoint waits for it).
  expect([...trainer.options.dependencies].sort()).toEqual([expect.stringContaining("NetworkVolume::data"), expect.stringContaining("StackCost::stack-cost")]);
  expect(worker.inputs).toMatchObject({ image: "runpod/worker-v1-vllm:v2.4.0", serverless: true });
  // The mock id of the stack's own template, and its serverless output for the endpoint's check.
  expect(api.inputs).toMatchObject({ gpuIds: "ADA_24", workersMin: 1, workersMax: 3, templateId: "worker-id", __template: { resourceName: "worker", serverless: true } });
  expect([...api.options.dependencies].sort()).toEqual([expect.stringContaining("StackCost::stack-cost"), expect.stringContaining("Template::worker")]);
  // Every resource's provider is the by-name shim, holding no key.
  for (const r of regs) {
    expect(r.inputs.__provider).toEqual(expect.stringContaining('require("pulumi-computeplatform/providers")'));
    expect(JSON.stringify(r.inputs)).not.toContain(CONFIG["computeplatform:apiKey"]);
  }
});

test("quickstart config changes reach the pod: image and GPU type", async () => {
  const regs = await captureExample("quickstart", {
    stack: "dev",
    config: { ...CONFIG, "quickstart:image": "img:2", "quickstart:gpuType": "NVIDIA L40S" },
    preview: true,
  });
  expect(byName(regs).trainer.inputs).toMatchObject({ image: "img:2", gpu: { id: "NVIDIA L40S", count: 1 } });
});

test("cpu-pod registers a CPU pod with the stack's network volume and no persistent mount", async () => {
  const regs = await captureExample("cpu-pod", { stack: "dev", config: CONFIG, preview: true });
  const { datasets, etl } = byName(regs);
  expect(datasets.type).toBe("pulumi-nodejs:dynamic/computeplatform:NetworkVolume");
  expect(datasets.inputs).toMatchObject({ size: 20, dataCenter: "EU-RO-1" });
  expect(etl.type).toBe("pulumi-nodejs:dynamic/computeplatform:Pod");
  expect(etl.inputs).toMatchObject({ cpu: { id: "cpu3g", vcpuCount: 4 }, mounts: { network: [{ volumeId: "datasets-id", path: "/data" }] } });
  expect(etl.inputs.gpu).toBeUndefined();
  expect((etl.inputs.mounts as Record<string, unknown>).persistent).toBeUndefined();
});

test("promotion: dev and prod stack files differ only in config, and the program follows them", async () => {
  const [dev, prod] = await Promise.all(
    (["dev", "prod"] as const).map((stack) =>
      captureExample("promotion", { stack, config: { ...CONFIG, ...stackConfig("promotion", stack) }, preview: true }),
    ),
  );
  expect(byName(dev).batch.inputs).toMatchObject({
    image: "ghcr.io/acme/inference:1.5.0-rc.2",
    gpu: { id: "NVIDIA GeForce RTX 4090", count: 1 },
    env: { RELEASE: "1.5.0-rc.2", STACK: "dev" },
  });
  expect(byName(prod).batch.inputs).toMatchObject({
    image: "ghcr.io/acme/inference:1.4.2",
    gpu: { id: "NVIDIA A100 80GB PCIe", count: 1 },
    env: { RELEASE: "1.4.2", STACK: "prod" },
  });
  expect(byName(dev).inference.inputs).toMatchObject({ gpuIds: "ADA_24", workersMin: 0, workersMax: 2, locations: "US" });
  expect(byName(prod).inference.inputs).toMatchObject({ gpuIds: "AMPERE_80", workersMin: 2, workersMax: 8, locations: "US,RO" });
});

test("promotion: a bad config value stops the program before any resource, naming the key", async () => {
  const config = { ...CONFIG, ...stackConfig("promotion", "prod"), "promotion:gpuTier": "H100" };
  await expect(captureExample("promotion", { stack: "prod", config, preview: true })).rejects.toThrow(
    /stack prod: invalid stack config:\s+promotion:gpuTier must be one of AMPERE_16, .*got "H100"/,
  );
});

// `npm run bench:program`: what a program of many resources costs before any request, the part
// of every `pulumi preview` and `pulumi up` that runs the user's program. The program registers
// N pods under Pulumi's mocks (tools/engine's capture, in this process), and the SDK serializes
// each resource's provider into `__provider`. Pulumi caches that text by the provider object, so
// the package hands every resource of a kind one shim object (engine/shim.ts). The baseline, run
// in the same process, hands each resource its own copy of the shim (what the package did
// before): the same text, serialized again for every resource.
import * as pulumi from "@pulumi/pulumi";
import { shimProvider } from "../src";
import { captureProgram } from "../tools/engine";
import { fmt, table } from "./common";

const SIZES = [30, 300];
const ROUNDS = 3;
const INPUTS = { image: "bench/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } };

async function run(n: number, provider: () => pulumi.dynamic.ResourceProvider): Promise<{ ms: number; texts: Set<string> }> {
  const t0 = performance.now();
  const regs = await captureProgram(
    () => {
      for (let i = 0; i < n; i++) new BenchPod(`pod${i}`, provider());
    },
    { project: "bench", stack: "program" },
  );
  if (regs.length !== n) throw new Error(`the program registered ${regs.length} resources, not ${n}`);
  return { ms: performance.now() - t0, texts: new Set(regs.map((r) => String(r.inputs.__provider))) };
}

/** A resource as Pod registers it: type computeplatform:Pod, the given provider. */
class BenchPod extends pulumi.dynamic.Resource {
  constructor(name: string, provider: pulumi.dynamic.ResourceProvider) {
    super(provider, name, { ...INPUTS }, undefined, "computeplatform", "Pod");
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  // Warm the SDK and the serializer once, so neither side pays first-use loads.
  await run(1, () => shimProvider("pod"));
  const rows: (string | number)[][] = [];
  for (const n of SIZES) {
    const shared: number[] = [];
    const copied: number[] = [];
    const texts = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so neither always runs on a fuller heap.
      const order = round % 2 === 0 ? (["shared", "copied"] as const) : (["copied", "shared"] as const);
      for (const side of order) {
        const r = await run(n, side === "shared" ? () => shimProvider("pod") : () => ({ ...shimProvider("pod") }));
        (side === "shared" ? shared : copied).push(r.ms);
        for (const t of r.texts) texts.add(t);
      }
    }
    if (texts.size !== 1) throw new Error(`the two ways stored ${texts.size} different __provider texts`);
    rows.push([n, fmt(median(shared), 0), fmt(median(copied), 0), fmt(median(shared) / n, 2), fmt(median(copied) / n, 2), fmt(median(copied) / median(shared), 2)]);
  }
  console.log(`A program of N pods under Pulumi's mocks, median of ${ROUNDS} rounds (ms); both ways store the same __provider text.\n`);
  console.log(table(["N", "one shim per kind", "a shim per resource (before)", "per pod, now", "per pod, before", "before / now"], rows));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

// The live platform's cost as the catalog prices it, read from the emulator's state: what a
// stack's cost ledger (StackCost) must equal after an up. A second reading, apart from
// src/resources/cost: a pod that is not stopped costs its GPU type's (or CPU flavor's) price for
// its cloud times its count; an endpoint, from workersMin to workersMax workers of its first
// tier (the dearest secure price of that pool) times its GPUs per worker.
import type { EngineStack } from "../../tools/engine";
import { reveal } from "../../tools/engine";

interface Rig {
  emu: { state(): any };
  client: { catalog: { gpus(): Promise<any[]>; cpus(): Promise<any[]> } };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** USD per hour of every pod and endpoint the platform has now (all stacks' alike). */
export async function liveCost(rig: Rig, only?: { podIds?: string[]; endpointIds?: string[] }): Promise<{ min: number; max: number }> {
  const [gpus, cpus] = await Promise.all([rig.client.catalog.gpus(), rig.client.catalog.cpus()]);
  const state = rig.emu.state();
  let min = 0;
  let max = 0;
  for (const pod of state.pods as any[]) {
    if (only?.podIds && !only.podIds.includes(pod.id)) continue;
    if (["TERMINATED", "EXITED", "ERROR"].includes(pod.status)) continue;
    let price = 0;
    if (pod.gpu) {
      const g = gpus.find((x) => x.id === pod.gpu.id);
      price = (pod.cloud === "COMMUNITY" ? g.price.community : g.price.secure) * pod.gpu.count;
    } else if (pod.cpu) {
      price = cpus.find((c) => c.id === pod.cpu.id).price.securePerVcpu * pod.cpu.vcpuCount;
    }
    min += price;
    max += price;
  }
  for (const ep of state.endpoints as any[]) {
    if (only?.endpointIds && !only.endpointIds.includes(ep.id)) continue;
    const tier = String(ep.gpuIds).split(",")[0];
    const pool = gpus.filter((g) => g.pool === tier).map((g) => g.price.secure);
    const worker = pool.length > 0 ? Math.max(...pool) * (ep.gpuCount ?? 1) : 0;
    min += worker * ep.workersMin;
    max += worker * ep.workersMax;
  }
  return { min: round(min), max: round(max) };
}

/** The total the stack's cost ledger holds. */
export function ledgerTotal(stack: EngineStack): { min: number; max: number } | undefined {
  const ledger = [...stack.resources.values()].find((r) => r.type.endsWith(":StackCost"));
  return ledger ? (reveal(ledger.outputs.total) as { min: number; max: number }) : undefined;
}

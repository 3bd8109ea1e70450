// The floor under benchmark 7: what Pulumi's dynamic-provider plugin costs per resource when
// the provider does nothing. A stack of `count` resources of a no-op dynamic provider (check
// returns its inputs, diff says no change, create echoes the inputs), built once, then
// previewed unchanged in a fresh plugin process, one step at a time, with the plugin's Check
// and Diff timed exactly as benchmark 7 times this project's (heap probe off in both), in
// rounds alternating with this project's previews (stack.ts, PREVIEW_ROUNDS). The difference
// between the two is the project's own: its schemas, its plan, its state's size (the
// `__provider` text included: padded by 1.5 KB, this floor cost as much as the project did).
import * as pulumi from "@pulumi/pulumi";
import { captureProgram, EngineStack, PROJECT, ProviderPlugin } from "../tools/engine";
import { type CallTimes, timeCheckAndDiff } from "./preview-timing";
import { startPlugin } from "../tools/engine/rig";

export interface FloorResult {
  resources: number;
  checkMs: number;
  diffMs: number;
  calls: number;
  /** Each call's ms by kind and method. */
  byCall?: CallTimes;
  /** Of Check + Diff, the rig's own encoding and decoding (preview-timing.ts). */
  rigMs?: number;
  error?: string;
}

/** Nothing but what the plugin needs back: the inputs as checked, no change, the inputs as outputs. */
const noop: pulumi.dynamic.ResourceProvider = {
  async check(_olds: unknown, news: Record<string, unknown>) {
    return { inputs: news };
  },
  async diff() {
    return { changes: false };
  },
  async create(inputs: Record<string, unknown>) {
    return { id: String(inputs.key), outs: inputs };
  },
};

class Noop extends pulumi.dynamic.Resource {
  constructor(name: string, props: Record<string, unknown>) {
    super(noop, name, props, undefined, "noop");
  }
}

async function plugin(): Promise<ProviderPlugin> {
  return startPlugin({}, { secretKeys: [] });
}

/** A no-op stack built once, previewed as often as asked, each preview a fresh plugin process. */
export interface Floor {
  resources: number;
  /** One preview of the unchanged stack: the plugin's Check and Diff, timed as benchmark 7 times this project's. */
  preview(): Promise<FloorResult>;
}

/** Up `count` no-op resources (the same inputs as benchmark 5's pods); `preview` then runs in a new plugin each time. */
export async function prepareFloor(count: number): Promise<Floor> {
  const regs = await captureProgram(
    () => {
      for (let i = 0; i < count; i++) new Noop(`noop${i}`, { key: `noop${i}`, image: "bench/worker:1", cpu: { id: "cpu3c", vcpuCount: 2 } });
    },
    { project: PROJECT, stack: "floor" },
  );
  const a = await plugin();
  const stack = new EngineStack(a, { project: PROJECT, stack: "floor" });
  try {
    const up = await stack.up(regs, { parallel: Number.POSITIVE_INFINITY });
    if (up.error) throw up.error;
  } finally {
    await a.stop();
  }
  return {
    resources: count,
    async preview() {
      const result: FloorResult = { resources: count, checkMs: 0, diffMs: 0, calls: 0 };
      const p = await plugin();
      try {
        const fresh = new EngineStack(p, { project: PROJECT, stack: "floor" });
        for (const [urn, res] of stack.resources) fresh.resources.set(urn, structuredClone(res));
        const timing = timeCheckAndDiff(p);
        const previewed = await fresh.preview(regs).finally(timing.stop);
        if (previewed.error) throw previewed.error;
        const changed = previewed.steps.filter((s) => s.op !== "same");
        if (changed.length > 0) throw new Error(`the no-op preview planned ${changed.length} changes`);
        Object.assign(result, timing.figures());
      } catch (err) {
        result.error = err instanceof Error ? err.message : String(err);
      } finally {
        await p.stop();
      }
      return result;
    },
  };
}

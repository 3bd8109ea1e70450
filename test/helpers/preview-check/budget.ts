/**
 * The generated check, widened for the budgets (issue 48): one stack of pods under a stack budget,
 * through Pulumi's own plugin against the emulator, each step a new plugin process (a `pulumi up`)
 * of a drawn program with a drawn flag and a drawn transform:
 *
 * - the program: a pod added, a pod's `gpu.count` or GPU type changed, a pod removed;
 * - the flag: none, `--target` of one of the program's pods, or `--exclude` of the StackCost
 *   (the engine then skips the StackCost's check);
 * - a transform (`registerResourceTransform`) that raises one pod's `gpu.count` after the program's
 *   ledger copied it, or none.
 *
 * After every step, what the platform bills for the stack's pods (live, running, by their stack
 * mark, at the catalog's prices) is within the budget, or no more than before the step: no draw
 * makes the platform bill more than the budget in force allowed. One exception, counted apart:
 * the old side of a replacement (made before its old pod is deleted, Pulumi's default) whose `up`
 * then failed on another resource; the engine keeps it as a pending delete and deletes it at the
 * next `up`, and the budget counted it as leaving (the rig does not play pending deletes, so the
 * walk deletes it by hand, as that next `up` would). How many steps: `BUDGET_STEPS`
 * (default 5); the seed is the check's (`PREVIEW_CHECK_SEED`).
 */
import fc from "fast-check";
import * as pulumi from "@pulumi/pulumi";
import { Pod } from "../../../src/resources/pod";
import { captureProgram, EngineStack, PROJECT, SECRET_KEYS, urnOf } from "../../../tools/engine";
import { type EngineRig, startEngineRig, startPlugin } from "../../../tools/engine/rig";
import { settings } from "./runner";

const KEY = "cp_sentinel_budget_walk_4d91e2c7a0";
const PRICES: Record<string, number> = { "NVIDIA L40S": 0.86, "NVIDIA GeForce RTX 4090": 0.69 };
const BUDGET = 2;
const STACK = "budget-walk";

type Program = Record<string, { gpu: string; count: number }>;
type Step = {
  change: { op: "add" | "set"; name: string; gpu: string; count: number } | { op: "remove"; name: string };
  flag: "none" | "target" | "exclude";
  /** The pod whose gpu.count a transform raises, and by how much. */
  transform?: { name: string; by: number };
};

const names = ["p0", "p1", "p2", "p3"];
const step: fc.Arbitrary<Step> = fc.record(
  {
    change: fc.oneof(
      fc.record({ op: fc.constantFrom("add" as const, "set" as const), name: fc.constantFrom(...names), gpu: fc.constantFrom(...Object.keys(PRICES)), count: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ op: fc.constant("remove" as const), name: fc.constantFrom(...names) }),
    ),
    flag: fc.constantFrom("none" as const, "target" as const, "exclude" as const),
    transform: fc.option(fc.record({ name: fc.constantFrom(...names), by: fc.integer({ min: 1, max: 3 }) }), { nil: undefined }),
  },
  { requiredKeys: ["change", "flag"] },
);

export const budgetSteps = (env: NodeJS.ProcessEnv = process.env): number => Number(env.BUDGET_STEPS ?? 5);

type LivePod = { id: string; status: string; env?: Record<string, string>; gpu?: { id: string; count: number } };

/** The stack's running pods on the platform, by their stack mark. */
function running(rig: EngineRig): LivePod[] {
  const pods = rig.emu.state().pods as LivePod[];
  return pods.filter((p) => !["EXITED", "TERMINATED"].includes(p.status) && (p.env?.COMPUTEPLATFORM_STACK ?? "").endsWith(`/${STACK}`));
}

/** What `pods` bill per hour at the catalog's prices. */
const billed = (pods: LivePod[]): number => Math.round(pods.reduce((sum, p) => sum + (PRICES[p.gpu!.id] ?? 0) * p.gpu!.count, 0) * 1000) / 1000;

/** One up of `program` under `s.flag` and `s.transform`, in a new plugin process. */
async function up(rig: EngineRig, stack: EngineStack, program: Program, s: Step): Promise<{ stack: EngineStack; error?: string }> {
  const config = { ...rig.config, "computeplatform:maxHourlyCost": String(BUDGET) };
  const plugin = await startPlugin(config);
  const next = stack.carriedTo(plugin);
  try {
    const regs = await captureProgram(
      () => {
        if (s.transform) {
          const { name, by } = s.transform;
          pulumi.runtime.registerResourceTransform((args) =>
            args.name === name && args.type.endsWith(":Pod") ? { props: { ...args.props, gpu: { ...args.props.gpu, count: args.props.gpu.count + by } }, opts: args.opts } : undefined,
          );
        }
        for (const [name, { gpu, count }] of Object.entries(program)) new Pod(name, { image: "walk:1", gpu: { id: gpu, count } });
      },
      { project: PROJECT, stack: STACK, config, secretKeys: SECRET_KEYS },
    );
    const pods = Object.keys(program);
    const urn = (type: string, name: string) => urnOf(STACK, PROJECT, `pulumi-nodejs:dynamic/computeplatform:${type}`, name);
    const flags =
      s.flag === "target" && pods.length > 0
        ? { targets: [urn("Pod", s.change.op === "remove" ? pods[0]! : s.change.name)] }
        : s.flag === "exclude"
          ? { excludes: [urn("StackCost", "stack-cost")] }
          : {};
    const result = await next.up(regs, flags);
    return { stack: next, error: result.error?.message ?? (result.failures ? JSON.stringify(result.failures) : undefined) };
  } finally {
    await plugin.stop();
  }
}

/** The walk, as a jest describe of its own (its own emulator). */
export function describeBudgetWalk(): void {
  const { seed } = settings();
  const steps = budgetSteps();
  describe("budgets under --target, --exclude and transforms", () => {
    let rig: EngineRig;
    const tally = { steps: 0, refused: 0, byFlag: {} as Record<string, number>, transforms: 0, overBefore: 0, pendingDeletes: 0 };

    beforeAll(async () => {
      rig = await startEngineRig(KEY);
    });

    afterAll(async () => {
      console.log(`budget walk: seed ${seed} (PREVIEW_CHECK_SEED); ${JSON.stringify(tally)}`);
      await rig?.close();
    });

    test(`no drawn up makes the platform bill more than the stack's budget allowed (seed ${seed})`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: steps, maxLength: steps }), async (chain) => {
          let stack = new EngineStack(rig.plugin, { project: PROJECT, stack: STACK });
          let program: Program = {};
          try {
            for (const s of chain) {
              const held = (st: EngineStack) => new Set([...st.resources.values()].map((r) => r.id));
              const heldBefore = held(stack);
              const before = billed(running(rig));
              const c = s.change;
              program = c.op === "remove" ? Object.fromEntries(Object.entries(program).filter(([n]) => n !== c.name)) : { ...program, [c.name]: { gpu: c.gpu, count: c.count } };
              const r = await up(rig, stack, program, s);
              stack = r.stack;
              // The old side of a replacement a failed up left: a pending delete the next up deletes (done here by hand).
              const heldAfter = held(stack);
              const pending = running(rig).filter((p) => heldBefore.has(p.id) && !heldAfter.has(p.id) && r.error !== undefined);
              for (const p of pending) await rig.client.pods.delete(p.id);
              tally.pendingDeletes += pending.length;
              const after = billed(running(rig).filter((p) => !pending.some((q) => q.id === p.id)));
              tally.steps++;
              tally.byFlag[s.flag] = (tally.byFlag[s.flag] ?? 0) + 1;
              if (s.transform) tally.transforms++;
              if (r.error?.includes("over its budget")) tally.refused++;
              if (before > BUDGET) tally.overBefore++;
              if (after > BUDGET && after > before) {
                throw new Error(`the stack bills $${after}/h after this step, over its budget $${BUDGET}/h and above $${before}/h before: ${JSON.stringify(s)}; ${r.error ?? "no error"}`);
              }
            }
          } finally {
            const plugin = await startPlugin(rig.config);
            try {
              await stack.carriedTo(plugin).destroy({ parallel: Infinity });
            } finally {
              await plugin.stop();
            }
          }
        }),
        { seed, numRuns: 1, endOnFailure: true, verbose: 1 },
      );
    }, 600_000);
  });
}

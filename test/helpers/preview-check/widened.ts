/**
 * The generated check, widened (issue 23): per kind, on one stack through Pulumi's own plugin
 * against the emulator, steps that change several properties at once with a fault drawn into
 * the up, and steps with a Pulumi option drawn with the program. No Pulumi CLI runs here: the
 * rig (tools/engine) stands in for it and applies ignoreChanges, retainOnDelete and aliases as
 * Pulumi's engine does.
 *
 * A fault step: two or three properties changed at once; the up meets a fault on its writes
 * (`5xx`: every try of the first write answered 500 without processing, `drop`: the first write
 * processed, its answer lost). Then, with no fault, a preview must still show the change if the
 * platform does not have it yet, and an up must converge: the live object matches the
 * declaration and a second preview is the same.
 * An option step: `ignoreChanges` on a drawn property (preview and up agree, the live field is
 * left as it was), `retainOnDelete` then the name declared again (the kept object is left
 * alone, a new one made), or `aliases` (a logical rename: same id, nothing made or deleted).
 * After every up, the stack's cost ledger equals the live objects' cost as the catalog prices it.
 * How many steps: `WIDENED_FAULT_STEPS` (default 3; 5 in `npm run soak:preview`) and `WIDENED_OPTION_STEPS` (default 2) per
 * kind; the seed: `PREVIEW_CHECK_SEED`, printed with the tally.
 */
import type * as pulumi from "@pulumi/pulumi";
import fc from "fast-check";
import { captureProgram, EngineStack, PROJECT, type ProviderPlugin, type Registration, SECRET_KEYS, type StateResource } from "../../../tools/engine";
import { resourcesOf, resourceSteps } from "../ledger";
import { ledgerTotal, liveCost } from "../live-cost";
import type { Decl, KindModel, World } from "./model";

export interface WidenedTally {
  faultSteps: number;
  faults: Record<string, number>;
  failedUps: number;
  pendingShown: number;
  optionSteps: Record<string, number>;
  skipped: number;
  ledgerChecks: number;
}

export const newWidenedTally = (): WidenedTally => ({ faultSteps: 0, faults: {}, failedUps: 0, pendingShown: 0, optionSteps: {}, skipped: 0, ledgerChecks: 0 });

export function widenedSettings(env: NodeJS.ProcessEnv = process.env) {
  return { faultSteps: Number(env.WIDENED_FAULT_STEPS ?? 3), optionSteps: Number(env.WIDENED_OPTION_STEPS ?? 2) };
}

type Fault = "5xx" | "drop";
type Option = "ignoreChanges" | "retainOnDelete" | "aliases";

/** The writes of any kind: REST mutations and GraphQL mutations (GraphQL reads are POSTs too). */
function aimAtWrites(fault: Fault) {
  const times = fault === "5xx" ? 5 : 1;
  return [
    // Not DELETE: the rig keeps no pending delete of a replaced object, as the engine's state would.
    { method: "PATCH", fault, times },
    { method: "POST", path: /^\/v2\//, fault, times },
    { method: "POST", path: "/graphql", bodyIncludes: "mutation", fault, times },
  ];
}

/** Walks the widened steps of one kind on one stack. */
export class WidenedWalker {
  private logical = "subject";
  private opts: pulumi.CustomResourceOptions = {};

  constructor(
    private readonly model: KindModel,
    private readonly world: World,
    private readonly plugin: ProviderPlugin,
    private readonly config: Record<string, string>,
    readonly tally: WidenedTally,
    private readonly costed: boolean,
  ) {}

  private regs(decl: Decl): Promise<Registration[]> {
    const logical = this.logical;
    const opts = this.opts;
    return captureProgram(() => this.model.construct(logical, JSON.parse(JSON.stringify(decl)), opts), { project: PROJECT, stack: "widened", config: this.config, secretKeys: SECRET_KEYS });
  }

  private subject(stack: EngineStack): StateResource {
    const [res] = resourcesOf(stack);
    if (!res) throw new Error("the stack holds no resource");
    return res;
  }

  /** The stack's cost ledger equals what its live object costs at the catalog's prices. */
  private async ledgerMatches(stack: EngineStack): Promise<void> {
    if (!this.costed) return;
    const id = this.subject(stack).id;
    const live = await liveCost(this.world, { podIds: [id], endpointIds: [id] });
    expect({ ledger: ledgerTotal(stack), live }).toEqual({ ledger: live, live });
    this.tally.ledgerChecks++;
  }

  private async converged(stack: EngineStack, decl: Decl, before: any, old: Decl): Promise<void> {
    const now = this.subject(stack);
    this.model.expectLive(decl, this.model.live(this.world, now.id), before, this.world, old);
    const again = await stack.preview(await this.regs(decl));
    if (again.error) throw again.error;
    expect(resourceSteps(again).map((s) => s.op)).toEqual(["same"]);
    await this.ledgerMatches(stack);
  }

  /** Several properties changed at once; the up meets `fault`; then a clean preview and up converge. */
  async faultStep(stack: EngineStack, decl: Decl, changes: [string, unknown][], fault: Fault): Promise<Decl> {
    const drawn: Decl = { ...decl };
    for (const [p, v] of changes) {
      if (v === undefined) delete drawn[p];
      else drawn[p] = v;
    }
    const next = this.model.repair ? this.model.repair(drawn, decl, this.world) : drawn;
    const preview = await stack.preview(await this.regs(next));
    if (preview.failures || preview.error) {
      this.tally.skipped++;
      return decl;
    }
    const op = resourceSteps(preview)[0]!.op;
    const old = this.subject(stack);
    const before = this.model.live(this.world, old.id);
    this.world.emu.setFaults({ aimed: aimAtWrites(fault) });
    let failed: Error | undefined;
    try {
      failed = (await stack.up(await this.regs(next))).error;
    } finally {
      this.world.emu.setFaults({});
    }
    this.tally.faultSteps++;
    this.tally.faults[fault] = (this.tally.faults[fault] ?? 0) + 1;
    if (failed) {
      this.tally.failedUps++;
      // What the platform does not have yet must still show.
      const now = this.subject(stack);
      let matches = true;
      try {
        this.model.expectLive(next, this.model.live(this.world, now.id), op === "replace" ? undefined : before, this.world, decl);
      } catch {
        matches = false;
      }
      const pending = await stack.preview(await this.regs(next));
      if (pending.error) throw pending.error;
      if (!matches) {
        expect({ fault, changes, op: resourceSteps(pending).map((s) => s.op) }).not.toEqual({ fault, changes, op: ["same"] });
        this.tally.pendingShown++;
      }
      const up = await stack.up(await this.regs(next));
      if (up.error) throw up.error;
    }
    const replaced = this.subject(stack).id !== old.id;
    await this.converged(stack, next, replaced ? undefined : before, decl);
    return next;
  }

  /** One Pulumi option drawn with the program. */
  async optionStep(stack: EngineStack, decl: Decl, option: Option, change: [string, unknown]): Promise<{ decl: Decl; kept?: StateResource }> {
    this.tally.optionSteps[option] = (this.tally.optionSteps[option] ?? 0) + 1;
    const old = this.subject(stack);
    if (option === "aliases") {
      const from = this.logical;
      this.logical = `${from}-renamed`;
      this.opts = { aliases: [{ name: from }] };
      const up = await stack.up(await this.regs(decl));
      if (up.error) throw up.error;
      expect(resourceSteps(up).map((s) => s.op)).toEqual(["same"]);
      expect(this.subject(stack).id).toBe(old.id);
      this.opts = {};
      await this.ledgerMatches(stack);
      return { decl };
    }
    if (option === "retainOnDelete") {
      this.opts = { retainOnDelete: true };
      expect((await stack.up(await this.regs(decl))).error).toBeUndefined();
      const kept = structuredClone(this.subject(stack));
      // Out of the program: the engine drops it from state; the platform keeps it.
      const dropped = await stack.up([]);
      if (dropped.error) throw dropped.error;
      expect(this.model.live(this.world, kept.id)).toBeDefined();
      this.opts = {};
      const again = await stack.up(await this.regs(decl));
      if (again.error) throw again.error;
      expect(resourceSteps(again).map((s) => s.op)).toEqual(["create"]);
      expect(this.subject(stack).id).not.toBe(kept.id);
      expect(this.model.live(this.world, kept.id)).toBeDefined();
      await this.ledgerMatches(stack);
      return { decl, kept: { ...kept, options: { ...kept.options, retainOnDelete: false } } };
    }
    // ignoreChanges on a drawn property: up leaves it as it is, and preview said what up did.
    const [property, value] = change;
    const next: Decl = { ...decl };
    if (value === undefined) delete next[property];
    else next[property] = value;
    this.opts = { ignoreChanges: [property] };
    const preview = await stack.preview(await this.regs(next));
    if (!preview.failures && !preview.error) {
      const up = await stack.up(await this.regs(next));
      if (up.error) throw up.error;
      expect(resourceSteps(up).map((s) => s.op)).toEqual(resourceSteps(preview).map((s) => s.op));
      const live = this.model.live(this.world, this.subject(stack).id);
      if (this.subject(stack).id === old.id) this.model.expectLive(decl, live, this.model.live(this.world, old.id), this.world, decl);
      await this.ledgerMatches(stack);
    } else {
      this.tally.skipped++;
    }
    this.opts = {};
    // Back to the program as it was: nothing to change.
    const back = await stack.up(await this.regs(decl));
    if (back.error) throw back.error;
    return { decl };
  }

  /** The widened walk: create, the fault steps, the option steps, destroy (and the kept objects). */
  async walk(
    first: Decl,
    faults: { changes: [string, unknown][]; fault: Fault }[],
    options: { option: Option; change: [string, unknown] }[],
    runNo: number,
    faultTarget: number,
  ): Promise<void> {
    const stack = new EngineStack(this.plugin, { project: PROJECT, stack: `widened${runNo}` });
    const kept: StateResource[] = [];
    let failure: unknown;
    try {
      let decl = first;
      expect((await stack.up(await this.regs(decl))).error).toBeUndefined();
      await this.ledgerMatches(stack);
      for (const f of faults) {
        if (this.tally.faultSteps >= faultTarget) break;
        decl = await this.faultStep(stack, decl, f.changes, f.fault);
      }
      for (const o of options) {
        const r = await this.optionStep(stack, decl, o.option, o.change);
        decl = r.decl;
        if (r.kept) kept.push(r.kept);
      }
    } catch (error) {
      failure = error;
    }
    const destroyed = await stack.destroy();
    // The kept objects, through a stack that holds them without the option.
    const sweep = new EngineStack(this.plugin, { project: PROJECT, stack: `widened${runNo}-kept` });
    for (const k of kept) sweep.resources.set(k.urn, k);
    const swept = await sweep.destroy();
    if (failure) throw failure;
    if (destroyed.error) throw destroyed.error;
    if (swept.error) throw swept.error;
  }
}

/** The drawn plan of one kind's widened walk. */
export function widenedPlan(model: KindModel, world: World, n: { faultSteps: number; optionSteps: number }) {
  const values = model.values(world);
  const props = Object.keys(values);
  const change = fc.constantFrom(...props).chain((p) => values[p]!.map((v): [string, unknown] => [p, v]));
  const several = fc.uniqueArray(change, { minLength: 2, maxLength: 3, selector: ([p]) => p });
  const faultStep = fc.record({ changes: several, fault: fc.constantFrom<Fault>("5xx", "drop") });
  const optionStep = fc.record({ option: fc.constantFrom<Option>("ignoreChanges", "retainOnDelete", "aliases"), change });
  return fc.record({
    first: model.initial(world),
    faults: fc.array(faultStep, { minLength: n.faultSteps, maxLength: n.faultSteps }),
    options: fc.array(optionStep, { minLength: n.optionSteps, maxLength: n.optionSteps }),
  });
}

// The engine's call sequences: a stack's state, and the order of provider calls that
// preview, up, refresh and destroy make (pkg/resource/deploy: step_generator.go decides the
// steps, step_executor.go and deployment_executor.go run them, step.go applies each one).
import type { Registration } from "./capture";
import { ProviderCallError } from "./errors";
import * as say from "./messages";
import { EngineError } from "./messages";
import { markSecretOutputs } from "./wire";
import { applyReplaceOnChanges, ignoreChanges, settleUnknownDiff } from "./options";
import type { CheckFailure, DiffResult, ProviderPlugin } from "./plugin";
import { deleteRounds, runGraph, runRounds } from "./schedule";
import { nameOf, typeOf, urnOf } from "./urn";

export { ignoreChanges } from "./options";

export interface StateResource {
  urn: string;
  type: string;
  id: string;
  /** Inputs as checked, in wire form (secrets marked), as the engine stores them. */
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  options: Registration["options"];
  /** Set when a create or update failed after the resource existed. */
  initErrors?: string[];
  /** Read with `.get` (a ReadResource): the stack never updates or deletes it (the engine's `External`). */
  external?: boolean;
  /** The id the program's `import` option took it over by (the engine's `ImportID`). */
  importId?: string;
}

export type StepOp = "create" | "same" | "update" | "replace" | "delete" | "refresh" | "read-gone" | "read" | "import" | "discard";

export interface Step {
  urn: string;
  op: StepOp;
  diff?: DiffResult;
  failures?: CheckFailure[];
}

export interface OperationResult {
  steps: Step[];
  /** Check failures stop an operation as they stop the engine. */
  failures?: { urn: string; failures: CheckFailure[] };
  /** A provider call's failure, or the engine's own ({@link EngineError}, with the engine's message). */
  error?: ProviderCallError | Error;
}

/**
 * The flags of a `pulumi` command that the rig plays. Steps run as soon as what they depend on
 * is done, `parallel` at once at most, like the engine's `--parallel`.
 */
export interface RunOptions {
  /**
   * Steps at once at most. The engine's default is unbounded (`--parallel` unset); the rig's
   * default of one at a time keeps `calls` in a fixed order, which most tests assert.
   * `Infinity` plays the engine's default.
   * @default 1
   */
  parallel?: number;
  /** `--target <urn>`: only these resources are created, updated or deleted. */
  targets?: string[];
  /**
   * `--exclude <urn>`: these resources are left as they are (no Check, no Diff, a new one not
   * created), and neither they nor what they depend on in the state is deleted.
   */
  excludes?: string[];
  /** `--replace <urn>`: these resources are replaced whatever their diff says. */
  replace?: string[];
}

/** A stack's state and the engine logic that drives one plugin through an operation. */
export class EngineStack {
  readonly resources = new Map<string, StateResource>();
  /** Every provider call, in order: `Check <name>`, `Diff <name>`, `Create <name>`, ... */
  readonly calls: string[] = [];
  readonly project: string;
  readonly stack: string;

  constructor(
    readonly plugin: ProviderPlugin,
    opts: { project: string; stack: string },
  ) {
    this.project = opts.project;
    this.stack = opts.stack;
  }

  private urn(reg: Registration): string {
    return urnOf(this.stack, this.project, reg.type, reg.name);
  }

  /**
   * The old state of a registration, as the engine's step generator finds it: at its own URN,
   * else at the first of its aliases that has state (pkg/resource/deploy/step_generator.go:
   * `for _, urnOrAlias := range append([]resource.URN{urn}, aliases...)`). Alias specs resolve
   * against this stack, project, type and name where they leave a part empty; parents are not
   * modelled (the programs here register top-level resources).
   */
  private oldOf(urn: string, reg: Registration): { oldUrn: string; old?: StateResource } {
    const own = this.resources.get(urn);
    if (own) return { oldUrn: urn, old: own };
    for (const a of reg.options.aliases ?? []) {
      const aliasUrn = a.urn || urnOf(a.stack || this.stack, a.project || this.project, a.type || reg.type, a.name || reg.name);
      const old = this.resources.get(aliasUrn);
      if (old) return { oldUrn: aliasUrn, old };
    }
    return { oldUrn: urn };
  }

  private note(method: string, urn: string): void {
    this.calls.push(`${method} ${nameOf(urn)}`);
  }

  /** `pulumi preview`: Check (and Diff for existing resources) with unknowns allowed; `.get`s are read. */
  async preview(regs: Registration[], opts: RunOptions = {}): Promise<OperationResult> {
    return this.run(regs, true, opts);
  }

  /** `pulumi up`. */
  async up(regs: Registration[], opts: RunOptions = {}): Promise<OperationResult> {
    return this.run(regs, false, opts);
  }

  private async run(regs: Registration[], preview: boolean, opts: RunOptions): Promise<OperationResult> {
    const urns = regs.map((r) => this.urn(r));
    const at = new Map(urns.map((u, i) => [u, i]));
    const targets = opts.targets && new Set(opts.targets);
    // step_generator.go, isIncludedInOperation: --target decides when given, else --exclude.
    const excludes = !targets && opts.excludes?.length ? new Set(opts.excludes) : undefined;
    const included = (urn: string) => (targets ? targets.has(urn) : !excludes?.has(urn));
    const replaceTargets = new Set(opts.replace ?? []);
    // deployment_executor.go, checkTargets: every target names a resource of the program or the state.
    for (const t of [...(targets ?? []), ...replaceTargets]) {
      if (!at.has(t) && !this.resources.has(t)) return { steps: [], error: new EngineError(say.targetNotFound(t)) };
    }
    // Steps of each registration, in registration order whatever order they ran in.
    const stepsOf: Step[][] = regs.map(() => []);
    const collected = () => stepsOf.flat();
    let stopped: OperationResult["failures"];
    // A preview reports the error of a step it would refuse, and goes on (step_generator.go: "In Preview, we mark
    // the deployment as Error but continue to next steps").
    let refused: EngineError | undefined;
    const refuse = (message: string) => {
      if (!preview) throw new EngineError(message);
      refused ??= new EngineError(message);
    };
    // Once every registration is done: their steps, then the deletes.
    let steps: Step[] | undefined;
    const p = this.plugin;
    // The old side of each create-before-delete replacement: deleted with the removed resources,
    // after the resources that depend on it were updated to the new one.
    const replaced = new Map<string, StateResource>();
    // Old URNs a registration took through an alias: never deleted as "left the program".
    const aliased = new Set<string>();
    // New resources --target left out (the engine's skipped creates).
    const skipped = new Set<string>();
    try {
      // A registration reaches the engine once what it depends on is done: the SDK waits for
      // the outputs it uses (and for `dependsOn`) before it sends RegisterResource.
      const depsOf = (i: number) => regs[i].options.dependencies.map((d) => at.get(d)).filter((d): d is number => d !== undefined && d !== i);
      await runGraph(regs.length, depsOf, opts.parallel ?? 1, async (index) => {
        const reg = regs[index];
        const steps = stepsOf[index];
        const urn = urns[index];
        const found = this.oldOf(urn, reg);
        let old = found.old;
        if (found.oldUrn !== urn) {
          aliased.add(found.oldUrn);
          // The snapshot carries the old state over to the new URN (an up; a preview writes nothing).
          if (!preview && old) {
            old = { ...old, urn };
            this.resources.delete(found.oldUrn);
            this.keep(urn, old);
          }
        }
        if (reg.read !== undefined) {
          await this.readStep(urn, reg, preview);
          steps.push({ urn, op: "read" });
          return false;
        }
        // step_generator.go, isIncludedInOperation: outside --target (or under --exclude), an
        // existing resource is a SameStep on its old state (no Check, no Diff) and a new one is
        // not created. Only --target refuses what depends on such a skipped create
        // (validateSteps); under --exclude the dependent goes ahead.
        if (!included(urn)) {
          steps.push({ urn, op: "same" });
          if (!old) skipped.add(urn);
          return false;
        }
        // A targeted step needs what it depends on to exist (diag 2013).
        const missing = targets ? reg.options.dependencies.find((d) => skipped.has(d)) : undefined;
        if (missing) refuse(say.dependsOnUntargeted(urn, missing));
        // The `import` option: an import step when no old state has that id (step_generator.go,
        // `isImport := goal.Custom && goal.ID != "" && (old == nil || old.External || oldImportID != goal.ID)`).
        const importId = reg.options.importId;
        const imported = !!importId && (!old || !!old.external || (old.importId || old.id) !== importId);
        if (imported) {
          steps.push({ urn, op: "import" });
          old = await this.importStep(urn, reg, importId, preview);
        }
        // step_generator.go, isTargetedReplace: a --replace target is checked without its old
        // inputs and replaced without a Diff, the replacement blaming its id.
        const forced = !!old && replaceTargets.has(urn);
        // The engine applies ignoreChanges to the program's inputs before anything else.
        const goal = old && !forced ? ignoreChanges(reg.inputs, old.inputs, reg.options.ignoreChanges) : reg.inputs;
        this.note("Check", urn);
        let checked = await p.check(urn, old && !forced ? old.inputs : {}, goal, { preview });
        if (checked.failures.length > 0) {
          stopped ??= { urn, failures: checked.failures };
          return true;
        }
        if (!old) {
          steps.push({ urn, op: "create" });
          if (!preview) await this.create(urn, reg, checked.inputs);
          return false;
        }
        let diff: DiffResult = { changes: "some", replaces: ["id"], deleteBeforeReplace: false, diffs: [] };
        if (!forced) {
          this.note("Diff", urn);
          const answer = await p.diff(urn, old.id, old.inputs, old.outputs, checked.inputs, { preview, ignoreChanges: reg.options.ignoreChanges });
          diff = applyReplaceOnChanges(settleUnknownDiff(answer, old.inputs, checked.inputs), reg.options.replaceOnChanges, (old.initErrors?.length ?? 0) > 0);
        }
        if (diff.changes === "some" && diff.replaces.length > 0) {
          // Protected before and now: no replacement, before any provider call that would make one.
          if (reg.options.protect && old.options?.protect) refuse(say.replaceProtected(urn));
          if (importId) refuse(say.replaceImported(diff.replaces));
          steps.push({ urn, op: "replace", diff });
          if (preview) return false;
          // A replacement gets fresh defaults: the engine checks again without the old inputs
          // (not for a --replace target, already checked so).
          if (!forced) {
            this.note("Check", urn);
            checked = await p.check(urn, {}, reg.inputs);
            if (checked.failures.length > 0) {
              stopped ??= { urn, failures: checked.failures };
              return true;
            }
          }
          if (diff.deleteBeforeReplace || reg.options.deleteBeforeReplace) {
            await this.delete(old, true);
            this.resources.delete(urn);
            await this.create(urn, reg, checked.inputs);
          } else {
            replaced.set(urn, { ...old });
            await this.create(urn, reg, checked.inputs);
          }
        } else if (diff.changes === "some") {
          steps.push({ urn, op: "update", diff });
          if (preview) return false;
          this.note("Update", urn);
          try {
            const outputs = await p.update(urn, old.id, old.outputs, checked.inputs, old.inputs);
            this.keep(urn, { ...old, inputs: checked.inputs, outputs, options: reg.options, initErrors: undefined });
          } catch (e) {
            if (e instanceof ProviderCallError && e.initFailure) {
              this.keep(urn, { ...old, outputs: e.initFailure.outputs, initErrors: e.initFailure.reasons });
            }
            throw e;
          }
        } else {
          // An import with nothing to change ends at its import step (the engine elides the SameStep).
          if (!imported) steps.push({ urn, op: "same", diff });
          if (!preview) this.keep(urn, { ...old, inputs: checked.inputs, options: reg.options });
        }
        return false;
      });
      if (stopped) return { steps: collected(), failures: stopped };
      steps = collected();
      // Resources no longer in the program (only targeted ones under --target) and the old
      // sides of replacements go, in the engine's delete order.
      const wanted = new Set(urns);
      const kept = excludes ? this.withDependencies(excludes) : undefined;
      const gone = [...this.resources.values()].filter(
        (r) => !wanted.has(r.urn) && !aliased.has(r.urn) && (!targets || targets.has(r.urn)) && !kept?.has(r.urn),
      );
      for (const res of gone.reverse()) steps.push({ urn: res.urn, op: res.external ? "discard" : "delete" });
      const condemned = [...[...replaced.values()].map((res) => ({ res, replacing: true })), ...gone.map((res) => ({ res, replacing: false }))];
      await this.deleteAll(condemned, opts, preview);
      if (refused) return { steps, error: refused };
      return { steps };
    } catch (error) {
      return { steps: steps ?? collected(), error: error as Error };
    }
  }

  /**
   * step_generator.go, determineForbiddenResourcesToDeleteFromExcludes (getExcludeDependencies):
   * the excluded resources and, through the state, everything they depend on.
   */
  private withDependencies(urns: ReadonlySet<string>): Set<string> {
    const out = new Set<string>();
    const frontier = [...urns];
    while (frontier.length > 0) {
      const urn = frontier.shift()!;
      if (out.has(urn)) continue;
      out.add(urn);
      frontier.push(...(this.resources.get(urn)?.options?.dependencies ?? []));
    }
    return out;
  }

  /**
   * step.go, ReadStep.Apply (a `.get`): Read with the program's properties as both inputs and
   * state, in a preview too; the result is recorded as External.
   */
  private async readStep(urn: string, reg: Registration, preview: boolean): Promise<void> {
    const id = reg.read as string;
    this.note("Read", urn);
    const r = await this.plugin.read(urn, id, reg.inputs, reg.inputs);
    if (!r.id) throw new EngineError(say.doesNotExist(id));
    if (!preview) this.keep(urn, { urn, type: reg.type, id: r.id, inputs: reg.inputs, outputs: r.outputs, options: reg.options, external: true });
  }

  /**
   * step.go, ImportStep.Apply for the `import` option: Read by id with no inputs and no state,
   * then the object is the old state the rest of the step generation diffs against (since
   * pulumi/pulumi#19339 an import whose inputs differ is updated in the same deployment).
   */
  private async importStep(urn: string, reg: Registration, id: string, preview: boolean): Promise<StateResource> {
    this.note("Read", urn);
    const r = await this.plugin.read(urn, id, {}, {});
    if (!r.id) throw new EngineError(say.doesNotExist(id));
    if (!r.inputs) throw new EngineError(say.importUnsupported(typeOf(urn).split(":")[0]));
    const old: StateResource = { urn, type: reg.type, id: r.id, inputs: r.inputs, outputs: r.outputs, options: reg.options, importId: id };
    if (!preview) this.keep(urn, old);
    return old;
  }

  private async create(urn: string, reg: Registration, inputs: Record<string, unknown>): Promise<void> {
    this.note("Create", urn);
    const importId = this.resources.get(urn)?.importId;
    try {
      const { id, outputs } = await this.plugin.create(urn, inputs);
      this.keep(urn, { urn, type: reg.type, id, inputs, outputs, options: reg.options, ...(importId ? { importId } : {}) });
    } catch (e) {
      // The engine keeps a resource that exists but failed to initialize, so the next
      // operation updates or deletes it instead of creating a second one.
      if (e instanceof ProviderCallError && e.initFailure) {
        const f = e.initFailure;
        this.keep(urn, { urn, type: reg.type, id: f.id, inputs, outputs: f.outputs, options: reg.options, initErrors: f.reasons });
      }
      throw e;
    }
  }

  /**
   * The engine's DeleteStep (step.go): a protected resource's delete fails, in a preview too,
   * unless it is the old side of a replacement (`!s.replacing && s.old.Protect`); an External
   * one (`.get`) and a `retainOnDelete` one leave the state with no provider call
   * (`// Deleting a "drop on delete" is a no-op ...`).
   */
  private async delete(res: StateResource, replacing = false, preview = false): Promise<void> {
    if (!replacing && res.options?.protect) throw new EngineError(say.deleteProtected(res.urn));
    if (preview) return;
    if (res.external) {
      this.note("Discard", res.urn);
    } else if (res.options?.retainOnDelete) {
      this.note("Retain", res.urn);
    } else {
      this.note("Delete", res.urn);
      await this.plugin.delete(res.urn, res.id, res.outputs, res.inputs);
    }
    // The old side of a replacement leaves no entry of its own: the URN is the new one's.
    if (!replacing && this.resources.get(res.urn)?.id === res.id) this.resources.delete(res.urn);
  }

  /**
   * Deletes in the engine's order (deployment_executor.go: `ScheduleDeletes`, then each
   * antichain with `ExecuteParallel`): a resource after every condemned resource that depends
   * on it; independent ones at once, up to `parallel`. `condemned` comes last-made first.
   */
  private async deleteAll(condemned: { res: StateResource; replacing: boolean }[], opts: RunOptions, preview = false): Promise<void> {
    const dependsOn = (i: number) =>
      condemned.flatMap((c, j) => (j !== i && (condemned[i].res.options?.dependencies ?? []).includes(c.res.urn) ? [j] : []));
    const rounds = deleteRounds(condemned.length, dependsOn);
    await runRounds(rounds, opts.parallel ?? 1, (i) => this.delete(condemned[i].res, condemned[i].replacing, preview));
  }

  /** `pulumi refresh`: Read each resource with its old outputs and inputs. */
  async refresh(opts: RunOptions = {}): Promise<OperationResult> {
    const all = [...this.resources.values()];
    const stepOf: (Step | undefined)[] = all.map(() => undefined);
    const steps = () => stepOf.filter((s): s is Step => s !== undefined);
    try {
      await runGraph(all.length, () => [], opts.parallel ?? 1, async (i) => {
        const res = all[i];
        this.note("Read", res.urn);
        const r = await this.plugin.read(res.urn, res.id, res.outputs, res.inputs);
        if (!r.id) {
          this.resources.delete(res.urn);
          stepOf[i] = { urn: res.urn, op: "read-gone" };
          return;
        }
        this.keep(res.urn, { ...res, id: r.id, outputs: r.outputs, inputs: r.inputs ?? res.inputs });
        stepOf[i] = { urn: res.urn, op: "refresh" };
      });
      return { steps: steps() };
    } catch (error) {
      return { steps: steps(), error: error as Error };
    }
  }

  /**
   * `pulumi destroy` (with `targets`, `--target`): every resource deleted in the engine's order.
   * A target that a resource outside the targets depends on stops it before any delete
   * (diag 2014: the engine's --target-dependents is not played).
   */
  async destroy(opts: RunOptions = {}): Promise<OperationResult> {
    const targets = opts.targets && new Set(opts.targets);
    for (const t of targets ?? []) if (!this.resources.has(t)) return { steps: [], error: new EngineError(say.targetNotFound(t)) };
    const all = [...this.resources.values()].reverse().filter((r) => !targets || targets.has(r.urn));
    if (targets) {
      const dependent = [...this.resources.values()].find((r) => !targets.has(r.urn) && (r.options?.dependencies ?? []).some((d) => targets.has(d)));
      if (dependent) return { steps: [], error: new EngineError(say.destroyedUntargeted(dependent.urn)) };
    }
    const done: Step[] = [];
    try {
      await this.deleteAll(
        all.map((res) => ({ res, replacing: false })),
        opts,
      );
      for (const res of all) done.push({ urn: res.urn, op: res.external ? "discard" : "delete" });
      return { steps: done };
    } catch (error) {
      for (const res of all) if (!this.resources.has(res.urn)) done.push({ urn: res.urn, op: res.external ? "discard" : "delete" });
      return { steps: done, error: error as Error };
    }
  }

  /**
   * This stack's state on another plugin: the next `pulumi` command, which starts a plugin of its
   * own, so nothing one command kept in memory reaches the next.
   */
  carriedTo(plugin: ProviderPlugin): EngineStack {
    const next = new EngineStack(plugin, { project: this.project, stack: this.stack });
    for (const [urn, res] of this.resources) next.resources.set(urn, structuredClone(res));
    return next;
  }

  /** Writes a resource's state as the step executor does: the outputs `additionalSecretOutputs` names stored secret. */
  private keep(urn: string, res: StateResource): void {
    this.resources.set(urn, { ...res, outputs: markSecretOutputs(res.outputs, res.options?.additionalSecretOutputs) });
  }

  /** The whole state as text: what a state file would hold (before secret encryption). */
  stateText(): string {
    return JSON.stringify([...this.resources.values()]);
  }
}

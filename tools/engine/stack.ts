// The engine's call sequences: a stack's state, and the order of provider calls that
// preview, up, refresh and destroy make.
import { isDeepStrictEqual } from "node:util";
import type { Registration } from "./capture";
import { ProviderCallError } from "./errors";
import type { CheckFailure, DiffResult, ProviderPlugin } from "./plugin";
import { nameOf, urnOf } from "./urn";
import { reveal } from "./wire";

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
}

export type StepOp = "create" | "same" | "update" | "replace" | "delete" | "refresh" | "read-gone";

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
  error?: ProviderCallError | Error;
}

/**
 * How an operation runs its resource steps: `parallel` at once at most, like the engine's
 * `--parallel` (unbounded by default in Pulumi 3, 16 in older CLIs; `Infinity` here). Steps
 * still start in registration order (deletes in reverse); nothing orders them by dependency,
 * so use more than 1 only for resources that do not depend on each other. Default 1: one step
 * at a time, as before.
 */
export interface RunOptions {
  parallel?: number;
}

/**
 * `fn` over `items` with at most `parallel` running at once, started in order. After a throw
 * or a `true` (stop) no new one starts; the ones running are waited for, then the first throw
 * is passed on.
 */
async function pooled<T>(items: readonly T[], parallel: number, fn: (item: T, index: number) => Promise<boolean | void>): Promise<void> {
  let next = 0;
  let stop = false;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!stop && next < items.length) {
      const i = next++;
      try {
        if (await fn(items[i], i)) stop = true;
      } catch (error) {
        stop = true;
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, items.length)) }, worker));
  if (failure) throw failure.error;
}

/**
 * The engine's processIgnoreChanges: each listed property path (`a` or `a.b`) keeps its old
 * input value, or stays absent if it had none.
 */
export function ignoreChanges(
  news: Record<string, unknown>,
  olds: Record<string, unknown>,
  paths: string[],
): Record<string, unknown> {
  const result = structuredClone(news);
  for (const p of paths) {
    const keys = p.split(".");
    let from: unknown = olds;
    let to: Record<string, unknown> | undefined = result;
    for (const [i, k] of keys.entries()) {
      from = typeof from === "object" && from !== null ? (from as Record<string, unknown>)[k] : undefined;
      if (i === keys.length - 1) {
        if (from === undefined) delete to[k];
        else to[k] = structuredClone(from);
      } else {
        const next: unknown = to[k];
        if (typeof next !== "object" || next === null) break;
        to = next as Record<string, unknown>;
      }
    }
  }
  return result;
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

  /** `pulumi preview`: Check (and Diff for existing resources) with unknowns allowed. */
  async preview(regs: Registration[], opts: RunOptions = {}): Promise<OperationResult> {
    return this.run(regs, true, opts);
  }

  /** `pulumi up`. */
  async up(regs: Registration[], opts: RunOptions = {}): Promise<OperationResult> {
    return this.run(regs, false, opts);
  }

  private async run(regs: Registration[], preview: boolean, opts: RunOptions): Promise<OperationResult> {
    // Steps of each registration, in registration order whatever order they ran in.
    const stepsOf: Step[][] = regs.map(() => []);
    const collected = () => stepsOf.flat();
    let stopped: OperationResult["failures"];
    // Once every registration is done: their steps, then the deletes.
    let steps: Step[] | undefined;
    const p = this.plugin;
    // The old side of each create-before-delete replacement, by URN: like the engine, the
    // harness deletes it at the end, after the resources that depend on it were updated to
    // the new one (a pod moved to a new credential before the old credential goes).
    const replaced = new Map<string, StateResource>();
    // Old URNs a registration took through an alias: never deleted as "left the program".
    const aliased = new Set<string>();
    try {
      await pooled(regs, opts.parallel ?? 1, async (reg, index) => {
        const steps = stepsOf[index];
        const urn = this.urn(reg);
        const found = this.oldOf(urn, reg);
        let old = found.old;
        if (found.oldUrn !== urn) {
          aliased.add(found.oldUrn);
          // The snapshot carries the old state over to the new URN (an up; a preview writes nothing).
          if (!preview && old) {
            old = { ...old, urn };
            this.resources.delete(found.oldUrn);
            this.resources.set(urn, old);
          }
        }
        // The engine applies ignoreChanges to the program's inputs before anything else.
        const goal = old ? ignoreChanges(reg.inputs, old.inputs, reg.options.ignoreChanges) : reg.inputs;
        this.note("Check", urn);
        let checked = await p.check(urn, old?.inputs ?? {}, goal, { preview });
        if (checked.failures.length > 0) {
          stopped ??= { urn, failures: checked.failures };
          return true;
        }
        if (!old) {
          steps.push({ urn, op: "create" });
          if (!preview) await this.create(urn, reg, checked.inputs);
          return false;
        }
        this.note("Diff", urn);
        const diff = await p.diff(urn, old.id, old.inputs, old.outputs, checked.inputs, {
          preview,
          ignoreChanges: reg.options.ignoreChanges,
        });
        if (diff.replaces.length > 0) {
          steps.push({ urn, op: "replace", diff });
          if (preview) return false;
          // A replacement gets fresh defaults: the engine checks again without the old inputs.
          this.note("Check", urn);
          checked = await p.check(urn, {}, goal);
          if (checked.failures.length > 0) {
            stopped ??= { urn, failures: checked.failures };
            return true;
          }
          if (diff.deleteBeforeReplace || reg.options.deleteBeforeReplace) {
            await this.delete(old);
            await this.create(urn, reg, checked.inputs);
          } else {
            replaced.set(urn, { ...old });
            await this.create(urn, reg, checked.inputs);
          }
        } else if (
          diff.changes === "some" ||
          // A provider that does not say (DIFF_UNKNOWN): the engine compares old and new inputs.
          (diff.changes === "unknown" && !isDeepStrictEqual(reveal(old.inputs), reveal(checked.inputs)))
        ) {
          steps.push({ urn, op: "update", diff });
          if (preview) return false;
          this.note("Update", urn);
          try {
            const outputs = await p.update(urn, old.id, old.outputs, checked.inputs, old.inputs);
            this.resources.set(urn, { ...old, inputs: checked.inputs, outputs, options: reg.options, initErrors: undefined });
          } catch (e) {
            if (e instanceof ProviderCallError && e.initFailure) {
              this.resources.set(urn, { ...old, outputs: e.initFailure.outputs, initErrors: e.initFailure.reasons });
            }
            throw e;
          }
        } else {
          steps.push({ urn, op: "same", diff });
          if (!preview) this.resources.set(urn, { ...old, inputs: checked.inputs, options: reg.options });
        }
        return false;
      });
      if (stopped) return { steps: collected(), failures: stopped };
      steps = collected();
      // Resources no longer in the program and the old sides of replacements go, last
      // registered first (the order of the state stands in for the engine's dependency graph).
      const wanted = new Set(regs.map((r) => this.urn(r)));
      for (const res of [...this.resources.values()].reverse()) {
        const old = replaced.get(res.urn);
        if (old) await this.delete(old, false);
        if (wanted.has(res.urn) || aliased.has(res.urn)) continue;
        steps.push({ urn: res.urn, op: "delete" });
        if (!preview) await this.delete(res);
      }
      return { steps };
    } catch (error) {
      return { steps: steps ?? collected(), error: error as Error };
    }
  }

  private async create(urn: string, reg: Registration, inputs: Record<string, unknown>): Promise<void> {
    this.note("Create", urn);
    try {
      const { id, outputs } = await this.plugin.create(urn, inputs);
      this.resources.set(urn, { urn, type: reg.type, id, inputs, outputs, options: reg.options });
    } catch (e) {
      // The engine keeps a resource that exists but failed to initialize, so the next
      // operation updates or deletes it instead of creating a second one.
      if (e instanceof ProviderCallError && e.initFailure) {
        const f = e.initFailure;
        this.resources.set(urn, { urn, type: reg.type, id: f.id, inputs, outputs: f.outputs, options: reg.options, initErrors: f.reasons });
      }
      throw e;
    }
  }

  /**
   * The engine's DeleteStep: a resource registered with `retainOnDelete` leaves the state and
   * the provider is not called (pkg/resource/deploy/step.go: `else if s.old.RetainOnDelete {
   * // Deleting a "drop on delete" is a no-op ...}`), also for the old side of a replacement.
   */
  private async delete(res: StateResource, forget = true): Promise<void> {
    if (res.options?.retainOnDelete) {
      this.note("Retain", res.urn);
    } else {
      this.note("Delete", res.urn);
      await this.plugin.delete(res.urn, res.id, res.outputs, res.inputs);
    }
    if (forget && this.resources.get(res.urn)?.id === res.id) this.resources.delete(res.urn);
  }

  /** `pulumi refresh`: Read each resource with its old outputs and inputs. */
  async refresh(opts: RunOptions = {}): Promise<OperationResult> {
    const all = [...this.resources.values()];
    const stepOf: (Step | undefined)[] = all.map(() => undefined);
    const steps = () => stepOf.filter((s): s is Step => s !== undefined);
    try {
      await pooled(all, opts.parallel ?? 1, async (res, i) => {
        this.note("Read", res.urn);
        const r = await this.plugin.read(res.urn, res.id, res.outputs, res.inputs);
        if (!r.id) {
          this.resources.delete(res.urn);
          stepOf[i] = { urn: res.urn, op: "read-gone" };
          return;
        }
        this.resources.set(res.urn, { ...res, id: r.id, outputs: r.outputs, inputs: r.inputs ?? res.inputs });
        stepOf[i] = { urn: res.urn, op: "refresh" };
      });
      return { steps: steps() };
    } catch (error) {
      return { steps: steps(), error: error as Error };
    }
  }

  /** `pulumi destroy`: Delete every resource, last created first. */
  async destroy(opts: RunOptions = {}): Promise<OperationResult> {
    const all = [...this.resources.values()].reverse();
    const stepOf: (Step | undefined)[] = all.map(() => undefined);
    const steps = () => stepOf.filter((s): s is Step => s !== undefined);
    try {
      await pooled(all, opts.parallel ?? 1, async (res, i) => {
        await this.delete(res);
        stepOf[i] = { urn: res.urn, op: "delete" };
      });
      return { steps: steps() };
    } catch (error) {
      return { steps: steps(), error: error as Error };
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

  /** The whole state as text: what a state file would hold (before secret encryption). */
  stateText(): string {
    return JSON.stringify([...this.resources.values()]);
  }
}

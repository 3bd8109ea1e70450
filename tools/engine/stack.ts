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

  private note(method: string, urn: string): void {
    this.calls.push(`${method} ${nameOf(urn)}`);
  }

  /** `pulumi preview`: Check (and Diff for existing resources) with unknowns allowed. */
  async preview(regs: Registration[]): Promise<OperationResult> {
    return this.run(regs, true);
  }

  /** `pulumi up`. */
  async up(regs: Registration[]): Promise<OperationResult> {
    return this.run(regs, false);
  }

  private async run(regs: Registration[], preview: boolean): Promise<OperationResult> {
    const steps: Step[] = [];
    const p = this.plugin;
    // The old side of each create-before-delete replacement, by URN: like the engine, the
    // harness deletes it at the end, after the resources that depend on it were updated to
    // the new one (a pod moved to a new credential before the old credential goes).
    const replaced = new Map<string, StateResource>();
    try {
      for (const reg of regs) {
        const urn = this.urn(reg);
        const old = this.resources.get(urn);
        // The engine applies ignoreChanges to the program's inputs before anything else.
        const goal = old ? ignoreChanges(reg.inputs, old.inputs, reg.options.ignoreChanges) : reg.inputs;
        this.note("Check", urn);
        let checked = await p.check(urn, old?.inputs ?? {}, goal, { preview });
        if (checked.failures.length > 0) {
          return { steps, failures: { urn, failures: checked.failures } };
        }
        if (!old) {
          steps.push({ urn, op: "create" });
          if (!preview) await this.create(urn, reg, checked.inputs);
          continue;
        }
        this.note("Diff", urn);
        const diff = await p.diff(urn, old.id, old.inputs, old.outputs, checked.inputs, {
          preview,
          ignoreChanges: reg.options.ignoreChanges,
        });
        if (diff.replaces.length > 0) {
          steps.push({ urn, op: "replace", diff });
          if (preview) continue;
          // A replacement gets fresh defaults: the engine checks again without the old inputs.
          this.note("Check", urn);
          checked = await p.check(urn, {}, goal);
          if (checked.failures.length > 0) return { steps, failures: { urn, failures: checked.failures } };
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
          if (preview) continue;
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
      }
      // Resources no longer in the program and the old sides of replacements go, last
      // registered first (the order of the state stands in for the engine's dependency graph).
      const wanted = new Set(regs.map((r) => this.urn(r)));
      for (const res of [...this.resources.values()].reverse()) {
        const old = replaced.get(res.urn);
        if (old) await this.delete(old, false);
        if (wanted.has(res.urn)) continue;
        steps.push({ urn: res.urn, op: "delete" });
        if (!preview) await this.delete(res);
      }
      return { steps };
    } catch (error) {
      return { steps, error: error as Error };
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

  private async delete(res: StateResource, forget = true): Promise<void> {
    this.note("Delete", res.urn);
    await this.plugin.delete(res.urn, res.id, res.outputs, res.inputs);
    if (forget && this.resources.get(res.urn)?.id === res.id) this.resources.delete(res.urn);
  }

  /** `pulumi refresh`: Read each resource with its old outputs and inputs. */
  async refresh(): Promise<OperationResult> {
    const steps: Step[] = [];
    try {
      for (const res of [...this.resources.values()]) {
        this.note("Read", res.urn);
        const r = await this.plugin.read(res.urn, res.id, res.outputs, res.inputs);
        if (!r.id) {
          this.resources.delete(res.urn);
          steps.push({ urn: res.urn, op: "read-gone" });
          continue;
        }
        this.resources.set(res.urn, { ...res, id: r.id, outputs: r.outputs, inputs: r.inputs ?? res.inputs });
        steps.push({ urn: res.urn, op: "refresh" });
      }
      return { steps };
    } catch (error) {
      return { steps, error: error as Error };
    }
  }

  /** `pulumi destroy`: Delete every resource, last created first. */
  async destroy(): Promise<OperationResult> {
    const steps: Step[] = [];
    try {
      for (const res of [...this.resources.values()].reverse()) {
        await this.delete(res);
        steps.push({ urn: res.urn, op: "delete" });
      }
      return { steps };
    } catch (error) {
      return { steps, error: error as Error };
    }
  }

  /** The whole state as text: what a state file would hold (before secret encryption). */
  stateText(): string {
    return JSON.stringify([...this.resources.values()]);
  }
}

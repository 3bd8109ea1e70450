/**
 * A small engine that drives the providers in-process the way Pulumi's engine does (see
 * rig.ts for why it sits beside tools/engine): state kept after a failure with an id, pending
 * deletes of create-before-delete replacements, properties as JSON on the wire.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Kind } from "./rig";

/** One resource of a program: what `new Pod(name, args)` registers. */
export interface Declaration {
  kind: Kind;
  name: string;
  args: Record<string, unknown>;
}

export interface StateEntry {
  kind: Kind;
  name: string;
  id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  initErrors?: string[];
}

/** One failed engine step: which call, which resource, the error as the user would see it. */
export interface Failure {
  op: "check" | "create" | "update" | "delete" | "read" | "diff";
  kind: Kind;
  name: string;
  message: string;
  error: unknown;
  /** The resource existed despite the failure (its id was kept). */
  kept: boolean;
}

export interface OpResult {
  ok: boolean;
  failure?: Failure;
  checkFailures?: pulumi.dynamic.CheckFailure[];
}

/** The wire: what survives Struct marshalling (undefined dropped, no class instances). */
const wire = <T>(v: T): T => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

function partial(err: unknown): { id: string; properties: Record<string, unknown>; reasons: string[] } | undefined {
  const e = err as { id?: unknown; properties?: Record<string, unknown>; reasons?: string[] };
  return typeof e?.id === "string" && e.id !== "" ? { id: e.id, properties: e.properties ?? {}, reasons: e.reasons ?? [] } : undefined;
}

export class MiniEngine {
  readonly state = new Map<string, StateEntry>();
  /** Old resources of replacements whose delete failed: the engine deletes them first next time. */
  readonly pendingDeletes: StateEntry[] = [];
  readonly failures: Failure[] = [];
  /** Operations run (up, refresh, destroy), failed or not. */
  operations = 0;

  constructor(private readonly providers: Record<Kind, pulumi.dynamic.ResourceProvider>) {}

  private fail(op: Failure["op"], entry: { kind: Kind; name: string }, error: unknown, kept: boolean): OpResult {
    const message = error instanceof Error ? error.message : String(error);
    const failure: Failure = { op, kind: entry.kind, name: entry.name, message, error, kept };
    this.failures.push(failure);
    return { ok: false, failure };
  }

  /** Ids this stack knows: in state or waiting to be deleted. */
  knownIds(): Set<string> {
    return new Set([...this.state.values(), ...this.pendingDeletes].map((e) => e.id));
  }

  private async deletePending(): Promise<OpResult> {
    while (this.pendingDeletes.length > 0) {
      const old = this.pendingDeletes[0];
      try {
        await this.providers[old.kind].delete!(old.id, wire(old.outputs));
      } catch (e) {
        return this.fail("delete", old, e, true);
      }
      this.pendingDeletes.shift();
    }
    return { ok: true };
  }

  private async create(decl: Declaration, inputs: Record<string, unknown>): Promise<OpResult | StateEntry> {
    const p = this.providers[decl.kind];
    try {
      const r = await p.create(wire(inputs));
      return { kind: decl.kind, name: decl.name, id: r.id, inputs, outputs: wire(r.outs ?? {}) };
    } catch (e) {
      const kept = partial(e);
      if (kept) {
        this.state.set(decl.name, {
          kind: decl.kind,
          name: decl.name,
          id: kept.id,
          inputs,
          outputs: wire(kept.properties),
          initErrors: kept.reasons,
        });
      }
      return this.fail("create", decl, e, kept !== undefined);
    }
  }

  /** `pulumi up` of `program`: resources in order, then the ones no longer declared, last first. */
  async up(program: Declaration[]): Promise<OpResult> {
    this.operations++;
    const pending = await this.deletePending();
    if (!pending.ok) return pending;
    for (const decl of program) {
      const p = this.providers[decl.kind];
      const old = this.state.get(decl.name);
      const news = { ...decl.args, __logicalName: decl.name };
      let checked: pulumi.dynamic.CheckResult;
      try {
        checked = await p.check!(wire(old?.inputs ?? {}), wire(news));
      } catch (e) {
        return this.fail("check", decl, e, false);
      }
      if (checked.failures?.length) return { ok: false, checkFailures: checked.failures };
      const inputs = wire(checked.inputs ?? {});
      if (!old) {
        const made = await this.create(decl, inputs);
        if ("ok" in made) return made;
        this.state.set(decl.name, made);
        continue;
      }
      let diff: pulumi.dynamic.DiffResult;
      try {
        diff = await p.diff!(old.id, wire(old.outputs), inputs);
      } catch (e) {
        return this.fail("diff", decl, e, true);
      }
      if (diff.replaces?.length) {
        // A replacement is checked again without the old inputs: fresh defaults, a fresh auto-name.
        const again = await p.check!({}, wire(news));
        if (again.failures?.length) return { ok: false, checkFailures: again.failures };
        const made = await this.create(decl, wire(again.inputs ?? {}));
        if ("ok" in made) {
          // A new resource that failed but exists took the slot; the old one waits for deletion.
          if (this.state.get(decl.name) !== old) this.pendingDeletes.push(old);
          return made;
        }
        this.state.set(decl.name, made);
        this.pendingDeletes.push(old);
        const gone = await this.deletePending();
        if (!gone.ok) return gone;
      } else if (diff.changes || old.initErrors?.length) {
        try {
          const r = await p.update!(old.id, wire(old.outputs), inputs);
          this.state.set(decl.name, { ...old, inputs, outputs: wire(r.outs ?? {}), initErrors: undefined });
        } catch (e) {
          const kept = partial(e);
          if (kept) this.state.set(decl.name, { ...old, inputs, outputs: wire(kept.properties), initErrors: kept.reasons });
          return this.fail("update", decl, e, true);
        }
      } else {
        this.state.set(decl.name, { ...old, inputs });
      }
    }
    const wanted = new Set(program.map((d) => d.name));
    for (const entry of [...this.state.values()].reverse()) {
      if (wanted.has(entry.name)) continue;
      const r = await this.remove(entry);
      if (!r.ok) return r;
    }
    return { ok: true };
  }

  private async remove(entry: StateEntry): Promise<OpResult> {
    try {
      await this.providers[entry.kind].delete!(entry.id, wire(entry.outputs));
    } catch (e) {
      return this.fail("delete", entry, e, true);
    }
    this.state.delete(entry.name);
    return { ok: true };
  }

  /** `pulumi refresh`: read every resource; gone ones leave state. */
  async refresh(): Promise<OpResult> {
    this.operations++;
    for (const entry of [...this.state.values()]) {
      try {
        const r = await this.providers[entry.kind].read!(entry.id, wire(entry.outputs));
        if (!r.id) {
          this.state.delete(entry.name);
          continue;
        }
        this.state.set(entry.name, { ...entry, id: r.id, outputs: wire(r.props ?? {}), inputs: wire(r.inputs ?? entry.inputs) });
      } catch (e) {
        return this.fail("read", entry, e, true);
      }
    }
    return { ok: true };
  }

  /** `pulumi destroy`: pending deletes, then everything, last created first. */
  async destroy(): Promise<OpResult> {
    this.operations++;
    const pending = await this.deletePending();
    if (!pending.ok) return pending;
    for (const entry of [...this.state.values()].reverse()) {
      const r = await this.remove(entry);
      if (!r.ok) return r;
    }
    return { ok: true };
  }
}

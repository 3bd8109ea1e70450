/**
 * What the fault suite, the bad-input properties and `npm run soak` share: an emulator with a
 * sentinel key, a client whose waits are compressed (the emulator's `Retry-After: 1` becomes
 * 10 ms, so a 429 storm costs milliseconds, not seconds), the real providers wired to that
 * client, and a small engine that drives them the way Pulumi's engine does.
 *
 * Why a small engine beside test/engine/harness.ts: the providers are called in-process here
 * (hundreds of operations in seconds), and the engine's bookkeeping after a failure is what
 * decides whether anything leaks, so it is modelled as the engine does it: a create or update
 * that fails with an id (ErrorResourceInitFailed) keeps the resource in state with its
 * outputs; a create that fails without one leaves nothing in state; the old resource of a
 * create-before-delete replace whose delete fails stays in state as a pending delete, deleted
 * first by the next operation; properties cross the wire as JSON (undefined dropped).
 */
import type * as pulumi from "@pulumi/pulumi";
import { ComputePlatform } from "../../src/client";
import type { Clock } from "../../src/client/core/clock";
import { type Emulator, type EmulatorState, type Faults, startEmulator } from "../../src/emulator";
import { PodProvider } from "../../src/resources/pod";
import { ServerlessEndpointProvider } from "../../src/resources/serverless-endpoint";
import { PROJECT, PROJECT_DIR, ProviderPlugin } from "../engine/harness";
import { createServerlessTemplate } from "../helpers/emulator-fixtures";

export { PROJECT, PROJECT_DIR };

/** A key no other string in the repo has: any place it shows up, it leaked from here. */
export const SENTINEL_KEY = "cp_sentinel_7f3a9c_do_not_leak_e41b";
export const READ_ONLY_KEY = "cp_sentinel_readonly_0c8d52_e41b";

export type Kind = "pod" | "endpoint";

/** A clock whose sleeps last `1 / factor` of what was asked: retries and backoff stay in order, just shorter. */
export function compressedClock(factor: number): Clock {
  return {
    now: () => Date.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = setTimeout(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }, Math.max(0, ms / factor));
        const onAbort = () => {
          clearTimeout(timer);
          reject(signal!.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
  };
}

/** Keys, quotas and millisecond timings every rig uses; `faults` and the log size vary. */
export function startSentinelEmulator(opts: { faults?: Faults; requestLogSize?: number } = {}): Promise<Emulator> {
  return startEmulator({
    port: 0,
    keys: [
      { key: SENTINEL_KEY, scopes: ["read", "write"] },
      { key: READ_ONLY_KEY, scopes: ["read"] },
    ],
    quotas: { minute: 10_000_000, hour: 10_000_000, day: 10_000_000 },
    timings: { provisioningMs: 15, startingMs: 15, drainMs: 15 },
    requestLogSize: opts.requestLogSize ?? 1_000_000,
    faults: opts.faults ?? {},
  });
}

// ---------------------------------------------------------------------------------------------
// Through Pulumi's plugin

/** The project directory the plugin runs in, as in test/engine. */
export const CONFIG_SECRETS = ["computeplatform:apiKey"];

export function stackConfig(emu: Emulator, key = SENTINEL_KEY): Record<string, string> {
  return { "computeplatform:apiKey": key, "computeplatform:apiUrl": emu.url };
}

/** A fresh plugin process, as each `pulumi` command starts one, configured from stack config with `key`. */
export async function startPlugin(emu: Emulator, key = SENTINEL_KEY): Promise<ProviderPlugin> {
  const config = stackConfig(emu, key);
  const plugin = await ProviderPlugin.start({
    cwd: PROJECT_DIR,
    project: PROJECT,
    config,
    env: { COMPUTEPLATFORM_API_KEY: undefined, COMPUTEPLATFORM_POLL_INTERVAL_MS: "10" },
  });
  await plugin.configure(config, CONFIG_SECRETS);
  return plugin;
}

// ---------------------------------------------------------------------------------------------
// In-process

export interface RigOptions {
  faults?: Faults;
  /** Debug lines of the client go here (the secret scan reads them). */
  logger?: { debug(line: string): void };
  maxRetries?: number;
}

export interface Rig {
  emu: Emulator;
  client: ComputePlatform;
  providers: Record<Kind, pulumi.dynamic.ResourceProvider>;
  gpuId: string;
  /** A second NVIDIA GPU type, for the no-capacity profile. */
  otherGpuId: string;
  /** A serverless template of the key's owner, what an endpoint's `templateId` must name. */
  templateId: string;
  close(): Promise<void>;
}

export async function startRig(opts: RigOptions = {}): Promise<Rig> {
  const emu = await startSentinelEmulator({ faults: opts.faults });
  const client = new ComputePlatform({
    apiKey: SENTINEL_KEY,
    apiUrl: emu.url,
    serverlessUrl: emu.url,
    pacing: false,
    maxRetries: opts.maxRetries ?? 4,
    timeoutMs: 5_000,
    clock: compressedClock(100),
    logger: opts.logger,
    env: {},
  });
  const providers = {
    pod: new PodProvider({ client: () => client, poll: { intervalMs: 5, maxIntervalMs: 15, backoff: 1.5 } }),
    endpoint: new ServerlessEndpointProvider({ client: () => client, pollIntervalMs: 5, maxPollIntervalMs: 15 }),
  };
  // The catalog is read once with no faults on, so the profile under test decides what fails.
  const saved = opts.faults ?? {};
  emu.setFaults({});
  const nvidia = (await client.catalog.gpus()).filter((g) => g.manufacturer === "NVIDIA").map((g) => g.id);
  const templateId = await createServerlessTemplate(emu.url, SENTINEL_KEY);
  emu.setFaults(saved);
  return {
    emu,
    client,
    providers,
    gpuId: nvidia[0],
    otherGpuId: nvidia[1],
    templateId,
    close: async () => {
      await client.close();
      await emu.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A small engine

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

// ---------------------------------------------------------------------------------------------
// What the platform holds, against what the stacks know

export interface Audit {
  /** Live pods and endpoints no stack knows about. */
  orphans: string[];
  /** Names carried by more than one live pod (or endpoint). */
  duplicates: string[];
  /** Ids in a stack's state that the platform no longer has. */
  missing: string[];
}

export function livePods(state: EmulatorState) {
  return state.pods.filter((p) => p.status !== "TERMINATED");
}

export function liveEndpoints(state: EmulatorState) {
  return state.endpoints as { id: string; name: string; type?: string }[];
}

/**
 * Compare the emulator's own state with what `stacks` know. `settled`: every operation
 * succeeded, so nothing may be missing. `prefix`: only objects whose name starts with it are
 * this audit's business (stacks running side by side name their resources apart).
 */
export function audit(emu: Emulator, stacks: MiniEngine[], settled: boolean, prefix = ""): Audit {
  const s = emu.state();
  const known = new Set(stacks.flatMap((st) => [...st.knownIds()]));
  const pods = livePods(s).filter((p) => p.name.startsWith(prefix));
  const eps = liveEndpoints(s).filter((e) => e.name.startsWith(prefix));
  const orphans = [...pods.map((p) => `pod ${p.id} "${p.name}" ${p.status}`), ...eps.map((e) => `endpoint ${e.id} "${e.name}"`)].filter(
    (line) => !known.has(line.split(" ")[1]),
  );
  // The old half of a replacement that keeps its name is not a second create: leave it out.
  const leaving = new Set(stacks.flatMap((st) => st.pendingDeletes.map((e) => e.id)));
  const dup = (names: string[]) => names.filter((n, i) => names.indexOf(n) !== i);
  const duplicates = [
    ...dup(pods.filter((p) => !leaving.has(p.id)).map((p) => p.name)).map((n) => `pod "${n}"`),
    ...dup(eps.filter((e) => !leaving.has(e.id)).map((e) => e.name)).map((n) => `endpoint "${n}"`),
  ];
  const liveIds = new Set([...livePods(s).map((p) => p.id), ...liveEndpoints(s).map((e) => e.id)]);
  const missing = settled
    ? stacks.flatMap((st) => [...st.state.values()].filter((e) => !liveIds.has(e.id)).map((e) => `${e.kind} ${e.id} (${e.name})`))
    : [];
  return { orphans, duplicates, missing };
}

/** Faults the emulator injected, by kind, from its own request log. */
export function faultCounts(emu: Emulator): Record<string, number> {
  const out: Record<string, number> = { requests: 0, "429": 0, "5xx": 0, dropped: 0 };
  for (const e of emu.requestLog()) {
    out.requests++;
    if (e.dropped) out.dropped++;
    else if (e.status === 429) out["429"]++;
    else if (e.status >= 500) out["5xx"]++;
  }
  return out;
}

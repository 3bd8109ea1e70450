/**
 * The generated check, widened again (issue 32): stack promotion. Per kind, ONE program with a
 * given name deployed to two stacks (dev and prod) of one account, through Pulumi's own plugin
 * against the emulator. After `up prod`, `up dev`, fast-check draws the steps:
 *
 * - `up` of a stack, with a fault aimed at the kind's create: none, `5xx` (answered 500 without
 *   processing: the platform made nothing) or `drop` (processed, the answer lost: it made it);
 * - `byHand`: an object of the same name made outside any stack (the kind's provider in-process,
 *   with no owner), as a person would;
 * - `keep`: the stack's resource declared with `retainOnDelete`, then left out of the program:
 *   the platform keeps it, no stack holds it, and the next `up` of that stack declares the name again;
 * - `destroy` of a stack.
 *
 * After every step: no stack holds an object it did not create (an id a stack's state gains is
 * one no one had: not the other stack's, not hand-made, not kept); no object of another origin
 * was deleted; each stack's state is what the platform has for it (every id live, matching the
 * declaration); and every live object of the name has an origin (no create left a stray one).
 * How many drawn steps: `PROMOTION_STEPS` (default 3) per run; the seed is the check's.
 */
import fc from "fast-check";
import type { AimedFault } from "../../../src/emulator/core/faults";
import { NetworkVolumeProvider } from "../../../src/resources/network-volume/provider";
import { PodProvider } from "../../../src/resources/pod/provider";
import { RegistryCredentialProvider } from "../../../src/resources/registry-credential/provider";
import { ServerlessEndpointProvider } from "../../../src/resources/serverless-endpoint/provider";
import { TemplateProvider } from "../../../src/resources/template/provider";
import { captureProgram, EngineStack, PROJECT, type ProviderPlugin, SECRET_KEYS } from "../../../tools/engine";
import { resourcesOf } from "../ledger";
import type { Decl, KindModel, World } from "./model";

export interface PromotionTally {
  steps: Record<string, number>;
  createFaults: Record<string, number>;
  /** Ups of a stack whose create met a fault and still made the stack's own object. */
  faultedCreates: number;
  /** Objects of the name that no stack created (hand-made, kept) standing during an up that created. */
  othersStanding: number;
}

export const newPromotionTally = (): PromotionTally => ({ steps: {}, createFaults: {}, faultedCreates: 0, othersStanding: 0 });

export const promotionSteps = (env: NodeJS.ProcessEnv = process.env): number => Number(env.PROMOTION_STEPS ?? 3);

type Fault = "none" | "5xx" | "drop";
type Action = { action: "up"; stack: "dev" | "prod"; fault: Fault } | { action: "byHand" } | { action: "keep" | "destroy"; stack: "dev" | "prod" };

/** Per kind: its create request, its live objects, a provider for the hand-made ones. */
const KINDS: Record<string, { create: (decl: Decl) => Omit<AimedFault, "fault">; all: (world: World) => { id: string; name: string; status?: string }[]; provider: (world: World) => any }> = {
  NetworkVolume: {
    create: () => ({ method: "POST", path: "/v2/network-volumes" }),
    all: (w) => w.emu.state().networkVolumes,
    provider: (w) => new NetworkVolumeProvider({ client: () => w.client }),
  },
  Template: {
    create: () => ({ method: "POST", path: "/v2/templates" }),
    all: (w) => w.emu.state().templates,
    provider: (w) => new TemplateProvider({ client: () => w.client }),
  },
  RegistryCredential: {
    create: () => ({ method: "POST", path: "/v2/registries" }),
    all: (w) => w.emu.state().registries,
    provider: (w) => new RegistryCredentialProvider({ client: () => w.client }),
  },
  Pod: {
    create: () => ({ method: "POST", path: "/v2/pods" }),
    all: (w) => w.emu.state().pods.filter((p) => p.status !== "TERMINATED"),
    provider: (w) => new PodProvider({ client: () => w.client, poll: { intervalMs: 10, maxIntervalMs: 20, backoff: 1 } }),
  },
  ServerlessEndpoint: {
    create: () => ({ method: "POST", path: "/graphql", bodyIncludes: "saveEndpoint" }),
    all: (w) => w.emu.state().endpoints as { id: string; name: string }[],
    provider: (w) => new ServerlessEndpointProvider({ client: () => w.client, pollIntervalMs: 10 }),
  },
  "ServerlessEndpoint (REST)": {
    create: () => ({ method: "POST", path: "/v2/serverless" }),
    all: (w) => w.emu.state().endpoints as { id: string; name: string }[],
    provider: (w) => new ServerlessEndpointProvider({ client: () => w.client, pollIntervalMs: 10 }),
  },
};

const kindOf = (model: KindModel) => KINDS[model.name] ?? KINDS[model.name.replace(/ .*/, "")]!;

/** The drawn steps of one promotion walk. */
export function promotionPlan(model: KindModel, world: World, steps: number) {
  const stack = fc.constantFrom<"dev" | "prod">("dev", "prod");
  const action: fc.Arbitrary<Action> = fc.oneof(
    { weight: 3, arbitrary: fc.record({ action: fc.constant("up" as const), stack, fault: fc.constantFrom<Fault>("none", "5xx", "drop") }) },
    { weight: 1, arbitrary: fc.record({ action: fc.constant("byHand" as const) }) },
    { weight: 1, arbitrary: fc.record({ action: fc.constant("keep" as const), stack }) },
    { weight: 1, arbitrary: fc.record({ action: fc.constant("destroy" as const), stack }) },
  );
  return fc.record({
    first: model.initial(world),
    devFault: fc.constantFrom<Fault>("5xx", "drop"),
    steps: fc.array(action, { minLength: steps, maxLength: steps }),
  });
}

/** Walks one promotion plan of one kind: see the top of this file. */
export class PromotionWalker {
  /** Who made each object of the name: "dev", "prod", "hand", or "kept" once its stack let it go. */
  private readonly origin = new Map<string, string>();
  /** Outputs to delete the hand-made and kept objects with at the end. */
  private readonly leftBehind: { id: string; outs: any }[] = [];
  private readonly stacks: Record<"dev" | "prod", EngineStack>;
  /** Whether each stack's program declares the resource now. */
  private readonly declared = { dev: false, prod: false };

  constructor(
    private readonly model: KindModel,
    private readonly world: World,
    plugin: ProviderPlugin,
    private readonly config: Record<string, string>,
    private readonly tally: PromotionTally,
    private readonly runNo: number,
    private readonly decl: Decl,
  ) {
    this.stacks = {
      dev: new EngineStack(plugin, { project: PROJECT, stack: `promo${runNo}-dev` }),
      prod: new EngineStack(plugin, { project: PROJECT, stack: `promo${runNo}-prod` }),
    };
  }

  private regs(stack: "dev" | "prod", opts: { retainOnDelete?: boolean } = {}, declare = true) {
    const decl = this.decl;
    return captureProgram(() => (declare ? this.model.construct("shared", JSON.parse(JSON.stringify(decl)), opts) : undefined), {
      project: PROJECT,
      stack: this.stacks[stack].stack,
      config: this.config,
      secretKeys: SECRET_KEYS,
    });
  }

  private live(): { id: string; name: string }[] {
    const name = this.decl.name as string;
    return kindOf(this.model)
      .all(this.world)
      .filter((o) => o.name === name || o.name.startsWith(`${name}~`));
  }

  private async up(stack: "dev" | "prod", fault: Fault): Promise<void> {
    const creates = resourcesOf(this.stacks[stack]).length === 0;
    if (creates) this.tally.othersStanding += [...this.origin.values()].filter((o) => o === "hand" || o === "kept").length;
    if (fault !== "none") this.world.emu.setFaults({ aimed: [{ ...kindOf(this.model).create(this.decl), fault, times: 1 }] });
    let result;
    try {
      result = await this.stacks[stack].up(await this.regs(stack));
    } finally {
      this.world.emu.setFaults({});
    }
    if (result.error) throw new Error(`up of ${stack} (fault ${fault} on its create): ${result.error.message}`);
    if (creates && fault !== "none") this.tally.faultedCreates++;
    this.declared[stack] = true;
  }

  private async step(a: Action): Promise<void> {
    this.tally.steps[a.action] = (this.tally.steps[a.action] ?? 0) + 1;
    if (a.action === "up") {
      this.tally.createFaults[a.fault] = (this.tally.createFaults[a.fault] ?? 0) + 1;
      return this.up(a.stack, a.fault);
    }
    if (a.action === "byHand") {
      const provider = kindOf(this.model).provider(this.world);
      const checked = await provider.check({}, JSON.parse(JSON.stringify(this.decl)));
      const made = await provider.create(checked.inputs);
      this.origin.set(made.id, "hand");
      this.leftBehind.push({ id: made.id, outs: made.outs });
      return;
    }
    const s = this.stacks[a.stack];
    if (a.action === "destroy") {
      const destroyed = await s.destroy();
      if (destroyed.error) throw destroyed.error;
      this.declared[a.stack] = false;
      return;
    }
    // keep: declared with retainOnDelete, then out of the program.
    if (!this.declared[a.stack]) return this.up(a.stack, "none");
    const kept = await s.up(await this.regs(a.stack, { retainOnDelete: true }));
    if (kept.error) throw kept.error;
    const [res] = resourcesOf(s);
    const dropped = await s.up(await this.regs(a.stack, {}, false));
    if (dropped.error) throw dropped.error;
    this.origin.set(res!.id, "kept");
    this.leftBehind.push({ id: res!.id, outs: res!.outputs });
    this.declared[a.stack] = false;
  }

  /** The invariant after every step (see the top of this file). */
  private audit(label: string): void {
    const liveIds = new Set(this.live().map((o) => o.id));
    for (const name of ["dev", "prod"] as const) {
      for (const res of resourcesOf(this.stacks[name])) {
        const o = this.origin.get(res.id);
        // A stack never holds an object someone else made.
        expect({ label, stack: name, id: res.id, origin: o ?? name }).toEqual({ label, stack: name, id: res.id, origin: name });
        this.origin.set(res.id, name);
        // Its state is what the platform has.
        const live = this.model.live(this.world, res.id);
        expect({ label, stack: name, id: res.id, live: live !== undefined }).toEqual({ label, stack: name, id: res.id, live: true });
        this.model.expectLive(this.decl, live, live, this.world, this.decl);
      }
    }
    const held = new Set(["dev", "prod"].flatMap((n) => resourcesOf(this.stacks[n as "dev" | "prod"]).map((r) => r.id)));
    for (const [id, o] of this.origin) {
      // Never deleted by a stack that did not make it.
      if (o === "hand" || o === "kept" || held.has(id)) expect({ label, id, origin: o, live: liveIds.has(id) }).toEqual({ label, id, origin: o, live: true });
    }
    // Nothing of the name that no one knows: no create left a stray object.
    for (const id of liveIds) expect({ label, stray: id, origin: this.origin.get(id) ?? "none" }).not.toEqual({ label, stray: id, origin: "none" });
  }

  async walk(devFault: Fault, steps: Action[]): Promise<void> {
    let failure: unknown;
    try {
      await this.step({ action: "up", stack: "prod", fault: "none" });
      this.audit("up prod");
      await this.step({ action: "up", stack: "dev", fault: devFault });
      this.audit(`up dev (${devFault} on its create)`);
      for (const [i, a] of steps.entries()) {
        await this.step(a);
        this.audit(`step ${i + 1}: ${JSON.stringify(a)}`);
      }
    } catch (error) {
      failure = error;
    }
    const results = [await this.stacks.dev.destroy(), await this.stacks.prod.destroy()];
    const provider = kindOf(this.model).provider(this.world);
    for (const o of this.leftBehind) await provider.delete(o.id, { ...o.outs, deleteWaitSeconds: 5, drainTimeoutSeconds: 5 });
    if (failure) throw failure;
    for (const r of results) if (r.error) throw r.error;
    expect(this.live()).toEqual([]);
  }
}

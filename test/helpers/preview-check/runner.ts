/**
 * The generated check of preview against up (issue 14): for one kind, fast-check draws a first
 * declaration and a chain of steps, and the chain is walked on ONE stack through Pulumi's own
 * plugin against the emulator. A step is either a change of one property of the declaration
 * (set, changed, or removed: each draw's old declaration is the previous new one) or a change
 * made outside the stack through the client, as a console would. Each step asserts:
 *
 * 1. What the preview said is what up did: "same" sent no write request, "update" kept the id,
 *    "replace" made a new id and deleted the old one after the create; a change refused at
 *    preview (diff fails naming it) sent no request and up refuses it alike.
 * 2. After up, the platform's object matches the declaration (the kind's `expectLive`: a
 *    removed field is at the platform's default, or kept where the kind's table says so).
 * 3. A second preview after up, and after a refresh, shows no change.
 * 4. An outside change of an updatable field shows after refresh (twice) as exactly that field
 *    (the engine's op, and the plan the provider's diff runs), and up puts it back.
 * 5. After an up that updates, the platform made of the change what the plan said (the kind's
 *    `watchUp`: an endpoint's releases roll its workers exactly for the fields the plan says roll).
 * 6. The step's line, in the preview and the up, says what the up did (step-lines.ts); for an
 *    update, what the kind binds to the object to run it for that up (`bindUser`: an endpoint
 *    bound to a serverless template) rolled exactly as the line says.
 * A kind's `examples` chains are walked first, whatever the seed.
 * At the end of a chain the stack is destroyed and the object must be gone from the platform.
 *
 * The stack's cost ledger (one `StackCost` beside every Pod and ServerlessEndpoint) is looked
 * past in the steps and the state (test/helpers/ledger.ts); it sends no write, and the only
 * requests a preview may send are reads of the catalog's prices. After up it too shows no change.
 *
 * A drawn change that the provider's check refuses (a cross-field rule the draw broke) is
 * counted and skipped: the chain goes on from the old declaration; the refusal must send no
 * request. How many pairs each kind walks: `PREVIEW_CHECK_RUNS` (default `DEFAULT_PAIRS`);
 * the seed: `PREVIEW_CHECK_SEED` (or `FC_SEED`), printed with the counts; a failure prints the
 * seed and the shrunk chain (fast-check's report), which the same seed replays.
 */
import fc from "fast-check";
import { newPromotionTally, PromotionWalker, promotionPlan, promotionSteps } from "./promotion";
import { newWidenedTally, WidenedWalker, widenedPlan, widenedSettings } from "./widened";
import type { BoundUser, Decl, KindModel, Plan, Step, World } from "./model";
import { deletedLine, holdStepLines, kindWord, lineSays, stdoutOnce, subjectLines, type UpSeen } from "./step-lines";
import { ComputePlatform } from "../../../src/client";
import { type EngineRig, startEngineRig } from "../../../tools/engine/rig";
import { resourceCalls, resourceRegs, resourcesOf, resourceSteps } from "../ledger";
import { captureProgram, EngineStack, PROJECT, type ProviderPlugin, type Registration, reveal, SECRET_KEYS, type StepOp } from "../../../tools/engine";

/** Pairs per kind in `npm test`; `PREVIEW_CHECK_RUNS` raises it for a soak. */
export const DEFAULT_PAIRS = 6;
/** The chain length of one fast-check run: a run is one stack's life, created to destroyed. */
const CHAIN = 14;
const DEFAULT_SEED = 20261124;

export function settings(env: NodeJS.ProcessEnv = process.env): { pairs: number; seed: number; chain: number; runs: number } {
  const pairs = Number(env.PREVIEW_CHECK_RUNS ?? DEFAULT_PAIRS);
  const seed = Number(env.PREVIEW_CHECK_SEED ?? env.FC_SEED ?? DEFAULT_SEED);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error(`PREVIEW_CHECK_RUNS must be a whole number >= 1, got ${env.PREVIEW_CHECK_RUNS}`);
  if (!Number.isInteger(seed)) throw new Error(`PREVIEW_CHECK_SEED must be an integer, got ${env.PREVIEW_CHECK_SEED ?? env.FC_SEED}`);
  const chain = Math.min(CHAIN, pairs);
  return { pairs, seed, chain, runs: Math.ceil(pairs / chain) };
}

/** Requests that change something: everything but reads (GET, the GraphQL `myself` query). */
export function isWrite(entry: { method: string; op: string }): boolean {
  return entry.method !== "GET" && !/^(myself|get|list)/.test(entry.op);
}

/**
 * Requests a preview must not send: all but the ledger's reads, of the catalog's prices (once
 * per plugin) and of the live pods and endpoints it prices a changed resource from (what runs).
 */
const notCatalogRead = (entry: { method: string; path: string; op: string }) =>
  !(entry.method === "GET" && (entry.path.startsWith("/v2/catalog/") || entry.path === "/v2/pods" || entry.path === "/v2/serverless")) && entry.op !== "myself";

/** Tally of one kind's walk, printed at the end. */
export interface Tally {
  pairs: number;
  ops: Record<string, number>;
  refusedAtCheck: number;
  refusedAtPreview: number;
  outside: number;
  outsideShown: number;
  byProperty: Record<string, number>;
  /** Outside changes made, by field. */
  byOutside: Record<string, number>;
  /** Walks that began by adopting an object made by hand. */
  adopted: number;
  /** Steps whose lines (preview and up) were held to what the up did. */
  lines: number;
  /** Those steps by what their line says (step-lines.ts's lineSays). */
  linesSay: Record<string, number>;
  /** Updates held to what bound to the object runs it (KindModel.bindUser), and those of them whose up rolled its workers. */
  bound: number;
  boundRolled: number;
}

export const newTally = (): Tally => ({ pairs: 0, ops: {}, refusedAtCheck: 0, refusedAtPreview: 0, outside: 0, outsideShown: 0, byProperty: {}, byOutside: {}, adopted: 0, lines: 0, linesSay: {}, bound: 0, boundRolled: 0 });

/** Steps for a kind: a change of any property (the values of `values`), or an outside change. */
export function stepArbitrary(model: KindModel, world: World): fc.Arbitrary<Step> {
  const values = model.values(world);
  const changes = Object.entries(values).map(([property, value]) => value.map((v): Step => ({ kind: "change", property, value: v })));
  const outside = Object.entries(model.outside(world)).map(([field, o]) => o.value.map((v): Step => ({ kind: "outside", field, value: v })));
  // A kind the platform cannot change in place (a registry credential) has no outside change.
  const step = outside.length === 0 ? fc.oneof(...changes) : fc.oneof({ weight: 4, arbitrary: fc.oneof(...changes) }, { weight: 1, arbitrary: fc.oneof(...outside) });
  // Almost never skipped when drawn; shrinking turns the steps a failure does not need into skips.
  return fc.option(step, { nil: null, freq: 1000 });
}

const LOGICAL = "subject";

/** Walks chains of one kind on one plugin: one stack per run, destroyed at the end of it. */
export class Walker {
  private runNo = 0;

  constructor(
    private readonly model: KindModel,
    private readonly world: World,
    private readonly plugin: ProviderPlugin,
    private readonly config: Record<string, string>,
    readonly tally: Tally,
  ) {}

  private readonly captured = new Map<string, Promise<Registration[]>>();

  /**
   * The program declaring `decl`, as the SDK registers it. A declaration's inputs are literal
   * values (nothing unknown at preview), so preview and up register the same inputs: one
   * capture per declaration serves both (a capture costs ~60 ms, the SDK serializing the shim).
   */
  private capture(decl: Decl, _preview: boolean): Promise<Registration[]> {
    const key = JSON.stringify(decl);
    let regs = this.captured.get(key);
    if (!regs) {
      // Plain objects (fast-check may draw null-prototype ones, which no program writes).
      regs = captureProgram(() => this.model.construct(LOGICAL, JSON.parse(key)), { project: PROJECT, stack: "gen", preview: false, config: this.config, secretKeys: SECRET_KEYS });
      this.captured.set(key, regs);
    }
    return regs.then((r) => structuredClone(r));
  }

  /**
   * One chain: create `first` (or, drawn to `adopt`, make it by hand and adopt it), then each
   * step; the stack is destroyed whatever happens (a failed destroy fails a chain that passed).
   */
  async walk(first: Decl, steps: Step[], adopt = false): Promise<void> {
    const stack = new EngineStack(this.plugin, { project: PROJECT, stack: `gen${++this.runNo}` });
    try {
      const made = adopt ? await this.byHand(stack, first) : undefined;
      // A name that cannot change on an existing object, left undeclared, is a new auto-name at
      // each check, which adopt refuses (lifecycle/adopt.ts): the adopting program declares it.
      const named = made && this.model.nameFixed && first.name === undefined ? { ...first, name: made.name } : first;
      const id = made?.id;
      let decl = id === undefined ? first : { ...named, adopt: id };
      const from = this.log().length;
      const created = await this.apply(stack, decl, undefined);
      expect(created).toBe("create");
      if (id !== undefined) {
        // Adopted: the object's own id in state, and no create sent (the kind's POST, or a GraphQL save without id).
        expect(this.subject(stack).id).toBe(id);
        const creates = this.log().slice(from).filter((e) => /^create/.test(e.op));
        expect(creates).toEqual([]);
        this.tally.adopted++;
      }
      for (const step of steps) {
        if (step === null) continue;
        decl = step.kind === "outside" ? await this.outside(stack, decl, step) : await this.change(stack, decl, step);
      }
    } catch (error) {
      await stack.destroy();
      throw error;
    }
    const last = this.subject(stack).id;
    const heldData = this.model.holdsData?.(this.model.live(this.world, last)) ?? false;
    const printedFrom = this.plugin.stdout.length;
    const destroyed = await stack.destroy();
    if (destroyed.error) throw destroyed.error;
    expect(this.model.live(this.world, last)).toBeUndefined();
    // The destroy's delete line, marked when the object held data nothing else keeps.
    const kind = kindWord(this.model.name);
    const line = deletedLine(await stdoutOnce(this.plugin, printedFrom, (t) => deletedLine(t, kind, last) !== undefined), kind, last);
    expect({ line, destroys: line?.endsWith("[DESTROYS DATA]") }).toEqual({ line: expect.any(String), destroys: heldData });
  }

  /** The object `first` declares, made through the client; its id and name (undefined: the kind makes none by hand). */
  private async byHand(stack: EngineStack, first: Decl): Promise<{ id: string; name: unknown } | undefined> {
    if (!this.model.makeByHand) return undefined;
    const [reg] = resourceRegs(await this.capture(first, false));
    const urn = `urn:pulumi:${stack.stack}::${PROJECT}::${reg!.type}::${LOGICAL}`;
    const checked = reveal(await this.plugin.check(urn, {}, reg!.inputs).then((c) => c.inputs)) as Record<string, any>;
    const id = await this.model.makeByHand(this.world, checked);
    return id === undefined ? undefined : { id, name: checked.name };
  }

  private subject(stack: EngineStack) {
    const [res] = resourcesOf(stack);
    if (!res) throw new Error("the stack holds no resource");
    return res;
  }

  private log() {
    const log = this.world.emu.requestLog();
    // The walk finds a step's requests by position: a full ring would shift them.
    if (log.length >= REQUEST_LOG_SIZE) throw new Error(`the emulator's request log is full (${REQUEST_LOG_SIZE}): raise REQUEST_LOG_SIZE`);
    return log;
  }

  /** Preview, then up, of `decl`; asserts points 1 to 3 and 6. Returns the op; "refused" when check refused it. */
  private async apply(stack: EngineStack, decl: Decl, previous: Decl | undefined): Promise<StepOp | "refused"> {
    const before = this.log().length;
    const printedFrom = this.plugin.stdout.length;
    // An adoption's check reads the object it adopts (lifecycle/adopt.ts): reads, never a write.
    const previewSends = !previous && decl.adopt !== undefined ? isWrite : notCatalogRead;
    const preview = await stack.preview(await this.capture(decl, true));
    if (preview.failures) {
      // A drawn change the provider refuses: no request, and the chain goes on from the old one.
      expect(this.log().slice(before).filter(previewSends)).toEqual([]);
      if (!previous) throw new Error(`the first declaration was refused: ${JSON.stringify(preview.failures.failures)}`);
      this.tally.refusedAtCheck++;
      return "refused";
    }
    if (preview.error) {
      // Refused at preview (diff), as a volume's shrink or a restart of a locked pod: no request,
      // and up refuses the same way before writing anything; the chain goes on from the old one.
      if (!previous) throw preview.error;
      expect(this.log().slice(before).filter(notCatalogRead)).toEqual([]);
      const mark = this.log().length;
      const up = await stack.up(await this.capture(decl, false));
      expect(up.error?.message).toBe(preview.error.message);
      expect(this.log().slice(mark).filter(isWrite)).toEqual([]);
      this.tally.refusedAtPreview++;
      return "refused";
    }
    const [step, ...more] = resourceSteps(preview);
    expect(more).toEqual([]);
    const op = step!.op;
    expect(this.log().slice(before).filter(previewSends)).toEqual([]);

    const old = previous ? this.subject(stack) : undefined;
    const liveBefore = old ? this.model.live(this.world, old.id) : undefined;
    const expectedOp = previous && this.model.expectOp?.(decl, previous, liveBefore);
    if (expectedOp) expect({ op, decl, previous }).toEqual({ op: expectedOp, decl, previous });
    // A change up only records (read at creation only) must send no write.
    const recordOnly = op === "update" && (await this.recordOnly(stack, decl));
    const watched = op === "update" ? await this.watch(stack, decl) : undefined;
    const rolled = op === "update" ? await this.model.rolled?.(this.world, old!.id) : undefined;
    const bound = op === "update" ? await this.bind(stack, decl) : undefined;
    const callsBefore = stack.calls.length;
    const { up, requests, usersRolled } = await this.upBound(stack, decl, bound);
    if (up.error) throw up.error;
    if (up.failures) throw new Error(`up refused what preview accepted: ${JSON.stringify(up.failures.failures)}`);
    // 1. What the preview said is what up did.
    expect(resourceSteps(up).map((s) => s.op)).toEqual([op]);
    const now = this.subject(stack);
    if (op === "same") {
      expect(requests.filter(isWrite)).toEqual([]);
      expect(now.id).toBe(old!.id);
    } else if (op === "update") {
      expect(now.id).toBe(old!.id);
      if (recordOnly) expect(requests.filter(isWrite)).toEqual([]);
    } else if (op === "replace") {
      expect(now.id).not.toBe(old!.id);
      expect(this.model.live(this.world, old!.id)).toBeUndefined();
      // The new one made first, the old one deleted at the end of up (and gone from the platform).
      const calls = resourceCalls(stack.calls.slice(callsBefore));
      expect(calls.filter((c) => /^(Create|Delete) /.test(c))).toEqual([`Create ${LOGICAL}`, `Delete ${LOGICAL}`]);
    }
    // 6. The step's line, in the preview and the up, says what the up did (step-lines.ts).
    await this.holdLines(printedFrom, await this.seen(op, requests, liveBefore, old?.id, now.id, { rolled, usersRolled }));
    // 2. The platform's object matches the declaration.
    this.model.expectLive(decl, this.model.live(this.world, now.id), op === "replace" ? undefined : liveBefore, this.world, previous);
    await watched?.(reveal(now.outputs) as Record<string, any>);
    // 3. No change after up, nor after a refresh.
    await this.expectSame(stack, decl, "after up");
    const at = this.log().length;
    const refreshed = await stack.refresh();
    if (refreshed.error) throw refreshed.error;
    expect(this.log().slice(at).filter(isWrite)).toEqual([]);
    await this.expectSame(stack, decl, "after refresh");
    return op;
  }

  /**
   * What the up that sent `requests` did to the object (`oldId` before it, `nowId` after), for
   * its lines: `rolled` reads whether its own workers rolled, `usersRolled` is what rolled on
   * what was bound to it.
   */
  private async seen(
    op: StepOp,
    requests: readonly { method: string; op: string }[],
    liveBefore: unknown,
    oldId: string | undefined,
    nowId: string,
    workers: { rolled?: () => Promise<boolean>; usersRolled?: string[] },
  ): Promise<Omit<UpSeen, "deleted"> & { oldId?: string }> {
    if (workers.usersRolled && workers.usersRolled.length > 0) this.tally.boundRolled++;
    return {
      op,
      writes: requests.filter(isWrite).length,
      heldData: op === "replace" && (this.model.holdsData?.(liveBefore) ?? false),
      restarted: op === "update" ? this.model.restarted?.(liveBefore, this.model.live(this.world, nowId)) : undefined,
      rolled: workers.rolled ? await workers.rolled() : undefined,
      usersRolled: workers.usersRolled,
      oldId: op === "replace" ? oldId : undefined,
    };
  }

  /** Before an up that updates: what the kind binds to the object to run it (bindUser), if anything. */
  private async bind(stack: EngineStack, decl: Decl): Promise<BoundUser | undefined> {
    if (!this.model.bindUser) return undefined;
    const { olds, news } = await this.checked(stack, decl);
    const bound = await this.model.bindUser(this.world, this.subject(stack).id, olds, news);
    if (bound) this.tally.bound++;
    return bound;
  }

  /**
   * Up of `decl`; the requests it sent (read before `bound` is taken away, whose own writes are
   * not the up's), and the fields that rolled on what was bound, which is unbound whatever happens.
   */
  private async upBound(stack: EngineStack, decl: Decl, bound: BoundUser | undefined) {
    const mark = this.log().length;
    try {
      const up = await stack.up(await this.capture(decl, false));
      const requests = this.log().slice(mark);
      const usersRolled = up.error || up.failures ? undefined : await bound?.rolled();
      return { up, requests, usersRolled };
    } finally {
      await bound?.unbind();
    }
  }

  /**
   * The walked object's lines since the preview began (the plugin's stdout from `from`), held to
   * what the up did. One stream, in call order: the preview's line comes before the up's. A line
   * comes after the answer it belongs to, so the text is read once it holds the lines a change
   * prints (the preview's, the up's, a replacement's delete line), or after a bound.
   */
  private async holdLines(from: number, seen: Omit<UpSeen, "deleted"> & { oldId?: string }): Promise<void> {
    const kind = kindWord(this.model.name);
    const wanted = seen.op === "update" || seen.op === "replace" ? 2 : 0;
    const text = await stdoutOnce(this.plugin, from, (t) => subjectLines(t, kind, LOGICAL).length >= wanted && (!seen.oldId || deletedLine(t, kind, seen.oldId) !== undefined));
    const lines = subjectLines(text, kind, LOGICAL);
    holdStepLines(lines.slice(0, 1), lines.slice(1), { ...seen, deleted: seen.oldId ? deletedLine(text, kind, seen.oldId) : undefined });
    this.tally.lines++;
    const says = lineSays(lines[0]);
    this.tally.linesSay[says] = (this.tally.linesSay[says] ?? 0) + 1;
  }

  private async expectSame(stack: EngineStack, decl: Decl, when: string): Promise<void> {
    const again = await stack.preview(await this.capture(decl, true));
    if (again.error) throw again.error;
    // The resource and the ledger alike: an unchanged stack costs what it did.
    const ops = again.steps.map((s) => s.op);
    if (ops.every((op) => op === "same")) return;
    // Not the same: name what the diff saw, and the state it saw it in.
    const plan = await this.plan(stack, decl);
    const { __provider: _shim, ...outputs } = reveal(this.subject(stack).outputs) as Record<string, unknown>;
    expect({ when, op: resourceSteps(again).map((s) => s.op), all: ops, plan, outputs }).toEqual({ when, op: ["same"], all: ops.map(() => "same"), plan: { replaces: [], updates: [] }, outputs });
  }

  /** Whether the plan from the state to `decl` only updates properties up records without a request. */
  private async recordOnly(stack: EngineStack, decl: Decl): Promise<boolean> {
    const recorded = this.model.recordedOnly;
    if (!recorded) return false;
    const { replaces, updates } = await this.plan(stack, decl);
    return replaces.length === 0 && updates.length > 0 && updates.every((u) => recorded.includes(u));
  }

  /** The plan `diff` runs now: checked inputs from the plugin's own check, against the state's outputs. */
  private async plan(stack: EngineStack, decl: Decl): Promise<Plan> {
    const { olds, news } = await this.checked(stack, decl);
    const { replaces, updates } = this.model.plan(olds, news);
    return { replaces: [...replaces].sort(), updates: [...updates].sort() };
  }

  /** What `diff` and `update` see for `decl`: the state's outputs, and the inputs from the plugin's own check. */
  private async checked(stack: EngineStack, decl: Decl): Promise<{ olds: Record<string, any>; news: Record<string, any> }> {
    const res = this.subject(stack);
    const [reg] = resourceRegs(await this.capture(decl, false));
    const checked = await this.plugin.check(res.urn, res.inputs, reg!.inputs);
    return { olds: reveal(res.outputs) as Record<string, any>, news: reveal(checked.inputs) as Record<string, any> };
  }

  /** Before an up that updates: the kind's look at the platform (watchUp), and its check for after the up. */
  private async watch(stack: EngineStack, decl: Decl): Promise<((after: Record<string, any>) => Promise<void>) | undefined> {
    if (!this.model.watchUp) return undefined;
    const { olds, news } = await this.checked(stack, decl);
    return this.model.watchUp(this.world, this.subject(stack).id, olds, news);
  }

  private async change(stack: EngineStack, decl: Decl, step: Extract<Step, { kind: "change" }>): Promise<Decl> {
    const drawn: Decl = { ...decl };
    if (step.value === undefined) delete drawn[step.property];
    else drawn[step.property] = step.value;
    const next = this.model.repair ? this.model.repair(drawn, decl, this.world) : drawn;
    const op = await this.apply(stack, next, decl);
    if (op === "refused") return decl;
    this.tally.pairs++;
    this.tally.ops[op] = (this.tally.ops[op] ?? 0) + 1;
    this.tally.byProperty[step.property] = (this.tally.byProperty[step.property] ?? 0) + 1;
    return next;
  }

  /** 4. An outside change shows after refresh as exactly that field; up puts it back. */
  private async outside(stack: EngineStack, decl: Decl, step: Extract<Step, { kind: "outside" }>): Promise<Decl> {
    const change = this.model.outside(this.world)[step.field]!;
    const res = this.subject(stack);
    const live = this.model.live(this.world, res.id);
    if (!(await change.apply(this.world, res.id, step.value, live))) return decl;
    this.tally.outside++;
    this.tally.byOutside[step.field] = (this.tally.byOutside[step.field] ?? 0) + 1;
    // Refreshed twice: a second refresh must not take the outside change for the program's.
    for (let i = 0; i < 2; i++) {
      const refreshed = await stack.refresh();
      if (refreshed.error) throw refreshed.error;
    }
    const expected = change.expect(decl, step.value);
    const printedFrom = this.plugin.stdout.length;
    const preview = await stack.preview(await this.capture(decl, true));
    if (expected === "refused") {
      // The program cannot put it back (a volume only grows): preview fails naming the field,
      // and the user follows the platform; the chain goes on from there.
      expect(preview.error?.message).toContain(step.field);
      const followed = { ...decl, [step.field]: this.model.live(this.world, res.id)[step.field] };
      expect(await this.apply(stack, followed, decl)).toBe("same");
      return followed;
    }
    if (preview.error) throw preview.error;
    const plan = await this.plan(stack, decl);
    const shown = change.shows ?? step.field;
    if (expected === "same") {
      expect({ field: step.field, op: resourceSteps(preview).map((s) => s.op), plan }).toEqual({ field: step.field, op: ["same"], plan: { replaces: [], updates: [] } });
      return decl;
    }
    this.tally.outsideShown++;
    const wanted = expected === "update" ? { replaces: [], updates: [shown] } : { replaces: [shown], updates: [] };
    expect({ field: step.field, op: resourceSteps(preview).map((s) => s.op), plan }).toEqual({ field: step.field, op: [expected], plan: wanted });
    const watched = expected === "update" ? await this.watch(stack, decl) : undefined;
    const liveBefore = this.model.live(this.world, res.id);
    const rolled = expected === "update" ? await this.model.rolled?.(this.world, res.id) : undefined;
    const bound = expected === "update" ? await this.bind(stack, decl) : undefined;
    const { up, requests, usersRolled } = await this.upBound(stack, decl, bound);
    if (up.error) throw up.error;
    expect(resourceSteps(up).map((s) => s.op)).toEqual([expected]);
    const now = this.subject(stack);
    if (expected === "update") expect(now.id).toBe(res.id);
    else expect(this.model.live(this.world, res.id)).toBeUndefined();
    // Putting it back is a step like any other: its line says what the up did.
    await this.holdLines(printedFrom, await this.seen(expected, requests, liveBefore, res.id, now.id, { rolled, usersRolled }));
    // Back to what it was before the outside change (a new object: to the declaration).
    this.model.expectLive(decl, this.model.live(this.world, now.id), expected === "update" ? live : undefined, this.world, decl);
    await watched?.(reveal(now.outputs) as Record<string, any>);
    await this.expectSame(stack, decl, `after putting ${step.field} back`);
    return decl;
  }

}

const KEY = "cp_sentinel_preview_check_5b2e90";
/** Room for every request of a soak's walk (a pod's waits poll). */
const REQUEST_LOG_SIZE = 1_000_000;
/** Emulator timings that keep a walk quick: every pod and worker state lasts 10 ms, a restart 20 ms. */
const TIMINGS = { provisioningMs: 10, startingMs: 10, drainMs: 10, restartDelayMs: 20 };

/** A kind to check and the objects made for it before its walk. */
export interface KindEntry {
  model: KindModel;
  fixtures?: (client: ComputePlatform) => Promise<World["fixtures"]>;
}

/**
 * The jest suite of the generated check: one emulator and one plugin for every kind, then per
 * kind the fixtures it refers to (made through the client) and `runs` fast-check runs of a
 * `chain`-step walk each (one stack per run). `PREVIEW_CHECK_KINDS` (comma-separated class
 * names) narrows it to some kinds. Prints the seed, the pairs walked and what the previews said.
 */
export function describePreviewCheck(entries: KindEntry[]): void {
  const { seed, chain, runs, pairs } = settings();
  const only = process.env.PREVIEW_CHECK_KINDS?.split(",").filter(Boolean);
  let rig: EngineRig;
  let client: ComputePlatform;

  beforeAll(async () => {
    // Lists in a new order every time (the contract promises none): nothing may rest on one.
    rig = await startEngineRig(KEY, { timings: TIMINGS, requestLogSize: REQUEST_LOG_SIZE, listOrder: "shuffled" });
    client = new ComputePlatform({ apiKey: KEY, apiUrl: rig.emu.url, pacing: false });
  });

  afterAll(async () => {
    expect(rig.plugin.transcript()).not.toContain(KEY);
    await client?.close();
    await rig?.close();
  });

  describe.each(entries.filter((e) => !only || only.includes(e.model.name)).map((e) => [e.model.name, e] as const))("%s", (_name, { model, fixtures }) => {
    let world: World;
    const tally = newTally();

    beforeAll(async () => {
      world = { emu: rig.emu, client, fixtures: fixtures ? await fixtures(client) : {} };
    });

    afterAll(() => {
      console.log(
        `preview-check ${model.name}: seed ${seed} (PREVIEW_CHECK_SEED); ${runs} chain(s) of ${chain} steps (PREVIEW_CHECK_RUNS=${pairs}), ${model.examples?.(world).length ?? 0} example chain(s); ` +
          `${tally.pairs} pairs (old declaration, change) walked, previews: ${JSON.stringify(tally.ops)}; refused: ${tally.refusedAtCheck} by check, ${tally.refusedAtPreview} by diff; ` +
          `${tally.adopted} walks began by adopting; ${tally.lines} steps' lines held to what up did (${JSON.stringify(tally.linesSay)}), ${tally.bound} of them to what was bound to it (${tally.boundRolled} rolled its workers); ${tally.outside} outside changes, ${tally.outsideShown} shown as a change; changes by property: ${JSON.stringify(tally.byProperty)}; outside changes by field: ${JSON.stringify(tally.byOutside)}`,
      );
    });

    test("the generator covers every property of the code", () => {
      expect(Object.keys(model.values(world)).sort()).toEqual([...model.properties].sort());
    });

    test(`preview tells what up does, for every property (seed ${seed})`, async () => {
      const walker = new Walker(model, world, rig.plugin, rig.config, tally);
      const steps = fc.array(stepArbitrary(model, world), { minLength: chain, maxLength: chain });
      // The kind's example chains first; fast-check counts them in numRuns.
      const examples = (model.examples?.(world) ?? []).map((e): [Decl, Step[], boolean] => [e.first, e.steps, false]);
      await fc.assert(
        // Adoptions drawn beside creates: a walk may begin with an object made by hand, adopted.
        fc.asyncProperty(model.initial(world), steps, fc.boolean(), (first, chainSteps, adopt) => walker.walk(first, chainSteps, adopt)),
        { seed, numRuns: runs + examples.length, endOnFailure: false, verbose: 1, examples },
      );
    });

    test(`several changes at once with a fault in the up, and Pulumi options (seed ${seed}; widened.ts)`, async () => {
      const n = widenedSettings();
      const widened = newWidenedTally();
      const costed = model.name === "Pod" || model.name.startsWith("ServerlessEndpoint");
      // Drawn with room to spare: a draw the provider refuses is skipped, the next one taken.
      const plans = fc.sample(widenedPlan(model, world, { faultSteps: 3 * n.faultSteps, optionSteps: n.optionSteps }), { seed, numRuns: runs });
      for (const [i, plan] of plans.entries()) {
        const walker = new WidenedWalker(model, world, rig.plugin, rig.config, widened, costed);
        await walker.walk(plan.first, plan.faults, plan.options, i + 1, n.faultSteps * (i + 1));
      }
      console.log(`preview-check ${model.name} widened: seed ${seed}; ${JSON.stringify(widened)}`);
      expect(widened.faultSteps).toBeGreaterThanOrEqual(n.faultSteps * plans.length);
      expect(Object.values(widened.optionSteps).reduce((a, b) => a + b, 0)).toBe(n.optionSteps * plans.length);
    });

    test(`one program, two stacks, given names: faults aimed at creates, kept and hand-made objects (seed ${seed}; promotion.ts)`, async () => {
      const promotion = newPromotionTally();
      // The check's seed, then any more a soak names (PROMOTION_SEEDS).
      const seeds = [seed, ...(process.env.PROMOTION_SEEDS ?? "").split(",").filter(Boolean).map(Number)];
      let walks = 0;
      for (const s of seeds) {
        for (const plan of fc.sample(promotionPlan(model, world, promotionSteps()), { seed: s, numRuns: runs })) {
          // A given name, the same in both stacks, as a promoted program has.
          const decl = { ...plan.first, name: `shared-${model.name.replace(/\W+/g, "").toLowerCase()}-${++walks}` };
          await new PromotionWalker(model, world, rig.plugin, rig.config, promotion, walks, decl).walk(plan.devFault, plan.steps);
        }
      }
      console.log(`preview-check ${model.name} promotion: seeds ${seeds.join(", ")} (PROMOTION_SEEDS); ${walks} walk(s); ${JSON.stringify(promotion)}`);
      expect(promotion.faultedCreates).toBeGreaterThanOrEqual(walks);
    });
  });
}

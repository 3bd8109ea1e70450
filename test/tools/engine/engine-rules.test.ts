// The engine's rules the rig plays beyond one call sequence, proved on the fixture provider
// through Pulumi's own plugin: protect, replaceOnChanges, the import option, `.get`, --replace,
// --target, --exclude, transforms, dependency order and parallel steps. Each failure is the engine's own message.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Counter, type CounterArgs } from "./fixtures/counter";
import { captureProgram, EngineError, EngineStack, ProviderCallError, type ProviderPlugin, type Registration } from "../../../tools/engine";
import { startPlugin } from "../../../tools/engine/rig";

const ROOT = path.resolve(__dirname, "../../..");
const CONFIG = { "fixture:greeting": "hello", "fixture:token": "fixture-token-5e21aa" };
const PROJECT = "fixture";

let store: string;
let plugin: ProviderPlugin;
let stackNo = 0;

beforeAll(async () => {
  store = fs.mkdtempSync(path.join(os.tmpdir(), "engine-rules-"));
  plugin = await startPlugin(CONFIG, { cwd: ROOT, project: PROJECT, secretKeys: ["fixture:token"], env: { FIXTURE_STORE: store } });
});

afterAll(async () => {
  await plugin?.stop();
  fs.rmSync(store, { recursive: true, force: true });
});

type Decl = CounterArgs & { opts?: pulumi.CustomResourceOptions; after?: string[] };
/**
 * Counters by name, declared in order; `after[0]` names an earlier one whose id this one takes
 * as its label (an output used as an input), the rest earlier ones it has in `dependsOn`.
 */
const capture = (counters: Record<string, Decl>, stack: string): Promise<Registration[]> =>
  captureProgram(
    () => {
      const made: Record<string, Counter> = {};
      for (const [name, { opts, after, ...args }] of Object.entries(counters)) {
        const label = after?.length ? (made[after[0]].id as pulumi.Input<string>) : args.label;
        made[name] = new Counter(name, { ...args, label }, { ...opts, dependsOn: (after ?? []).slice(1).map((n) => made[n]) });
      }
    },
    { project: PROJECT, stack, config: CONFIG, secretKeys: ["fixture:token"] },
  );

function newStack() {
  const stack = new EngineStack(plugin, { project: PROJECT, stack: `r${++stackNo}` });
  return { stack, regs: (counters: Record<string, Decl>) => capture(counters, stack.stack), urn: (name: string) => `urn:pulumi:${stack.stack}::${PROJECT}::pulumi-nodejs:dynamic/fixture:Counter::${name}` };
}
const journal = () => fs.readFileSync(path.join(store, "journal.log"), "utf8").trim().split("\n");
const exists = (id: string) => fs.existsSync(path.join(store, `${id}.json`));

test("protect: a destroy, a replace or a removal of a protected resource fails before any provider call, with the engine's message", async () => {
  const { stack, regs, urn } = newStack();
  const kept = { zone: "z1", size: 1, opts: { protect: true } };
  expect((await stack.up(await regs({ p: kept }))).error).toBeUndefined();
  const id = stack.resources.get(urn("p"))!.id;
  stack.calls.length = 0;

  const destroy = await stack.destroy();
  expect(destroy.error).toBeInstanceOf(EngineError);
  expect(destroy.error?.message).toBe(
    `resource "${urn("p")}" cannot be deleted\nbecause it is protected. To unprotect the resource, either remove the \`protect\` flag from the resource in your Pulumi program and run \`pulumi up\`, or use the command:\n\`pulumi state unprotect '${urn("p")}'\``,
  );
  // A zone change replaces: refused after the Diff, before the replacement's Check and Create.
  const replace = await stack.up(await regs({ p: { ...kept, zone: "z2" } }));
  expect(replace.error?.message).toBe(
    `unable to replace resource "${urn("p")}"\nas it is currently marked for protection. To unprotect the resource, remove the \`protect\` flag from the resource in your Pulumi program and run \`pulumi up\``,
  );
  // A preview shows the replacement and reports the same error.
  const preview = await stack.preview(await regs({ p: { ...kept, zone: "z2" } }));
  expect([preview.steps.map((s) => s.op), preview.error?.message]).toEqual([["replace"], replace.error?.message]);
  const removed = await stack.up(await regs({}));
  expect(removed.error?.message).toBe(destroy.error?.message);
  expect(stack.calls).toEqual(["Check p", "Diff p", "Check p", "Diff p"]);
  expect(exists(id)).toBe(true);

  // Unprotected in the same up that replaces it: the engine allows it (it reads the new protect).
  expect((await stack.up(await regs({ p: { zone: "z2", size: 1 } }))).error).toBeUndefined();
  expect(exists(id)).toBe(false);
  expect((await stack.destroy()).error).toBeUndefined();
});

test("replaceOnChanges turns only the changed keys the provider or the engine names into replacements", async () => {
  const { stack, regs, urn } = newStack();
  const opts = { replaceOnChanges: ["size"] };
  await stack.up(await regs({ a: { zone: "z1", size: 1, opts }, v: { zone: "z1", size: 1, vague: true, opts } }));
  const [a, v] = [stack.resources.get(urn("a"))!.id, stack.resources.get(urn("v"))!.id];
  const res = await stack.up(await regs({ a: { zone: "z1", size: 2, opts }, v: { zone: "z1", size: 2, vague: true, opts } }));
  expect(res.error).toBeUndefined();
  // `a`'s provider answers changes: true, and Pulumi's dynamic-provider plugin sends no `diffs`:
  // the engine has no changed key to match, so the size change updates in place.
  // `v`'s answers DIFF_UNKNOWN: the engine diffs the inputs itself, finds `size`, and replaces.
  expect(res.steps.map((s) => [s.op, s.diff?.diffs, s.diff?.replaces])).toEqual([
    ["update", [], []],
    ["replace", ["size"], ["size"]],
  ]);
  expect(stack.resources.get(urn("a"))!.id).toBe(a);
  expect(stack.resources.get(urn("v"))!.id).not.toBe(v);
  // New first, the old one deleted at the end.
  expect(journal().slice(-3)).toEqual([`update ${a}`, `create ${stack.resources.get(urn("v"))!.id}`, `delete ${v}`]);
  await stack.destroy();
});

test("--replace replaces one URN without a Diff, new first unless deleteBeforeReplace; the rest is diffed as usual", async () => {
  const { stack, regs, urn } = newStack();
  const program = { f: { zone: "z1", size: 1 }, d: { zone: "z1", size: 1, opts: { deleteBeforeReplace: true } }, s: { zone: "z1", size: 1 } };
  await stack.up(await regs(program));
  const old = Object.fromEntries([...stack.resources.values()].map((r) => [r.urn, r.id]));
  stack.calls.length = 0;
  const res = await stack.up(await regs(program), { replace: [urn("f"), urn("d")] });
  expect(res.error).toBeUndefined();
  expect(res.steps.map((s) => [s.op, s.diff?.replaces])).toEqual([
    ["replace", ["id"]],
    ["replace", ["id"]],
    ["same", []],
  ]);
  // Checked without old inputs, no Diff, no second Check.
  expect(stack.calls).toEqual(["Check f", "Create f", "Check d", "Delete d", "Create d", "Check s", "Diff s", "Delete f"]);
  for (const n of ["f", "d"]) expect(stack.resources.get(urn(n))!.id).not.toBe(old[urn(n)]);
  expect(stack.resources.get(urn("s"))!.id).toBe(old[urn("s")]);
  const missing = await stack.up(await regs(program), { replace: [urn("nope")] });
  expect(missing.error?.message).toBe(`Target '${urn("nope")}' could not be found in the stack. Did you forget to escape $ in your shell?`);
  await stack.destroy();
});

test("--target: only the targets change; a new resource outside is not made, and a target that needs one fails", async () => {
  const { stack, regs, urn } = newStack();
  await stack.up(await regs({ a: { zone: "z1", size: 1 }, b: { zone: "z1", size: 1 }, gone: { zone: "z1", size: 1 } }));
  const ids = Object.fromEntries([...stack.resources.values()].map((r) => [r.urn, r.id]));
  stack.calls.length = 0;
  const res = await stack.up(await regs({ a: { zone: "z1", size: 5 }, b: { zone: "z1", size: 5 }, c: { zone: "z1", size: 1 } }), { targets: [urn("a")] });
  expect(res.error).toBeUndefined();
  expect(res.steps.map((s) => [s.urn.split("::").at(-1), s.op])).toEqual([
    ["a", "update"],
    ["b", "same"],
    ["c", "same"],
  ]);
  // No Check of b (its old inputs stand), no create of c, and `gone` (not targeted) kept.
  expect(stack.calls).toEqual(["Check a", "Diff a", "Update a"]);
  expect([...stack.resources.keys()].sort()).toEqual([urn("a"), urn("b"), urn("gone")].sort());
  expect(stack.resources.get(urn("b"))!.inputs.size).toBe(1);
  expect(exists(ids[urn("gone")])).toBe(true);

  const needs = await stack.up(await regs({ a: { zone: "z1", size: 5 }, n: { zone: "z1", size: 1 }, m: { zone: "z1", size: 1, after: ["n"] } }), { targets: [urn("m")] });
  expect(needs.error?.message).toBe(`Resource '${urn("m")}' depends on '${urn("n")}' which was was not specified in --target list.`);

  // destroy --target: a target something else depends on is refused; a leaf goes alone.
  await stack.up(await regs({ a: { zone: "z1", size: 5 }, b: { zone: "z1", size: 1, after: ["a"] }, gone: { zone: "z1", size: 1 } }));
  const refused = await stack.destroy({ targets: [urn("a")] });
  expect(refused.error?.message).toBe(`Resource '${urn("b")}' will be destroyed but was not specified in --target list.\nEither include resource in --target list or pass --target-dependents to proceed.`);
  const leaf = await stack.destroy({ targets: [urn("b")] });
  expect([leaf.error, [...stack.resources.keys()].sort()]).toEqual([undefined, [urn("a"), urn("gone")].sort()]);
  await stack.destroy();
});

test("--exclude: an excluded resource is neither checked, created nor deleted (nor what it depends on), and what depends on it goes ahead", async () => {
  const { stack, regs, urn } = newStack();
  await stack.up(await regs({ a: { zone: "z1", size: 1 }, dep: { zone: "z1", size: 1 }, gone: { zone: "z1", size: 1, after: ["dep"] }, other: { zone: "z1", size: 1 } }));
  stack.calls.length = 0;
  // a excluded (its change not made), n new and excluded (not made), m depends on n and is made; dep, gone and other
  // left the program: other goes, gone (excluded) stays, and so does dep, which gone depends on.
  const res = await stack.up(await regs({ a: { zone: "z1", size: 5 }, n: { zone: "z1", size: 1 }, m: { zone: "z1", size: 1, after: ["n"] } }), {
    excludes: [urn("a"), urn("n"), urn("gone")],
  });
  expect(res.error).toBeUndefined();
  expect(res.steps.map((s) => [s.urn.split("::").at(-1), s.op])).toEqual([
    ["a", "same"],
    ["n", "same"],
    ["m", "create"],
    ["other", "delete"],
  ]);
  expect(stack.calls).toEqual(["Check m", "Create m", "Delete other"]);
  expect(stack.resources.get(urn("a"))!.inputs.size).toBe(1);
  expect([...stack.resources.keys()].sort()).toEqual([urn("a"), urn("dep"), urn("gone"), urn("m")].sort());
  await stack.destroy();
});

test("transforms: the stack's and a resource's own run on its properties before the engine sees them", async () => {
  const { stack, urn } = newStack();
  const registered = await captureProgram(
    () => {
      pulumi.runtime.registerResourceTransform((args) => ({ props: { ...args.props, size: args.props.size * 10 }, opts: args.opts }));
      new Counter("a", { zone: "z1", size: 1 }, { transforms: [(args) => ({ props: { ...args.props, size: args.props.size + 1 }, opts: args.opts })] });
    },
    { project: PROJECT, stack: stack.stack, config: CONFIG, secretKeys: ["fixture:token"] },
  );
  // The resource's own first (1 + 1), then the stack's (x 10).
  expect(registered.find((r) => r.name === "a")!.inputs.size).toBe(20);
  expect((await stack.up(registered)).error).toBeUndefined();
  expect(stack.resources.get(urn("a"))!.inputs.size).toBe(20);
  await stack.destroy();
});

test("dependency order: creates after what they depend on, deletes before it; independent steps run at once", async () => {
  const { stack, regs, urn } = newStack();
  // `late` takes its label from `early`'s id; `side` depends on nothing. All three are
  // registered at once (under mocks), so only the dependency holds `late` back.
  const program = { early: { zone: "z1", size: 1, slowMs: 300 }, side: { zone: "z1", size: 1, slowMs: 300 }, late: { zone: "z1", size: 1, after: ["early"] } };
  const regs1 = await regs(program);
  expect(regs1.find((r) => r.name === "late")!.options.dependencies).toEqual([urn("early")]);
  const from = journal().length;
  expect((await stack.up(regs1, { parallel: Infinity })).error).toBeUndefined();
  const made = journal().slice(from);
  const at = (line: string) => made.indexOf(line);
  const id = (n: string) => stack.resources.get(urn(n))!.id;
  // early and side overlap (both begin before either ends); late begins after early ends.
  expect(at(`begin ${id("side")}`)).toBeLessThan(at(`create ${id("early")}`));
  expect(at(`begin ${id("early")}`)).toBeLessThan(at(`create ${id("side")}`));
  expect(at(`create ${id("early")}`)).toBeLessThan(at(`create ${id("late")}`));
  stack.calls.length = 0;
  expect((await stack.destroy({ parallel: Infinity })).error).toBeUndefined();
  expect(stack.calls.indexOf("Delete late")).toBeLessThan(stack.calls.indexOf("Delete early"));
});

test("import option: the engine reads by id with no inputs and no state, which Pulumi's dynamic-provider plugin cannot serve", async () => {
  const { stack, regs } = newStack();
  await stack.up(await regs({ made: { zone: "z1", size: 1 } }));
  const id = [...stack.resources.values()][0].id;
  const other = newStack();
  const res = await other.stack.up(await other.regs({ taken: { zone: "z1", size: 1, opts: { import: id } } }));
  expect(res.steps.map((s) => s.op)).toEqual(["import"]);
  // The plugin loads the provider from the `__provider` property the Read does not carry.
  expect(res.error).toBeInstanceOf(ProviderCallError);
  expect(res.error?.message).toContain("code must be a string, not undefined");
  expect(other.stack.calls).toEqual(["Read taken"]);
  expect(other.stack.resources.size).toBe(0);
  expect(exists(id)).toBe(true);
  await stack.destroy();
});

test(".get reads by id with the program's properties and never deletes: destroy discards it", async () => {
  const { stack, regs } = newStack();
  await stack.up(await regs({ owned: { zone: "z1", size: 3 } }));
  const id = [...stack.resources.values()][0].id;
  const reader = newStack();
  const read = await captureProgram(() => void Counter.get("seen", id), { project: PROJECT, stack: reader.stack.stack, config: CONFIG });
  expect(read.map((r) => [r.name, r.read])).toEqual([["seen", id]]);
  const up = await reader.stack.up(read);
  expect([up.error, up.steps.map((s) => s.op), reader.stack.calls]).toEqual([undefined, ["read"], ["Read seen"]]);
  const seen = [...reader.stack.resources.values()][0];
  expect([seen.external, seen.outputs.size]).toEqual([true, 3]);
  const gone = await reader.stack.destroy();
  expect([gone.error, gone.steps.map((s) => s.op), reader.stack.calls.at(-1)]).toEqual([undefined, ["discard"], "Discard seen"]);
  expect(exists(id)).toBe(true);
  const missing = await newStack().stack.up(await captureProgram(() => void Counter.get("ghost", "c-none"), { project: PROJECT, stack: "ghost", config: CONFIG }));
  expect(missing.error?.message).toBe("resource 'c-none' does not exist");
  await stack.destroy();
});

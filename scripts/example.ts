/**
 * `npm run example -- <name> [stack]`: one example's life against an embedded emulator, driven
 * by the engine harness (tools/engine) as `npm run demo` drives the quickstart's: preview and up
 * of a new stack with the example's stack config (`examples/<name>/Pulumi.<stack>.yaml`, when
 * there is one), the stack's outputs as `pulumi up` prints them, the same program again
 * (nothing to do), refresh and destroy. `promotion` without a stack runs dev, then prod, then
 * promotes dev's image tag to prod: prod's preview (an update in place, the cost line) and up. The harness plays
 * the Pulumi engine's side around Pulumi's own dynamic-provider plugin; it is a test tool and not
 * a substitute for `pulumi up`. Exits non-zero unless every phase succeeded, the second up
 * changed nothing, and the emulator is left with nothing the stack made.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator } from "../src/emulator";
import { EXAMPLES_DIR, type ExampleName, stackConfig } from "../tools/engine/examples";
import { describe, type ExampleSession, openExample } from "../tools/engine/example-session";
import { formatOutputs, type StackOutputs } from "../tools/engine/stack-outputs";
import { settleTranscript } from "./transcripts";

/** Secret stack values an example's README has the user set (`pulumi config set --secret`); here a stand-in. */
const SECRETS: Record<string, Record<string, string>> = {
  "private-image": { "private-image:registryPassword": "example-registry-token" },
};

/** The examples: each folder of examples/ with an index.ts. */
export function exampleNames(): string[] {
  return fs
    .readdirSync(EXAMPLES_DIR)
    .filter((d) => fs.existsSync(path.join(EXAMPLES_DIR, d, "index.ts")))
    .sort();
}

type Print = (line: string) => void;

/** Preview and up of a new stack, its outputs as `pulumi up` prints them, then the same program again (nothing to do). */
async function firstUp(session: ExampleSession, config: Record<string, string>, print: Print): Promise<boolean> {
  for (const [title, mode] of [["preview (new stack)", "preview"], ["up (new stack)", "up"], ["up again (nothing to do)", "up"]] as const) {
    const p = await session.programPhase(`${title}, stack ${session.stack.stack}`, mode, config);
    print(describe(p));
    if (p.error || (title.startsWith("up again") && p.steps.some((s) => s.op !== "same"))) return false;
    if (title === "up (new stack)") printOutputs(p.outputs, print);
  }
  return true;
}

/** The stack's outputs after an up: the program's exports from its run against the state (the phase's). */
function printOutputs(outputs: StackOutputs | undefined, print: Print): void {
  print(formatOutputs(outputs ?? {}).replace(/^/gm, "  "));
}

/** What the promotion's pull request changes in Pulumi.prod.yaml besides the tag: room for the launch's load. */
export const PROMOTED_WORKERS_MAX = "10";

/**
 * The promotion example's point: dev runs the release candidate; prod runs the last release;
 * then a pull request promotes the candidate's tag to prod's stack config (and raises prod's
 * workersMax for the launch), and prod's preview shows what its reviewer reads: the pod and the
 * template updated in place, the endpoint updated in place, and the cost line; prod's up applies it.
 */
async function promote(session: ExampleSession, prod: Record<string, string>, dev: Record<string, string>, print: Print): Promise<boolean> {
  const [tag, max] = ["promotion:imageTag", "promotion:workersMax"];
  const promoted = { ...prod, [tag]: dev[tag]!, [max]: PROMOTED_WORKERS_MAX };
  const change = `${tag} ${prod[tag]} -> ${dev[tag]}, ${max} ${prod[max]} -> ${PROMOTED_WORKERS_MAX}`;
  print("");
  print(`Promote, in Pulumi.prod.yaml (the pull request's change): ${change}`);
  const preview = await session.programPhase(`preview, stack prod: ${change}`, "preview", promoted);
  print(describe(preview));
  if (preview.error) return false;
  const up = await session.programPhase(`up, stack prod: ${change}`, "up", promoted);
  print(describe(up));
  if (up.error) return false;
  printOutputs(up.outputs, print);
  return protectedVolume(session, promoted, print);
}

/** Where a change moves prod's volume: a new data center is a new, empty volume. */
export const MOVED_DATA_CENTER = "EU-RO-1";

/**
 * What a protected resource's replacement looks like: a change that would move prod's volume to
 * another data center previews with the volume's line (replaced, [DESTROYS DATA]) and the
 * engine's refusal, and nothing is sent. Then the protection is lifted as a reviewer would on
 * purpose (`promotion:protectData` false: the engine records it, the platform sees nothing), so
 * the run's destroy can delete the volume.
 */
async function protectedVolume(session: ExampleSession, prod: Record<string, string>, print: Print): Promise<boolean> {
  const dc = "promotion:dataCenter";
  const moved = `${dc} ${prod[dc]} -> ${MOVED_DATA_CENTER}`;
  print("");
  print(`A change that would replace prod's protected volume: ${moved}`);
  const refused = await session.programPhase(`preview, stack prod: ${moved}`, "preview", { ...prod, [dc]: MOVED_DATA_CENTER });
  print(describe(refused));
  if (!refused.error?.includes("currently marked for protection")) return false;
  return liftProtection(session, prod, print);
}

/** The config key that protects the promotion's data (prod sets it). */
const PROTECT_DATA = "promotion:protectData";

/**
 * Before the run's destroy, the protection its config set is lifted on purpose (the engine
 * records it, the platform sees nothing), as a reviewer would: a protected volume cannot be
 * deleted, and a run leaves nothing behind.
 */
async function liftProtection(session: ExampleSession, config: Record<string, string>, print: Print): Promise<boolean> {
  const lifted = `${PROTECT_DATA} true -> false`;
  print("");
  print(`Before the run's destroy, the protection lifted on purpose: ${lifted}`);
  const up = await session.programPhase(`up, stack ${session.stack.stack}: ${lifted}`, "up", { ...config, [PROTECT_DATA]: "false" });
  print(describe(up));
  return !up.error;
}

/** Refresh (after a success) and destroy (always), then what is left; true when all went well. */
async function finish(session: ExampleSession, ok: boolean, print: Print): Promise<boolean> {
  if (ok) {
    const refreshed = await session.phase(`refresh, stack ${session.stack.stack}`, async () => ({ result: await session.stack.refresh() }));
    print(describe(refreshed));
    ok = !refreshed.error;
  }
  // Also after a failure: whatever the stack holds is deleted, so nothing is left behind.
  const destroyed = await session.phase(`destroy, stack ${session.stack.stack}`, async () => ({ result: await session.stack.destroy() }));
  print(describe(destroyed));
  return ok && !destroyed.error;
}

async function main(): Promise<number> {
  const write = process.argv.includes("--write");
  const [name, stackArg] = process.argv.slice(2).filter((a) => a !== "--write");
  const names = exampleNames();
  if (!name || !names.includes(name)) {
    process.stderr.write(`usage: npm run example -- <name> [stack]\n  name: one of ${names.join(", ")}\n`);
    return 2;
  }
  const example = name as ExampleName;
  // The promotion example without a stack runs its story: dev, prod, then the promotion.
  const promotion = example === "promotion" && stackArg === undefined;
  const stacks = promotion ? ["dev", "prod"] : [stackArg ?? "dev"];
  const printed: string[] = [];
  const print: Print = (line) => {
    printed.push(line);
    process.stdout.write(`${line}\n`);
  };
  const fromStack = (stack: string) => (fs.existsSync(path.join(EXAMPLES_DIR, name, `Pulumi.${stack}.yaml`)) ? stackConfig(example, stack) : {});
  const secrets = SECRETS[name] ?? {};
  print(`Engine harness run of examples/${name}, stack${stacks.length > 1 ? "s" : ""} ${stacks.join(" then ")}: NOT \`pulumi up\`.`);
  for (const stack of stacks) {
    const file = path.join(EXAMPLES_DIR, name, `Pulumi.${stack}.yaml`);
    print(`Stack ${stack} config: ${fs.existsSync(file) ? `examples/${name}/Pulumi.${stack}.yaml` : "none (the program's defaults)"}` +
      `${Object.keys(secrets).length > 0 ? `, and stand-in secrets for ${Object.keys(secrets).join(", ")}` : ""}.`);
  }
  const emu = await startEmulator({ port: 0, timings: { provisioningMs: 2000, startingMs: 3000, drainMs: 3000 }, timeScale: 20 });
  const sessions: ExampleSession[] = [];
  try {
    print(`emulator: ${emu.url}`);
    let ok = true;
    const configs: Record<string, Record<string, string>> = {};
    for (const stack of stacks) {
      const session = await openExample(example, { emulator: emu, stack, secretKeys: Object.keys(secrets), podPollMs: 50, onEvent: print });
      sessions.push(session);
      configs[stack] = { ...session.config, ...fromStack(stack), ...secrets };
      ok = await firstUp(session, configs[stack]!, print);
      if (!ok) break;
    }
    if (ok && promotion) ok = await promote(sessions[1]!, configs.prod!, configs.dev!, print);
    // One stack alone (promotion's prod): what its config protects is lifted before its destroy.
    else if (ok && configs[stacks[0]!]?.[PROTECT_DATA] === "true") ok = await liftProtection(sessions[0]!, configs[stacks[0]!]!, print);
    for (const session of sessions) ok = (await finish(session, ok, print)) && ok;
    const transcripts = sessions.map((s) => s.plugin.transcript());
    const keySeen = [...transcripts, ...sessions.map((s) => s.stack.stateText())].some((t) => t.includes(emu.apiKey));
    const secretSeen = Object.values(secrets).some((v) => transcripts.some((t) => t.includes(v)));
    const left = emu.state();
    const leftover = [
      ...left.pods.filter((p) => p.status !== "TERMINATED").map((p) => `pod ${p.id}`),
      ...left.networkVolumes.map((v) => `volume ${v.id}`),
      ...left.endpoints.map((e) => `endpoint ${(e as { id: string }).id}`),
      ...left.templates.map((t) => `template ${(t as { id: string }).id}`),
    ];
    const phases = sessions.flatMap((s) => s.phases);
    print("");
    print("== summary");
    // The engine's refusal to replace a protected volume is the promotion's point, not a failure.
    const refusedOnPurpose = phases.filter((p) => p.error?.includes("currently marked for protection")).length;
    print(`  phases: ${phases.length}, failed: ${phases.filter((p) => p.error).length - refusedOnPurpose}${refusedOnPurpose > 0 ? `, refused as the run meant: ${refusedOnPurpose}` : ""}`);
    print(`  API key in plugin output or state: ${keySeen ? "FOUND" : "no"}`);
    if (Object.keys(secrets).length > 0) print(`  secret stack values in plugin output: ${secretSeen ? "FOUND" : "no"}`);
    print(`  left in the emulator: ${leftover.length === 0 ? "nothing" : leftover.join(", ")}`);
    ok &&= !keySeen && !secretSeen && leftover.length === 0;
    // The example's README shows this command's output (OK included): written with --write, else compared.
    if (ok) {
      const command = `npm run example -- ${[name, stackArg].filter(Boolean).join(" ")}`;
      const page = settleTranscript(path.join(EXAMPLES_DIR, name, "README.md"), command, [...printed, "OK"].join("\n"), write);
      if (page.line) process.stdout.write(`${page.line}\n`);
      ok = page.ok;
    }
    print(ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } finally {
    for (const session of sessions) await session.close();
    await emu.close();
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`example failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}

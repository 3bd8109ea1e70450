/**
 * `npm run example -- <name> [stack]`: one example's life against an embedded emulator, driven
 * by the engine harness (tools/engine) as `npm run demo` drives the quickstart's: preview and up
 * of a new stack with the example's stack config (`examples/<name>/Pulumi.<stack>.yaml`, when
 * there is one), the same program again (nothing to do), refresh and destroy. The harness plays
 * the Pulumi engine's side around Pulumi's own dynamic-provider plugin; it is a test tool and not
 * a substitute for `pulumi up`. Exits non-zero unless every phase succeeded, the second up
 * changed nothing, and the emulator is left with nothing the stack made.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator } from "../src/emulator";
import { EXAMPLES_DIR, type ExampleName, stackConfig } from "../tools/engine/examples";
import { describe, openExample } from "../tools/engine/example-session";

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

async function main(): Promise<number> {
  const [name, stackName = "dev"] = process.argv.slice(2);
  const names = exampleNames();
  if (!name || !names.includes(name)) {
    process.stderr.write(`usage: npm run example -- <name> [stack]\n  name: one of ${names.join(", ")}\n`);
    return 2;
  }
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const stackFile = path.join(EXAMPLES_DIR, name, `Pulumi.${stackName}.yaml`);
  const fromStack = fs.existsSync(stackFile) ? stackConfig(name as ExampleName, stackName) : {};
  const secrets = SECRETS[name] ?? {};
  print(`Engine harness run of examples/${name}, stack ${stackName}: NOT \`pulumi up\`.`);
  print(`Stack config: ${fs.existsSync(stackFile) ? `examples/${name}/Pulumi.${stackName}.yaml` : "none (the program's defaults)"}` +
    `${Object.keys(secrets).length > 0 ? `, and stand-in secrets for ${Object.keys(secrets).join(", ")}` : ""}.`);
  const emu = await startEmulator({ port: 0, timings: { provisioningMs: 2000, startingMs: 3000, drainMs: 3000 }, timeScale: 20 });
  try {
    print(`emulator: ${emu.url}`);
    const session = await openExample(name as ExampleName, { emulator: emu, stack: stackName, secretKeys: Object.keys(secrets), podPollMs: 50, onEvent: print });
    let ok = true;
    try {
      const config = { ...session.config, ...fromStack, ...secrets };
      for (const [title, mode] of [["preview (new stack)", "preview"], ["up (new stack)", "up"], ["up again (nothing to do)", "up"]] as const) {
        const p = await session.programPhase(title, mode, config);
        print(describe(p));
        if (p.error || (title.startsWith("up again") && p.steps.some((s) => s.op !== "same"))) {
          ok = false;
          break;
        }
      }
      if (ok) {
        const refreshed = await session.phase("refresh", async () => ({ result: await session.stack.refresh() }));
        print(describe(refreshed));
        ok = !refreshed.error;
      }
      // Also after a failure: whatever the stack holds is deleted, so nothing is left behind.
      const destroyed = await session.phase("destroy", async () => ({ result: await session.stack.destroy() }));
      print(describe(destroyed));
      ok &&= !destroyed.error;
      const keySeen = [session.plugin.transcript(), session.stack.stateText()].some((t) => t.includes(emu.apiKey));
      const secretSeen = Object.values(secrets).some((v) => session.plugin.transcript().includes(v));
      const left = emu.state();
      const leftover = [
        ...left.pods.filter((p) => p.status !== "TERMINATED").map((p) => `pod ${p.id}`),
        ...left.networkVolumes.map((v) => `volume ${v.id}`),
        ...left.endpoints.map((e) => `endpoint ${(e as { id: string }).id}`),
        ...left.templates.map((t) => `template ${(t as { id: string }).id}`),
      ];
      print("");
      print("== summary");
      print(`  phases: ${session.phases.length}, failed: ${session.phases.filter((p) => p.error).length}`);
      print(`  API key in plugin output or state: ${keySeen ? "FOUND" : "no"}`);
      if (Object.keys(secrets).length > 0) print(`  secret stack values in plugin output: ${secretSeen ? "FOUND" : "no"}`);
      print(`  left in the emulator: ${leftover.length === 0 ? "nothing" : leftover.join(", ")}`);
      ok &&= !keySeen && !secretSeen && leftover.length === 0;
    } finally {
      await session.close();
    }
    print(ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } finally {
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

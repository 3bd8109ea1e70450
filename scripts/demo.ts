/**
 * `npm run demo`: the quickstart's whole life against an embedded emulator, driven by the
 * engine harness (tools/engine). The harness plays the Pulumi engine's side around
 * Pulumi's own dynamic-provider plugin; it is a test tool and not a substitute for `pulumi up`.
 * Exits non-zero unless every phase succeeded and the emulator is left with no pod, volume
 * or endpoint, or when the README's transcript of it is stale (`npm run demo -- --write`
 * rewrites it from the run).
 */
import { startEmulator } from "../src/emulator";
import * as path from "node:path";
import { runQuickstartLifecycle } from "../tools/engine/example-session";
import { settleTranscript } from "./transcripts";

/** Emulated ms; at TIME_SCALE 20 a pod spends 100 ms provisioning and 150 ms starting. */
const TIMINGS = { provisioningMs: 2000, startingMs: 3000, drainMs: 3000 };
const TIME_SCALE = 20;

async function main(): Promise<number> {
  const printed: string[] = [];
  const print = (line: string) => {
    printed.push(line);
    process.stdout.write(`${line}\n`);
  };
  print("Engine harness demo: NOT `pulumi up`.");
  print("The quickstart program (examples/quickstart) runs under Pulumi's mocks; its resources go through");
  print("Pulumi's own dynamic-provider plugin, called over gRPC in the order the Pulumi engine calls it,");
  print(`against an embedded Compute Platform emulator (time scale ${TIME_SCALE}).`);
  print("");
  const emu = await startEmulator({ port: 0, timings: TIMINGS, timeScale: TIME_SCALE });
  try {
    print(`emulator: ${emu.url}`);
    const started = Date.now();
    const result = await runQuickstartLifecycle({ emulator: emu, stack: "demo", onEvent: print, watchMs: 25 });
    const failed = result.phases.filter((p) => p.error);

    const total: Record<string, number> = {};
    for (const p of result.phases) for (const [op, n] of Object.entries(p.api)) total[op] = (total[op] ?? 0) + n;
    const left = emu.state();
    const livePods = left.pods.filter((p) => p.status !== "TERMINATED");
    const leaked = [
      livePods.length > 0 ? `${livePods.length} pod(s) not TERMINATED: ${livePods.map((p) => `${p.id} ${p.status}`).join(", ")}` : "",
      left.networkVolumes.length > 0 ? `${left.networkVolumes.length} network volume(s)` : "",
      left.endpoints.length > 0 ? `${left.endpoints.length} endpoint(s)` : "",
      left.templates.length > 0 ? `${left.templates.length} template(s)` : "",
    ].filter(Boolean);
    const keySeen = [result.transcript, result.stateText].some((text) => text.includes(emu.apiKey));

    print("");
    print("== summary");
    print(`  phases: ${result.phases.length}, failed: ${failed.length}; ${Date.now() - started} ms in all`);
    print(`  API requests by operation: ${Object.entries(total).map(([op, n]) => `${op} ${n}`).join(", ")}`);
    print(`  API requests in all: ${Object.values(total).reduce((a, b) => a + b, 0)}`);
    print(`  __provider in state: ${result.providerText.length} characters (a shim that loads pulumi-computeplatform by name)`);
    print(`  API key in plugin output or state: ${keySeen ? "FOUND" : "no"}`);
    print(`  left in the emulator: ${leaked.length === 0 ? "nothing (0 pods running, 0 volumes, 0 endpoints, 0 templates)" : leaked.join("; ")}`);
    const ok = failed.length === 0 && leaked.length === 0 && !keySeen && result.phases.at(-1)?.title === "destroy";
    // The README shows this output (OK included): written with --write, else compared with this run.
    const page = ok ? settleTranscript(path.join(__dirname, "../README.md"), "npm run demo", [...printed, "OK"].join("\n"), process.argv.includes("--write")) : undefined;
    if (page?.line) process.stdout.write(`${page.line}\n`);
    const passed = ok && page?.ok === true;
    print(passed ? "OK" : "FAILED");
    return passed ? 0 : 1;
  } finally {
    await emu.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

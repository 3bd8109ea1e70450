// The source modules of src/ and those of them with no logic of their own, shared by the
// repository tests that hold each module with logic to a test at its path (mirror.test.ts) and
// to mutation testing (mutation-coverage.test.ts).
import * as fs from "node:fs";
import * as path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");

/** Modules with no logic of their own, and why. */
export const NO_LOGIC: Record<string, string> = {
  "account/kinds": "a list of the kinds the account tool knows: data only",
  "client/schemas/jobs": "zod declarations of the wire objects, no function or refinement of its own",
  "client/schemas/registries": "zod declarations of the wire objects, no function or refinement of its own",
  "client/schemas/templates": "zod declarations of the wire objects, no function or refinement of its own",
  "emulator/console/source": "types of what the console reads only",
  "emulator/core/http/types": "types of the HTTP layer only",
  "emulator/network-volumes/routes": "wiring: crudRoutes (core/http/crud, tested at its path) over the store, with the group's path and operation ids",
  "emulator/pods/types": "types of the pod records only",
  "emulator/registries/routes": "wiring: crudRoutes (core/http/crud, tested at its path) over the store, with the group's path and operation ids (no update op: the PATCH 405 is in registries/store.test.ts)",
  "emulator/templates/routes": "wiring: crudRoutes (core/http/crud, tested at its path) over the store, with the group's path and operation ids",
  "index": "the package entry: re-exports the kinds, the client and the look-ups",
  "internal": "the named internal entry of bench/ and tools/: re-exports only",
  "resources/inputs/endpoint-defaults": "a table of the platform's defaults for an endpoint: data only",
  "resources/pod/outputs": "types of the outputs only",
  "resources/serverless-endpoint/outputs": "types of the outputs only",
  "resources/stack-cost/index": "re-exports the StackCost resource and its provider",
};

/** Every module under src/ (or under `dir`), as its path below src/ without `.ts`, sorted. */
export function sourceModules(dir = "src"): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceModules(rel));
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) out.push(rel.slice("src/".length, -".ts".length));
  }
  return out.sort();
}

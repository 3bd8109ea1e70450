// test/ is laid out as src/ is (docs/design.md, "Tests"): a source module with logic has a test at
// its own path, test/unit/<module>.test.ts, or test/integration/<module>.test.ts when it needs a
// server, so whoever changes src/x/y.ts finds what guards it at test/*/x/y.test.ts.
// A module without one is listed with the reason: it has no logic of its own (types, re-exports,
// wiring), or its rules are tested today by a suite at another path, named, from which a test at
// its own path is still to be split. Both lists only shrink: an entry whose module gained a test
// at its path, or was removed, fails here until the entry goes too.
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");

/** Modules with no logic of their own, and why. */
const NO_LOGIC: Record<string, string> = {
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

/** Modules whose rules a suite at another path tests today (a file, or the folder of suites that reach it). */
const TESTED_ELSEWHERE: Record<string, string> = {
  "emulator/serverless/jobs/queue": "test/integration/emulator/serverless/jobs/",
};

function modules(dir = "src"): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...modules(rel));
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) out.push(rel.slice("src/".length, -".ts".length));
  }
  return out.sort();
}

const testAt = (m: string) => ["unit", "integration"].some((tree) => fs.existsSync(path.join(ROOT, "test", tree, `${m}.test.ts`)));

describe("the test tree mirrors src/", () => {
  const all = modules();

  test("every module has a test at its path, or is listed with its reason", () => {
    const unlisted = all.filter((m) => !testAt(m) && !(m in NO_LOGIC) && !(m in TESTED_ELSEWHERE));
    expect(unlisted).toEqual([]);
  });

  test("the lists only shrink: each names a module that exists and still has no test at its path", () => {
    const stale = [...Object.keys(NO_LOGIC), ...Object.keys(TESTED_ELSEWHERE)].filter((m) => !all.includes(m) || testAt(m));
    expect(stale).toEqual([]);
  });

  test("each suite named for a module exists", () => {
    const gone = Object.entries(TESTED_ELSEWHERE).filter(([, suite]) => !fs.existsSync(path.join(ROOT, suite)));
    expect(gone).toEqual([]);
  });

  test("a test at a module's path is named for a module: no test file in the unit or integration tree stands beside no source", () => {
    // Suites that test what no single module holds keep their own names in their area's folder.
    const shared = /^test\/(unit|integration)\/(repository|docs|scripts|helpers|account|examples)\/|^test\/integration\/emulator\/real-clients\//;
    const orphans: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const rel = path.posix.join(dir, e.name);
        if (e.isDirectory()) walk(rel);
        else if (e.name.endsWith(".test.ts") && !shared.test(rel)) {
          const folder = path.posix.dirname(rel).replace(/^test\/(unit|integration)\/?/, "");
          if (!fs.existsSync(path.join(ROOT, "src", folder))) orphans.push(rel);
        }
      }
    };
    walk("test/unit");
    walk("test/integration");
    expect(orphans).toEqual([]);
  });
});

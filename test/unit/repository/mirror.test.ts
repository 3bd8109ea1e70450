// test/ is laid out as src/ is (docs/design.md, "Tests"): a source module with logic has a test at
// its own path, test/unit/<module>.test.ts, or test/integration/<module>.test.ts when it needs a
// server, so whoever changes src/x/y.ts finds what guards it at test/*/x/y.test.ts.
// A module without one is listed with the reason: it has no logic of its own (types, re-exports,
// wiring). The list only shrinks: an entry whose module gained a test at its path, or was
// removed, fails here until the entry goes too. (The last module whose rules a suite at another
// path tested, the emulator's job queue, has its test at its path since issue 52.)
import * as fs from "node:fs";
import * as path from "node:path";
import { NO_LOGIC, ROOT, sourceModules } from "../../helpers/source-modules";

const testAt = (m: string) => ["unit", "integration"].some((tree) => fs.existsSync(path.join(ROOT, "test", tree, `${m}.test.ts`)));

describe("the test tree mirrors src/", () => {
  const all = sourceModules();

  test("every module has a test at its path, or is listed with its reason", () => {
    const unlisted = all.filter((m) => !testAt(m) && !(m in NO_LOGIC));
    expect(unlisted).toEqual([]);
  });

  test("the list only shrinks: each entry names a module that exists and still has no test at its path", () => {
    const stale = Object.keys(NO_LOGIC).filter((m) => !all.includes(m) || testAt(m));
    expect(stale).toEqual([]);
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

// The set-up of `npm run test:mutation` (tools/mutation/): the module list follows the source
// tree, and the score is Stryker's.
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");
const { MODULES, testsOf, integrationTestOf, unitTestOf } = require("../../tools/mutation/modules.js");
const { score } = require("../../tools/mutation/run.js");

test("every module mutation testing covers exists, with unit tests in the folder that mirrors it, and its integration test where listed", () => {
  expect(MODULES.length).toBeGreaterThan(0);
  for (const module of MODULES as string[]) {
    expect({ module, exists: fs.existsSync(path.join(ROOT, module)) }).toEqual({ module, exists: true });
    const [unit, ...integration] = testsOf(module) as string[];
    // An `own` entry's unit tests are the file at its path; the others', the folder that mirrors its own.
    const own = unit.endsWith(".test.ts");
    const tests = own ? (unit === unitTestOf(module) && fs.existsSync(path.join(ROOT, unit)) ? [unit] : []) : fs.readdirSync(path.join(ROOT, unit));
    expect({ module, tests: tests.some((f) => f.endsWith(".test.ts")) }).toEqual({ module, tests: true });
    for (const file of integration) {
      expect({ module, file, exists: fs.existsSync(path.join(ROOT, file)) }).toEqual({ module, file: integrationTestOf(module), exists: true });
    }
  }
});

test("a module's integration test is the one at its path, and so is its own unit test", () => {
  expect(integrationTestOf("src/client/core/transport.ts")).toBe("test/integration/client/core/transport.test.ts");
  expect(unitTestOf("src/resources/serverless-endpoint/schema.ts")).toBe("test/unit/resources/serverless-endpoint/schema.test.ts");
});

test("the score is Stryker's: a timeout is caught, an uncovered mutant is not, an ignored one does not count", () => {
  const m = (status: string) => ({ status });
  expect(score([m("Killed"), m("Timeout"), m("Survived"), m("NoCoverage"), m("Ignored")])).toEqual({
    mutants: 5,
    detected: 2,
    undetected: 2,
    percent: 50,
  });
  expect(score([]).percent).toBe(100);
});

test("recorded results are current only while the module's source and tests are the ones recorded", () => {
  const { staleness } = require("../../tools/mutation/run.js");
  const module = "src/client/core/retry.ts";
  const test_ = "test/unit/client/core/retry.test.ts";
  const read = (f: string) => fs.readFileSync(path.join(ROOT, f), "utf8");
  const report = { files: { [module]: { source: read(module) } }, testFiles: { [test_]: { source: read(test_) } } };
  expect(staleness(module, report)).toBeUndefined();
  expect(staleness(module, { ...report, files: { [module]: { source: "changed" } } })).toBe(`${module} changed`);
  expect(staleness(module, { ...report, testFiles: { [test_]: { source: "changed" } } })).toBe(`${test_} changed`);
  expect(staleness(module, { ...report, testFiles: {} })).toBe(`${test_} is new`);
  expect(staleness(module, undefined)).toBe("no recorded results");
});

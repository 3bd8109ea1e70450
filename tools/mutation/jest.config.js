// The jest set-up Stryker runs the unit tests with (tools/mutation/stryker.config.js). It is the
// project's own (jest.config.js: the same Babel transform and test environment), less three
// things. `workerIdleMemoryLimit` makes jest run even a single worker as a child process, where
// Stryker's jest runner cannot see which test reached which mutant: per-test coverage comes back
// empty and every mutant would run every test. The tests are those of the module being mutated
// (MUTATION_TESTS: its unit tests' folder, and its integration test where modules.js says so),
// never the repository's own tests (they read git and the working tree, which Stryker's sandbox
// copy does not have). And the contract hook goes: it checks the exchanges of the emulators a
// suite starts against the REST contract, which says nothing of the client's code being mutated,
// and it would load the whole emulator again for every test file of every mutant.
"use strict";
const path = require("node:path");
const { workerIdleMemoryLimit: _child, maxWorkers: _workers, setupFilesAfterEnv: _hook, ...project } = require("../../jest.config.js");

/** @type {import('jest').Config} */
/** A folder of tests, or one test file (it ends in .test.ts). */
const tests = JSON.parse(process.env.MUTATION_TESTS ?? '["test/unit"]');
const isFile = (t) => t.endsWith(".test.ts");

module.exports = {
  ...project,
  rootDir: path.join(__dirname, "..", ".."),
  // src/ is a root for jest to see what each source module imports: the tests related to the
  // mutated module (Stryker's enableFindRelatedTests) are then those that reach it through other
  // modules too, as an integration test does through the client's entry, not only those that
  // import it by name. A test file's folder is a root, so only that file of it is matched.
  roots: ["<rootDir>/src", ...new Set(tests.map((t) => `<rootDir>/${isFile(t) ? path.posix.dirname(t) : t}`))],
  testMatch: tests.map((t) => `<rootDir>/${isFile(t) ? t : `${t}/**/*.test.ts`}`),
};

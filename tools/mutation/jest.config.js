// The jest set-up Stryker runs the unit tests with (tools/mutation/stryker.config.js). It is the
// project's own (jest.config.js: the same Babel transform and test environment), less three
// things. `workerIdleMemoryLimit` makes jest run even a single worker as a child process, where
// Stryker's jest runner cannot see which test reached which mutant: per-test coverage comes back
// empty and every mutant would run every test. The roots are the unit tests of the module being
// mutated (MUTATION_TESTS, its folder's; tools/mutation/modules.js), never the repository's own
// tests (they read git and the working tree, which Stryker's sandbox copy does not have). And
// the contract hook goes: it checks the exchanges of the emulators a suite starts, these suites
// start none, and it would load the whole emulator again for every test file of every mutant.
"use strict";
const path = require("node:path");
const { workerIdleMemoryLimit: _child, maxWorkers: _workers, setupFilesAfterEnv: _hook, ...project } = require("../../jest.config.js");

/** @type {import('jest').Config} */
module.exports = {
  ...project,
  rootDir: path.join(__dirname, "..", ".."),
  roots: [`<rootDir>/${process.env.MUTATION_TESTS ?? "test/unit"}`],
};

// StrykerJS for one module at a time (tools/mutation/run.js sets MUTATION_MODULE and runs it
// once per module of tools/mutation/modules.js): the module is mutated, the unit tests of its
// folder (and its integration test, or only its own test, where modules.js says so) are run against each mutant,
// results are kept per module.
"use strict";
const { incrementalFileOf, reportOf, testsOf, THRESHOLDS } = require("./modules");

const module_ = process.env.MUTATION_MODULE;
if (!module_) throw new Error("run mutation testing with `npm run test:mutation` (tools/mutation/run.js sets MUTATION_MODULE)");
process.env.MUTATION_TESTS = JSON.stringify(testsOf(module_));

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
module.exports = {
  mutate: [module_],
  testRunner: "jest",
  // enableFindRelatedTests: of the folder's tests, only those that load the module run.
  jest: { configFile: "tools/mutation/jest.config.js", enableFindRelatedTests: true },
  coverageAnalysis: "perTest",
  // Babel strips the types; a type checker of mutants would need TypeScript's JS API, which
  // TypeScript 7 (the project's compiler) does not have.
  checkers: [],
  incremental: true,
  incrementalFile: incrementalFileOf(module_),
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: reportOf(module_, "html") },
  jsonReporter: { fileName: reportOf(module_, "json") },
  clearTextReporter: { reportTests: false, reportMutants: true, reportScoreTable: true },
  thresholds: THRESHOLDS,
  // Two cores shared with the rest of the machine: one test process.
  concurrency: 1,
  // Generous: a mutant counted as a timeout counts as caught, so a slow machine must not make one.
  timeoutMS: 15000,
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  // The sandbox needs the sources, the tests and the configs they read, not the build or the rest.
  ignorePatterns: ["dist", "docs/api", "reports", "examples", "bench", "coverage", ".emulator-state*"],
};

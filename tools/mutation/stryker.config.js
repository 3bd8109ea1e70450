// Mutation testing of the core's pure modules against their unit tests (`npm run test:mutation`,
// run by tools/mutation/run.js, which holds every module to the break threshold on its own).
// The list below is the one place that names the modules: when a module moves, it moves here.
"use strict";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
module.exports = {
  mutate: [
    // retry timing and rate-limit pacing
    "src/client/core/retry.ts",
    "src/client/core/pacing.ts",
    // the lifecycle's applied state, owner tokens and create recovery
    "src/resources/lifecycle/applied.ts",
    "src/resources/lifecycle/owner.ts",
  ],
  testRunner: "jest",
  jest: { configFile: "tools/mutation/jest.config.js", enableFindRelatedTests: true },
  coverageAnalysis: "perTest",
  // Our Babel transform strips types; TypeScript checking of mutants would need the tsc JS API,
  // which TypeScript 7 does not have.
  checkers: [],
  incremental: true,
  incrementalFile: "tools/mutation/incremental.json",
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  // run.js checks each module against the break threshold; Stryker's own check is of the whole.
  thresholds: { high: 90, low: 85, break: 85 },
  // Two cores shared with the rest of the machine; one test process keeps the run predictable.
  concurrency: 1,
  timeoutMS: 10000,
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  // The sandbox needs the sources, the tests and the configs they read, not the build or the rest.
  ignorePatterns: ["dist", "docs/api", "reports", "examples", "bench", "coverage", ".emulator-state*"],
};

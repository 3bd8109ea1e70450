// Babel strips types only (scripts/babel-ts.js); `npm run typecheck` (TypeScript 7, native)
// is the type check.
// Every child node a suite starts (the plugin of each engine command, each program run under
// mocks) loads Pulumi's SDK and this package from scratch: with Node's compile cache on disk
// they share the compiled code instead of compiling it again, child by child (engine/pod.test.ts:
// 25.7 s of CPU without, 18.6 s with, its plugin 2.8 -> 1.9 s). A cache the user set is kept.
process.env.NODE_COMPILE_CACHE ??= require("node:path").join(__dirname, "node_modules", ".cache", "node-compile-cache");
// Every node a run starts (workers, plugins, programs) allocates a great deal of short-lived
// memory (each suite loads Pulumi's SDK again); a young generation of 64 MB instead of 16 lets
// far fewer objects be copied out of it (npm test: 249 s without, 232 s with, CPU 421 s -> 399 s).
if (!/--max-semi-space-size/.test(process.env.NODE_OPTIONS ?? "")) {
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, "--max-semi-space-size=64"].filter(Boolean).join(" ");
}

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  // The examples' own suites (test/examples/: each example program type-checked, run under mocks
  // and through Pulumi's plugin) are `npm run test:examples` (jest.examples.config.js), which CI
  // runs beside `npm test`, as it runs each example by its README's command: they spawn a
  // TypeScript program and a plugin per phase, and took a seventh of npm test's time.
  // The fault suites and the generated property checks (test/faults/, test/property/) are
  // `npm run test:faults` (jest.faults.config.js), which CI runs beside `npm test`: with the
  // tests of issue 52 npm test had grown to 351 s on a quiet machine, and they were 150 s of
  // its workers' time.
  // The load suites (test/load/: stacks paced at the platform's quota, through the plugin) went
  // there too when npm test reached 321 s for 3,638 tests: they wait on the quota's windows; then
  // the accounts of 460 endpoints (test/load/large-account.test.ts) and the found-again scenarios
  // of every kind but the pod (test/faults/found-again-kinds.test.ts), at 277-329 s for 3,880.
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/examples/", "<rootDir>/test/faults/", "<rootDir>/test/load/", "<rootDir>/test/property/"],
  // Every emulator a suite starts has its answers checked against the public REST contract.
  setupFilesAfterEnv: ["<rootDir>/test/helpers/contract-hook.ts", "<rootDir>/test/helpers/inspector-sessions.ts"],
  transform: {
    "^.+\\.(t|j)sx?$": ["babel-jest", require("./scripts/babel-ts.js")],
  },
  // Jest's default on a 2-core machine is one worker. Most engine suites wait on their plugin
  // and program processes, which run on the cores beside the workers, and some wait on a scaled
  // clock (the quota's windows), so one worker more than the cores keeps both busy (npm test on a
  // 2-core machine: 232 s with two workers, 192 s and 223 s in two runs with three, 215 s with four).
  maxWorkers: 3,
  // A bound for a hung test, not a speed target (speed is measured in bench/): the engine tests
  // type-check and run programs in child processes, 17-20 s alone and past 30 s on a loaded
  // 2-core machine, where a 30 s bound failed sound tests.
  testTimeout: 90000,
  // A worker that has grown past this after a suite is replaced before the next one: the engine
  // and property suites load Pulumi's SDK and plugins again and again, and a long-lived worker
  // grew to over 6 GB, which on a shared 24 GB machine pushed every process into reclaim.
  workerIdleMemoryLimit: "1536MB",
};

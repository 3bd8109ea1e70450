// `npm run test:mutation`: StrykerJS over the rule modules (tools/mutation/modules.js), each
// against the unit tests of its folder (and its integration test where listed, or its own unit
// test alone where listed), each held to the
// break threshold on its own (Stryker's own threshold is of a whole run, where a strong module
// would hide a weak one).
//
//   npm run test:mutation                        incremental: only mutants of changed code or tests run
//   npm run test:mutation -- --full              every mutant again (the results are rewritten)
//   npm run test:mutation -- <module>...         only these modules (paths as in modules.js)
//
// One limit of Stryker's incremental mode: a surviving static mutant (one the module runs as it
// loads, such as a constant table's entry) covers no test, so it is reused as surviving even when
// a new test would kill it. After adding tests for such a constant, run the module once with
// --full (the pod's plan with its new tests: 94.4% incrementally, 100% in full).
//
// Incremental mode reads and rewrites each module's results, tools/mutation/incremental/*.json,
// which are committed: CI starts from them and pays only for what changed since. A module
// whose recorded source and tests are the ones in the work tree, with no new test file that
// imports it, is the case where Stryker itself would reuse every result; its recorded results
// are read as they are and Stryker is not started for it (its first, full run of the module's
// tests costs tens of seconds on a busy machine).
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { MODULES, incrementalFileOf, reportOf, testsOf } = require("./modules");

const root = path.join(__dirname, "..", "..");
const BREAK = 85;

/** Stryker's mutation score: detected over detected plus undetected (ignored mutants left out). */
function score(mutants) {
  let detected = 0;
  let undetected = 0;
  for (const m of mutants) {
    if (m.status === "Killed" || m.status === "Timeout") detected++;
    else if (m.status === "Survived" || m.status === "NoCoverage") undetected++;
  }
  const valid = detected + undetected;
  return { mutants: mutants.length, detected, undetected, percent: valid === 0 ? 100 : (100 * detected) / valid };
}

const text = (rel) => {
  try {
    return fs.readFileSync(path.join(root, rel), "utf8");
  } catch {
    return undefined;
  }
};

/** The test files of a folder, or the one test file named (when it exists). */
function testFilesIn(dir) {
  if (dir.endsWith(".test.ts")) return fs.existsSync(path.join(root, dir)) ? [dir] : [];
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(path.join(root, d), { withFileTypes: true })) {
      const rel = path.posix.join(d, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith(".test.ts")) out.push(rel);
    }
  };
  walk(dir);
  return out;
}

/** Why a module's recorded results are not current, or undefined when Stryker would reuse them all. */
function staleness(module, report) {
  if (!report) return "no recorded results";
  if (report.files[module]?.source !== text(module)) return `${module} changed`;
  const tests = report.testFiles ?? {};
  for (const [file, recorded] of Object.entries(tests)) if (recorded.source !== text(file)) return `${file} changed`;
  // Stryker records the test files that load the module; one not recorded that imports it by
  // name is new. (A new file that loads it only through another module is not seen here; it
  // could only catch more mutants, and its first change to a recorded file or test runs Stryker.)
  // A type-only import loads nothing (Babel drops it), so it does not make a file new.
  // The integration test at a module's path is named for it, and loads it however it does.
  const name = module.replace(/^src\//, "").replace(/\.ts$/, "");
  for (const file of testsOf(module).flatMap(testFilesIn)) {
    const named = file.startsWith("test/integration/") || text(file).replace(/^\s*import\s+type\s[^;]*;/gm, "").includes(`${name}"`);
    if (!(file in tests) && named) return `${file} is new`;
  }
  return undefined;
}

const readJson = (rel) => (fs.existsSync(path.join(root, rel)) ? JSON.parse(fs.readFileSync(path.join(root, rel), "utf8")) : undefined);

/**
 * The recorded results are committed, so the machine's paths in Stryker's failure texts (the
 * checkout and its sandbox folder) are made relative to the repository.
 */
function relativePaths(rel) {
  const file = path.join(root, rel);
  if (!fs.existsSync(file)) return;
  const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const text = fs.readFileSync(file, "utf8").replace(new RegExp(`${escaped}/(?:\\.stryker-tmp/sandbox-[A-Za-z0-9]+/)?`, "g"), "");
  // A worktree whose node_modules is a link to another checkout's names that checkout in stack traces.
  const modules = path.join(root, "node_modules");
  const linked = fs.existsSync(modules) ? path.dirname(fs.realpathSync(modules)) : root;
  fs.writeFileSync(file, text.replaceAll(`${linked}/`, "").replaceAll(root, "."));
}

function stryker(module, full) {
  const bin = path.join(root, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js");
  const run = spawnSync(process.execPath, [bin, "run", path.join(__dirname, "stryker.config.js"), ...(full ? ["--force"] : [])], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, MUTATION_MODULE: module },
  });
  return run.status ?? 1;
}

function main(argv) {
  const started = Date.now();
  const full = argv.includes("--full");
  const asked = argv.filter((a) => a !== "--full");
  const unknown = asked.filter((m) => !MODULES.includes(m));
  if (unknown.length > 0) {
    console.error(`not a mutated module: ${unknown.join(", ")} (tools/mutation/modules.js lists them)`);
    return 1;
  }
  const rows = [];
  let failed = false;
  for (const module of asked.length > 0 ? asked : MODULES) {
    const t0 = Date.now();
    const recorded = readJson(incrementalFileOf(module));
    const why = full ? "--full" : staleness(module, recorded);
    let report = recorded;
    if (why !== undefined) {
      console.log(`\n${module}: mutation testing (${why})`);
      fs.rmSync(path.join(root, reportOf(module, "json")), { force: true });
      if (stryker(module, full) !== 0) failed = true;
      relativePaths(incrementalFileOf(module));
      report = readJson(reportOf(module, "json"));
    }
    const s = score(report?.files[module]?.mutants ?? []);
    rows.push({ module, ...s, ran: why !== undefined, recorded: report !== undefined, seconds: (Date.now() - t0) / 1000 });
  }
  const width = Math.max(...rows.map((r) => r.module.length));
  console.log(`\n${"module".padEnd(width)}  mutants  caught  survived   score  run`);
  for (const r of rows) {
    const figure = r.recorded ? `${r.percent.toFixed(1)}%` : "none";
    const how = r.ran ? `Stryker, ${r.seconds.toFixed(0)} s` : "recorded results current";
    console.log(`${r.module.padEnd(width)}  ${String(r.mutants).padStart(7)}  ${String(r.detected).padStart(6)}  ${String(r.undetected).padStart(8)}  ${figure.padStart(6)}  ${how}`);
    if (!r.recorded || r.percent < BREAK) {
      console.error(`${r.module}: ${figure}, under the break threshold of ${BREAK}%`);
      failed = true;
    }
  }
  console.log(`mutation testing: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return failed ? 1 : 0;
}

module.exports = { score, staleness };

if (require.main === module) process.exitCode = main(process.argv.slice(2));

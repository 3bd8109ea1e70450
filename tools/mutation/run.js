// `npm run test:mutation`: StrykerJS over the core's pure modules (tools/mutation/stryker.config.js)
// against their unit tests, then every module held to the break threshold on its own (Stryker's
// own threshold is of the whole run, where a strong module hides a weak one).
//
//   npm run test:mutation                          incremental: only mutants of changed code or tests run
//   npm run test:mutation -- --full                every mutant again (the incremental file is rewritten)
//   npm run test:mutation -- --mutate <file>       one module (the others keep their recorded results)
//   npm run test:mutation -- --check               no Stryker: the committed results, if still current
//
// Incremental mode reads and rewrites tools/mutation/incremental.json, which is committed: CI
// starts from it and pays only for what changed since. When the recorded sources of every
// module and of every test that ran are the ones in the work tree and no new unit test file has
// appeared, Stryker itself would reuse every result; then the recorded results are read as they
// are and Stryker is not started (its first, full run of the related tests costs a minute or more
// on a busy machine). `--check` does only that and fails when the record is not current.
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.join(__dirname, "..", "..");
const configFile = path.join(__dirname, "stryker.config.js");
const config = require(configFile);
const BREAK = config.thresholds.break;

/** Mutants that count: Stryker's mutation score is detected over detected plus undetected. */
const DETECTED = new Set(["Killed", "Timeout"]);
const UNDETECTED = new Set(["Survived", "NoCoverage"]);

function score(mutants) {
  let detected = 0;
  let undetected = 0;
  for (const m of mutants) {
    if (DETECTED.has(m.status)) detected++;
    else if (UNDETECTED.has(m.status)) undetected++;
  }
  const valid = detected + undetected;
  return { mutants: mutants.length, detected, undetected, percent: valid === 0 ? 100 : (100 * detected) / valid };
}

const read = (file) => JSON.parse(fs.readFileSync(file, "utf8"));
const text = (rel) => {
  try {
    return fs.readFileSync(path.join(root, rel), "utf8");
  } catch {
    return undefined;
  }
};

/** Every unit test file under the mutation run's jest roots, relative to the repository. */
function unitTestFiles() {
  const jest = require(path.join(root, config.jest.configFile));
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith(".test.ts")) out.push(path.relative(root, full).split(path.sep).join("/"));
    }
  };
  for (const r of jest.roots) walk(r.replace("<rootDir>", jest.rootDir));
  return out;
}

/**
 * Why the committed results are not current (undefined when they are): a module or a test
 * whose source differs from the one recorded, a module not recorded, a new unit test file.
 */
function staleness(report) {
  for (const file of config.mutate) {
    const recorded = report.files[file];
    if (!recorded) return `${file} has no recorded result`;
    if (recorded.source !== text(file)) return `${file} changed`;
  }
  for (const file of Object.keys(report.files)) if (!config.mutate.includes(file)) return `${file} is no longer mutated`;
  const tests = report.testFiles ?? {};
  for (const [file, recorded] of Object.entries(tests)) if (recorded.source !== text(file)) return `${file} changed`;
  for (const file of unitTestFiles()) if (!(file in tests)) return `${file} is new`;
  return undefined;
}

function table(report) {
  const rows = config.mutate.map((file) => ({ file, ...score(report.files[file]?.mutants ?? []), recorded: file in report.files }));
  const width = Math.max(...rows.map((r) => r.file.length));
  console.log(`${"module".padEnd(width)}  mutants  killed  survived  score`);
  for (const r of rows) {
    const figure = r.recorded ? `${r.percent.toFixed(1)}%` : "no result";
    console.log(`${r.file.padEnd(width)}  ${String(r.mutants).padStart(7)}  ${String(r.detected).padStart(6)}  ${String(r.undetected).padStart(8)}  ${figure.padStart(6)}`);
  }
  const low = rows.filter((r) => !r.recorded || r.percent < BREAK);
  for (const r of low) console.error(`${r.file}: ${r.recorded ? `${r.percent.toFixed(1)}%` : "no result"}, under the break threshold of ${BREAK}%`);
  return low.length === 0;
}

function main(argv) {
  const started = Date.now();
  const full = argv.includes("--full");
  const checkOnly = argv.includes("--check");
  const passThrough = argv.filter((a) => a !== "--full" && a !== "--check");
  const incremental = path.join(root, config.incrementalFile);
  const narrowed = passThrough.length > 0;
  if (!full && !narrowed && fs.existsSync(incremental)) {
    const report = read(incremental);
    const why = staleness(report);
    if (why === undefined) {
      console.log(`mutation results are current (${config.incrementalFile}): no module or test changed since they were recorded`);
      const ok = table(report);
      console.log(`mutation testing: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return ok ? 0 : 1;
    }
    console.log(`mutation results to bring up to date: ${why}`);
  }
  if (checkOnly) return 1;
  const report = path.join(root, config.jsonReporter.fileName);
  fs.rmSync(report, { force: true });
  const stryker = path.join(root, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js");
  const run = spawnSync(process.execPath, [stryker, "run", configFile, ...(full ? ["--force"] : []), ...passThrough], {
    cwd: root,
    stdio: "inherit",
  });
  if (!fs.existsSync(report)) {
    console.error("Stryker wrote no report");
    return run.status || 1;
  }
  const ok = table(read(report));
  console.log(`mutation testing: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return ok && run.status === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));

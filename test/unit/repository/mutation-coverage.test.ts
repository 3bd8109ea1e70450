// Mutation testing reaches every rule (docs/design.md, "Tests"): each module of src/resources/ and
// src/client/core/ with logic, and the emulator's rule modules that every other test trusts as the
// platform's stand-in, is in tools/mutation/modules.js, and its committed results hold it at the
// break threshold with at most one mutant in twenty disabled, each with its reason. The modules not
// measured yet are listed; the list only shrinks.
import * as fs from "node:fs";
import * as path from "node:path";
import { NO_LOGIC, ROOT, sourceModules } from "../../helpers/source-modules";

const { MODULES, THRESHOLDS, incrementalFileOf } = require(path.join(ROOT, "tools/mutation/modules.js")) as {
  MODULES: string[];
  THRESHOLDS: { break: number };
  incrementalFileOf: (module: string) => string;
};

/** The emulator's rules: pods, serverless scaling and jobs, releases, rate limits, faults. */
const EMULATOR_RULES = [
  "src/emulator/core/faults.ts",
  "src/emulator/core/rate-limit.ts",
  "src/emulator/pods/rules.ts",
  "src/emulator/pods/store.ts",
  "src/emulator/serverless/endpoints/releases.ts",
  "src/emulator/serverless/jobs/active.ts",
  "src/emulator/serverless/jobs/envelope.ts",
  "src/emulator/serverless/jobs/held.ts",
  "src/emulator/serverless/jobs/queue.ts",
  "src/emulator/serverless/jobs/rollout.ts",
  "src/emulator/serverless/jobs/waiting.ts",
  "src/emulator/serverless/jobs/workers.ts",
];

/** Modules that must be mutated and are not yet. */
const NOT_YET = [
  "src/resources/pod/provider.ts",
  "src/resources/serverless-endpoint/provider.ts",
];

type Mutant = { status: string; statusReason?: string };
type Record_ = { files: Record<string, { mutants: Mutant[] }> };

const required = [...sourceModules("src/resources"), ...sourceModules("src/client/core")]
  .filter((m) => !(m in NO_LOGIC))
  .map((m) => `src/${m}.ts`)
  .concat(EMULATOR_RULES)
  .sort();

describe("mutation testing reaches every rule", () => {
  test("every module with logic of src/resources/ and src/client/core/, and each emulator rule module, is mutated or listed as not yet", () => {
    expect(required.filter((m) => !MODULES.includes(m) && !NOT_YET.includes(m))).toEqual([]);
  });

  test("the not-yet list only shrinks: each entry is required and not mutated yet", () => {
    expect(NOT_YET.filter((m) => !required.includes(m) || MODULES.includes(m))).toEqual([]);
  });

  test.each(MODULES)("%s: its committed results are at the break threshold, at most one mutant in twenty disabled, each with a reason", (module) => {
    const record = JSON.parse(fs.readFileSync(path.join(ROOT, incrementalFileOf(module)), "utf8")) as Record_;
    const mutants = record.files[module]?.mutants ?? [];
    expect(mutants.length).toBeGreaterThan(0);
    const count = (...statuses: string[]) => mutants.filter((m) => statuses.includes(m.status)).length;
    const detected = count("Killed", "Timeout");
    const valid = detected + count("Survived", "NoCoverage");
    const ignored = mutants.filter((m) => m.status === "Ignored");
    expect(valid).toBeGreaterThan(0);
    expect((100 * detected) / valid).toBeGreaterThanOrEqual(THRESHOLDS.break);
    expect(ignored.length * 20).toBeLessThanOrEqual(mutants.length);
    expect(ignored.filter((m) => !m.statusReason?.trim())).toEqual([]);
  });
});

/**
 * `npm run soak`: the fault suite's stack lifecycles, many more of them, under heavier fault
 * rates and with stacks running side by side (one client, one pod poller, as in one `pulumi up`
 * of several stacks' worth of resources). Bounded by a count and a time budget. Prints a table
 * per profile and the totals; exits 1 if anything leaked, was duplicated, went missing, failed
 * unclearly or did not converge.
 *
 * Each profile runs once per retry budget: with the client's default (4 retries) faults are
 * mostly absorbed; with 1 retry many operations fail and must be recovered by the next run.
 *
 * Then a fleet through Pulumi's plugin (scripts/soak-fleet.ts): one `up` of `--fleet-pods` pods at
 * once and their destroy, nothing left alive on the emulator (0 skips it).
 *
 *   npm run soak -- --rounds 4 --concurrency 3 --seconds 300 --seed 1 --retries 1,4 --fleet-pods 1000
 */
import { parseArgs } from "node:util";
import { soakFleet } from "./soak-fleet";
import { emptyFigures, faultCounts, type Figures, liveEndpoints, livePods, placesWith, type Profile, PROFILES, runLifecycle, SENTINEL_KEY, startRig } from "../tools/faults";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "4" },
    concurrency: { type: "string", default: "3" },
    seconds: { type: "string", default: "300" },
    seed: { type: "string", default: "1" },
    retries: { type: "string", default: "1,4" },
    "fleet-pods": { type: "string", default: "1000" },
  },
});
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const budgetMs = 1000 * Number(values.seconds);
const seed = Number(values.seed);

/** The suite's profiles, then the same kinds of fault at heavier rates. */
const SOAK_PROFILES: Profile[] = [
  ...PROFILES,
  { name: "429 storm, heavy", faults: { rate429: 0.55 } },
  { name: "5xx, heavy", faults: { rate5xx: 0.4 } },
  { name: "dropped, heavy", faults: { dropAfterProcessRate: 0.35 } },
  { name: "slow and dropped", faults: { slowMs: 40, dropAfterProcessRate: 0.15 } },
  { name: "everything", faults: { rate429: 0.2, rate5xx: 0.2, dropAfterProcessRate: 0.15, slowMs: 10 }, errorImage: true },
];

/** The same object seen after several operations counts once: "label: pod p001 ..." -> "pod p001 ...". */
const withoutLabel = (l: string) => (l.includes(": ") ? l.slice(l.indexOf(": ") + 2) : l);
const distinct = (lines: string[]) => new Set(lines.map(withoutLabel)).size;

interface Row {
  profile: string;
  fig: Figures;
  faults: Record<string, number>;
  ms: number;
}

async function main(): Promise<number> {
  const started = Date.now();
  const lines: string[] = [];
  const rows: Row[] = [];
  let leftover = 0;
  let stopped = false;
  const keyPlaces: Record<string, string> = {};
  for (const retries of values.retries.split(",").map(Number)) {
    const rig = await startRig({ faults: { seed }, maxRetries: retries, logger: { debug: (l) => lines.push(l) } });
    try {
      for (const [i, profile] of SOAK_PROFILES.entries()) {
        if (Date.now() - started > budgetMs) {
          stopped = true;
          break;
        }
        const t0 = Date.now();
        const before = faultCounts(rig.emu);
        const fig = emptyFigures();
        rig.emu.setFaults({ seed: seed * 1000 + i });
        for (let round = 0; round < rounds && Date.now() - started <= budgetMs; round++) {
          // Side by side: the stacks share the client, its retries and the pod poller.
          await Promise.all(
            Array.from({ length: concurrency }, (_, c) => runLifecycle(rig, profile, `k${i}r${round}c${c}`, c % 2 === 0, fig)),
          );
        }
        const after = faultCounts(rig.emu);
        const faults = Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
        rows.push({ profile: `${profile.name} (retries ${retries})`, fig, faults, ms: Date.now() - t0 });
      }
    } finally {
      rig.emu.setFaults({});
      const state = rig.emu.state();
      leftover += livePods(state).length + liveEndpoints(state).length;
      keyPlaces[`request log (retries ${retries})`] = JSON.stringify(rig.emu.requestLog());
      await rig.close();
    }
  }
  const errors = rows.flatMap((r) => r.fig.errors);
  const leakedKey = placesWith(SENTINEL_KEY, {
    ...keyPlaces,
    "client log": lines.join("\n"),
    errors: errors.map((e) => (e instanceof Error ? `${e.message}\n${e.stack}` : String(e))).join("\n"),
  });

  const header = ["profile", "lifecycles", "ops", "failed+recovered", "requests", "429", "5xx", "dropped", "ERROR pods", "no capacity", "leaked", "duplicated", "missing", "unclear", "not converged", "s"];
  const table = rows.map((r) => [
    r.profile,
    r.fig.lifecycles,
    r.fig.operations,
    r.fig.failedOperations,
    r.faults.requests,
    r.faults["429"],
    r.faults["5xx"],
    r.faults.dropped,
    r.fig.podsInError,
    r.fig.noCapacityRefusals,
    distinct(r.fig.orphans),
    distinct(r.fig.duplicates),
    r.fig.missing.length,
    r.fig.unclearMessages.length,
    r.fig.notConverged.length,
    (r.ms / 1000).toFixed(1),
  ]);
  const total = header.map((_, col) =>
    col === 0 ? "TOTAL" : col === header.length - 1 ? ((Date.now() - started) / 1000).toFixed(1) : table.reduce((a, row) => a + Number(row[col]), 0),
  );
  const all = [header, ...table, total].map((row) => row.map(String));
  const widths = header.map((_, col) => Math.max(...all.map((row) => row[col].length)));
  for (const [n, row] of all.entries()) {
    console.log(row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join("  "));
    if (n === 0 || n === all.length - 2) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
  console.log(`live pods and endpoints left on the platform: ${leftover}; key found in: ${leakedKey.length ? leakedKey.join(", ") : "nothing"}`);
  if (stopped) console.log(`time budget of ${budgetMs / 1000} s reached: later profiles not run`);
  let fleetFailed = false;
  const fleetPods = Number(values["fleet-pods"]);
  if (fleetPods > 0) {
    const f = await soakFleet(fleetPods);
    fleetFailed = f.error !== undefined || f.running !== f.pods || f.left > 0;
    console.log(
      `fleet through the plugin: ${f.pods} pods, ${f.running} RUNNING after the up (${(f.upMs / 1000).toFixed(1)} s), ` +
        `${f.left} alive after the destroy (${(f.destroyMs / 1000).toFixed(1)} s)${f.error ? `; FAILED: ${f.error}` : ""}`,
    );
  }
  const problems = rows.flatMap((r) => [...r.fig.orphans, ...r.fig.duplicates, ...r.fig.missing, ...r.fig.unclearMessages, ...r.fig.notConverged]);
  for (const p of [...new Set(problems.map(withoutLabel))].slice(0, 20)) console.log(`  ${p}`);
  return problems.length > 0 || leftover > 0 || leakedKey.length > 0 || fleetFailed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);

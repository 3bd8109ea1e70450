// The modules mutation testing covers (`npm run test:mutation`): the rule modules of the client's
// core, the resources and the emulator. Each
// is run against the unit tests of its own folder (test/unit/ mirrors src/: retry.ts against
// test/unit/client/core/, plan.ts against test/unit/resources/pod/), and each must reach the
// break threshold on its own. A module whose rules only a server shows (the transport, a
// provider) is listed as `{ module, integration: true }`: it is run against its integration test
// too, the one at its path (transport.ts against test/integration/client/core/transport.test.ts),
// and only that one, so that a run stays minutes long. A module that most test files of its
// folder load through other modules, and whose own test reads all of it, is listed as
// `{ module, own: true }`: it is run against the unit test at its path alone (Stryker loads each
// test file that loads the module for every mutant). When a module moves, it moves here; its
// recorded results (tools/mutation/incremental/) are then made again by the next run.
"use strict";
const path = require("node:path");

const ENTRIES = [
  // retry timing, and rate-limit pacing: the pacer and its registry's policy
  "src/client/core/retry.ts",
  "src/client/core/pacing.ts",
  "src/client/core/pacing-registry.ts",
  // zod issues as field issues that name the field and the rule; the key and the write-only
  // values kept out of every message
  "src/client/core/validate.ts",
  "src/client/core/redact.ts",
  // a list's records read one by one, each kept or set aside with its reason
  "src/client/core/records.ts",
  // the errors a call raises, each naming what failed and what to do
  "src/client/core/errors.ts",
  // an id as a path segment: encoded, never empty nor a dot segment; the clock every wait is
  // cancelled through; a create never sent twice
  "src/client/core/path.ts",
  "src/client/core/clock.ts",
  "src/client/core/create-once.ts",
  // the Node.js the client runs on, and its HTTP client loaded or refused before anything is sent
  "src/client/core/runtime.ts",
  // the transport: auth, retries, pacing, timeouts and errors, once for every call (a server shows them)
  { module: "src/client/core/transport.ts", integration: true },
  // GraphQL documents built as a syntax tree, its errors[] as the client's errors, and its runner
  "src/client/core/graphql.ts",
  // the lifecycle's applied state and owner tokens, a create's recovery and finding it again
  "src/resources/lifecycle/applied.ts",
  "src/resources/lifecycle/owner.ts",
  "src/resources/lifecycle/recovery.ts",
  "src/resources/lifecycle/find-again.ts",
  // the line each step prints: what a change does (a request, a restart, a roll, lost data)
  "src/resources/lifecycle/step-line.ts",
  // the shared poller: one list per tick for every waiter, its back-off, deadlines and aborts
  "src/resources/lifecycle/poller.ts",
  // adoption of an object that already runs; a delete that waits for its users
  "src/resources/lifecycle/adopt.ts",
  "src/resources/lifecycle/in-use.ts",
  // the reads a command's resources share: one list per kind per run, the look before a create
  "src/resources/lifecycle/shared-reads.ts",
  "src/resources/lifecycle/shared-list.ts",
  "src/resources/lifecycle/look.ts",
  // the pod's plans: replace or update, a create's, an update's requests
  "src/resources/pod/plan.ts",
  "src/resources/pod/create-plan.ts",
  "src/resources/pod/update-plan.ts",
  // the pod's status machine: start, stop or restart as needed, an action's unknown outcome, the wait
  "src/resources/pod/status.ts",
  // the pod's compute checked against the catalog without a write; its writes as the budgets see them
  "src/resources/pod/catalog-check.ts",
  "src/resources/pod/costed-write.ts",
  // the pod on the wire: the create body, the outputs, a refresh's inputs, the pod a create made
  "src/resources/pod/wire.ts",
  // where a pod's create lands: each GPU type of its preference list until one has capacity, the
  // price cap, the catalog price of what it got (a server shows them)
  { module: "src/resources/pod/placement.ts", integration: true },
  // the stack's cost: its report and the ledger of what was created
  "src/resources/stack-cost/report.ts",
  // what an up leaves running, the compute the stack's cost prices, and the live object it is read from
  "src/resources/stack-cost/what-runs.ts",
  "src/resources/cost/ledger.ts",
  // the stack's cost checked once per command: each entry priced from what runs, its cost line, the
  // budgets held before any write; diff, create, update and delete from the outputs alone
  "src/resources/stack-cost/provider.ts",
  // the prices a cost is read from (the catalog read once per client)
  "src/resources/cost/prices.ts",
  // what the account runs, priced (one list per kind per command, this process's writes noted)
  "src/resources/cost/account.ts",
  // the budgets kept at each write, and the account's part of the stack's cost line
  "src/resources/cost/guard.ts",
  // the registry of kinds: a kind's provider loaded on first use, and what every kind's calls share
  // (the resource's own account, the stack config's hints, a partial failure's __provider)
  "src/resources/kinds.ts",
  // the settings a provider reads at run time: stack config, then the environment; the budgets
  "src/resources/engine/settings.ts",
  // a resource's own account (its input and its check), the outputs kept secret
  "src/resources/engine/account.ts",
  "src/resources/engine/account-input.ts",
  "src/resources/engine/secret-outputs.ts",
  // the `__provider` shim: one per kind, the package's provider loaded by name when the plugin configures it
  "src/resources/engine/shim.ts",
  // the serverless endpoint's plans: over GraphQL, and over REST v2
  "src/resources/serverless-endpoint/plan.ts",
  // the endpoint's lifecycle over GraphQL: each step's saves and reads, the wait for workers (a server shows them)
  { module: "src/resources/serverless-endpoint/graphql.ts", integration: true },
  "src/resources/serverless-endpoint/rest-plan.ts",
  // which of the endpoint's changes roll its workers, in the resource's names and the release's:
  // against its own test, which reads every entry of the table against the emulator's releases.
  // Eight test files of the folder load it through the plans: a mutant took 33 s on the shared
  // machine, almost all of it loading them (the 218 tests themselves run in under 4 s), and the
  // 112 mutants about an hour
  { module: "src/resources/serverless-endpoint/rollout-plan.ts", own: true },
  // the wait for a rollout to be over: the shared list, the endpoint's own workers, a held release
  "src/resources/serverless-endpoint/rollout.ts",
  // the smoke test: its resource's registration, the job followed to its end, the release that served it
  "src/resources/serverless-endpoint/smoke.ts",
  // when the smoke test runs again; what a change of the endpoint does, for its step line; its writes as the budgets see them
  "src/resources/serverless-endpoint/smoke-plan.ts",
  // the smoke test's provider: its check, when it sends a job and says why, what state keeps of the answer (a server shows them)
  { module: "src/resources/serverless-endpoint/smoke-provider.ts", integration: true },
  // the endpoint over REST v2: its create, settle, update and the move from GraphQL, each step's error (a server shows them)
  { module: "src/resources/serverless-endpoint/rest.ts", integration: true },
  "src/resources/serverless-endpoint/step-effects.ts",
  "src/resources/serverless-endpoint/costed-write.ts",
  // the endpoint's check: each field's rule and its message, before any request (its schemas are
  // built at load, so it is run against its own test alone)
  { module: "src/resources/serverless-endpoint/schema.ts", own: true },
  // what an endpoint's workers run, as the program declared it, and the account it gave the endpoint; the errors the two APIs share
  "src/resources/serverless-endpoint/workers-run.ts",
  "src/resources/serverless-endpoint/dialect.ts",
  // the other kinds' plans: the template's, the registry credential's, the network volume's
  "src/resources/template/plan.ts",
  "src/resources/registry-credential/plan.ts",
  "src/resources/network-volume/plan.ts",
  // the other kinds' providers: what each method sends, what state says, the errors (a server shows them)
  { module: "src/resources/registry-credential/provider.ts", integration: true },
  { module: "src/resources/network-volume/provider.ts", integration: true },
  { module: "src/resources/template/provider.ts", integration: true },
  // the kinds' checks: each field's rule and its message, before any request
  "src/resources/registry-credential/schema.ts",
  "src/resources/network-volume/schema.ts",
  "src/resources/template/schema.ts",
  "src/resources/pod/schema.ts",
  // the kinds' classes: what each hands to Pulumi (its arguments, outputs named, secrets, the ledger joined, `.get`)
  "src/resources/network-volume/index.ts",
  "src/resources/registry-credential/index.ts",
  "src/resources/template/index.ts",
  "src/resources/pod/index.ts",
  "src/resources/serverless-endpoint/index.ts",
  // the catalog and billing look-ups a program makes: their filters, the billing path `of` picks,
  // the stack config's settings, their Output forms
  "src/resources/catalog/index.ts",
  // the argument and input checks
  "src/resources/inputs/arguments.ts",
  "src/resources/inputs/check.ts",
  // the Template behind a container reference and what a change of it rolls; a container's fields
  "src/resources/inputs/template-ref.ts",
  "src/resources/inputs/container.ts",
  // the emulator's rules, the platform's stand-in every other test trusts: rate limits, the faults
  // it injects, releases and their rollout, worker scaling
  "src/emulator/core/rate-limit.ts",
  "src/emulator/core/faults.ts",
  "src/emulator/serverless/endpoints/releases.ts",
  "src/emulator/serverless/jobs/rollout.ts",
  "src/emulator/serverless/jobs/workers.ts",
  // the job queue's states: held, waiting, active; the envelope a job is answered in; the queue
  // itself (a job's life, its replay, the one timer)
  "src/emulator/serverless/jobs/queue.ts",
  "src/emulator/serverless/jobs/held.ts",
  "src/emulator/serverless/jobs/active.ts",
  "src/emulator/serverless/jobs/waiting.ts",
  "src/emulator/serverless/jobs/envelope.ts",
  // the pod's transitions and its store
  "src/emulator/pods/rules.ts",
  "src/emulator/pods/store.ts",
];

/** @typedef {string | { module: string, integration: true } | { module: string, own: true }} Entry */

/** The mutated modules, by path. */
const MODULES = ENTRIES.map((e) => (typeof e === "string" ? e : e.module));

/** Each module must reach `break`; the report colours by `high` and `low`. */
const THRESHOLDS = { high: 90, low: 85, break: 85 };

/** A module's integration test, at its path (test/integration/ mirrors src/ as test/unit/ does). */
const integrationTestOf = (module) => module.replace(/^src\//, "test/integration/").replace(/\.ts$/, ".test.ts");

/** A module's unit test, at its path. */
const unitTestOf = (module) => module.replace(/^src\//, "test/unit/").replace(/\.ts$/, ".test.ts");

/**
 * What a module is mutated against: the folder of its unit tests, and, for an entry marked
 * `integration`, its integration test (a file). An entry marked `own` is run against the unit
 * test at its path alone: a module whose rules are built when it loads (a zod schema, a table)
 * has static mutants, and Stryker runs every test that loads the module for each of them, which
 * for a check every provider of its folder loads is each test of the folder hundreds of times.
 */
const testsOf = (module) => {
  const entry = ENTRIES.find((e) => e === module || e.module === module);
  const unit = path.posix.join("test/unit", path.posix.dirname(module).replace(/^src\//, ""));
  if (typeof entry === "object" && entry.own) return [unitTestOf(module)];
  return typeof entry === "object" && entry.integration ? [unit, integrationTestOf(module)] : [unit];
};

/** Where a module's incremental results live (committed). */
const incrementalFileOf = (module) => `tools/mutation/incremental/${module.replace(/^src\//, "").replace(/\.ts$/, "").replaceAll("/", "-")}.json`;

/** Where a module's reports go (not committed). */
const reportOf = (module, ext) => `reports/mutation/${module.replace(/^src\//, "").replace(/\.ts$/, "").replaceAll("/", "-")}.${ext}`;

module.exports = { MODULES, THRESHOLDS, testsOf, integrationTestOf, unitTestOf, incrementalFileOf, reportOf };

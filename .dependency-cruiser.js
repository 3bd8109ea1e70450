// The layering of src/, checked in `npm run lint` (dependency-cruiser reads the code's own
// imports, type-only ones included). The map it holds is docs/design.md's "Who may import whom".
"use strict";
const { EMULATOR_MAP } = require("./tools/layers/emulator-map");

/** Folders of src/resources/ below the kinds: toolkits that know no kind, lowest first. */
const TOOLKITS = ["engine", "lifecycle", "inputs", "cost"];
const toolkit = TOOLKITS.join("|");
/** A kind is any other folder of src/resources/ (a new kind is one without a line here). */
const KIND = `^src/resources/(?!(?:${toolkit})/)([^/]+)/`;

/** The files of one folder of the emulator's map (`top` and `serverless` are the files at their own level). */
function emulatorFiles(folder) {
  if (folder === "top") return "^src/emulator/[^/]+$";
  if (folder === "serverless" || folder === "core") return `^src/emulator/${folder}/[^/]+$`;
  return `^src/emulator/${folder}/`;
}

/** Two rules per folder of the emulator's map: values only from `imports`, types also from `types`. */
const emulatorRules = EMULATOR_MAP.filter((row) => !row.imports.includes("*")).flatMap((row) => {
  const own = emulatorFiles(row.folder);
  const values = [own, ...row.imports.map(emulatorFiles)];
  const types = [...values, ...row.types.map(emulatorFiles)];
  const named = row.folder.replace("/", "-");
  return [
    {
      name: `emulator-${named}-imports`,
      comment: `src/emulator/${row.folder} imports from the emulator only ${row.imports.join(", ") || "itself"} (docs/design.md, the emulator's map).`,
      severity: "error",
      from: { path: own },
      to: { path: "^src/emulator/", pathNot: values, dependencyTypesNot: ["type-only"] },
    },
    {
      name: `emulator-${named}-types`,
      comment: `src/emulator/${row.folder} imports types from the emulator only ${[...row.imports, ...row.types].join(", ") || "itself"}.`,
      severity: "error",
      from: { path: own },
      to: { path: "^src/emulator/", pathNot: types },
    },
  ];
});

module.exports = {
  forbidden: [
    ...emulatorRules,
    {
      name: "no-folder-cycle",
      comment: "Folders of src/ import one way: no folder reaches itself back through another.",
      severity: "error",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "no-file-cycle",
      comment: "No file of src/, and none of what tests, tools and benchmarks share, imports itself back through another.",
      severity: "error",
      from: { path: "^(?:src|test|tools|bench|scripts)/" },
      to: { circular: true },
    },
    {
      name: "kind-imports-no-kind",
      comment: "A kind (a folder of src/resources/ that is not a toolkit) imports no other kind: what two kinds share is a toolkit below them.",
      severity: "error",
      from: { path: KIND },
      to: { path: `^src/resources/(?!(?:${toolkit})/)[^/]+/`, pathNot: "^src/resources/$1/" },
    },
    // Each toolkit imports only the ones below it (TOOLKITS, lowest first), and no kind.
    ...TOOLKITS.map((name, i) => ({
      name: `toolkit-${name}-imports-below-only`,
      comment: `src/resources/${name}/ imports from src/resources/ only ${TOOLKITS.slice(0, i).join(", ") || "nothing"}.`,
      severity: "error",
      from: { path: `^src/resources/${name}/` },
      to: { path: "^src/resources/", pathNot: `^src/resources/(?:${TOOLKITS.slice(0, i + 1).join("|")})/` },
    })),
    {
      name: "registry-on-top",
      comment: "The registry of kinds (src/resources/kinds.ts) imports the kinds; only the package entry imports it (and the tests of the registry).",
      severity: "error",
      from: { pathNot: "^(?:src/index\\.ts|test/.*\\.test\\.ts)$" },
      to: { path: "^src/resources/kinds\\.ts$" },
    },
    {
      name: "bench-and-tools-use-entries",
      comment:
        "bench/ and tools/ reach src/ through the package's entries (src/index.ts, src/client, src/emulator) or the named internal one (src/internal.ts), as a program would. " +
        "bench/run.js alone loads the runtime check first, before anything that needs a newer Node.",
      severity: "error",
      from: { path: "^(?:bench|tools)/", pathNot: "^bench/run\\.js$" },
      to: { path: "^src/", pathNot: "^src/(?:index|internal|client/index|emulator/index)\\.ts$" },
    },
    {
      name: "resources-use-client-entry",
      comment: "src/resources/ uses the client through its public entry only.",
      severity: "error",
      from: { path: "^src/resources/" },
      to: { path: "^src/client/", pathNot: "^src/client/index\\.ts$" },
    },
    {
      name: "account-uses-client-entry-and-marks",
      comment: "src/account/ (the account command) reads the platform through the client's public entry, and of the resources only the marks they write (lifecycle/owner.ts, pod/schema.ts) and the catalog's pricing rules (cost/prices.ts, so the sweep prices a worker as the budgets do); it loads no Pulumi.",
      severity: "error",
      from: { path: "^src/account/" },
      to: { path: ["^src/client/(?!index\\.ts$)", "^src/resources/(?!lifecycle/owner\\.ts$|pod/schema\\.ts$|cost/prices\\.ts$)", "^src/emulator/", "^@pulumi/"] },
    },
    {
      name: "nothing-imports-account",
      comment: "The account command is on top: nothing in src/ imports it.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/account/" },
      to: { path: "^src/account/" },
    },
    {
      name: "client-imports-no-pulumi",
      comment: "The client knows nothing of Pulumi, nor of the resources or the emulator.",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: ["@pulumi/", "^src/(?:resources|emulator)/"] },
    },
    {
      name: "emulator-imports-no-client",
      comment: "The emulator is a second, independent reading of the spec: nothing from src/client or src/resources.",
      severity: "error",
      from: { path: "^src/emulator/" },
      to: { path: "^src/(?:client|resources)/" },
    },
    {
      name: "src-imports-no-test",
      comment: "Nothing in src/ imports from test/, tools/ or scripts/.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(?:test|tools|scripts)/" },
    },
    {
      name: "only-tests-import-test",
      comment: "What tests, benchmarks and scripts share lives in tools/: nothing outside test/ imports from test/.",
      severity: "error",
      from: { path: "^(?:tools|scripts|bench|examples)/" },
      to: { path: "^test/" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/emulator/console/assets/" },
  },
};

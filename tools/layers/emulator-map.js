// The emulator's map: each folder of src/emulator/ and what it may import from the others.
// `.dependency-cruiser.js` turns it into lint rules (`npm run lint:layers`), and docs/design.md's
// table "The emulator's map" is this list written out (a repository test keeps the two equal), so
// the map a reader sees is the one the lint holds. Folders are named under src/emulator/; a
// serverless part is `serverless/<part>`, and `serverless` alone is the service's top files.
"use strict";

/**
 * @typedef {object} EmulatorFolder
 * @property {string} folder   the folder under src/emulator/ (`top` is index.ts, cli.ts, server.ts, account.ts)
 * @property {string} holds    what it holds, as the design page says it
 * @property {string[]} imports the folders it may import values from
 * @property {string[]} types  the folders it may import types from only (beside `imports`)
 */

/** @type {EmulatorFolder[]} Highest first: imports run down the list, never up. */
const EMULATOR_MAP = [
  { folder: "top", holds: "`index.ts`, `cli.ts`, `server.ts`, `account.ts`: public entry, command, composition root, one account's services", imports: ["*"], types: [] },
  { folder: "console", holds: "sessions, pages, assets", imports: ["core", "core/http", "catalog"], types: ["pods", "network-volumes", "registries", "templates", "serverless", "serverless/jobs", "serverless/rest"] },
  { folder: "control", holds: "`/emulator/faults`, `/emulator/events`", imports: ["core", "core/http", "catalog"], types: ["pods"] },
  { folder: "pods", holds: "store, 400 rules, view, routes", imports: ["core", "core/http", "catalog", "registries"], types: ["network-volumes"] },
  { folder: "serverless", holds: "the service's top files (`service.ts`, `routes.ts`, `snapshot.ts`) that wire its parts", imports: ["core", "core/http", "catalog", "serverless/endpoints", "serverless/graphql", "serverless/hosted-models", "serverless/jobs", "serverless/rest"], types: ["templates"] },
  { folder: "serverless/hosted-models", holds: "the hosted models and their jobs (`runsync`, `run`, `status`), sharing the jobs' wait rules", imports: ["core", "core/http", "catalog", "serverless/jobs"], types: [] },
  { folder: "serverless/rest", holds: "REST v2 endpoints over the shared store", imports: ["core", "core/http", "catalog", "serverless/endpoints"], types: ["templates"] },
  { folder: "serverless/graphql", holds: "the GraphQL schema, its query cost and execution", imports: ["core", "core/http", "catalog"], types: ["templates"] },
  { folder: "serverless/jobs", holds: "jobs on the account's endpoints: the queue and its replay (scaling, rollouts), the job routes, OpenAI routes, webhooks", imports: ["core", "core/http", "catalog", "serverless/endpoints"], types: [] },
  { folder: "serverless/endpoints", holds: "the store both APIs share: endpoints, workers, releases, their rules", imports: ["core", "catalog"], types: ["templates"] },
  { folder: "network-volumes", holds: "store, routes", imports: ["core", "core/http", "catalog"], types: [] },
  { folder: "templates", holds: "store, routes", imports: ["core", "core/http", "catalog", "registries"], types: [] },
  { folder: "registries", holds: "store, routes", imports: ["core", "core/http"], types: [] },
  { folder: "billing", holds: "queries, routes", imports: ["core", "core/http"], types: [] },
  { folder: "catalog", holds: "GPU types, data centers, limits, routes", imports: ["core", "core/http"], types: [] },
  { folder: "core/http", holds: "pipeline, router, reply, route types, REST collection", imports: ["core"], types: [] },
  { folder: "core", holds: "problem, validation, rate limits, faults, meter, ids, request log, state file and its lock", imports: [], types: [] },
];

/** A folder as the page names it: `top` is the files at the emulator's own level. */
const shown = (folder) => (folder === "top" ? "top" : `\`${folder}/\``);

/** The map as docs/design.md's table: one row per folder, highest first. */
function renderEmulatorMap() {
  const rows = EMULATOR_MAP.map((row) => {
    const may = row.imports.includes("*")
      ? "every folder below"
      : [...row.imports.map(shown), ...row.types.map((t) => `${shown(t)} (types)`)].join(", ") || "nothing of the emulator";
    return `| ${shown(row.folder)} | ${row.holds} | ${may} |`;
  });
  return ["| `src/emulator/` folder | what it holds | may import |", "| --- | --- | --- |", ...rows].join("\n");
}

module.exports = { EMULATOR_MAP, renderEmulatorMap };

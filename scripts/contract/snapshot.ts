/**
 * `npm run contract:snapshot -- <location> [--published YYYY-MM-DD]`: refreshes `contract/`,
 * the repository's structural copy of the platform's public REST v2 OpenAPI contract that the
 * contract tests validate against (test/helpers/contract.ts).
 *
 * <location> is where the authority is read from: a file path or an http(s) URL. The location
 * is not written into the copy (it is a machine's path or a private address); the copy names
 * the contract and the date it was published.
 *
 * Kept: everything a check reads (paths, operations, parameters, request bodies, responses and
 * their status codes and media types, schemas with their types, enums, formats, required
 * lists, bounds, patterns, `$ref`s, security schemes) and the contract's example values, which
 * test/unit/client/schemas/contract-examples.test.ts passes through the client's schemas. Dropped: the
 * prose (`description`, `summary`, `externalDocs`), also the summary and description of each
 * example. A property that happens to be called `description` or `summary` stays: names under
 * `properties` (and the other maps of names) are never keywords.
 *
 * The output is deterministic: the same authority gives the same bytes (the source's key
 * order, two-space JSON, one trailing newline; no clock is read).
 */
import * as fs from "node:fs";
import * as path from "node:path";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What the copy says of its origin: the authority by name, never by location. */
export const SOURCE = "the platform's public REST v2 OpenAPI contract";
/** The date the contract the repository holds was published. */
export const DEFAULT_PUBLISHED = "2026-07-22";

/** Keywords that hold prose only. */
const PROSE = new Set(["description", "summary", "externalDocs"]);
/** Keywords whose value is data and is copied as it is (examples, enum values, defaults). */
const DATA = new Set(["example", "enum", "const", "default", "value"]);
/** Keywords whose value maps names (of properties, paths, statuses, media types ...) to nodes. */
const MAPS = new Set([
  "properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
  "paths", "schemas", "responses", "parameters", "requestBodies", "headers", "securitySchemes",
  "content", "links", "callbacks", "variables", "encoding", "webhooks", "pathItems",
]);

function node(value: Json): Json {
  if (Array.isArray(value)) return value.map(node);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: Json } = {};
  for (const [key, inner] of Object.entries(value)) {
    if (PROSE.has(key)) continue;
    if (DATA.has(key)) out[key] = inner;
    // A schema's `examples` is a list of values; a media type's or parameter's is a map of Example objects.
    else if (key === "examples") out[key] = Array.isArray(inner) ? inner : map(inner);
    // An operation's `parameters` is a list of nodes; the components' is a map of them.
    else if (MAPS.has(key)) out[key] = Array.isArray(inner) ? inner.map(node) : map(inner);
    else out[key] = node(inner);
  }
  return out;
}

function map(value: Json): Json {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return node(value);
  return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, node(inner)]));
}

/** The structural copy of an OpenAPI document, with a header naming its source and date. */
export function snapshot(document: Json, published: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(published)) throw new Error(`--published must be a date YYYY-MM-DD, got ${published}`);
  if (document === null || typeof document !== "object" || Array.isArray(document) || typeof document.openapi !== "string") {
    throw new Error("the authority is not an OpenAPI document (no `openapi` version at its top)");
  }
  const body = node(document) as { [key: string]: Json };
  const header = {
    source: SOURCE,
    published,
    kept: "paths, operations, parameters, bodies, responses, schemas, enums, formats, bounds, required lists and example values",
    dropped: "description, summary and externalDocs prose",
    refresh: "npm run contract:snapshot -- <file path or URL of the contract>",
  };
  return `${JSON.stringify({ openapi: body.openapi, "x-snapshot": header, ...body }, null, 2)}\n`;
}

/** The README written beside the copy. */
export function readme(published: string): string {
  return [
    "# The public REST v2 contract, structural copy",
    "",
    `\`public-v2-openapi.json\` is a structural copy of ${SOURCE}, published ${published}.`,
    "The contract tests validate against it: every answer the emulator gives in any test suite",
    "(`test/helpers/contract.ts`, loaded by `test/helpers/contract-hook.ts`), the operations of",
    "`test/integration/emulator/contract.test.ts`, and the client's zod schemas field by field",
    "(`test/unit/client/schemas/contract-examples.test.ts`).",
    "",
    "It keeps what a check reads: paths, operations, parameters, request bodies, responses with",
    "their status codes and media types, schemas with types, enums, formats, `required` lists,",
    "bounds and patterns, security schemes, and the contract's example values. It drops the prose",
    "(`description`, `summary`, `externalDocs`).",
    "",
    "Refresh it from the contract (a file path or a URL) with",
    "",
    "```sh",
    "npm run contract:snapshot -- <location> --published YYYY-MM-DD",
    "```",
    "",
    "The script (`scripts/contract/snapshot.ts`) writes this README and the copy; the same contract",
    "gives the same bytes.",
    "",
  ].join("\n");
}

async function read(location: string): Promise<string> {
  if (/^https?:\/\//.test(location)) {
    const res = await fetch(location, { signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`GET ${location} answered ${res.status}`);
    return res.text();
  }
  return fs.readFileSync(location, "utf8");
}

async function main(argv: string[]): Promise<void> {
  const args = [...argv];
  let published = DEFAULT_PUBLISHED;
  let out = path.join(__dirname, "../../contract");
  for (let i = args.indexOf("--published"); i >= 0; i = args.indexOf("--published")) [, published] = args.splice(i, 2);
  for (let i = args.indexOf("--out"); i >= 0; i = args.indexOf("--out")) [, out] = args.splice(i, 2);
  if (args.length !== 1) throw new Error("usage: snapshot.ts <file path or URL of the contract> [--published YYYY-MM-DD] [--out folder]");
  const document = JSON.parse(await read(args[0])) as Json;
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, "public-v2-openapi.json"), snapshot(document, published));
  fs.writeFileSync(path.join(out, "README.md"), readme(published));
  process.stdout.write(`wrote ${path.relative(process.cwd(), out) || "."}/public-v2-openapi.json and README.md\n`);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}

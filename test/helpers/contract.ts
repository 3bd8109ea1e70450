// Checks what the emulator answered (and what it accepted) against the platform's public REST
// v2 contract with Ajv, not with hand-written checks. The contract is the repository's structural
// copy in contract/ (its README names the source and date; `npm run contract:snapshot` refreshes
// it); OpenAPI 3.1 schemas are JSON Schema 2020-12. An exchange is matched to the contract operation by method and
// path template, then its status to a response (or `default`) and its media type to that
// response's content. A request body the emulator accepted (2xx) must fit the operation's
// request schema: that holds the client's bodies and the emulator's leniency to the contract.
import * as fs from "node:fs";
import * as path from "node:path";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { Exchange } from "../../src/emulator";

export const CONTRACT_FILE = path.join(__dirname, "../../contract/public-v2-openapi.json");

interface Operation {
  method: string;
  template: string;
  regex: RegExp;
  literals: number;
  operationId: string;
  requestSchema?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** Where the platform answers differently from its contract; each says why. */
export interface Override {
  method: string;
  template: string;
  /** What is not checked: the request body, or the answer of one status. */
  part: "request" | `response ${number}`;
  why: string;
}

const doc = JSON.parse(fs.readFileSync(CONTRACT_FILE, "utf8"));

/** The contract document itself. */
export function loadContract(): any {
  return doc;
}
/**
 * One named example of an operation's JSON request body (`"request"`) or of its answer of a
 * status (`"200"`, `"201"`), copied so a test may change it.
 */
export function contractExample(operationId: string, of: "request" | `${number}`, name: string): any {
  const op = Object.values(doc.paths as Record<string, Record<string, any>>)
    .flatMap((item) => Object.values(item))
    .find((o) => o?.operationId === operationId);
  const content = (of === "request" ? op?.requestBody : resolve(op?.responses?.[of]))?.content?.["application/json"];
  const value = content?.examples?.[name]?.value;
  if (value === undefined) throw new Error(`the contract has no ${of} example ${name} of ${operationId}`);
  return structuredClone(value);
}
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// OpenAPI's numeric formats carry no constraint JSON Schema does not already express.
for (const f of ["float", "double", "int32", "int64"]) ajv.addFormat(f, true);
ajv.addSchema({ $id: "contract", components: doc.components });

function resolve<T>(node: T): T {
  const ref = (node as { $ref?: string })?.$ref;
  if (!ref) return node;
  const target = ref.replace(/^#\//, "").split("/").reduce((o: any, k) => o[k], doc);
  return resolve(target);
}

/** `$ref`s of the document point into the copy Ajv holds under `contract`. */
function rebase(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"contract#/components/'));
}

export const OPERATIONS: Operation[] = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(
  ([template, item]) =>
    Object.entries(item)
      .filter(([m]) => ["get", "post", "patch", "put", "delete"].includes(m))
      .map(([m, op]) => {
        const parts = template.split("/").filter(Boolean);
        const regex = new RegExp(
          `^/${parts.map((p) => (p.startsWith("{") ? "[^/]+" : p.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))).join("/")}$`,
        );
        const body = resolve(op.requestBody)?.content?.["application/json"]?.schema;
        return {
          method: m.toUpperCase(),
          template,
          regex,
          literals: parts.filter((p) => !p.startsWith("{")).length,
          operationId: op.operationId,
          requestSchema: body,
          responses: Object.fromEntries(Object.entries(op.responses ?? {}).map(([k, v]) => [k, resolve(v as object)])),
        } as Operation;
      }),
);

/** The contract operation an exchange belongs to (a literal segment beats a parameter). */
export function operationOf(method: string, pathname: string): Operation | undefined {
  return OPERATIONS.filter((o) => o.method === method && o.regex.test(pathname)).sort((a, b) => b.literals - a.literals)[0];
}

const compiled = new Map<string, ValidateFunction>();
function validator(key: string, schema: unknown): ValidateFunction {
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(rebase(schema) as object);
    compiled.set(key, v);
  }
  return v;
}

const problemValidator = () => validator("ErrorResponse", { $ref: "#/components/schemas/ErrorResponse" });
const errorsText = (v: ValidateFunction) =>
  (v.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`).join("; ");

/**
 * Paths the emulator serves that are not REST v2 contract operations: GraphQL, the job routes of
 * hosted models and of the account's endpoints (run, status, stream, cancel, retry, purge-queue,
 * health, the OpenAI-compatible routes), the images.
 */
export const OUTSIDE_CONTRACT = [
  /^\/graphql$/,
  /^\/v2\/[^/]+\/(runsync|run)$/,
  /^\/v2\/[^/]+\/(status|status-sync|stream|cancel|retry)\/[^/]+$/,
  /^\/v2\/[^/]+\/(purge-queue|health)$/,
  /^\/v2\/[^/]+\/openai\/v1\/(chat\/completions|completions|models)$/,
  /^\/images\//,
  // The emulator's own control plane (faults, outside events), not the platform's.
  /^\/emulator\//,
];

/** A path as the router reads it: empty segments dropped, each percent-decoded (undecodable: unchanged). */
function routedPath(path: string): string {
  try {
    return `/${path.split("/").filter((s) => s.length > 0).map(decodeURIComponent).join("/")}`;
  } catch {
    return path;
  }
}

/** Every way `x` breaks the contract, as lines naming the exchange; [] when it fits. */
export function violations(x: Exchange, overrides: readonly Override[] = []): string[] {
  const name = `${x.method} ${x.path}${x.query} -> ${x.status}`;
  if (x.dropped) return [];
  // Judged by the path the emulator's router served (`/graphql/`, `/%67raphql` and `//graphql` are `/graphql`).
  const served = routedPath(x.path);
  if (OUTSIDE_CONTRACT.some((re) => re.test(served))) return [];
  const op = operationOf(x.method, x.path);
  const out: string[] = [];
  const skipped = (part: Override["part"]) =>
    op && overrides.some((o) => o.method === op.method && o.template === op.template && o.part === part);
  if (!op) {
    // No operation (unknown path, a method the path does not serve): still the error shape.
    if (x.status < 400) out.push(`${name}: answered ${x.status} on a path the contract does not have`);
    else if (x.contentType !== "application/problem+json" || !problemValidator()(x.responseBody)) {
      out.push(`${name}: error answer is not application/problem+json ErrorResponse`);
    }
    return out;
  }
  if (x.status < 300 && op.requestSchema !== undefined && x.requestBody !== undefined && !skipped("request")) {
    const v = validator(`${op.operationId} request`, op.requestSchema);
    if (!v(laterRevisionAsContract(op.operationId, x.requestBody))) out.push(`${name}: accepted a request body outside ${op.operationId}'s schema: ${errorsText(v)}`);
  }
  if (skipped(`response ${x.status}`)) return out;
  const response = op.responses[String(x.status)] ?? op.responses.default;
  if (!response) return [...out, `${name}: ${op.operationId} has no ${x.status} answer and no default`];
  const content = response.content ?? {};
  if (Object.keys(content).length === 0) {
    if (x.responseBody !== undefined) out.push(`${name}: ${op.operationId} answers ${x.status} without a body, got one`);
    return out;
  }
  const media = content[x.contentType ?? ""];
  if (!media) return [...out, `${name}: content type ${x.contentType} is not one of ${Object.keys(content).join(", ")}`];
  if (media.schema !== undefined) {
    const v = validator(`${op.operationId} ${x.status} ${x.contentType}`, media.schema);
    if (!v(x.responseBody)) out.push(`${name}: answer outside ${op.operationId}'s schema: ${errorsText(v)}`);
  }
  return out;
}

/**
 * The platform's own MCP server sends `/v2/serverless` bodies of a later contract revision
 * (`type: "QUEUE"` on create, `scaling: { type, queueDelay | requestCount }`,
 * `workers.idleTimeout`), which the emulator accepts as the contract's spellings. This is the
 * test's own reading of that rewrite, so such a body is checked against the contract's schema
 * after it, and anything beyond it still fails the check.
 */
export function laterRevisionAsContract(operationId: string, body: unknown): unknown {
  if (operationId !== "createEndpoint" && operationId !== "updateEndpoint") return body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const out: Record<string, any> = { ...body };
  if (operationId === "createEndpoint" && out.type === "QUEUE") delete out.type;
  const s = out.scaling;
  if (s && typeof s === "object" && !("value" in s)) {
    if (s.type === "QUEUE_DELAY" && "queueDelay" in s && !("requestCount" in s)) {
      const { queueDelay, ...rest } = s;
      out.scaling = { ...rest, value: queueDelay };
    } else if (s.type === "REQUEST_COUNT" && "requestCount" in s && !("queueDelay" in s)) {
      const { requestCount, ...rest } = s;
      out.scaling = { ...rest, value: requestCount };
    }
  }
  const w = out.workers;
  if (w && typeof w === "object" && "idleTimeout" in w && !(out.scaling && "idleTimeout" in out.scaling)) {
    const { idleTimeout, ...rest } = w;
    out.workers = rest;
    out.scaling = { ...(out.scaling ?? {}), idleTimeout };
  }
  return out;
}

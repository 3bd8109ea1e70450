// One GraphQL request against the endpoint schema: the body checked as a GraphQL request,
// the document parsed (bounded) and validated, then run with the service's resolvers. What it
// answers follows the GraphQL over HTTP conventions the platform's clients read: a document
// that does not fit is `data: null` with GRAPHQL_VALIDATION_FAILED, a field that fails is an
// error with its path beside the data that did resolve.
import { execute, GraphQLError, type GraphQLFormattedError, parse, type DocumentNode, validate } from "graphql";
import { COST_CODE, crowding, documentCost, type ListSizes, MAX_COST, overLimit } from "./cost";
import { endpointSchema } from "./schema";

export { COST_CODE, MAX_COST, type ListSizes } from "./cost";

/**
 * Who sends the request: its key's scopes and, from the HTTP pipeline, `charge(n)`, which counts
 * n more requests against the key's rate limit or throws the 429 (each mutation of a document
 * counts as one request; the request itself was counted already).
 */
export interface GraphqlCaller {
  canRead: boolean;
  canWrite: boolean;
  charge?: (requests: number) => void;
}

/** What every resolver is handed: the caller's scopes, the time of the request, and the root fields that ran. */
export interface RequestContext {
  canRead: boolean;
  canWrite: boolean;
  now: number;
  ops: string[];
}

/** Bounds the work a single document can ask of the parser. */
const MAX_TOKENS = 5000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The server may hand over the raw bytes or text, or what it already parsed. */
function asJson(body: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof body !== "string" && !Buffer.isBuffer(body)) return { ok: true, value: body };
  try {
    return { ok: true, value: JSON.parse(body.toString()) };
  } catch {
    return { ok: false };
  }
}

function badRequest(message: string) {
  return {
    status: 400,
    body: { errors: [{ message, extensions: { code: "BAD_REQUEST" } }] },
    ops: [] as string[],
  };
}

/** A failure of the document as a whole: nothing ran, so `data` is null and there is no path. */
function documentFailure(errors: readonly GraphQLError[]) {
  return {
    status: 200,
    body: {
      data: null,
      errors: errors.map((e) => ({
        message: e.message,
        ...(e.locations ? { locations: e.locations } : {}),
        extensions: { code: "GRAPHQL_VALIDATION_FAILED" },
      })),
    },
    ops: [] as string[],
  };
}

function fieldError(e: GraphQLError): GraphQLFormattedError {
  const code = e.originalError instanceof GraphQLError ? e.extensions.code : undefined;
  return {
    // A resolver that throws anything but a coded GraphQLError is an emulator bug: say so.
    message: code ? e.message : `internal error in the emulator: ${e.message}`,
    ...(e.locations ? { locations: e.locations } : {}),
    ...(e.path ? { path: e.path } : {}),
    extensions: { code: code ?? "INTERNAL_SERVER_ERROR" },
  };
}

/** A document refused for what it would cost: HTTP 400, nothing ran. */
function costFailure(e: GraphQLError) {
  return {
    status: 400,
    body: { errors: [{ message: e.message, extensions: { code: COST_CODE } }] },
    ops: [] as string[],
  };
}

/**
 * Run one GraphQL request. `canRead` false makes every query field, `canWrite` false every
 * mutation field, answer FORBIDDEN (the resolvers check `RequestContext`). `ops` names the root
 * fields that ran, in order. The document is weighed (./cost.ts) before anything runs: over
 * MAX_COST it is refused, and its mutations are charged to the caller's rate limit.
 */
export async function runGraphql(
  body: unknown,
  caller: GraphqlCaller,
  now: number,
  rootValue: unknown,
  sizes: () => ListSizes,
): Promise<{ status: number; body: unknown; ops: string[] }> {
  const json = asJson(body);
  if (!json.ok) return badRequest("request body is not valid JSON");
  const req = json.value;
  if (!isObject(req))
    return badRequest('request body must be a JSON object with a string field "query"');
  if (typeof req.query !== "string")
    return badRequest('request body must have a string field "query" holding the document');
  if (req.variables !== undefined && req.variables !== null && !isObject(req.variables))
    return badRequest('"variables" must be a JSON object when given');
  if (
    req.operationName !== undefined &&
    req.operationName !== null &&
    typeof req.operationName !== "string"
  )
    return badRequest('"operationName" must be a string when given');

  let document: DocumentNode;
  try {
    document = parse(req.query, { maxTokens: MAX_TOKENS });
  } catch (e) {
    if (e instanceof GraphQLError) return documentFailure([e]);
    throw e;
  }
  // Before validation, whose overlap check compares every pair of same-named fields at a level.
  const crowded = crowding(document);
  if (crowded) return costFailure(crowded);
  const invalid = validate(endpointSchema(), document);
  if (invalid.length > 0) return documentFailure(invalid);

  const variableValues = (req.variables as Record<string, unknown> | null | undefined) ?? undefined;
  const operationName = (req.operationName as string | null | undefined) ?? undefined;
  const listSizes = sizes();
  const weighed = documentCost(endpointSchema(), document, listSizes, variableValues, operationName);
  if (weighed instanceof GraphQLError) {
    return weighed.extensions.code === COST_CODE ? costFailure(weighed) : documentFailure([weighed]);
  }
  if (weighed.cost > MAX_COST) return costFailure(overLimit(weighed.cost, listSizes));
  // The request itself was counted by the pipeline; every mutation past the first counts too.
  if (weighed.mutations > 1) caller.charge?.(weighed.mutations - 1);

  const ctx: RequestContext = { canRead: caller.canRead, canWrite: caller.canWrite, now, ops: [] };
  const result = await execute({
    schema: endpointSchema(),
    document,
    rootValue,
    contextValue: ctx,
    variableValues,
    operationName,
  });
  // No data at all means the request failed before execution: variables that do not fit
  // their types, or no single operation to run. Both are the document not fitting.
  if (result.data === undefined || result.data === null)
    return documentFailure(result.errors ?? []);
  return {
    status: 200,
    body: {
      data: result.data,
      ...(result.errors?.length ? { errors: result.errors.map(fieldError) } : {}),
    },
    ops: ctx.ops,
  };
}

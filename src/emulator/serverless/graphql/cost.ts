// What one GraphQL document may ask of the emulator, weighed before any resolver runs, with
// graphql-query-complexity (a graphql-js validation walk that expands fragments and counts every
// aliased field on its own). graphql-js runs a document's resolvers in one turn of the event loop,
// so a costly document makes every other client wait: its cost is the number of values the answer
// can hold, lists counted at the length they have now (the account's endpoints, their workers),
// plus the endpoint views a `myself { endpoints }` builds. Above MAX_COST the document is refused.
import { getComplexity, type ComplexityEstimator } from "graphql-query-complexity";
import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type SelectionSetNode } from "graphql";

/**
 * The costliest document admitted. `myself` with every endpoint field and its workers costs
 * about 21 an endpoint plus 4 a worker: 300 endpoints of one worker, or 100 of ten, read in one
 * request. `bench/graphql-cost.ts` measures the documents at the limit: 12 to 32 ms of CPU.
 */
export const MAX_COST = 10_000;

/**
 * The fields the walk may visit, fragments expanded, before it stops: the walk's own bound, so a
 * document that spreads fragments into fragments costs the analysis no more than this.
 */
export const MAX_NODES = 5_000;

/**
 * Fields of one response name, and fragments, that one selection set may hold (fragments expanded).
 * graphql-js's validation compares every pair of them (OverlappingFieldsCanBeMerged): 600 `pods`
 * at one level keep it busy for a quarter of a second before the cost is known.
 */
export const MAX_SAME_NAME = 10;
export const MAX_FRAGMENTS_AT_ONE_LEVEL = 10;

/** The code of a document refused for its cost (HTTP 400). */
export const COST_CODE = "QUERY_TOO_COSTLY";

/** What building one endpoint's view costs, and one worker's in it (measured: as many fields). */
const VIEW_PER_ENDPOINT = 5;
const VIEW_PER_WORKER = 2;
/** What one mutation costs besides what it selects (measured: about as much as 60 fields). */
export const MUTATION_COST = 60;

/** How long the lists are now: what the cost of a list field multiplies. */
export interface ListSizes {
  endpoints: number;
  /** Workers of every endpoint together. */
  workers: number;
}

export interface DocumentCost {
  cost: number;
  /** Root mutation fields the document runs (each counts against the rate limit). */
  mutations: number;
}

/** The document's cost, or the refusal when the walk itself is too long. */
export function documentCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  sizes: ListSizes,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): DocumentCost | GraphQLError {
  const mutation = schema.getMutationType();
  let mutations = 0;
  const endpoints = Math.max(1, sizes.endpoints);
  // A worker list at the length of the average endpoint's: summed over every endpoint it is the
  // workers there are.
  const workersEach = Math.max(1, Math.ceil(sizes.workers / endpoints));
  const estimator: ComplexityEstimator = ({ type, field, childComplexity }) => {
    if (type === mutation) {
      mutations++;
      // A change does the store's work and answers an error or an endpoint's view: many fields' worth.
      return MUTATION_COST + childComplexity;
    }
    if (type.name === "User" && field.name === "endpoints") {
      // Each `endpoints` builds the view of every endpoint with its workers, whatever it selects.
      return 1 + endpoints * (VIEW_PER_ENDPOINT + childComplexity) + VIEW_PER_WORKER * sizes.workers;
    }
    if (type.name === "Endpoint" && field.name === "pods") return 1 + workersEach * childComplexity;
    return 1 + childComplexity;
  };
  try {
    const cost = getComplexity({ schema, query: document, variables, operationName, estimators: [estimator], maxQueryNodes: MAX_NODES });
    return { cost, mutations };
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    // The walk's own bound (fragments spread into fragments): the document is too costly to weigh.
    if (/maximum allowed number of nodes/.test(e.message)) {
      return costError(`the document expands to more than ${MAX_NODES} fields (fragments spread included); the limit is ${MAX_NODES}`);
    }
    return e;
  }
}

/**
 * Why the document would keep validation busy, if it would: a selection set (fragments expanded)
 * holding more than MAX_SAME_NAME fields of one response name or more than
 * MAX_FRAGMENTS_AT_ONE_LEVEL fragments. Walks at most MAX_NODES selections; past that it refuses.
 * Runs before validation, so the document may still be invalid (unknown fragments are skipped).
 */
export function crowding(document: DocumentNode): GraphQLError | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  let visited = 0;
  const tooLong = () => costError(`the document expands to more than ${MAX_NODES} fields (fragments spread included); the limit is ${MAX_NODES}`);
  // One level: the response names and fragment names it holds, fragments expanded in place.
  const level = (set: SelectionSetNode, names: Map<string, number>, spread: Set<string>, subs: SelectionSetNode[], active: Set<string>): GraphQLError | undefined => {
    for (const sel of set.selections) {
      if (++visited > MAX_NODES) return tooLong();
      if (sel.kind === Kind.FIELD) {
        const name = sel.alias?.value ?? sel.name.value;
        const n = (names.get(name) ?? 0) + 1;
        if (n > MAX_SAME_NAME) {
          return costError(`'${name}' is asked more than ${MAX_SAME_NAME} times at one level (fragments included); the limit is ${MAX_SAME_NAME}`);
        }
        names.set(name, n);
        if (sel.selectionSet) subs.push(sel.selectionSet);
        continue;
      }
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        const err = level(sel.selectionSet, names, spread, subs, active);
        if (err) return err;
        continue;
      }
      const name = sel.name.value;
      const fragment = fragments.get(name);
      if (!fragment || active.has(name)) continue;
      spread.add(name);
      if (spread.size > MAX_FRAGMENTS_AT_ONE_LEVEL) {
        return costError(`more than ${MAX_FRAGMENTS_AT_ONE_LEVEL} fragments are spread at one level; the limit is ${MAX_FRAGMENTS_AT_ONE_LEVEL}`);
      }
      active.add(name);
      const err = level(fragment.selectionSet, names, spread, subs, active);
      active.delete(name);
      if (err) return err;
    }
    return undefined;
  };
  const walk = (set: SelectionSetNode): GraphQLError | undefined => {
    const subs: SelectionSetNode[] = [];
    const err = level(set, new Map(), new Set(), subs, new Set());
    if (err) return err;
    for (const sub of subs) {
      const e = walk(sub);
      if (e) return e;
    }
    return undefined;
  };
  for (const d of document.definitions) {
    const err = d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION ? walk(d.selectionSet) : undefined;
    if (err) return err;
  }
  return undefined;
}

export function costError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: COST_CODE } });
}

/** The refusal of a document whose cost is over MAX_COST. */
export function overLimit(cost: number, sizes: ListSizes): GraphQLError {
  return costError(
    `query cost ${cost} is over the limit of ${MAX_COST} (each field answered counts 1, a list its present length times its ` +
      `selection: ${sizes.endpoints} endpoint(s), ${sizes.workers} worker(s)); ask for fewer aliases, fields or fragments`,
  );
}

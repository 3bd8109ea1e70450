// Hostile GraphQL documents for the emulator's cost limit, shared by its tests and
// `bench/graphql-cost.ts`: aliases of `myself`, `endpoints` and `pods`, multiplied through two
// fragments, as the outside review sent them (issue 35).

/** Every scalar field of an endpoint, as the schema has them. */
export const ENDPOINT_FIELDS =
  "id name gpuIds templateId type idleTimeout locations flashBootType scalerType scalerValue workersMin workersMax networkVolumeId gpuCount executionTimeoutMs";

/**
 * `roots` aliases of `myself`, each spreading a fragment of `lists` aliases of `endpoints`, each
 * spreading a fragment of every endpoint field and `pods` aliases of its workers.
 */
export function aliasBomb(roots: number, lists: number, pods: number): string {
  const range = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(" ");
  return [
    `query Bomb { ${range(roots, (i) => `m${i}: myself { ...U }`)} }`,
    `fragment U on User { ${range(lists, (i) => `e${i}: endpoints { ...E }`)} }`,
    `fragment E on Endpoint { ${ENDPOINT_FIELDS} ${range(pods, (i) => `p${i}: pods { id desiredStatus }`)} }`,
  ].join("\n");
}

/** `n` aliased mutations in one document (each deletes an endpoint that is not there). */
export function mutationBatch(n: number): string {
  return `mutation { ${Array.from({ length: n }, (_, i) => `d${i}: deleteEndpoint(id: "missing-${i}")`).join(" ")} }`;
}

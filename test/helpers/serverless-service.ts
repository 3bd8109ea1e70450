// The ServerlessService driven directly with a fake clock and seeded ids, for the unit tests of
// its GraphQL side (test/unit/emulator/serverless/graphql/execute.test.ts) and of the service
// itself (test/unit/emulator/serverless/service.test.ts).
import { ServerlessService, type ServerlessServiceOptions } from "../../src/emulator/serverless/service";

export const STARTING_MS = 100;
export const DRAIN_MS = 50;

function seeded(seed: number): () => number {
  // mulberry32: deterministic ids across runs.
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GqlResult {
  status: number;
  body: any;
  ops: string[];
}

export function setup(extra: Partial<ServerlessServiceOptions> = {}) {
  let t = 1_700_000_000_000;
  const clock = { now: () => t };
  const svc = new ServerlessService({
    clock,
    timings: { startingMs: STARTING_MS, drainMs: DRAIN_MS },
    random: seeded(7),
    imageBaseUrl: () => "http://127.0.0.1:1",
    ...extra,
  });
  const gql = (
    query: string,
    opts: { canWrite?: boolean; variables?: unknown } = {},
  ): Promise<GqlResult> =>
    svc.executeGraphql(
      { query, ...(opts.variables !== undefined ? { variables: opts.variables } : {}) },
      { canRead: true, canWrite: opts.canWrite ?? true },
    ) as Promise<GqlResult>;
  const FIELDS =
    "id name gpuIds templateId type idleTimeout locations flashBootType scalerType scalerValue workersMin workersMax networkVolumeId gpuCount executionTimeoutMs pods { id desiredStatus }";
  /** saveEndpoint with a literal input object body, e.g. `name: "a", gpuIds: "AMPERE_16"`. */
  const save = (input: string, canWrite = true) =>
    gql(`mutation { saveEndpoint(input: { ${input} }) { ${FIELDS} } }`, { canWrite });
  const create = async (more = "") => {
    const r = await save(`name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1" ${more}`);
    expect(r.body.errors).toBeUndefined();
    return r.body.data.saveEndpoint;
  };
  const list = async () => {
    const r = await gql(`{ myself { endpoints { ${FIELDS} } } }`);
    expect(r.body.errors).toBeUndefined();
    return r.body.data.myself.endpoints as any[];
  };
  const advance = (ms: number) => {
    t += ms;
  };
  return { svc, gql, save, create, list, advance };
}

/** The one error of a field failure, checked for the platform's shape. */
export function fieldFailure(r: GqlResult, field: string, code: string) {
  expect(r.status).toBe(200);
  expect(r.body.data).toEqual({ [field]: null });
  expect(r.body.errors).toHaveLength(1);
  const [e] = r.body.errors;
  expect(e).toEqual({
    message: expect.any(String),
    locations: expect.any(Array),
    path: [field],
    extensions: { code },
  });
  return e.message as string;
}

/** A document that does not fit the schema: no field ran. */
export function documentFailure(r: GqlResult) {
  expect(r.status).toBe(200);
  expect(r.body.data).toBeNull();
  expect(r.body.errors.length).toBeGreaterThan(0);
  for (const e of r.body.errors) {
    expect(e.extensions).toEqual({ code: "GRAPHQL_VALIDATION_FAILED" });
    expect(typeof e.message).toBe("string");
  }
  expect(r.ops).toEqual([]);
  return r.body.errors.map((e: any) => e.message).join("\n");
}

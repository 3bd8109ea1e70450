// The REST v2 serverless schemas (schemas/serverless.ts): an endpoint answered in a later
// revision's spellings read as the contract's, a create's and an update's rules (distinct
// pools, at most one volume, workers.min within workers.max), and the workers and releases read
// leniently where the contract may name more states.
import type { z } from "zod";
import { schemas } from "../../../../src/client";
import { contractExample } from "../../../helpers/contract";

const problems = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("the endpoint", () => {
  const endpoint = () => contractExample("getEndpoint", "200", "endpoint");

  test("the contract's examples read, queue-based and load-balancing", () => {
    expect(problems(schemas.RestEndpointSchema, endpoint())).toEqual([]);
    expect(problems(schemas.RestEndpointSchema, contractExample("createEndpoint", "201", "endpoint"))).toEqual([]);
  });

  test("an answer in the later revision's spellings reads as the contract's", () => {
    const ep = schemas.RestEndpointSchema.parse({
      ...endpoint(),
      type: "QUEUE",
      workers: { min: 0, max: 3, idleTimeout: 9 },
      scaling: { type: "REQUEST_COUNT", requestCount: 2 },
    });
    expect(ep.type).toBe("QUEUE_BASED");
    expect(ep.scaling).toEqual({ type: "REQUEST_COUNT", value: 2, idleTimeout: 9 });
    const lb = schemas.RestEndpointSchema.parse({ ...endpoint(), type: "LOAD_BALANCER", scaling: { type: "QUEUE_DELAY", queueDelay: 4, idleTimeout: 5 } });
    expect(lb.type).toBe("LOAD_BALANCING");
    expect(lb.scaling).toEqual({ type: "QUEUE_DELAY", value: 4, idleTimeout: 5 });
  });

  test("the contract's own spellings win: a value and an idleTimeout given are kept", () => {
    const ep = schemas.RestEndpointSchema.parse({
      ...endpoint(),
      workers: { min: 0, max: 3, idleTimeout: 9 },
      scaling: { type: "QUEUE_DELAY", value: 4, queueDelay: 7, idleTimeout: 5 },
    });
    expect(ep.scaling).toMatchObject({ value: 4, idleTimeout: 5 });
  });

  test("what neither revision spells is refused by name", () => {
    expect(problems(schemas.RestEndpointSchema, { ...endpoint(), type: "BATCH" })).toEqual([expect.stringMatching(/^type: /)]);
    expect(problems(schemas.RestEndpointSchema, { ...endpoint(), scaling: { type: "QUEUE_DELAY", idleTimeout: 5 } })).toEqual([expect.stringMatching(/^scaling.value: /)]);
    expect(problems(schemas.RestEndpointSchema, { ...endpoint(), flashboot: "TURBO" })).toEqual([expect.stringMatching(/^flashboot: /)]);
    expect(problems(schemas.RestEndpointSchema, "ep-1")).toHaveLength(1);
  });
});

describe("a create and an update", () => {
  const create = (over: Record<string, unknown> = {}) =>
    problems(schemas.RestEndpointCreateParamsSchema, { ...contractExample("createEndpoint", "request", "serverlessEndpoint"), ...over });
  const update = (body: unknown) => problems(schemas.RestEndpointUpdateParamsSchema, body);

  test("the contract's examples pass; an update is sparse, so an empty one passes too", () => {
    expect(create()).toEqual([]);
    expect(update(contractExample("updateEndpoint", "request", "scaleEndpoint"))).toEqual([]);
    expect(update({})).toEqual([]);
  });

  test("a create needs a name, an image and GPU pools", () => {
    expect(create({ name: undefined, image: "", gpu: undefined }).map((p) => p.split(":")[0]).sort()).toEqual(["gpu", "image", "name"]);
  });

  test("pools are the catalog's tiers, at least one, each once", () => {
    expect(create({ gpu: { pools: ["ADA_24", "AMPERE_16"] } })).toEqual([]);
    expect(create({ gpu: { pools: [] } })).toEqual([expect.stringMatching(/^gpu.pools: /)]);
    expect(create({ gpu: { pools: ["H100"] } })).toEqual([expect.stringMatching(/^gpu.pools.0: /)]);
    expect(create({ gpu: { pools: ["ADA_24", "ADA_24"] } })).toEqual(["gpu.pools: must not name a pool twice"]);
    expect(update({ gpu: { pools: ["ADA_24", "ADA_24"] } })).toEqual(["gpu.pools: must not name a pool twice"]);
  });

  test("workers.min must not exceed workers.max, where both are given", () => {
    for (const check of [create, (over: Record<string, unknown>) => update(over)]) {
      expect(check({ workers: { min: 3, max: 1 } })).toEqual(["workers.min: workers.min must not exceed workers.max"]);
      expect(check({ workers: { min: 3, max: 3 } })).toEqual([]);
      expect(check({ workers: { min: 3 } })).toEqual([]);
    }
  });

  test("at most one network volume; a scaling value of at least 0.5; a timeout of 0 or more", () => {
    expect(create({ networkVolumes: ["a"] })).toEqual([]);
    expect(create({ networkVolumes: ["a", "b"] })).toEqual([expect.stringMatching(/^networkVolumes: /)]);
    expect(update({ scaling: { value: 0.5 } })).toEqual([]);
    expect(update({ scaling: { value: 0.4 } })).toEqual([expect.stringMatching(/^scaling.value: /)]);
    expect(update({ timeout: 0 })).toEqual([]);
    expect(update({ timeout: -1 })).toEqual([expect.stringMatching(/^timeout: /)]);
    expect(update({ type: "LOAD_BALANCING" })).toEqual([expect.stringMatching(/type/)]);
  });
});

describe("workers and releases", () => {
  test("the contract's examples read", () => {
    expect(problems(schemas.EndpointWorkersSchema, contractExample("listEndpointWorkers", "200", "workers"))).toEqual([]);
    expect(problems(schemas.EndpointReleasesSchema, contractExample("listEndpointReleases", "200", "releases"))).toEqual([]);
  });

  test("a worker's status and a release's source the contract may add later are kept as sent", () => {
    const workers = contractExample("listEndpointWorkers", "200", "workers");
    workers.workers[0].status = "DRAINING";
    expect(schemas.EndpointWorkersSchema.parse(workers).workers[0].status).toBe("DRAINING");
    const releases = contractExample("listEndpointReleases", "200", "releases");
    releases.releases[0].source = "API";
    expect(schemas.EndpointReleasesSchema.parse(releases).releases[0].source).toBe("API");
    expect([...schemas.WorkerStatusSchema.options]).toEqual([...schemas.WORKER_STATUSES]);
  });

  test("counts are never negative and a rollout is at most 100 percent along", () => {
    const releases = contractExample("listEndpointReleases", "200", "releases");
    expect(problems(schemas.EndpointReleasesSchema, { ...releases, rollout: { ...releases.rollout, percentOnLatest: 101 } })).toEqual([
      expect.stringMatching(/^rollout.percentOnLatest: /),
    ]);
    const workers = contractExample("listEndpointWorkers", "200", "workers");
    expect(problems(schemas.EndpointWorkersSchema, { ...workers, summary: { ...workers.summary, idle: -1 } })).toEqual([expect.stringMatching(/^summary.idle: /)]);
  });

  test("a diff entry's old and new are raw JSON, null when the field was added or removed", () => {
    for (const value of [null, "a", 1, true, [1], { a: 1 }]) {
      expect(problems(schemas.ReleaseDiffEntrySchema, { field: "env", old: value, new: null })).toEqual([]);
    }
    expect(problems(schemas.ReleaseDiffEntrySchema, { field: "env", new: 1 })).toEqual([expect.stringMatching(/^old: /)]);
  });
});

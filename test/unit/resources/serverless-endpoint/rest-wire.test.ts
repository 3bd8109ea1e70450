// ServerlessEndpoint over REST v2 on the wire, the pure parts of rest-plan.ts not in
// rest-plan.test.ts: the REST answer in the resource's names, the container read back, the
// inputs a refresh reports, and the PATCH of each kind of change.
import { type RestEndpoint, schemas } from "../../../../src/client";
import { UNKNOWN } from "../../../../src/resources/inputs/check";
import {
  CONTAINER_FIELDS,
  containerOf,
  isRest,
  planRestDiff,
  restAsWire,
  restChanges,
  restCreateBody,
  restInputsFromLive,
  restOutputs,
  restPatchBody,
} from "../../../../src/resources/serverless-endpoint/rest-plan";
import { DECLARED_KEY, type EndpointInputs } from "../../../../src/resources/serverless-endpoint/schema";

const SETTINGS = { waitForWorkers: true, readyTimeoutSeconds: 600, drainTimeoutSeconds: 600, waitForRollout: true, rolloutTimeoutSeconds: 1800, [DECLARED_KEY]: [] };

/** An endpoint as the client reads it, through the client's own schema. */
const ep = (over: Record<string, unknown> = {}): RestEndpoint =>
  schemas.RestEndpointSchema.parse({
    ...{ id: "ep1", name: "api", type: "QUEUE_BASED", gpu: { pools: ["ADA_24", "AMPERE_24"], count: 2 }, workers: { min: 1, max: 3 } },
    ...{ scaling: { type: "QUEUE_DELAY", value: 4, idleTimeout: 5 }, dataCenterIds: ["US-KS-2"], networkVolumes: ["nv-1"], timeout: 60000 },
    ...{ flashboot: "FLASHBOOT", createdAt: "2026-01-01T00:00:00Z", image: "w:1", args: "serve", disk: 30, ports: ["8000/http"], env: { A: "1" }, registry: "reg-1" },
    ...over,
  });

describe("the REST answer in the resource's names", () => {
  test("every field mapped: pools joined, QB or LB, scaling, workers, the first volume, flashboot, gpuCount and timeout", () => {
    expect(restAsWire(ep(), [{ desiredStatus: "RUNNING" }])).toStrictEqual({
      id: "ep1", name: "api", gpuIds: "ADA_24,AMPERE_24", templateId: null, type: "QB", idleTimeout: 5, locations: null,
      flashBootType: "FLASHBOOT", scalerType: "QUEUE_DELAY", scalerValue: 4, workersMin: 1, workersMax: 3, networkVolumeId: "nv-1",
      gpuCount: 2, executionTimeoutMs: 60000, pods: [{ desiredStatus: "RUNNING" }],
    });
    expect(restAsWire(ep({ type: "LOAD_BALANCING" })).type).toBe("LB");
  });

  test("no gpu block reads as no pools and one GPU; no volume as null; no workers read as none", () => {
    expect(restAsWire(ep({ gpu: null, networkVolumes: [] }))).toMatchObject({ gpuIds: "", gpuCount: 1, networkVolumeId: null, pods: [] });
    expect(restAsWire(ep({ gpu: { pools: ["ADA_24"] } })).gpuCount).toBe(1);
  });

  test("the container read back with every field, the platform's defaults where it reports none", () => {
    expect(containerOf(ep())).toStrictEqual({ image: "w:1", args: "serve", disk: 30, ports: ["8000/http"], env: { A: "1" }, registry: "reg-1" });
    const bare = ep({ image: undefined, args: undefined, disk: undefined, ports: undefined, env: undefined, registry: undefined });
    expect(containerOf(bare)).toStrictEqual({ image: "", args: "", disk: 0, ports: [], env: {}, registry: null });
    expect(CONTAINER_FIELDS).toEqual(Object.keys(containerOf(bare)));
  });

  test("state holds api rest, the container and the data centers", () => {
    expect(restOutputs(ep(), [], SETTINGS)).toMatchObject({ api: "rest", container: containerOf(ep()), dataCenterIds: ["US-KS-2"], type: "QB", gpuIds: "ADA_24,AMPERE_24" });
  });

  test("a refresh reports no templateId or locations (GraphQL's), the container but its env (credentials), and data centers only when there are some", () => {
    const inputs = restInputsFromLive(ep(), SETTINGS);
    const { env: _env, ...container } = containerOf(ep());
    expect(inputs).toMatchObject({ api: "rest", container, dataCenterIds: ["US-KS-2"], networkVolumeId: "nv-1", name: "api" });
    expect(inputs.container).not.toHaveProperty("env");
    expect(inputs).not.toHaveProperty("templateId");
    expect(inputs).not.toHaveProperty("locations");
    expect(restInputsFromLive(ep({ dataCenterIds: [] }), SETTINGS)).not.toHaveProperty("dataCenterIds");
  });

  test("isRest: only api rest", () => {
    expect([isRest({ api: "rest" }), isRest({ api: "graphql" }), isRest({}), isRest(undefined)]).toEqual([true, false, false, false]);
  });
});

describe("what a REST update changes", () => {
  const olds = { name: "api", gpuIds: "ADA_24", type: "QB", templateId: "tpl-1", locations: "US", api: "rest", container: containerOf(ep()), dataCenterIds: ["US-KS-2"], readyTimeoutSeconds: 600 };
  const same = { name: "api", gpuIds: "ADA_24", container: containerOf(ep()), dataCenterIds: ["US-KS-2"] };

  test("GraphQL's templateId and locations are not REST's to change", () => {
    expect(restChanges(olds, { ...same, templateId: "tpl-2", locations: "RO" })).toEqual([]);
  });

  test("a container field unknown at preview is a change of it; disk left out is not compared (it has no default)", () => {
    expect(restChanges(olds, { ...same, container: { ...same.container, image: UNKNOWN } })).toEqual(["container.image"]);
    const { disk: _d, ...noDisk } = same.container;
    expect(restChanges(olds, { ...same, container: noDisk })).toEqual([]);
    expect(restChanges(olds, { ...same, container: UNKNOWN })).toEqual(["container"]);
  });

  test("data centers: unknown, changed, or removed are a change; none before and none now is not", () => {
    expect(restChanges(olds, { ...same, dataCenterIds: UNKNOWN })).toEqual(["dataCenterIds"]);
    expect(restChanges(olds, { ...same, dataCenterIds: undefined })).toEqual(["dataCenterIds"]);
    expect(restChanges({ ...olds, dataCenterIds: undefined }, { ...same, dataCenterIds: undefined })).toEqual([]);
  });

  test("the diff names a container change by its top field; a type unknown at preview replaces; state without a type does not", () => {
    expect(planRestDiff(olds, { ...same, container: { ...same.container, image: "w:2" } })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(planRestDiff(olds, { ...same, type: UNKNOWN }).replaces).toEqual(["type"]);
    const { type: _t, ...untyped } = olds;
    expect(planRestDiff(untyped, { ...same, type: "QB" })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(planRestDiff(olds, { ...same, readyTimeoutSeconds: 30 }).changes).toBe(true);
    expect(planRestDiff(olds, same).changes).toBe(false);
  });

  test("the move from GraphQL alone, with the same container and data centers, is a change", () => {
    expect(planRestDiff({ ...olds, api: undefined }, same)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  test("a container left out of the inputs wants the platform's defaults (disk: none)", () => {
    expect(restChanges(olds, { ...same, container: undefined })).toEqual(["container.args", "container.ports", "container.env", "container.registry"]);
  });
});

describe("the PATCH of each kind of change", () => {
  const olds = { name: "api", gpuIds: "ADA_24,AMPERE_24", gpuCount: 2, workersMin: 1, workersMax: 3, scalerType: "QUEUE_DELAY", scalerValue: 4, idleTimeout: 5, networkVolumeId: "nv-1", executionTimeoutMs: 60000, flashBootType: "OFF", container: containerOf(ep()) };
  const wanted = (news: Record<string, unknown>) => (f: string) => news[f];
  const patch = (changed: string[], news: Record<string, unknown>) => restPatchBody(changed, olds, news, wanted(news));

  test("a rename sends the name alone", () => {
    expect(patch(["name"], { name: "api-2" })).toStrictEqual({ name: "api-2" });
  });

  test("new pools send the pools with the count in force; a count not a number is left out", () => {
    expect(patch(["gpuIds"], { gpuIds: "ADA_48_PRO" })).toStrictEqual({ gpu: { pools: ["ADA_48_PRO"], count: 2 } });
    expect(restPatchBody(["gpuIds"], { ...olds, gpuCount: null }, { gpuIds: "ADA_48_PRO" }, wanted({ gpuIds: "ADA_48_PRO" }))).toStrictEqual({ gpu: { pools: ["ADA_48_PRO"] } });
  });

  test("workers: both bounds, a bound with no value at 0", () => {
    expect(patch(["workersMax"], { workersMax: 5 })).toStrictEqual({ workers: { min: 1, max: 5 } });
    expect(restPatchBody(["workersMin"], {}, { workersMin: 2 }, wanted({ workersMin: 2 }))).toStrictEqual({ workers: { min: 2, max: 0 } });
  });

  test("scaling sends only the parts that changed", () => {
    expect(patch(["scalerType"], { scalerType: "REQUEST_COUNT" })).toStrictEqual({ scaling: { type: "REQUEST_COUNT" } });
    expect(patch(["scalerValue", "idleTimeout"], { scalerValue: 2, idleTimeout: 0 })).toStrictEqual({ scaling: { value: 2, idleTimeout: 0 } });
  });

  test("a volume attached is a list of one, detached an empty list; the job limit as timeout; flashboot", () => {
    expect(patch(["networkVolumeId"], { networkVolumeId: "nv-2" })).toStrictEqual({ networkVolumes: ["nv-2"] });
    expect(patch(["networkVolumeId"], { networkVolumeId: null })).toStrictEqual({ networkVolumes: [] });
    expect(patch(["executionTimeoutMs", "flashBootType"], { executionTimeoutMs: 0, flashBootType: "FLASHBOOT" })).toStrictEqual({ timeout: 0, flashboot: "FLASHBOOT" });
  });

  test("data centers: the new list, none as an empty one", () => {
    expect(patch(["dataCenterIds"], { dataCenterIds: ["EU-RO-1"] })).toStrictEqual({ dataCenterIds: ["EU-RO-1"] });
    expect(patch(["dataCenterIds"], {})).toStrictEqual({ dataCenterIds: [] });
  });

  test("a whole container change sends every field it declares or defaults (disk only when declared)", () => {
    expect(patch(["container"], { container: { image: "w:2" } })).toStrictEqual({ image: "w:2", args: "", ports: [], env: {}, registry: null });
    expect(patch(["container.disk"], { container: { image: "w:1", disk: 40 } })).toStrictEqual({ disk: 40 });
    expect(patch([], { container: { image: "w:2" } })).toStrictEqual({});
  });
});

describe("the create body", () => {
  test("without workers, scaling, data centers, volume, job limit, flashboot or count: none of their blocks", () => {
    const inputs = { name: "api", gpuIds: "ADA_24", api: "rest", container: { image: "w:1" }, type: "QB" } as unknown as EndpointInputs;
    expect(restCreateBody(inputs)).toStrictEqual({ name: "api", image: "w:1", gpu: { pools: ["ADA_24"] } });
  });

  test("scaling with each part given; workers with a min alone", () => {
    const inputs = { name: "api", gpuIds: "ADA_24", container: { image: "w:1" }, scalerType: "REQUEST_COUNT", idleTimeout: 0, workersMin: 1 } as unknown as EndpointInputs;
    expect(restCreateBody(inputs)).toMatchObject({ scaling: { type: "REQUEST_COUNT", idleTimeout: 0 }, workers: { min: 1 } });
  });
});

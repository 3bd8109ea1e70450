// ServerlessEndpoint over REST v2, the pure parts: what each interface may say (check), the
// REST verdict (diff), and the contract's bodies built from the resource's fields.
import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { wantedValue } from "../../../../src/resources/serverless-endpoint/plan";
import {
  planRestDiff,
  podsOfWorkers,
  restChanges,
  restCreateBody,
  restPatchBody,
} from "../../../../src/resources/serverless-endpoint/rest-plan";
import { checkEndpointInputs, type EndpointInputs } from "../../../../src/resources/serverless-endpoint/schema";

const rest = { name: "api", gpuIds: "ADA_24,AMPERE_24", api: "rest", container: { image: "worker:1" } };
const check = (news: Record<string, unknown>, olds?: Record<string, unknown>) => checkEndpointInputs(olds, news);

describe("check: what each interface can say", () => {
  test.each<[string, Record<string, unknown>, string, RegExp]>([
    ["templateId over REST", { ...rest, templateId: "tpl-1" }, "templateId", /cannot be used with api: "rest".*give `container` instead/],
    ["no container over REST", { ...rest, container: undefined }, "container", /container is required with api: "rest"/],
    ["locations over REST", { ...rest, locations: "US" }, "locations", /locations cannot be set over REST v2/],
    ["a load-balancing create over REST", { ...rest, type: "LB" }, "type", /cannot be created over REST v2 .*create it with api: "graphql", then move it/],
    ["a container over GraphQL", { name: "api", gpuIds: "ADA_24", templateId: "tpl-1", container: { image: "w:1" } }, "container", /container needs api: "rest"/],
    ["dataCenterIds over GraphQL", { name: "api", gpuIds: "ADA_24", templateId: "tpl-1", dataCenterIds: ["US-KS-2"] }, "dataCenterIds", /dataCenterIds needs api: "rest"/],
    ["an unknown container field", { ...rest, container: { image: "w:1", mounts: {} } }, "container", /container has no property mounts/],
    ["a bad port", { ...rest, container: { image: "w:1", ports: ["8000"] } }, "container.ports[0]", /<port>\/<protocol>/],
    ["an unknown api", { ...rest, api: "soap" }, "api", /api must be one of graphql, rest/],
  ])("%s is refused, naming the property and the rule", (_what, news, property, reason) => {
    expect(check(news).failures).toEqual(expect.arrayContaining([{ property, reason: expect.stringMatching(reason) }]));
  });

  test("a REST endpoint with every field passes; an existing LB endpoint may move to REST", () => {
    const full = { ...rest, container: { image: "w:1", args: "serve", disk: 30, ports: ["8000/http"], env: { A: "1" }, registry: null }, dataCenterIds: ["US-KS-2"], workersMin: 1, workersMax: 2, scalerValue: 2, flashBootType: "FLASHBOOT" };
    expect(check(full).failures).toBeUndefined();
    expect(check({ ...rest, type: "LB" }, { name: "api", gpuIds: "ADA_24", templateId: "tpl-1", type: "LB" }).failures).toBeUndefined();
  });

  test("the move drops templateId and locations without the removal refusal", () => {
    const graphql = check({ name: "api", gpuIds: "ADA_24", templateId: "tpl-1", locations: "US", idleTimeout: 5 }).inputs;
    expect(check({ ...rest, idleTimeout: 5 }, graphql).failures).toBeUndefined();
  });
});

describe("diff over REST", () => {
  const olds = {
    ...check(rest).inputs, type: "QB", templateId: null, idleTimeout: 5, locations: "US", flashBootType: "OFF", scalerType: "QUEUE_DELAY",
    scalerValue: 4, workersMin: 0, workersMax: 3, networkVolumeId: null, pods: [], api: "rest",
    container: { image: "worker:1", args: "", disk: 20, ports: [], env: {}, registry: null }, dataCenterIds: [],
  };
  const news = (patch: Record<string, unknown> = {}) => check({ ...rest, ...patch }, olds).inputs;

  test.each<[string, Record<string, unknown>, { changes: boolean; replaces: string[] }]>([
    ["nothing changed (locations set over GraphQL is not REST's to change)", {}, { changes: false, replaces: [] }],
    ["the container's defaults given explicitly", { container: { image: "worker:1", args: "", env: {}, ports: [] } }, { changes: false, replaces: [] }],
    ["an image change updates", { container: { image: "worker:2" } }, { changes: true, replaces: [] }],
    ["an env change updates", { container: { image: "worker:1", env: { A: "1" } } }, { changes: true, replaces: [] }],
    ["a container unknown at preview updates", { container: UNKNOWN }, { changes: true, replaces: [] }],
    ["data centers updates", { dataCenterIds: ["EU-RO-1"] }, { changes: true, replaces: [] }],
    ["workers update", { workersMin: 1 }, { changes: true, replaces: [] }],
    ["type replaces, as over GraphQL", { type: "LB" }, { changes: true, replaces: ["type"] }],
  ])("%s", (_what, patch, want) => {
    expect(planRestDiff(olds, news(patch))).toEqual({ ...want, deleteBeforeReplace: false });
  });

  test("the move from GraphQL is an update, never a replace", () => {
    const graphqlOlds = { ...olds, api: undefined, container: undefined, templateId: "tpl-1" };
    expect(planRestDiff(graphqlOlds, news())).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });
});

describe("the contract's bodies", () => {
  test("create: the container inline, the pools in order, the fields given", () => {
    const inputs = check({ ...rest, container: { image: "w:1", env: { A: "1" } }, workersMax: 2, scalerValue: 3, networkVolumeId: "nv-1", dataCenterIds: ["US-KS-2"], flashBootType: "FLASHBOOT", gpuCount: 2, executionTimeoutMs: 0 }).inputs as EndpointInputs;
    expect(restCreateBody(inputs)).toEqual({
      name: "api",
      image: "w:1",
      env: { A: "1" },
      gpu: { pools: ["ADA_24", "AMPERE_24"], count: 2 },
      workers: { max: 2 },
      timeout: 0,
      scaling: { value: 3 },
      dataCenterIds: ["US-KS-2"],
      networkVolumes: ["nv-1"],
      flashboot: "FLASHBOOT",
    });
  });

  test("patch: only what changed, workers with both bounds, gpu with its pools, a removed env back to {}", () => {
    const olds = { name: "api", gpuIds: "ADA_24", workersMin: 0, workersMax: 3, container: { image: "w:1", args: "", disk: 20, ports: [], env: { A: "1" }, registry: null } };
    const news = { name: "api", gpuIds: "ADA_24,AMPERE_24", workersMin: 2, workersMax: 3, container: { image: "w:1" } };
    const changed = restChanges(olds, news);
    expect(changed).toEqual(["gpuIds", "workersMin", "container.env"]);
    expect(restPatchBody(["gpuIds", "workersMin", "container.env"], olds, news, (f) => wantedValue(f, olds, news))).toEqual({
      gpu: { pools: ["ADA_24", "AMPERE_24"] },
      workers: { min: 2, max: 3 },
      env: {},
    });
  });

  test("patch: gpuCount goes with the current pools, executionTimeoutMs as timeout", () => {
    const olds = { name: "api", gpuIds: "ADA_24,AMPERE_24", gpuCount: 1, executionTimeoutMs: 300000, container: { image: "w:1" } };
    const news = { ...olds, gpuCount: 2, executionTimeoutMs: 0 };
    expect(restChanges(olds, news).filter((f) => !f.startsWith("container."))).toEqual(["gpuCount", "executionTimeoutMs"]);
    expect(restPatchBody(["gpuCount", "executionTimeoutMs"], olds, news, (f) => wantedValue(f, olds, news))).toEqual({
      gpu: { pools: ["ADA_24", "AMPERE_24"], count: 2 },
      timeout: 0,
    });
  });

  test("workers IDLE or RUNNING read as ready", () => {
    expect(podsOfWorkers([{ status: "IDLE" }, { status: "RUNNING" }, { status: "INITIALIZING" }, { status: "THROTTLED" }])).toEqual([
      { desiredStatus: "RUNNING" },
      { desiredStatus: "RUNNING" },
      { desiredStatus: "INITIALIZING" },
      { desiredStatus: "THROTTLED" },
    ]);
  });
});

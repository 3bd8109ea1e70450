import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { changedSavedFields, fullSaveInput, missingLive, planEndpointDiff, wantedValues, workersOrderRefusal } from "../../../../src/resources/serverless-endpoint/plan";
import { planRestDiff } from "../../../../src/resources/serverless-endpoint/rest-plan";
import { checkEndpointInputs, DEFAULT_READY_TIMEOUT_SECONDS, GPU_IDS, LOCATIONS } from "../../../../src/resources/serverless-endpoint/schema";

import { docsTable } from "../../../helpers/docs-tables";

const base = { name: "api", gpuIds: "AMPERE_24", templateId: "tpl-1" };

describe("ServerlessEndpoint check", () => {
  test.each<[string, Record<string, unknown>, string, RegExp]>([
    ["gpuIds outside the tiers", { gpuIds: "A100" }, "gpuIds", /^gpuIds "A100" is not one of AMPERE_16, .*ADA_80_PRO \(one value or a comma-separated list, no spaces\)/],
    ["gpuIds missing", { gpuIds: undefined }, "gpuIds", /gpuIds is required/],
    ["templateId missing", { templateId: undefined }, "templateId", /templateId is required/],
    ["templateId empty", { templateId: "" }, "templateId", /templateId is required/],
    ["type not QB or LB", { type: "XX" }, "type", /type must be one of QB, LB/],
    ["locations outside the regions", { locations: "DE" }, "locations", /^locations "DE" is not one of CZ, FR, GB, NO, RO, US/],
    ["locations list with an unknown code", { locations: "US,XX" }, "locations", /comma-separated list/],
    ["locations list repeating a code", { locations: "US,US" }, "locations", /^locations names US twice/],
    ["locations list with a space", { locations: "US, RO" }, "locations", /^locations " RO" is not one of .*no spaces/],
    ["flashBootType outside OFF/FLASHBOOT", { flashBootType: "FAST" }, "flashBootType", /one of OFF, FLASHBOOT/],
    ["scalerType outside the strategies", { scalerType: "CPU" }, "scalerType", /one of QUEUE_DELAY, REQUEST_COUNT/],
    ["negative idleTimeout", { idleTimeout: -1 }, "idleTimeout", /non-negative integer \(seconds\)/],
    ["fractional scalerValue", { scalerValue: 1.5 }, "scalerValue", /integer >= 1/],
    ["scalerValue 0 (GraphQL takes 1 and up)", { scalerValue: 0 }, "scalerValue", /integer >= 1/],
    ["workersMax as a string", { workersMax: "3" }, "workersMax", /non-negative integer/],
    ["workersMin above workersMax", { workersMin: 3, workersMax: 2 }, "workersMin", /workersMin \(3\) must not exceed workersMax \(2\)/],
    ["empty networkVolumeId", { networkVolumeId: "" }, "networkVolumeId", /network volume id/],
    ["zero ready timeout", { readyTimeoutSeconds: 0 }, "readyTimeoutSeconds", /from 1 to 86400/],
    ["waitForWorkers not a boolean", { waitForWorkers: "yes" }, "waitForWorkers", /true or false/],
    ["gpuCount 0", { gpuCount: 0 }, "gpuCount", /^gpuCount must be an integer >= 1 \(GPUs per worker\)/],
    ["fractional gpuCount", { gpuCount: 1.5 }, "gpuCount", /^gpuCount must be an integer >= 1/],
    ["negative executionTimeoutMs", { executionTimeoutMs: -1 }, "executionTimeoutMs", /^executionTimeoutMs must be a non-negative integer \(ms a job may run; 0 for no limit\)/],
  ])("%s fails on the property, with the rule", (_what, patch, property, reason) => {
    const result = checkEndpointInputs(undefined, { ...base, ...patch });
    expect(result.failures).toEqual([{ property, reason: expect.stringMatching(reason) }]);
  });

  test.each<[string, Record<string, unknown>]>([
    ["every allowed GPU tier", {}],
    ["LB with every optional field", {
      type: "LB", idleTimeout: 0, locations: "US", flashBootType: "FLASHBOOT", scalerType: "REQUEST_COUNT",
      scalerValue: 4, workersMin: 2, workersMax: 2, networkVolumeId: "vol-1", waitForWorkers: false,
      readyTimeoutSeconds: 30, drainTimeoutSeconds: 30,
    }],
    ["any region as an empty string", { locations: "" }],
    ["several regions", { locations: "US,RO,CZ" }],
    ["any region as null, no volume as null", { locations: null, networkVolumeId: null }],
    ["scale to zero", { workersMin: 0, workersMax: 0 }],
    ["several GPUs per worker, no job limit", { gpuCount: 4, executionTimeoutMs: 0 }],
  ])("%s passes", (_what, patch) => {
    for (const gpuIds of GPU_IDS) {
      expect(checkEndpointInputs(undefined, { ...base, gpuIds, ...patch }).failures).toBeUndefined();
    }
  });

  test("every region passes", () => {
    for (const locations of LOCATIONS) {
      expect(checkEndpointInputs(undefined, { ...base, locations }).failures).toBeUndefined();
    }
  });

  test("values unknown at preview pass, including both sides of workersMin <= workersMax", () => {
    const news = { ...base, gpuIds: UNKNOWN, templateId: UNKNOWN, workersMin: UNKNOWN, workersMax: 1, locations: UNKNOWN };
    expect(checkEndpointInputs(undefined, news).failures).toBeUndefined();
    expect(checkEndpointInputs(undefined, { ...base, workersMin: 5, workersMax: UNKNOWN }).failures).toBeUndefined();
  });

  test("several failures are all reported at once", () => {
    const result = checkEndpointInputs(undefined, { name: "x", gpuIds: "nope", type: "ZZ" });
    expect(result.failures?.map((f) => f.property).sort()).toEqual(["gpuIds", "templateId", "type"]);
  });

  test("defaults are filled, so an explicit default gives the same inputs as an omitted one", () => {
    const omitted = checkEndpointInputs(undefined, { ...base }).inputs;
    const explicit = checkEndpointInputs(undefined, {
      ...base, type: "QB", waitForWorkers: true, readyTimeoutSeconds: DEFAULT_READY_TIMEOUT_SECONDS, drainTimeoutSeconds: 600,
    }).inputs;
    expect(omitted).toEqual(explicit);
    expect(omitted).toMatchObject({ type: "QB", waitForWorkers: true, readyTimeoutSeconds: 600, drainTimeoutSeconds: 600 });
  });

  test("no key is left undefined in the inputs", () => {
    const { inputs } = checkEndpointInputs(undefined, { ...base, idleTimeout: undefined });
    expect(Object.values(inputs).includes(undefined)).toBe(false);
    expect("idleTimeout" in inputs).toBe(false);
  });

  test("a missing name is generated from the logical name and kept across updates", () => {
    const first = checkEndpointInputs(undefined, { ...base, name: undefined, __logicalName: "inference" }).inputs;
    expect(first.name).toMatch(/^inference-[0-9a-f]{7}$/);
    const second = checkEndpointInputs(first, { ...base, name: undefined, __logicalName: "inference" }).inputs;
    expect(second.name).toBe(first.name);
  });
});

describe("ServerlessEndpoint diff", () => {
  // Old outputs as read back from the platform, with everything it fills in.
  const olds = {
    name: "api", gpuIds: "AMPERE_24", templateId: "tpl-1", type: "QB", idleTimeout: 5, locations: null,
    flashBootType: "OFF", scalerType: "QUEUE_DELAY", scalerValue: 4, workersMin: 0, workersMax: 3,
    networkVolumeId: null, gpuCount: 1, executionTimeoutMs: 300000, pods: [], waitForWorkers: true, readyTimeoutSeconds: 600,
    drainTimeoutSeconds: 600,
  };
  const news = (patch: Record<string, unknown> = {}) => checkEndpointInputs(undefined, { ...base, ...patch }).inputs;

  test.each<[string, Record<string, unknown>, { changes: boolean; replaces: string[] }]>([
    ["nothing changed, platform-filled values omitted", {}, { changes: false, replaces: [] }],
    ["explicit values equal to what the platform filled in", { idleTimeout: 5, scalerType: "QUEUE_DELAY", flashBootType: "OFF", type: "QB" }, { changes: false, replaces: [] }],
    ["any region as \"\" against null read back", { locations: "" }, { changes: false, replaces: [] }],
    ["no volume as null against null read back", { networkVolumeId: null }, { changes: false, replaces: [] }],
    ["type QB -> LB replaces", { type: "LB" }, { changes: true, replaces: ["type"] }],
    ["type unknown at preview replaces", { type: UNKNOWN }, { changes: true, replaces: ["type"] }],
    ["rename updates in place", { name: "api-2" }, { changes: true, replaces: [] }],
    ["template change updates in place", { templateId: "tpl-2" }, { changes: true, replaces: [] }],
    ["gpu tier change updates in place", { gpuIds: "ADA_80_PRO" }, { changes: true, replaces: [] }],
    ["workers change updates in place", { workersMin: 1 }, { changes: true, replaces: [] }],
    ["region set updates in place", { locations: "RO" }, { changes: true, replaces: [] }],
    ["volume attached updates in place", { networkVolumeId: "vol-9" }, { changes: true, replaces: [] }],
    ["unknown workersMax updates in place", { workersMax: UNKNOWN }, { changes: true, replaces: [] }],
    ["a wait setting alone updates in place", { readyTimeoutSeconds: 60 }, { changes: true, replaces: [] }],
    ["type and workers together replace", { type: "LB", workersMin: 2 }, { changes: true, replaces: ["type"] }],
    ["gpuCount and executionTimeoutMs at what the platform filled in", { gpuCount: 1, executionTimeoutMs: 300000 }, { changes: false, replaces: [] }],
    ["gpuCount change updates in place", { gpuCount: 2 }, { changes: true, replaces: [] }],
    ["executionTimeoutMs change updates in place", { executionTimeoutMs: 0 }, { changes: true, replaces: [] }],
  ])("%s", (_what, patch, want) => {
    expect(planEndpointDiff(olds, news(patch))).toEqual({ ...want, deleteBeforeReplace: false });
  });

  test("changedSavedFields lists only the fields the update must send", () => {
    expect(changedSavedFields(olds, news({ workersMin: 1, idleTimeout: 5, templateId: "tpl-2" }))).toEqual(["templateId", "workersMin"]);
    expect(changedSavedFields(olds, news())).toEqual([]);
  });
});

describe("every GraphQL save carries every field of the save input", () => {
  const live = {
    name: "api", gpuIds: "AMPERE_24", templateId: "tpl-1", idleTimeout: 60, locations: "US", flashBootType: "FLASHBOOT",
    scalerType: "REQUEST_COUNT", scalerValue: 9, workersMin: 1, workersMax: 3, networkVolumeId: null, gpuCount: 2, executionTimeoutMs: 1000,
  };

  test("declared values over live ones; the others at their live values, a null that means none included", () => {
    const news = checkEndpointInputs(undefined, { ...base, workersMax: 5 }).inputs!;
    expect(fullSaveInput("ep-1", "QB", live, wantedValues(live, news))).toEqual({ id: "ep-1", type: "QB", ...live, workersMax: 5 });
  });

  test("the scale-to-zero: 0/0 over the endpoint as just read", () => {
    expect(fullSaveInput("ep-1", "LB", live, { workersMin: 0, workersMax: 0 })).toEqual({ id: "ep-1", type: "LB", ...live, workersMin: 0, workersMax: 0 });
  });

  test("a field the platform reports no value for is left out (nothing to keep), unless its null means none", () => {
    const sparse = { ...live, idleTimeout: null, scalerValue: undefined, locations: null };
    const input = fullSaveInput("ep-1", "QB", sparse, {}) as Record<string, unknown>;
    expect(input).not.toHaveProperty("idleTimeout");
    expect(input).not.toHaveProperty("scalerValue");
    expect(input).toMatchObject({ locations: null, networkVolumeId: null });
  });

  test("state written before gpuCount existed: the fields without a live value are named, so the update reads them first", () => {
    const { gpuCount: _g, executionTimeoutMs: _e, ...old } = live;
    expect(missingLive(old, wantedValues(old, checkEndpointInputs(undefined, base).inputs!))).toEqual(["gpuCount", "executionTimeoutMs"]);
    expect(missingLive(old, { gpuCount: 2, executionTimeoutMs: 0 })).toEqual([]);
  });
});

describe("docs/serverless-endpoint.md's update-or-replace table says what the plan does", () => {
  /** A new value for each property the docs name. */
  const NEW_VALUES: Record<string, unknown> = {
    type: "LB", name: "api-2", gpuIds: "ADA_24,AMPERE_24", templateId: "tpl-2", idleTimeout: 9, locations: "US",
    flashBootType: "FLASHBOOT", scalerType: "REQUEST_COUNT", scalerValue: 7, workersMin: 1, workersMax: 5,
    networkVolumeId: "vol-9", waitForWorkers: false, readyTimeoutSeconds: 30, drainTimeoutSeconds: 30,
    waitForRollout: false, rolloutTimeoutSeconds: 60,
  };
  const olds = {
    ...checkEndpointInputs(undefined, base).inputs, type: "QB", idleTimeout: 5, locations: null, flashBootType: "OFF",
    scalerType: "QUEUE_DELAY", scalerValue: 4, workersMin: 0, workersMax: 3, networkVolumeId: null, pods: [],
  };

  // The REST row: the move (api from graphql to rest, a container in place of templateId), and
  // a container or data centers changed on an endpoint already over REST.
  const restBase = { name: "api", gpuIds: "AMPERE_24", api: "rest", container: { image: "worker:1" } };
  const restOlds = {
    ...olds, ...checkEndpointInputs(undefined, restBase).inputs, templateId: null, api: "rest",
    container: { image: "worker:1", args: "", disk: 20, ports: [], env: {}, registry: null }, dataCenterIds: [],
  };
  const REST_CHANGES: Record<string, [Record<string, unknown>, Record<string, unknown>]> = {
    api: [olds, restBase],
    container: [restOlds, { ...restBase, container: { image: "worker:2" } }],
    dataCenterIds: [restOlds, { ...restBase, dataCenterIds: ["US-KS-2"] }],
  };

  test.each(docsTable("ServerlessEndpoint"))("$row: $verdict", ({ row, verdict }) => {
    const named = [...row.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]!);
    for (const property of named.filter((p) => p in REST_CHANGES)) {
      const [before, after] = REST_CHANGES[property]!;
      const diff = planRestDiff(before, checkEndpointInputs(before, after).inputs);
      expect({ property, changes: diff.changes, replaces: diff.replaces }).toEqual({ property, changes: true, replaces: verdict === "replace" ? [property] : [] });
    }
    const properties = named.filter((p) => p in NEW_VALUES);
    expect(properties.length + named.filter((p) => p in REST_CHANGES).length).toBeGreaterThan(0);
    for (const property of properties) {
      const news = checkEndpointInputs(olds, { ...base, [property]: NEW_VALUES[property] }).inputs;
      const diff = planEndpointDiff(olds, news);
      expect({ property, changes: diff.changes, replaces: diff.replaces }).toEqual({
        property,
        changes: true,
        replaces: verdict === "replace" ? [property] : [],
      });
    }
  });
});

describe("workersMin above workersMax, one side not declared: refused at preview, before the platform refuses the save", () => {
  const olds = { ...base, workersMin: 0, workersMax: 0, __declared: [] as string[] };
  test("a declared workersMin above the endpoint's workersMax set outside the stack names both and the way out", () => {
    expect(workersOrderRefusal(olds, { ...base, workersMin: 1 })).toBe(
      "workersMin 1 (declared) would be above workersMax 0 (the endpoint's, which the program leaves undeclared), which the platform refuses. " +
        "Declare workersMax (at least 1), or change the one declared.",
    );
  });
  test("a declared workersMax below the endpoint's workersMin: declare workersMin", () => {
    expect(workersOrderRefusal({ ...olds, workersMin: 2, workersMax: 4 }, { ...base, workersMax: 1 })).toMatch(/^workersMin 2 \(the endpoint's, .*\) would be above workersMax 1 \(declared\).*Declare workersMin \(at most 1\)/);
  });
  test("a workersMax removed from the program goes to the platform's default 0: below a declared workersMin 1", () => {
    expect(workersOrderRefusal({ ...olds, workersMin: 1, workersMax: 3, __declared: ["workersMin", "workersMax"] }, { ...base, workersMin: 1 })).toMatch(
      /^workersMin 1 \(declared\) would be above workersMax 0 \(the platform's default, as the program no longer declares it\)/,
    );
  });
  test.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ["equal", { ...olds, workersMax: 1 }, { ...base, workersMin: 1 }],
    ["below", { ...olds, workersMax: 3 }, { ...base, workersMin: 1 }],
    ["both declared (check's rule)", olds, { ...base, workersMin: 3, workersMax: 2 }],
    ["neither declared", { ...olds, workersMin: 2, workersMax: 1 }, base],
    ["a side unknown at preview", olds, { ...base, workersMin: UNKNOWN }],
  ])("none when %s", (_, before, after) => {
    expect(workersOrderRefusal(before, after)).toBeUndefined();
  });
});

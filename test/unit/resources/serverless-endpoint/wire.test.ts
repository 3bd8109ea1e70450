// ServerlessEndpoint on the wire, the pure parts of plan.ts: the settings only this resource
// keeps, the worker price, the outputs and the inputs a refresh reports, and the create input.
import type { Endpoint as WireEndpoint } from "../../../../src/client";
import { autoName, LOGICAL_NAME_KEY, OWNER_TOKEN_KEY } from "../../../../src/resources/lifecycle/owner";
import {
  changedSavedFields,
  createInput,
  endpointOutputs,
  firstTier,
  hourlyCostOf,
  inputsFromLive,
  localSettings,
  planEndpointDiff,
  runningWorkers,
  SAVED_FIELDS,
  wantedValue,
  WORKER_PRICE_KEY,
} from "../../../../src/resources/serverless-endpoint/plan";
import { APPLIED_NAME_KEY, checkEndpointInputs, DECLARED_KEY, type EndpointInputs } from "../../../../src/resources/serverless-endpoint/schema";

const DEFAULTS = { waitForWorkers: true, readyTimeoutSeconds: 600, drainTimeoutSeconds: 600, waitForRollout: true, rolloutTimeoutSeconds: 1800, [DECLARED_KEY]: [] };

/** An endpoint as the GraphQL client reads it. */
const live = (over: Record<string, unknown> = {}): WireEndpoint =>
  ({
    id: "ep1", name: "api", gpuIds: "ADA_24,AMPERE_24", templateId: "tpl-1", type: "QB", idleTimeout: 5, locations: null,
    flashBootType: "OFF", scalerType: "QUEUE_DELAY", scalerValue: 4, workersMin: 1, workersMax: 3, networkVolumeId: null,
    gpuCount: 2, executionTimeoutMs: 300000, pods: [{ desiredStatus: "RUNNING" }, { desiredStatus: "EXITED" }, { desiredStatus: "RUNNING" }],
    ...over,
  }) as WireEndpoint;

describe("the settings only this resource keeps", () => {
  test("with nothing to start from: wait for workers, 600 s bounds, nothing declared, no name applied", () => {
    expect(localSettings(undefined)).toStrictEqual(DEFAULTS);
    expect(localSettings({})).toStrictEqual(DEFAULTS);
  });

  test("the program's wait settings and declared fields are kept (a copy of the list)", () => {
    const declared = ["workersMin"] as never[];
    const from = { waitForWorkers: false, readyTimeoutSeconds: 30, drainTimeoutSeconds: 10, waitForRollout: false, rolloutTimeoutSeconds: 60, [DECLARED_KEY]: declared };
    const settings = localSettings(from);
    expect(settings).toStrictEqual(from);
    // State written before the rollout settings existed means their defaults.
    expect(localSettings({ waitForWorkers: true, readyTimeoutSeconds: 30, drainTimeoutSeconds: 10, [DECLARED_KEY]: [] })).toMatchObject({ waitForRollout: true, rolloutTimeoutSeconds: 1800 });
    expect(settings[DECLARED_KEY]).not.toBe(declared);
  });

  test("the name applied: the one kept, an auto-name, a name the check settled on, or the name read from state of 0.1.0; never a name the program gives (it may be secret)", () => {
    expect(localSettings({ [APPLIED_NAME_KEY]: "kept", name: "other", [DECLARED_KEY]: [] })[APPLIED_NAME_KEY]).toBe("kept");
    const auto = { name: autoName("api", undefined, "3f9a1c2e"), [LOGICAL_NAME_KEY]: "api", [OWNER_TOKEN_KEY]: "3f9a1c2e", [DECLARED_KEY]: [] };
    expect(localSettings(auto as never)[APPLIED_NAME_KEY]).toBe(auto.name);
    expect(localSettings({ name: "read" })[APPLIED_NAME_KEY]).toBe("read");
    expect(localSettings({ name: "given", [DECLARED_KEY]: ["name"] })).not.toHaveProperty(APPLIED_NAME_KEY);
    // The program removed its name: the check settled on the one it had, which is now the record's.
    expect(localSettings({ name: "once-given", [DECLARED_KEY]: ["gpuIds"] })[APPLIED_NAME_KEY]).toBe("once-given");
  });

  test("an update keeps the auto-name its old outputs record while it keeps that name, whatever token the check settled on", () => {
    // The check after a refresh (no token in the refreshed inputs) may derive another token: the kept name is not its auto-name.
    const kept = { name: "api-3f9a1c2", [LOGICAL_NAME_KEY]: "api", [OWNER_TOKEN_KEY]: "bb017ae8", [DECLARED_KEY]: [] };
    expect(localSettings(kept as never, { [APPLIED_NAME_KEY]: "api-3f9a1c2" })[APPLIED_NAME_KEY]).toBe("api-3f9a1c2");
    // A name the program now gives is not the record's: not kept.
    expect(localSettings({ ...kept, name: "given", [DECLARED_KEY]: ["name"] } as never, { [APPLIED_NAME_KEY]: "api-3f9a1c2" })).not.toHaveProperty(APPLIED_NAME_KEY);
    // Old outputs without a record: the name the check settled on (not the program's) is recorded now.
    expect(localSettings(kept as never, {})[APPLIED_NAME_KEY]).toBe("api-3f9a1c2");
  });

  test("the worker price is kept only when it has a tier text and a USD number; its key is in users' state", () => {
    expect(WORKER_PRICE_KEY).toBe("__workerPrice");
    const price = (p: unknown) => localSettings({ [WORKER_PRICE_KEY]: p } as never)[WORKER_PRICE_KEY];
    expect(price({ tier: "ADA_24", usd: 0.5, extra: 1 })).toStrictEqual({ tier: "ADA_24", usd: 0.5 });
    expect(price({ tier: 24, usd: 0.5 })).toBeUndefined();
    expect(price({ tier: "ADA_24", usd: "0.5" })).toBeUndefined();
  });
});

describe("the worker price and the hourly cost", () => {
  const price = { tier: "ADA_24", usd: 0.5 };

  test("the first tier of a priority list, spaces trimmed", () => {
    expect(firstTier("ADA_24,AMPERE_24")).toBe("ADA_24");
    expect(firstTier(" ADA_24 ,AMPERE_24")).toBe("ADA_24");
  });

  test("a worker is gpuCount GPUs at the first tier's price: workersMin to workersMax of them", () => {
    expect(hourlyCostOf(live(), price)).toEqual({ min: 1, max: 3 });
    expect(hourlyCostOf(live({ gpuCount: undefined, workersMin: undefined }), price)).toEqual({ min: 0, max: 1.5 });
    expect(hourlyCostOf(live({ workersMax: undefined }), price)).toEqual({ min: 1, max: 0 });
  });

  test("no cost without a price, for a price of another tier, or without gpuIds", () => {
    expect(hourlyCostOf(live(), undefined)).toBeUndefined();
    expect(hourlyCostOf(live({ gpuIds: "AMPERE_24,ADA_24" }), price)).toBeUndefined();
    expect(hourlyCostOf(live({ gpuIds: null }), price)).toBeUndefined();
  });

  test("workers RUNNING now; none without a list", () => {
    expect(runningWorkers(live())).toBe(2);
    expect(runningWorkers(live({ pods: undefined }))).toBe(0);
  });
});

describe("the endpoint as state holds it", () => {
  test("every saved field present (null when the platform reports none), the workers' statuses only, the settings, the cost when priced", () => {
    const settings = { ...DEFAULTS, [WORKER_PRICE_KEY]: { tier: "ADA_24", usd: 0.5 } };
    const outs = endpointOutputs(live({ pods: [{ desiredStatus: "RUNNING", id: "w1" }], networkVolumeId: undefined }), settings);
    for (const field of SAVED_FIELDS) expect(outs).toHaveProperty(field);
    expect(outs).toMatchObject({ networkVolumeId: null, type: "QB", pods: [{ desiredStatus: "RUNNING" }], workersMin: 1, gpuIds: "ADA_24,AMPERE_24", hourlyCost: { min: 1, max: 3 } });
    expect(outs.pods[0]).toStrictEqual({ desiredStatus: "RUNNING" });
    expect(outs).toMatchObject(settings);
    expect(endpointOutputs(live(), DEFAULTS)).not.toHaveProperty("hourlyCost");
  });

  test("the type read, else the caller's, else queue-based; no workers list is an empty one", () => {
    expect(endpointOutputs(live({ type: "LB" }), DEFAULTS, "QB").type).toBe("LB");
    expect(endpointOutputs(live({ type: undefined }), DEFAULTS, "LB").type).toBe("LB");
    expect(endpointOutputs(live({ type: undefined, pods: undefined }), DEFAULTS)).toMatchObject({ type: "QB", pods: [] });
  });

  test("a refresh reports what the platform has, fields it leaves empty left out, the wait settings, and the name last applied", () => {
    const settings = { ...DEFAULTS, readyTimeoutSeconds: 30, [WORKER_PRICE_KEY]: { tier: "ADA_24", usd: 0.5 }, [APPLIED_NAME_KEY]: "api-applied" };
    const inputs = inputsFromLive(live({ name: "renamed-outside" }), settings);
    expect(inputs).toStrictEqual({
      type: "QB", waitForWorkers: true, readyTimeoutSeconds: 30, drainTimeoutSeconds: 600, waitForRollout: true, rolloutTimeoutSeconds: 1800, [DECLARED_KEY]: [],
      name: "api-applied", gpuIds: "ADA_24,AMPERE_24", templateId: "tpl-1", idleTimeout: 5, flashBootType: "OFF", scalerType: "QUEUE_DELAY",
      scalerValue: 4, workersMin: 1, workersMax: 3, gpuCount: 2, executionTimeoutMs: 300000,
    });
    const plain = inputsFromLive(live({ type: undefined, workersMin: 0, idleTimeout: undefined }), DEFAULTS);
    expect(plain).toMatchObject({ type: "QB", name: "api", workersMin: 0 });
    expect(Object.keys(plain)).not.toContain("idleTimeout");
  });

  test("a name the program removed is kept and recorded: renamed outside, the refresh reports it and the next preview renames it back", () => {
    const given = checkEndpointInputs(undefined, { name: "a", gpuIds: "ADA_24", templateId: "tpl-1" }).inputs as Record<string, unknown>;
    expect(given[DECLARED_KEY]).toContain("name");
    expect(localSettings(given)).not.toHaveProperty(APPLIED_NAME_KEY);
    // The program drops `name`: the check keeps "a", which the program no longer gives, so state records it.
    const removed = checkEndpointInputs(given, { gpuIds: "ADA_24", templateId: "tpl-1" }).inputs as Record<string, unknown>;
    expect(removed).toMatchObject({ name: "a" });
    expect(removed[DECLARED_KEY]).not.toContain("name");
    const settings = localSettings(removed);
    expect(settings[APPLIED_NAME_KEY]).toBe("a");
    // Renamed to "a-" outside Pulumi: the refresh reports the name applied, and the check settles on it.
    const refreshed = inputsFromLive(live({ name: "a-" }), settings);
    expect(checkEndpointInputs(refreshed, { gpuIds: "ADA_24", templateId: "tpl-1" }).inputs).toMatchObject({ name: "a" });
  });

  test("the create input: the type and every saved field the program gave, no other", () => {
    const inputs = checkEndpointInputs(undefined, { name: "api", gpuIds: "ADA_24", templateId: "tpl-1", workersMax: 2 }).inputs as EndpointInputs;
    expect(createInput(inputs)).toStrictEqual({ type: "QB", name: "api", gpuIds: "ADA_24", templateId: "tpl-1", workersMax: 2 });
  });
});

describe("what an update compares", () => {
  const olds = { name: "api", gpuIds: "ADA_24", templateId: "tpl-1", type: "QB", workersMin: 2, workersMax: 3, networkVolumeId: "vol-1", locations: null, readyTimeoutSeconds: 600 };

  test("a field declared before and removed since goes back to the platform's default", () => {
    const declared = { ...olds, [DECLARED_KEY]: ["workersMin"] };
    const news = { name: "api", gpuIds: "ADA_24", templateId: "tpl-1" };
    expect(wantedValue("workersMin", declared, news)).toBe(0);
    expect(changedSavedFields(declared, news)).toEqual(["workersMin"]);
    expect(changedSavedFields(olds, news)).toEqual([]);
  });

  test("detaching a volume (null) is a change; a removed volume the platform reports none of is not; only locations reads \"\" as none", () => {
    expect(changedSavedFields(olds, { networkVolumeId: null })).toEqual(["networkVolumeId"]);
    const { networkVolumeId: _v, ...noVolume } = olds;
    expect(changedSavedFields({ ...noVolume, [DECLARED_KEY]: ["networkVolumeId"] }, {})).toEqual([]);
    expect(changedSavedFields({ ...olds, networkVolumeId: "" }, { networkVolumeId: null })).toEqual(["networkVolumeId"]);
    expect(changedSavedFields({ ...olds, locations: "" }, { locations: null })).toEqual([]);
  });

  test("state without a type is no replace; a wait setting the inputs leave out is no change", () => {
    const { type: _t, ...untyped } = olds;
    expect(planEndpointDiff(untyped, { name: "api", type: "QB" })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(planEndpointDiff(olds, { name: "api" })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });
});

// What a ServerlessEndpoint's change does to what runs, as its step line says it
// (serverless-endpoint/step-effects.ts): the saved fields it sends, the wait settings that send
// nothing, the rolls of its workers named as its own or as its Template's, an unfinished rollout,
// the move between APIs, and what a replacement loses.
import { stepLine } from "../../../../src/resources/lifecycle/step-line";
import { ENDPOINT_STEP_EFFECTS, endpointStepPlan } from "../../../../src/resources/serverless-endpoint/step-effects";

describe("a serverless endpoint: the rollout plan says which changes roll its workers, and whose", () => {
  const line = (olds: Record<string, any>, news: Record<string, any>, changes: string[], rolls: string[]) =>
    stepLine('ServerlessEndpoint "api"', endpointStepPlan(olds, news, [], changes, rolls), ENDPOINT_STEP_EFFECTS);
  const fingerprint = { image: "w:1", args: "", ports: [], env: [], envDigest: "0", registry: null };

  test.each([
    [{}, {}, ["workersMax"], [], 'ServerlessEndpoint "api": updated in place (workersMax)'],
    [{}, { readyTimeoutSeconds: 60 }, [], [], 'ServerlessEndpoint "api": no write (up reads it and waits again: readyTimeoutSeconds)'],
    [{}, {}, ["gpuIds", "workersMax"], ["gpu.pools"], 'ServerlessEndpoint "api": updated in place (gpuIds, workersMax); its workers roll, each replaced by one of the new version (gpu.pools); up waits for the rollout'],
    [{}, { waitForRollout: false }, ["flashBootType"], ["flashboot"], 'ServerlessEndpoint "api": updated in place (flashBootType); its workers roll, each replaced by one of the new version (flashboot); up does not wait for it (waitForRollout: false)'],
    [
      { template: fingerprint },
      { template: { ...fingerprint, image: "w:2" }, __template: { resourceName: "worker" } },
      [],
      ["template.image"],
      'ServerlessEndpoint "api": no request to it; its workers roll, each replaced by one of the new version (template.image by its Template "worker"); up waits for the rollout',
    ],
    [{ rollout: { inProgress: true, serving: [] } }, {}, [], ["rollout"], 'ServerlessEndpoint "api": no request to it; its workers roll, each replaced by one of the new version (the rollout the last up left unfinished); up waits for the rollout'],
    [{ api: "graphql" }, { api: "rest" }, [], ["template.id"], 'ServerlessEndpoint "api": updated in place (api); its workers roll, each replaced by one of the new version (template.id); up waits for the rollout'],
  ] as const)("%j -> %j", (olds, news, changes, rolls, want) => {
    expect(line(olds, news, [...changes], [...rolls])).toBe(want);
  });

  test("a type change replaces it: its id and request URLs are lost, no data", () => {
    expect(stepLine('ServerlessEndpoint "api"', endpointStepPlan({}, {}, ["type"], [], []), ENDPOINT_STEP_EFFECTS)).toBe(
      "ServerlessEndpoint \"api\": replaced (type): a new one is made, then the old deleted; lost: its workers, its id and its request URLs (callers must use the new endpoint's)",
    );
  });
});

describe("the step's plan itself", () => {
  test("an unknown api at preview is no move; the same api is none either", () => {
    expect(endpointStepPlan({ api: "rest" }, { api: "rest" }, [], [], []).updates).toEqual([]);
    expect(endpointStepPlan({}, { api: "graphql" }, [], [], []).updates).toEqual([]);
    expect(endpointStepPlan({ api: "rest" }, {}, [], [], []).updates).toEqual(["api"]);
  });

  test("a roll the endpoint's own change makes is named as its own, the Template's as its Template's (unnamed when the program does not declare it)", () => {
    const fingerprint = { image: "w:1", args: "", ports: [], env: [], envDigest: "0", registry: null };
    const plan = endpointStepPlan({ template: fingerprint }, { template: { ...fingerprint, image: "w:2" } }, [], ["templateId"], ["template.image", "template.id"]);
    expect(plan.rolls).toEqual(["template.id", "template.image by its Template"]);
    expect(plan.waitsForRollout).toBe(true);
  });

  test("the verdict passes through; the wait settings are read only; it keeps no data", () => {
    expect(endpointStepPlan({}, {}, ["type", "name"], [], []).replaces).toEqual(["type", "name"]);
    expect(ENDPOINT_STEP_EFFECTS).toMatchObject({ noRequest: [], restarts: [] });
    expect(ENDPOINT_STEP_EFFECTS.readsOnly).toContain("readyTimeoutSeconds");
    expect(ENDPOINT_STEP_EFFECTS.replaced?.destroysData).toBe(false);
    expect(ENDPOINT_STEP_EFFECTS.deleted?.destroysData).toBe(false);
  });
});

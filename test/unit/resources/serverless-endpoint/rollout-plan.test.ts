import { endpointDiff, type ReleasedFields, type ReleasedTemplate, rolls as emulatorRolls, templateDiff } from "../../../../src/emulator/serverless/endpoints/releases";
import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { CONTAINER_KEYS, templateRolls } from "../../../../src/resources/inputs/template-ref";
import { planEndpointDiff, rolloutReasons } from "../../../../src/resources/serverless-endpoint/plan";
import { planRestDiff } from "../../../../src/resources/serverless-endpoint/rest-plan";
import { RELEASE_FIELDS, releaseRolls, rollingChanges, templateChanges } from "../../../../src/resources/serverless-endpoint/rollout-plan";
import { checkEndpointInputs, SAVED_FIELDS } from "../../../../src/resources/serverless-endpoint/schema";

const container = { image: "worker:1", args: "", ports: ["8000/http"], env: { MODEL: "a", TOKEN: "s3cret" }, registry: null };
const rolls = templateRolls(container);

describe("which changes roll the workers (the platform's releases: a release rolls when its diff names one of them)", () => {
  test.each<[string, string | null]>([
    ["gpuIds", "gpu.pools"],
    ["gpuCount", "gpu.count"],
    ["flashBootType", "flashboot"],
    ["networkVolumeId", "networkVolumes"],
    ["dataCenterIds", "dataCenterIds"],
    ["locations", "locations"],
    ["templateId", "template.id"],
    ["container.image", "template.image"],
    ["container.env", "template.env"],
    ["container.disk", "template.disk"],
    ["container", "template"],
    ["name", null],
    ["workersMin", null],
    ["workersMax", null],
    ["scalerType", null],
    ["scalerValue", null],
    ["idleTimeout", null],
    ["executionTimeoutMs", null],
  ])("%s -> %s", (field, release) => {
    expect(rollingChanges([field])).toEqual(release === null ? [] : [release]);
  });

  test("every saved field is in the table (a field added later must say whether it rolls)", () => {
    expect(SAVED_FIELDS.filter((field) => !(field in RELEASE_FIELDS))).toEqual([]);
    // A field the table does not know is taken to roll: up then waits for a rollout that may end at once.
    expect(rollingChanges(["somethingNew"])).toEqual(["somethingNew"]);
  });

  test.each<[string, string[], boolean]>([
    ["a template field", ["template.image"], true],
    ["env names", ["template.env"], true],
    ["gpu pools among others", ["workers.max", "gpu.pools"], true],
    ["worker bounds and scaling", ["workers.min", "workers.max", "scaling.value", "scaling.idleTimeout"], false],
    ["a rename and the job timeout", ["name", "timeout"], false],
    ["nothing (version 1)", [], false],
    // A field of the template the table does not list (one the platform adds later) reaches the workers.
    ["a template field not in the table", ["template.volumeMountPath"], true],
  ])("a release that changed %s rolls: %s", (_what, fields, rolls) => {
    expect(releaseRolls(fields.map((field) => ({ field })))).toBe(rolls);
  });
});

describe("the table read against the emulator's releases (the platform's stand-in, a second reading of the spec)", () => {
  const endpoint: ReleasedFields = {
    gpuIds: "AMPERE_24", gpuCount: 1, workersMin: 0, workersMax: 3, scalerType: "QUEUE_DELAY", scalerValue: 4, idleTimeout: 5,
    flashBootType: "OFF", networkVolumeId: null, executionTimeoutMs: 600_000, dataCenterIds: ["EU-RO-1"], locations: null, name: "api", templateId: "tpl-1",
  };
  const changed: { [K in keyof ReleasedFields]: ReleasedFields[K] } = {
    gpuIds: "ADA_24", gpuCount: 2, workersMin: 1, workersMax: 5, scalerType: "REQUEST_COUNT", scalerValue: 2, idleTimeout: 60,
    flashBootType: "FLASHBOOT", networkVolumeId: "nv-1", executionTimeoutMs: 60_000, dataCenterIds: ["US-TX-3"], locations: "US", name: "api-2", templateId: "tpl-2",
  };
  const template: ReleasedTemplate = { image: "worker:1", args: "", disk: 20, ports: [], registry: null, env: { MODEL: "a" } };
  const changedTemplate: ReleasedTemplate = { image: "worker:2", args: "--fast", disk: 50, ports: ["8000/http"], registry: "cred-1", env: { MODEL: "b" } };

  test.each(Object.keys(endpoint) as (keyof ReleasedFields)[])("%s: the release names it as the table does, and rolls as the table says", (field) => {
    const diff = endpointDiff(endpoint, { ...endpoint, [field]: changed[field] });
    expect(diff.map((d) => d.field)).toEqual([RELEASE_FIELDS[field]!.release]);
    expect(releaseRolls(diff)).toBe(RELEASE_FIELDS[field]!.rolls);
    expect(emulatorRolls(diff)).toBe(RELEASE_FIELDS[field]!.rolls);
  });

  test.each(CONTAINER_KEYS)("container.%s: a change of the bound template's field, named and rolling as the table says", (key) => {
    const diff = templateDiff(template, { ...template, [key]: changedTemplate[key] });
    expect(diff.map((d) => d.field)).toEqual([RELEASE_FIELDS[`container.${key}`]!.release]);
    expect(releaseRolls(diff)).toBe(true);
    expect(emulatorRolls(diff)).toBe(true);
  });

  test("every field of the table is one a release names, but a container unknown at preview (any of its fields may change)", () => {
    const named = [...Object.keys(endpoint), ...CONTAINER_KEYS.map((k) => `container.${k}`)].sort();
    expect(Object.keys(RELEASE_FIELDS).filter((f) => f !== "container").sort()).toEqual(named);
    expect(RELEASE_FIELDS.container).toEqual({ release: "template", rolls: true });
  });
});

describe("the Template's fingerprint: what changes for the workers", () => {
  test("env names and a digest, never a value", () => {
    expect(rolls.env).toEqual(["MODEL", "TOKEN"]);
    expect(JSON.stringify(rolls)).not.toContain("s3cret");
    expect(templateRolls({ ...container, env: { MODEL: "a", TOKEN: "other" } }).envDigest).not.toBe(rolls.envDigest);
  });

  test.each<[string, unknown, unknown, string[]]>([
    ["same", rolls, templateRolls({ ...container }), []],
    ["image", rolls, templateRolls({ ...container, image: "worker:2" }), ["template.image"]],
    ["an env value (names the same)", rolls, templateRolls({ ...container, env: { MODEL: "b", TOKEN: "s3cret" } }), ["template.env"]],
    ["args and ports", rolls, templateRolls({ ...container, args: "--fast", ports: [] }), ["template.args", "template.ports"]],
    ["disk declared", rolls, templateRolls({ ...container, disk: 50 }), ["template.disk"]],
    ["disk left to the platform again", templateRolls({ ...container, disk: 50 }), rolls, []],
    ["unknown at preview", rolls, UNKNOWN, ["template"]],
    ["no Template of the program behind templateId", rolls, undefined, []],
    ["state written before the fingerprint", undefined, rolls, []],
    ["state with no fingerprint recorded", null, rolls, []],
  ])("%s", (_what, olds, news, expected) => {
    expect(templateChanges(olds, news)).toEqual(expected);
  });
});

describe("the endpoint's diff shows a rollout on the endpoint", () => {
  const base = { name: "api", gpuIds: "AMPERE_24", templateId: "tpl-1", template: rolls };
  const checked = checkEndpointInputs(undefined, base).inputs!;
  const olds = { ...checked, type: "QB", pods: [], version: 3, rollout: { inProgress: false, workersOnLatest: 1, workersTotal: 1, percentOnLatest: 100 } };

  test("the bound Template's image changed: an update of the endpoint, its reason template.image", () => {
    const news = checkEndpointInputs(olds, { ...base, template: templateRolls({ ...container, image: "worker:2" }) }).inputs!;
    expect(planEndpointDiff(olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(rolloutReasons(olds, news, [])).toEqual(["template.image"]);
  });

  test("a change that rolls nothing is an update with no rollout to wait for", () => {
    const news = checkEndpointInputs(olds, { ...base, workersMax: 5 }).inputs!;
    expect(planEndpointDiff(olds, news).changes).toBe(true);
    expect(rolloutReasons(olds, news, ["workersMax"])).toEqual([]);
    expect(rolloutReasons(olds, news, ["workersMax", "gpuIds"])).toEqual(["gpu.pools"]);
  });

  test("a rollout the state says is not over: the next up waits again, unless the program stopped waiting for rollouts", () => {
    const pending = { ...olds, rollout: { ...olds.rollout, inProgress: true, serving: [1] } };
    expect(planEndpointDiff(pending, checked).changes).toBe(true);
    expect(rolloutReasons(pending, checked, [])).toEqual(["rollout"]);
    const noWait = checkEndpointInputs(pending, { ...base, waitForRollout: false }).inputs!;
    expect(rolloutReasons(pending, noWait, [])).toEqual([]);
  });

  test("a rollout in progress that no wait read (a write with waitForWorkers: false, its workers starting) is no change", () => {
    const unwaited = { ...olds, rollout: { ...olds.rollout, inProgress: true } };
    expect(rolloutReasons(unwaited, checked, [])).toEqual([]);
    expect(planEndpointDiff(unwaited, checked).changes).toBe(false);
  });

  test("the rollout settings alone: an update (no request); state written before them reads their defaults, no diff", () => {
    expect(planEndpointDiff(olds, checkEndpointInputs(olds, { ...base, rolloutTimeoutSeconds: 60 }).inputs!).changes).toBe(true);
    const { waitForRollout: _w, rolloutTimeoutSeconds: _r, version: _v, rollout: _o, template: _t, ...earlier } = olds as Record<string, unknown>;
    expect(planEndpointDiff(earlier, checked)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  test("over REST: a container image change rolls, a worker bound does not", () => {
    const restBase = { name: "api", gpuIds: "AMPERE_24", api: "rest", container: { image: "worker:1" } };
    const restOlds = {
      ...checkEndpointInputs(undefined, restBase).inputs, type: "QB", templateId: null, api: "rest", pods: [], dataCenterIds: [],
      container: { image: "worker:1", args: "", disk: 20, ports: [], env: {}, registry: null },
    };
    expect(planRestDiff(restOlds, checkEndpointInputs(restOlds, restBase).inputs!).changes).toBe(false);
    expect(planRestDiff(restOlds, checkEndpointInputs(restOlds, { ...restBase, container: { image: "worker:2" } }).inputs!).changes).toBe(true);
  });
});

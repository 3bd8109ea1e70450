// What a release says, driven directly (docs/emulator.md, "Releases and rollouts"): each changed field
// under REST's name with its old and new values, in the diff's fixed order; `template.env` by its
// variables' sorted names, never a value; and which diffs roll the workers. The HTTP tests
// (test/integration/emulator/serverless/endpoints/releases.test.ts) hold a few fields end to end; here every field of
// the table is held to its name, its values and whether it rolls.
import {
  endpointDiff,
  MAX_RELEASES,
  releaseId,
  type ReleasedFields,
  type ReleasedTemplate,
  rolls,
  templateChange,
  templateDiff,
} from "../../../../../src/emulator/serverless/endpoints/releases";

const FIELDS: ReleasedFields = {
  gpuIds: "AMPERE_16,AMPERE_24",
  gpuCount: 1,
  workersMin: 0,
  workersMax: 3,
  scalerType: "QUEUE_DELAY",
  scalerValue: 4,
  idleTimeout: 5,
  flashBootType: "OFF",
  networkVolumeId: null,
  executionTimeoutMs: 600_000,
  dataCenterIds: ["EU-RO-1"],
  locations: null,
  name: "ep",
  templateId: "tpl-1",
};

const TEMPLATE: ReleasedTemplate = {
  image: "img:1",
  args: "",
  disk: 20,
  ports: ["8000/http"],
  registry: null,
  env: { B: "secret-b", A: "secret-a" },
};

// Each endpoint field: the change, its REST name, old and new as REST shows them, and whether it rolls.
const ENDPOINT_CASES: [Partial<ReleasedFields>, string, unknown, unknown, boolean][] = [
  [{ gpuIds: "ADA_24" }, "gpu.pools", ["AMPERE_16", "AMPERE_24"], ["ADA_24"], true],
  [{ gpuCount: 2 }, "gpu.count", 1, 2, true],
  [{ workersMin: 1 }, "workers.min", 0, 1, false],
  [{ workersMax: 5 }, "workers.max", 3, 5, false],
  [{ scalerType: "REQUEST_COUNT" }, "scaling.type", "QUEUE_DELAY", "REQUEST_COUNT", false],
  [{ scalerValue: 2 }, "scaling.value", 4, 2, false],
  [{ idleTimeout: 60 }, "scaling.idleTimeout", 5, 60, false],
  [{ flashBootType: "FLASHBOOT" }, "flashboot", "OFF", "FLASHBOOT", true],
  [{ networkVolumeId: "vol-1" }, "networkVolumes", [], ["vol-1"], true],
  [{ executionTimeoutMs: 5_000 }, "timeout", 600_000, 5_000, false],
  [{ dataCenterIds: ["EU-RO-1", "US-TX-3"] }, "dataCenterIds", ["EU-RO-1"], ["EU-RO-1", "US-TX-3"], true],
  [{ locations: "US" }, "locations", null, "US", true],
  [{ name: "ep2" }, "name", "ep", "ep2", false],
  [{ templateId: "tpl-2" }, "template.id", "tpl-1", "tpl-2", true],
];

test.each(ENDPOINT_CASES)("endpoint field %j: named %s, old %j, new %j, rolls %s", (change, field, old, now, rolling) => {
  const diff = endpointDiff(FIELDS, { ...FIELDS, ...change });
  expect(diff).toEqual([{ field, old, new: now }]);
  expect(rolls(diff)).toBe(rolling);
});

const TEMPLATE_CASES: [Partial<ReleasedTemplate>, string, unknown, unknown][] = [
  [{ image: "img:2" }, "template.image", "img:1", "img:2"],
  [{ args: "--fast" }, "template.args", "", "--fast"],
  [{ disk: 40 }, "template.disk", 20, 40],
  [{ ports: ["8000/http", "22/tcp"] }, "template.ports", ["8000/http"], ["8000/http", "22/tcp"]],
  [{ registry: "reg-1" }, "template.registry", null, "reg-1"],
  [{ env: { A: "secret-a", B: "secret-b", C: "secret-c" } }, "template.env", ["A", "B"], ["A", "B", "C"]],
];

test.each(TEMPLATE_CASES)("template field %j: named %s, old %j, new %j, and it rolls", (change, field, old, now) => {
  const diff = templateDiff(TEMPLATE, { ...TEMPLATE, ...change });
  expect(diff).toEqual([{ field, old, new: now }]);
  expect(rolls(diff)).toBe(true);
});

test("a save that changes nothing is an empty diff, which rolls nothing", () => {
  expect(endpointDiff(FIELDS, { ...FIELDS, dataCenterIds: [...FIELDS.dataCenterIds] })).toEqual([]);
  expect(templateDiff(TEMPLATE, { ...TEMPLATE, env: { A: "secret-a", B: "secret-b" } })).toEqual([]);
  expect(rolls([])).toBe(false);
});

test("a new env value is a change a release names, by the variables' names on both sides; the same env in another key order is none; no value ever appears in a diff", () => {
  const valueOnly = templateDiff(TEMPLATE, { ...TEMPLATE, env: { A: "secret-a", B: "secret-rotated" } });
  expect(valueOnly).toEqual([{ field: "template.env", old: ["A", "B"], new: ["A", "B"] }]);
  expect(rolls(valueOnly)).toBe(true);
  expect(JSON.stringify(valueOnly)).not.toContain("secret");
  expect(templateDiff(TEMPLATE, { ...TEMPLATE, env: Object.fromEntries(Object.entries(TEMPLATE.env).reverse()) })).toEqual([]);
  const diff = templateDiff(TEMPLATE, { ...TEMPLATE, env: { Z: "secret-z" } });
  expect(diff).toEqual([{ field: "template.env", old: ["A", "B"], new: ["Z"] }]);
  expect(JSON.stringify(diff)).not.toContain("secret");
});

test("order matters in a list: the same pools or ports in another order are a change", () => {
  expect(endpointDiff(FIELDS, { ...FIELDS, gpuIds: "AMPERE_24,AMPERE_16" })).toEqual([
    { field: "gpu.pools", old: ["AMPERE_16", "AMPERE_24"], new: ["AMPERE_24", "AMPERE_16"] },
  ]);
  // null and a string differ; a volume removed reads as an empty list.
  expect(endpointDiff({ ...FIELDS, networkVolumeId: "vol-1" }, FIELDS)).toEqual([
    { field: "networkVolumes", old: ["vol-1"], new: [] },
  ]);
});

test("several changes list in REST's fixed order, whatever the order of the save", () => {
  const diff = endpointDiff(FIELDS, { ...FIELDS, templateId: "tpl-2", name: "b", gpuCount: 4, workersMax: 1 });
  expect(diff.map((d) => d.field)).toEqual(["gpu.count", "workers.max", "name", "template.id"]);
  const t = templateDiff(TEMPLATE, { ...TEMPLATE, env: {}, image: "img:9", disk: 1 });
  expect(t.map((d) => d.field)).toEqual(["template.image", "template.disk", "template.env"]);
});

test("a diff rolls when any of its fields rolls, though the others take effect at once", () => {
  const atOnce = endpointDiff(FIELDS, { ...FIELDS, name: "b", workersMax: 9, scalerValue: 1, executionTimeoutMs: 9_000 });
  expect(atOnce).toHaveLength(4);
  expect(rolls(atOnce)).toBe(false);
  expect(rolls([...atOnce, { field: "gpu.count", old: 1, new: 2 }])).toBe(true);
  // The at-once names are whole names: a field that merely starts or ends alike still rolls.
  expect(rolls([{ field: "template.timeout", old: 1, new: 2 }])).toBe(true);
  expect(rolls([{ field: "timeouts", old: 1, new: 2 }])).toBe(true);
  expect(rolls([{ field: "workers", old: 1, new: 2 }])).toBe(true);
});

test("a template's change gives its diff and the image it leaves", () => {
  expect(templateChange(TEMPLATE, { ...TEMPLATE, image: "img:3" })).toEqual({
    diff: [{ field: "template.image", old: "img:1", new: "img:3" }],
    image: "img:3",
  });
  expect(templateChange(TEMPLATE, { ...TEMPLATE, disk: 30 })).toEqual({
    diff: [{ field: "template.disk", old: 20, new: 30 }],
    image: "img:1",
  });
});

test("a release's id is the endpoint's and the version's, and an endpoint keeps at most 50", () => {
  expect(releaseId("ep-abc", 7)).toBe("rel-ep-abc-v7");
  expect(releaseId("ep-abc", 7)).not.toBe(releaseId("ep-abc", 8));
  expect(MAX_RELEASES).toBe(50);
});

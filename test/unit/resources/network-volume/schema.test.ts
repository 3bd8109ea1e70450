import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { checkNetworkVolume, networkVolumeArgsSchema, shrinkRefusal } from "../../../../src/resources/network-volume/schema";

const base = { name: "data", size: 50, dataCenter: "EU-RO-1" };
const SIZE_RULE = "size must be an integer number of GB from 10 to 4096";

test("NetworkVolume check refuses a property it does not have, naming it", () => {
  const r = checkNetworkVolume(undefined, { __provider: "shim", [LOGICAL_NAME_KEY]: "data", size: 50, dataCenter: "EU-RO-1", sizee: 60 });
  expect(r.failures).toEqual([{ property: "sizee", reason: "sizee is not a NetworkVolume argument; did you mean size?" }]);
});

describe("each failure names the field and the rule", () => {
  test.each([
    ["name not a string", { name: 7 }, "name must be a string"],
    ["size missing", { size: undefined }, `size is required: ${SIZE_RULE}`],
    ["size as a string", { size: "50" }, SIZE_RULE],
    ["size fractional", { size: 10.5 }, SIZE_RULE],
    ["size below 10", { size: 9 }, SIZE_RULE],
    ["size above 4096", { size: 4097 }, SIZE_RULE],
    ["dataCenter missing", { dataCenter: undefined }, "dataCenter is required: the ID of the data center the volume lives in (see getDataCenters())"],
    ["dataCenter not a string", { dataCenter: 3 }, "dataCenter must be a string: a data center ID"],
    ["dataCenter empty", { dataCenter: "" }, "dataCenter must not be empty: a data center ID"],
    ["type of another name", { type: "FAST" }, "type must be one of STANDARD, HIGH_PERFORMANCE"],
    ["adopt empty", { adopt: "" }, "adopt (the ID of an existing network volume) must not be empty"],
  ])("%s", (_label, change, reason) => {
    const [property] = Object.keys(change);
    expect(checkNetworkVolume({}, { ...base, ...change }).failures).toEqual([{ property, reason }]);
  });

  test("the bounds themselves are sizes a volume may have", () => {
    expect(checkNetworkVolume({}, { ...base, size: 10 }).failures).toEqual([]);
    expect(checkNetworkVolume({}, { ...base, size: 4096 }).failures).toEqual([]);
  });

  test.each([["deleteWaitSeconds"], ["type"], ["adopt"]])("%s given as null is left out", (key) => {
    const result = checkNetworkVolume({}, { ...base, [key]: null });
    expect(result.failures).toEqual([]);
    expect(result.inputs).not.toHaveProperty(key);
  });

  test("the exported schema, used on its own, refuses an empty name", () => {
    const parsed = networkVolumeArgsSchema.safeParse({ ...base, name: "" });
    expect(parsed.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([["name", "name must be at least 1 character"]]);
  });
});

test("without a logical name, a missing name is made from the kind's fallback", () => {
  expect(checkNetworkVolume(undefined, { size: 50, dataCenter: "EU-RO-1" }).inputs!.name).toMatch(/^volume-[0-9a-f]{7}$/);
});

describe("a volume only grows", () => {
  const REFUSAL =
    "size cannot shrink from 100 to 50 GB: network volumes only grow, and replacing the volume would destroy its data. " +
    "Keep size at 100 or more, or create a new NetworkVolume and move the data yourself";

  test("a shrink in check is a failure of size, with the sizes and what to do instead", () => {
    expect(checkNetworkVolume({ ...base, size: 100 }, base).failures).toEqual([{ property: "size", reason: REFUSAL }]);
  });

  test("a create has no old size to shrink from", () => {
    expect(checkNetworkVolume(undefined, { ...base, size: 10 }).failures).toEqual([]);
  });

  test.each([
    ["a grow", 50, 100, "EU-RO-1", "EU-RO-1", undefined],
    ["the same size", 50, 50, "EU-RO-1", "EU-RO-1", undefined],
    ["no old size", undefined, 50, "EU-RO-1", "EU-RO-1", undefined],
    ["an unknown new size", 100, UNKNOWN, "EU-RO-1", "EU-RO-1", undefined],
    ["a shrink in place", 100, 50, "EU-RO-1", "EU-RO-1", REFUSAL],
    ["a shrink with a move to another data center (a new volume)", 100, 50, "EU-RO-1", "US-TX-3", undefined],
    ["a shrink whose new data center is unknown", 100, 50, "EU-RO-1", UNKNOWN, REFUSAL],
    ["a shrink with no old data center recorded", 100, 50, undefined, "US-TX-3", REFUSAL],
    ["a shrink with no new data center", 100, 50, "EU-RO-1", undefined, REFUSAL],
  ])("%s", (_label, oldSize, newSize, oldDc, newDc, expected) => {
    expect(shrinkRefusal(oldSize, newSize, oldDc, newDc)).toBe(expected);
  });
});

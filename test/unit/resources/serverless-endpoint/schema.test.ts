import { LOGICAL_NAME_KEY, OWNER_INPUT_KEYS } from "../../../../src/resources/lifecycle/owner";
import { checkEndpointInputs } from "../../../../src/resources/serverless-endpoint/schema";

const base = { name: "api", gpuIds: "AMPERE_24", templateId: "tpl-1" };
const hidden = { __provider: "shim", [LOGICAL_NAME_KEY]: "api", ...Object.fromEntries(OWNER_INPUT_KEYS.map((k) => [k, "x"])) };

describe("ServerlessEndpoint check refuses what the platform would not take", () => {
  test("a property ServerlessEndpoint does not have (a workerMax typo) fails, naming it", () => {
    const r = checkEndpointInputs(undefined, { ...hidden, ...base, workerMax: 3 });
    expect(r.failures).toEqual([{ property: "(inputs)", reason: expect.stringMatching(/ServerlessEndpoint has no property workerMax/) }]);
  });

  test("the hidden inputs the resource class and the engine add are not the user's and pass", () => {
    expect(checkEndpointInputs(undefined, { ...hidden, ...base }).failures).toBeUndefined();
  });
});

/**
 * open-parts (GraphQL): gpuIds is one tier or a comma-separated list of distinct tiers in
 * priority order; locations one allowed value or a list of distinct ones; no spaces; spec 2.9:
 * an empty locations is any region. The lead points this at the shared case table at merge.
 */
const GPU_IDS_CASES: [string, boolean][] = [
  ["ADA_24", true],
  ["ADA_24,AMPERE_24", true],
  ["AMPERE_16,AMPERE_24,ADA_24,AMPERE_48,ADA_48_PRO,AMPERE_80,ADA_80_PRO", true],
  ["ADA_24, AMPERE_24", false],
  [" ADA_24", false],
  ["ADA_24,ADA_24", false],
  ["ADA_24,", false],
  [",ADA_24", false],
  ["ADA_24,,AMPERE_24", false],
  ["", false],
  ["ada_24", false],
  ["ADA_24,A100", false],
];
const LOCATIONS_CASES: [string, boolean][] = [
  ["US", true],
  ["US,RO", true],
  ["CZ,FR,GB,NO,RO,US", true],
  ["", true],
  ["US,US", false],
  ["US, RO", false],
  ["US,", false],
  ["us", false],
  ["US,DE", false],
];

describe("gpuIds and locations: one value or a priority list of distinct allowed values (open-parts)", () => {
  test.each(GPU_IDS_CASES)("gpuIds %j accepted: %s", (gpuIds, ok) => {
    const r = checkEndpointInputs(undefined, { ...base, gpuIds });
    if (ok) expect(r.failures).toBeUndefined();
    else expect(r.failures).toEqual([{ property: "gpuIds", reason: expect.stringMatching(/gpuIds must be/) }]);
  });

  test.each(LOCATIONS_CASES)("locations %j accepted: %s", (locations, ok) => {
    const r = checkEndpointInputs(undefined, { ...base, locations });
    if (ok) expect(r.failures).toBeUndefined();
    else expect(r.failures).toEqual([{ property: "locations", reason: expect.stringMatching(/locations must be/) }]);
  });

  test("a refused list names the bad item", () => {
    expect(checkEndpointInputs(undefined, { ...base, gpuIds: "ADA_24,A100" }).failures?.[0]?.reason).toMatch(/"A100"/);
    expect(checkEndpointInputs(undefined, { ...base, gpuIds: "ADA_24,ADA_24" }).failures?.[0]?.reason).toMatch(/"ADA_24" more than once/);
  });
});

import { LOGICAL_NAME_KEY, OWNER_INPUT_KEYS } from "../../../../src/resources/lifecycle/owner";
import { checkEndpointInputs } from "../../../../src/resources/serverless-endpoint/schema";
import { PRIORITY_LIST_CASES } from "../../../helpers/priority-lists";

const base = { name: "api", gpuIds: "AMPERE_24", templateId: "tpl-1" };
const hidden = { __provider: "shim", [LOGICAL_NAME_KEY]: "api", ...Object.fromEntries(OWNER_INPUT_KEYS.map((k) => [k, "x"])) };

describe("ServerlessEndpoint check refuses what the platform would not take", () => {
  test("a property ServerlessEndpoint does not have (a workerMax typo) fails, naming it", () => {
    const r = checkEndpointInputs(undefined, { ...hidden, ...base, workerMax: 3 });
    expect(r.failures).toEqual([{ property: "workerMax", reason: "workerMax is not a ServerlessEndpoint argument; did you mean workersMax?" }]);
  });

  test("the hidden inputs the resource class and the engine add are not the user's and pass", () => {
    expect(checkEndpointInputs(undefined, { ...hidden, ...base }).failures).toBeUndefined();
  });
});

describe("gpuIds and locations: one value or a priority list of distinct allowed values", () => {
  // The one table the client and the emulator are tested against too (issue 14 #8).
  test.each(PRIORITY_LIST_CASES.map((c) => [c.field, c.value, c.ok, c.reason] as const))("%s %j accepted: %s (%s)", (field, value, ok) => {
    const r = checkEndpointInputs(undefined, { ...base, [field]: value });
    if (ok) expect(r.failures).toBeUndefined();
    else expect(r.failures).toEqual([{ property: field, reason: expect.stringMatching(new RegExp(`^${field} `)) }]);
  });

  test("a refused list names the bad item", () => {
    expect(checkEndpointInputs(undefined, { ...base, gpuIds: "ADA_24,A100" }).failures?.[0]?.reason).toMatch(/"A100"/);
    expect(checkEndpointInputs(undefined, { ...base, gpuIds: "ADA_24,ADA_24" }).failures?.[0]?.reason).toMatch(/names ADA_24 twice/);
  });
});

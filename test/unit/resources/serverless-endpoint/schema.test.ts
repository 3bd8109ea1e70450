import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { autoName, baseOwnerToken, LOGICAL_NAME_KEY, OWNER_INPUT_KEYS, OWNER_TOKEN_KEY } from "../../../../src/resources/lifecycle/owner";
import {
  APPLIED_NAME_KEY,
  checkEndpointInputs,
  DECLARED_KEY,
  DEFAULT_DRAIN_TIMEOUT_SECONDS,
  DEFAULT_READY_TIMEOUT_SECONDS,
  DEFAULT_ROLLOUT_TIMEOUT_SECONDS,
  ENDPOINT_ARGS,
  endpointInputsSchema,
  isOwnerNamed,
  SAVED_FIELDS,
  TEMPLATE_CHECK_KEY,
  TEMPLATE_ROLLS_KEY,
  templateFailure,
} from "../../../../src/resources/serverless-endpoint/schema";
import { PRIORITY_LIST_CASES } from "../../../helpers/priority-lists";

const base = { name: "api", gpuIds: "AMPERE_24", templateId: "tpl-1" };
const rest = { name: "api", gpuIds: "AMPERE_24", api: "rest", container: { image: "img:1" } };
const hidden = { __provider: "shim", [LOGICAL_NAME_KEY]: "api", ...Object.fromEntries(OWNER_INPUT_KEYS.map((k) => [k, "x"])) };

const TIERS = "AMPERE_16, AMPERE_24, ADA_24, AMPERE_48, ADA_48_PRO, AMPERE_80, ADA_80_PRO";
const REGIONS = "CZ, FR, GB, NO, RO, US";
const GPU_IDS_RULE = `must be one of ${TIERS}, or a comma-separated list of distinct ones in priority order with no spaces (e.g. "ADA_24,AMPERE_24")`;
const LOCATIONS_RULE = `must be one of ${REGIONS}, or a comma-separated list of distinct ones in priority order with no spaces (e.g. "US,RO"), or "" for any`;
const PORT_MESSAGE = "container.ports[] must be <port>/<protocol> with a port from 1 to 65535, e.g. 8888/http or 22/tcp";
const NOT_A_LIST = "(one value or a comma-separated list, no spaces)";

function failuresOf(news: Record<string, unknown>, olds?: Record<string, unknown>) {
  return checkEndpointInputs(olds, news).failures ?? [];
}

describe("ServerlessEndpoint check refuses what the platform would not take", () => {
  test("a property ServerlessEndpoint does not have (a workerMax typo) fails, naming it", () => {
    const r = checkEndpointInputs(undefined, { ...hidden, ...base, workerMax: 3 });
    expect(r.failures).toEqual([{ property: "workerMax", reason: "workerMax is not a ServerlessEndpoint argument; did you mean workersMax?" }]);
  });

  test("the hidden inputs the resource class and the engine add are not the user's and pass", () => {
    expect(checkEndpointInputs(undefined, { ...hidden, ...base }).failures).toBeUndefined();
    const all = {
      ...hidden,
      ...base,
      [OWNER_TOKEN_KEY]: "0123456789abcdef",
      [DECLARED_KEY]: ["name"],
      [APPLIED_NAME_KEY]: "api",
      [TEMPLATE_CHECK_KEY]: { resourceName: "tpl", serverless: true },
      [TEMPLATE_ROLLS_KEY]: { image: "img:1" },
    };
    expect(checkEndpointInputs(undefined, all).failures).toBeUndefined();
  });
});

describe("ServerlessEndpoint check: each failure's reason, whole, names the field and the rule", () => {
  test.each<[string, Record<string, unknown>, string, string]>([
    ["type of another name", { type: "XX" }, "type", 'type must be one of QB, LB (got "XX")'],
    ["flashBootType PRIORITY_FLASHBOOT (REST's own)", { flashBootType: "PRIORITY_FLASHBOOT" }, "flashBootType", 'flashBootType must be one of OFF, FLASHBOOT (got "PRIORITY_FLASHBOOT")'],
    ["scalerType of another name", { scalerType: "CPU" }, "scalerType", 'scalerType must be one of QUEUE_DELAY, REQUEST_COUNT (got "CPU")'],
    ["api of another name", { api: "grpc" }, "api", 'api must be one of graphql, rest (got "grpc")'],
    ["idleTimeout negative", { idleTimeout: -1 }, "idleTimeout", "idleTimeout must be a non-negative integer (seconds)"],
    ["idleTimeout fractional", { idleTimeout: 1.5 }, "idleTimeout", "idleTimeout must be a non-negative integer (seconds)"],
    ["idleTimeout not a number", { idleTimeout: "5" }, "idleTimeout", "idleTimeout must be a non-negative integer (seconds)"],
    ["workersMin negative", { workersMin: -1 }, "workersMin", "workersMin must be a non-negative integer (workers)"],
    ["workersMax fractional", { workersMax: 2.5 }, "workersMax", "workersMax must be a non-negative integer (workers)"],
    ["executionTimeoutMs negative", { executionTimeoutMs: -1 }, "executionTimeoutMs", "executionTimeoutMs must be a non-negative integer (ms a job may run; 0 for no limit)"],
    ["scalerValue 0", { scalerValue: 0 }, "scalerValue", "scalerValue must be an integer >= 1 (the scaler's target)"],
    ["scalerValue 0.5 (REST's least, not GraphQL's)", { scalerValue: 0.5 }, "scalerValue", "scalerValue must be an integer >= 1 (the scaler's target)"],
    ["scalerValue not a number", { scalerValue: "4" }, "scalerValue", "scalerValue must be an integer >= 1 (the scaler's target)"],
    ["gpuCount 0", { gpuCount: 0 }, "gpuCount", "gpuCount must be an integer >= 1 (GPUs per worker)"],
    ["gpuCount fractional", { gpuCount: 1.5 }, "gpuCount", "gpuCount must be an integer >= 1 (GPUs per worker)"],
    ["readyTimeoutSeconds 0", { readyTimeoutSeconds: 0 }, "readyTimeoutSeconds", "readyTimeoutSeconds must be an integer from 1 to 86400 (seconds)"],
    ["readyTimeoutSeconds not a number", { readyTimeoutSeconds: "60" }, "readyTimeoutSeconds", "readyTimeoutSeconds must be an integer from 1 to 86400 (seconds)"],
    ["drainTimeoutSeconds above a day", { drainTimeoutSeconds: 86_401 }, "drainTimeoutSeconds", "drainTimeoutSeconds must be an integer from 1 to 86400 (seconds)"],
    ["rolloutTimeoutSeconds fractional", { rolloutTimeoutSeconds: 1.5 }, "rolloutTimeoutSeconds", "rolloutTimeoutSeconds must be an integer from 1 to 86400 (seconds)"],
    ["waitForWorkers not a boolean", { waitForWorkers: "yes" }, "waitForWorkers", "waitForWorkers must be true or false"],
    ["waitForRollout not a boolean", { waitForRollout: 1 }, "waitForRollout", "waitForRollout must be true or false"],
    ["name not a string", { name: 5 }, "name", "name is required: a non-empty string"],
    ["templateId empty", { templateId: "" }, "templateId", "templateId is required: a non-empty string"],
    ["templateId missing over GraphQL", { templateId: undefined }, "templateId", "templateId is required: a non-empty string"],
    ["gpuIds missing", { gpuIds: undefined }, "gpuIds", `gpuIds is required: ${GPU_IDS_RULE}`],
    ["gpuIds not a string", { gpuIds: 24 }, "gpuIds", `gpuIds ${GPU_IDS_RULE}`],
    ["gpuIds empty", { gpuIds: "" }, "gpuIds", `gpuIds must name at least one of ${TIERS}`],
    ["gpuIds with a near miss", { gpuIds: "ADA_24,AMPERE24" }, "gpuIds", `gpuIds "AMPERE24" is not one of ${TIERS} ${NOT_A_LIST} (for "AMPERE24", did you mean "AMPERE_24"?)`],
    ["gpuIds with nothing near", { gpuIds: "ADA_24,QQQQQQQQ" }, "gpuIds", `gpuIds "QQQQQQQQ" is not one of ${TIERS} ${NOT_A_LIST}`],
    ["gpuIds with an empty entry (nothing to suggest for it)", { gpuIds: "ADA_24,,AMPERE_24" }, "gpuIds", `gpuIds "" is not one of ${TIERS} ${NOT_A_LIST}`],
    ["gpuIds naming a tier twice", { gpuIds: "ADA_24,ADA_24" }, "gpuIds", 'gpuIds names ADA_24 twice ("ADA_24,ADA_24")'],
    ["locations not a string", { locations: 5 }, "locations", `locations ${LOCATIONS_RULE}`],
    ["locations with one not a region", { locations: "US,QQQQQQQQ" }, "locations", `locations "QQQQQQQQ" is not one of ${REGIONS} ${NOT_A_LIST}`],
    ["locations with a near miss", { locations: "us" }, "locations", `locations "us" is not one of ${REGIONS} ${NOT_A_LIST} (for "us", did you mean "US"?)`],
    ["networkVolumeId empty", { networkVolumeId: "" }, "networkVolumeId", "networkVolumeId must be a network volume id, or null for none"],
    ["networkVolumeId not a string", { networkVolumeId: 5 }, "networkVolumeId", "networkVolumeId must be a network volume id, or null for none"],
    ["adopt empty", { adopt: "" }, "adopt", "adopt (the ID of an existing endpoint) must not be empty"],
    ["workersMin above workersMax", { workersMin: 3, workersMax: 2 }, "workersMin", "workersMin (3) must not exceed workersMax (2)"],
    ["container over GraphQL", { container: { image: "img:1" } }, "container", 'container needs api: "rest"; over GraphQL the workers run the Template named by templateId'],
    ["dataCenterIds over GraphQL", { dataCenterIds: ["EU-RO-1"] }, "dataCenterIds", 'dataCenterIds needs api: "rest" (over GraphQL use locations)'],
  ])("%s", (_label, change, property, reason) => {
    expect(failuresOf({ ...base, ...change })).toEqual([{ property, reason }]);
  });

  test.each<[string, Record<string, unknown>, string, string]>([
    [
      "templateId over REST",
      { templateId: "tpl-1" },
      "templateId",
      'templateId cannot be used with api: "rest": over REST a container change and a delete act on the template bound to the endpoint, ' +
        "so a REST-managed endpoint carries its own container; give `container` instead (a Template the stack manages is then left alone)",
    ],
    ["no container over REST", { container: undefined }, "container", 'container is required with api: "rest": { image, args?, disk?, ports?, env?, registry? }'],
    ["locations over REST", { locations: "US" }, "locations", 'locations cannot be set over REST v2 (it has no such field); remove it and use dataCenterIds, or keep api: "graphql"'],
    ["a container that is not an object", { container: "img:1" }, "container", "Invalid input: expected object, received string"],
    ["container.image missing", { container: {} }, "container.image", "container.image is required: a non-empty string"],
    ["container.image empty", { container: { image: "" } }, "container.image", "container.image is required: a non-empty string"],
    ["container.args not a string", { container: { image: "i", args: 5 } }, "container.args", "container.args must be a string"],
    ["container.disk 0", { container: { image: "i", disk: 0 } }, "container.disk", "container.disk must be an integer >= 1 (GB)"],
    ["a port without protocol", { container: { image: "i", ports: ["8000/http", "8000"] } }, "container.ports[1]", PORT_MESSAGE],
    ["a port not a string", { container: { image: "i", ports: [8000] } }, "container.ports[0]", "Invalid input: expected string, received number"],
    ["container.env value not a string", { container: { image: "i", env: { A: 1 } } }, "container.env.A", "container.env values must be strings"],
    ["container.registry empty", { container: { image: "i", registry: "" } }, "container.registry", "container.registry must be a registry credential id, or null"],
    ["a container property it does not have", { container: { image: "i", gpu: 1, mounts: {} } }, "container", "container has no property gpu, mounts"],
    ["dataCenterIds with an empty entry", { dataCenterIds: ["EU-RO-1", ""] }, "dataCenterIds[1]", "dataCenterIds[] is required: a non-empty string"],
    [
      "a load-balancing endpoint created over REST",
      { type: "LB" },
      "type",
      'a load-balancing endpoint (type "LB") cannot be created over REST v2 (its create has no type): create it with api: "graphql", then move it to api: "rest"',
    ],
  ])("over REST: %s", (_label, change, property, reason) => {
    expect(failuresOf({ ...rest, ...change })).toEqual([{ property, reason }]);
  });

  // The contract's ports, as the platform takes them: a port of 0 or above 65535 is refused here,
  // before the create that the platform would refuse.
  test.each([
    ["8000/http", true],
    ["22/tcp", true],
    ["1/udp", true],
    ["65535/tcp", true],
    ["0/http", false],
    ["65536/tcp", false],
    ["99999/http", false],
    ["x8000/http", false],
    ["8000/http1", false],
    ["8000/HTTP", false],
    ["123456/http", false],
    ["/http", false],
    ["8000/", false],
  ])("container port %j accepted: %s", (port, ok) => {
    expect(failuresOf({ ...rest, container: { image: "i", ports: [port] } })).toEqual(ok ? [] : [{ property: "container.ports[0]", reason: PORT_MESSAGE }]);
  });

  test("every failure is reported at once, the interface's beside the schema's", () => {
    expect(failuresOf({ ...rest, templateId: "tpl-1", locations: "US", idleTimeout: -1 }).map((f) => f.property)).toEqual(["idleTimeout", "templateId", "locations"]);
  });

  test("the bounds themselves pass", () => {
    for (const t of [1, 86_400]) expect(failuresOf({ ...base, readyTimeoutSeconds: t, drainTimeoutSeconds: t, rolloutTimeoutSeconds: t })).toEqual([]);
    expect(failuresOf({ ...base, idleTimeout: 0, workersMin: 0, workersMax: 0, executionTimeoutMs: 0, scalerValue: 1, gpuCount: 1 })).toEqual([]);
    expect(failuresOf({ ...base, workersMin: 2, workersMax: 2 })).toEqual([]);
    // One of the two alone is not compared (the platform keeps the other).
    expect(failuresOf({ ...base, workersMin: 5 })).toEqual([]);
    expect(failuresOf({ ...base, workersMax: 0 })).toEqual([]);
    expect(failuresOf({ ...base, locations: "", networkVolumeId: null, flashBootType: "FLASHBOOT", scalerType: "REQUEST_COUNT", type: "LB", api: "graphql" })).toEqual([]);
    expect(failuresOf({ ...base, locations: null })).toEqual([]);
    expect(
      failuresOf({ ...rest, dataCenterIds: ["EU-RO-1"], container: { image: "i", args: "", disk: 1, ports: [], env: { A: "1" }, registry: null } }),
    ).toEqual([]);
    expect(failuresOf({ ...rest, container: { image: "i", registry: "cred-1" } })).toEqual([]);
  });

  test("a load-balancing endpoint may be managed over REST once made: moved from GraphQL, or adopted", () => {
    expect(failuresOf({ ...rest, type: "LB" }, { ...base, type: "LB" })).toEqual([]);
    expect(failuresOf({ ...rest, type: "LB", adopt: "ep-1" })).toEqual([]);
    expect(failuresOf({ ...base, type: "LB" })).toEqual([]);
  });

  test("a value unknown at preview passes, and is checked when known", () => {
    expect(failuresOf({ ...base, gpuIds: UNKNOWN, locations: UNKNOWN, workersMin: UNKNOWN, workersMax: 1 })).toEqual([]);
  });
});

describe("the exported schema refuses on its own what check() fills in or sets aside", () => {
  const full = { ...base, type: "QB", waitForWorkers: true, readyTimeoutSeconds: 1, drainTimeoutSeconds: 1, waitForRollout: true, rolloutTimeoutSeconds: 1 };
  const messages = (value: unknown) => {
    const r = endpointInputsSchema.safeParse(value);
    return r.success ? [] : r.error.issues.map((i) => [i.path.join("."), i.message]);
  };

  test.each<[string, unknown, string[][]]>([
    ["valid", full, []],
    ["no type", { ...full, type: undefined }, [["type", "type is required: one of QB, LB"]]],
    ["properties it does not have", { ...full, foo: 1, bar: 2 }, [["", "ServerlessEndpoint has no property foo, bar; remove it (see ServerlessEndpointArgs)"]]],
    ["not an object", "api", [["", "Invalid input: expected object, received string"]]],
  ])("%s", (_label, value, expected) => {
    expect(messages(value)).toEqual(expected);
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

describe("check() fills in the defaults, and records which saved fields the program declares", () => {
  test("a valid declaration passes, with the defaults filled in", () => {
    const r = checkEndpointInputs(undefined, base);
    expect(r.failures).toBeUndefined();
    expect(r.inputs).toStrictEqual({
      ...base,
      type: "QB",
      waitForWorkers: true,
      readyTimeoutSeconds: DEFAULT_READY_TIMEOUT_SECONDS,
      drainTimeoutSeconds: DEFAULT_DRAIN_TIMEOUT_SECONDS,
      waitForRollout: true,
      rolloutTimeoutSeconds: DEFAULT_ROLLOUT_TIMEOUT_SECONDS,
      [DECLARED_KEY]: ["name", "gpuIds", "templateId"],
    });
    expect([DEFAULT_READY_TIMEOUT_SECONDS, DEFAULT_DRAIN_TIMEOUT_SECONDS, DEFAULT_ROLLOUT_TIMEOUT_SECONDS]).toEqual([600, 600, 1800]);
  });

  test("writing a default explicitly checks to the same inputs as leaving it out", () => {
    const explicit = { type: "QB", waitForWorkers: true, readyTimeoutSeconds: 600, drainTimeoutSeconds: 600, waitForRollout: true, rolloutTimeoutSeconds: 1800 };
    expect(checkEndpointInputs(undefined, { ...base, ...explicit }).inputs).toStrictEqual(checkEndpointInputs(undefined, base).inputs);
  });

  test("written values are kept over the defaults", () => {
    const written = { type: "LB", waitForWorkers: false, readyTimeoutSeconds: 5, drainTimeoutSeconds: 6, waitForRollout: false, rolloutTimeoutSeconds: 7 };
    expect(checkEndpointInputs(undefined, { ...base, ...written }).inputs).toMatchObject(written);
  });

  test("nothing undefined is left in the inputs (it cannot be serialized into state)", () => {
    const inputs = checkEndpointInputs(undefined, { ...base, idleTimeout: undefined, locations: undefined }).inputs!;
    expect(Object.keys(inputs)).not.toContain("idleTimeout");
    expect(Object.keys(inputs)).not.toContain("locations");
  });

  test("the declared saved fields: each one the program gives, not type, not the defaults check() fills in", () => {
    const declared = (news: Record<string, unknown>, olds?: Record<string, unknown>) => checkEndpointInputs(olds, news).inputs![DECLARED_KEY];
    expect(declared({ ...base, type: "QB", idleTimeout: 5, workersMax: 2, locations: null, waitForWorkers: false })).toEqual([
      "name",
      "gpuIds",
      "templateId",
      "idleTimeout",
      "locations",
      "workersMax",
    ]);
    expect(SAVED_FIELDS).not.toContain("type");
  });

  test("the name counts as declared only when the program gives one; a name check() settled on does not", () => {
    const declared = (news: Record<string, unknown>, olds?: Record<string, unknown>) => checkEndpointInputs(olds, news).inputs![DECLARED_KEY];
    const { name: _, ...unnamed } = base;
    expect(declared(unnamed)).toEqual(["gpuIds", "templateId"]);
    expect(declared({ ...unnamed, name: "" })).toEqual(["gpuIds", "templateId"]);
    expect(declared({ ...unnamed, name: null })).toEqual(["gpuIds", "templateId"]);
    // The name kept after the program removed its own is applied, not declared.
    const kept = checkEndpointInputs({ name: "mine" }, unnamed).inputs!;
    expect([kept.name, kept[DECLARED_KEY]]).toEqual(["mine", ["gpuIds", "templateId"]]);
  });

  test("the name: the user's, else the one generated before, else the logical name and the owner token's", () => {
    const { name: _, ...unnamed } = base;
    const news = { ...hidden, ...unnamed, [LOGICAL_NAME_KEY]: "web" };
    const inputs = checkEndpointInputs(undefined, news).inputs!;
    // The token is the endpoint kind's: an endpoint and a pod of the same logical name never share one.
    expect(inputs[OWNER_TOKEN_KEY]).toBe(baseOwnerToken("ServerlessEndpoint", news, "web"));
    expect(inputs.name).toBe(autoName("web", undefined, inputs[OWNER_TOKEN_KEY]));
    expect(checkEndpointInputs(undefined, { ...news, name: "mine" }).inputs!.name).toBe("mine");
    expect(checkEndpointInputs({ name: "web-abc1234" }, news).inputs!.name).toBe("web-abc1234");
    // Driven without the resource class (no logical name): no token, and a name of its own.
    expect(checkEndpointInputs(undefined, unnamed).inputs!.name).toMatch(/^endpoint-[0-9a-f]{7}$/);
  });
});

describe("removing a saved field the platform cannot return to a default is refused", () => {
  const olds = (declared: string[], values: Record<string, unknown>) => ({ ...base, ...values, [DECLARED_KEY]: declared });

  test.each(["idleTimeout", "scalerType", "scalerValue"])("removing %s", (field) => {
    const value = field === "scalerType" ? "QUEUE_DELAY" : 5;
    expect(failuresOf(base, olds([field], { [field]: value }))).toEqual([
      {
        property: field,
        reason: `removing ${field} changes nothing: the platform keeps its ${field} (${JSON.stringify(value)}) and has no default to return to; declare the value you want instead`,
      },
    ]);
  });

  test("removing a field with a default returns it there, and passes", () => {
    const withDefaults = { workersMin: 1, workersMax: 2, networkVolumeId: "vol-1", locations: "US", flashBootType: "FLASHBOOT", gpuCount: 2, executionTimeoutMs: 5 };
    expect(failuresOf(base, olds(Object.keys(withDefaults), withDefaults))).toEqual([]);
  });

  test("a field removed that the old inputs did not declare, or old inputs without the record, are not removals", () => {
    expect(failuresOf(base, olds([], { idleTimeout: 5 }))).toEqual([]);
    expect(failuresOf(base, { ...base, idleTimeout: 5 })).toEqual([]);
    expect(failuresOf(base, { ...base, idleTimeout: 5, [DECLARED_KEY]: "idleTimeout" })).toEqual([]);
  });

  test("over REST, templateId and locations are not the program's to say: removing them is the move, not a removal", () => {
    expect(failuresOf(rest, olds(["templateId", "locations"], { locations: "US" }))).toEqual([]);
    // Over GraphQL the removed templateId is refused (and still required).
    expect(failuresOf({ ...base, templateId: undefined }, olds(["templateId"], {})).map((f) => f.reason)).toEqual([
      "templateId is required: a non-empty string",
      'removing templateId changes nothing: the platform keeps its templateId ("tpl-1") and has no default to return to; declare the value you want instead',
    ]);
  });

  test("removing workersMax (back to 0) under a workersMin above 0 is refused; under 0 it is not", () => {
    expect(failuresOf({ ...base, workersMin: 2 }, olds(["workersMin", "workersMax"], { workersMin: 2, workersMax: 4 }))).toEqual([
      { property: "workersMax", reason: "removing workersMax sets it back to 0, below workersMin (2); declare workersMax, or remove workersMin too" },
    ]);
    expect(failuresOf({ ...base, workersMin: 0 }, olds(["workersMin", "workersMax"], { workersMin: 0, workersMax: 4 }))).toEqual([]);
    expect(failuresOf(base, olds(["workersMin", "workersMax"], { workersMin: 2, workersMax: 4 }))).toEqual([]);
    // workersMin unknown at preview: not compared yet.
    expect(failuresOf({ ...base, workersMin: UNKNOWN }, olds(["workersMax"], { workersMax: 4 }))).toEqual([]);
  });
});

describe("a Template that is not serverless is refused at check, naming it", () => {
  test("templateFailure", () => {
    expect(templateFailure({ resourceName: "tpl", serverless: false })).toEqual({
      property: "templateId",
      reason:
        'templateId is the id of Template "tpl", which is not serverless (serverless: false): ' +
        "an endpoint's workers run a serverless template; set serverless: true on that Template, or give another one",
    });
    for (const ref of [undefined, null, "tpl", { resourceName: "tpl", serverless: true }, { resourceName: "tpl" }, { resourceName: "tpl", serverless: UNKNOWN }]) {
      expect(templateFailure(ref)).toBeUndefined();
    }
  });

  test("check() reports it beside the other failures", () => {
    expect(failuresOf({ ...base, idleTimeout: -1, [TEMPLATE_CHECK_KEY]: { resourceName: "tpl", serverless: false } }).map((f) => f.property)).toEqual(["idleTimeout", "templateId"]);
  });
});

describe("isOwnerNamed: only the name generated from the owner token says which stack made the endpoint", () => {
  const token = "0123456789abcdef";
  test.each<[string, Record<string, unknown>, boolean]>([
    ["the auto-name of its logical name", { name: autoName("web", undefined, token), [LOGICAL_NAME_KEY]: "web", [OWNER_TOKEN_KEY]: token }, true],
    ["the auto-name of the fallback logical name", { name: autoName("endpoint", undefined, token), [OWNER_TOKEN_KEY]: token }, true],
    ["the fallback's name under another logical name", { name: autoName("endpoint", undefined, token), [LOGICAL_NAME_KEY]: "web", [OWNER_TOKEN_KEY]: token }, false],
    ["a name the user gave", { name: "web", [LOGICAL_NAME_KEY]: "web", [OWNER_TOKEN_KEY]: token }, false],
    ["no token", { name: autoName("web", undefined, token), [LOGICAL_NAME_KEY]: "web" }, false],
  ])("%s: %s", (_label, inputs, owned) => {
    expect(isOwnerNamed(inputs)).toBe(owned);
  });
});

test("the arguments a ServerlessEndpoint has: the saved fields, type, and the resource's own settings", () => {
  const own = ["api", "container", "dataCenterIds", "waitForWorkers", "readyTimeoutSeconds", "drainTimeoutSeconds", "waitForRollout", "rolloutTimeoutSeconds", "adopt"];
  expect([...ENDPOINT_ARGS].sort()).toEqual([...SAVED_FIELDS, "type", ...own].sort());
});

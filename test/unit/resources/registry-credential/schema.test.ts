import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { checkRegistryCredential, registryCredentialArgsSchema } from "../../../../src/resources/registry-credential/schema";

const PASSWORD = "pw-sentinel-9f2c41";
const base = { name: "ghcr", username: "robot", password: PASSWORD };

describe("RegistryCredential check", () => {
  test.each([
    ["valid", base, []],
    ["name missing is auto-named", { username: "robot", password: PASSWORD }, []],
    ["name empty is auto-named", { ...base, name: "" }, []],
    ["name not a string", { ...base, name: 7 }, ["name"]],
    ["username missing", { name: "ghcr", password: PASSWORD }, ["username"]],
    ["username empty", { ...base, username: "" }, ["username"]],
    ["username not a string", { ...base, username: 42 }, ["username"]],
    ["password missing", { name: "ghcr", username: "robot" }, ["password"]],
    ["password empty", { ...base, password: "" }, ["password"]],
    ["password not a string", { ...base, password: { token: PASSWORD } }, ["password"]],
    ["deleteWaitSeconds 0", { ...base, deleteWaitSeconds: 0 }, []],
    ["deleteWaitSeconds 3600", { ...base, deleteWaitSeconds: 3600 }, []],
    ["deleteWaitSeconds negative", { ...base, deleteWaitSeconds: -1 }, ["deleteWaitSeconds"]],
    ["deleteWaitSeconds above an hour", { ...base, deleteWaitSeconds: 3601 }, ["deleteWaitSeconds"]],
    ["deleteWaitSeconds fractional", { ...base, deleteWaitSeconds: 1.5 }, ["deleteWaitSeconds"]],
    ["deleteWaitSeconds null is left out", { ...base, deleteWaitSeconds: null }, []],
    ["adopt null is left out", { ...base, adopt: null }, []],
    ["adopt empty", { ...base, adopt: "" }, ["adopt"]],
    ["unknown property", { ...base, server: "ghcr.io" }, ["server"]],
    ["unknown password at preview", { ...base, password: UNKNOWN }, []],
    ["unknown username at preview", { ...base, username: UNKNOWN }, []],
    ["unknown name at preview", { ...base, name: UNKNOWN }, []],
  ])("%s", (_label, news, failedProperties) => {
    const result = checkRegistryCredential({}, news as any);
    expect((result.failures ?? []).map((f) => f.property)).toEqual(failedProperties);
  });

  test("failures name the field and the rule, and never quote a value", () => {
    const result = checkRegistryCredential({}, { name: "ghcr", username: 5, password: "" } as any);
    expect(result.failures).toEqual([
      { property: "username", reason: "username must be a string: the user name the registry knows" },
      { property: "password", reason: "password must not be empty" },
    ]);
    const bogus = checkRegistryCredential({}, { ...base, extra: PASSWORD } as any);
    expect(JSON.stringify(bogus.failures)).not.toContain(PASSWORD);
    const missing = checkRegistryCredential({}, { name: "ghcr" } as any);
    expect(missing.failures?.map((f) => f.reason)).toEqual([
      "username is required: the user name the registry knows",
      "password is required: the registry password or access token",
    ]);
  });

  test.each([
    ["name not a string", { name: 7 }, "name must be a string"],
    ["username empty", { username: "" }, "username must not be empty"],
    ["adopt empty", { adopt: "" }, "adopt (the ID of an existing registry credential) must not be empty"],
    ["adopt not a string", { adopt: 7 }, "adopt (the ID of an existing registry credential) must be a string"],
  ])("%s: the failure names the field and the rule", (_label, change, reason) => {
    const [property] = Object.keys(change);
    expect(checkRegistryCredential({}, { ...base, ...change } as any).failures).toEqual([{ property, reason }]);
  });

  test("a property the kind does not have is refused naming the kind", () => {
    expect(checkRegistryCredential({}, { ...base, passwrd: PASSWORD } as any).failures).toEqual([
      { property: "passwrd", reason: "passwrd is not a RegistryCredential argument; did you mean password?" },
    ]);
  });

  test("the exported schema, used on its own, refuses an empty name", () => {
    const parsed = registryCredentialArgsSchema.safeParse({ ...base, name: "" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([["name", "name must be at least 1 character"]]);
  });

  test("without a logical name, a missing name is made from the kind's fallback", () => {
    expect(checkRegistryCredential({}, { username: "robot", password: PASSWORD }).inputs!.name).toMatch(/^registry-[0-9a-f]{7}$/);
  });

  test("a missing name is generated from the logical name and then kept", () => {
    const first = checkRegistryCredential({}, { username: "robot", password: PASSWORD, [LOGICAL_NAME_KEY]: "ghcr" });
    expect(first.inputs!.name).toMatch(/^ghcr-[0-9a-f]{7}$/);
    const second = checkRegistryCredential(first.inputs as any, { username: "robot", password: "new", [LOGICAL_NAME_KEY]: "ghcr" });
    expect(second.inputs!.name).toBe(first.inputs!.name);
  });

  test("the engine's own properties are not the user's", () => {
    const result = checkRegistryCredential({}, { ...base, __provider: "exports.handler = ...", [LOGICAL_NAME_KEY]: "r" });
    expect(result.failures).toEqual([]);
  });
});

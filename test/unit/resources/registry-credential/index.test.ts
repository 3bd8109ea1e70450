// The RegistryCredential class (registry-credential/index.ts): what it hands to Pulumi. The
// username and password secret on the way in (so state and every output of their names are
// encrypted) and listed as secret outputs; an argument it does not have passed on, as a secret,
// for check() to refuse by name; `.get` reads by id and takes no state but the account.
import * as pulumi from "@pulumi/pulumi";
import { shimProvider } from "../../../../src/resources/engine/shim";
import { RegistryCredential } from "../../../../src/resources/registry-credential";
import { registered, registrationOf } from "../../../helpers/registered";

jest.mock("@pulumi/pulumi", () => require("../../../helpers/registered").pulumiRecordingResources());

const isSecret = (o: unknown) => (o as { isSecret: Promise<boolean> }).isSecret;
const valueOf = <T>(o: unknown) => new Promise<T>((resolve) => pulumi.output(o as T).apply((v) => (resolve(v as T), v)));
const TYPE = "computeplatform:RegistryCredential";

beforeEach(() => registered.splice(0));

test("username and password go in as secrets; the name and the wait as given", async () => {
  new RegistryCredential("ghcr", { name: "ghcr-bot", username: "robot", password: "s3cr3t", deleteWaitSeconds: 0 });
  const r = registrationOf(TYPE, "ghcr");
  expect(r.provider).toBe(shimProvider("registry-credential"));
  expect(r.props).toMatchObject({ name: "ghcr-bot", deleteWaitSeconds: 0, __logicalName: "ghcr", account: undefined, adopt: undefined });
  for (const [key, value] of [["username", "robot"], ["password", "s3cr3t"]]) {
    expect(await isSecret(r.props[key])).toBe(true);
    expect(await valueOf(r.props[key])).toBe(value);
  }
  expect(await isSecret(pulumi.output(r.props.name))).toBe(false);
});

test("both are secret outputs too, with the account, after the program's own", () => {
  new RegistryCredential("ghcr", { username: "robot", password: "s3cr3t" }, { additionalSecretOutputs: ["name"] });
  expect(registrationOf(TYPE, "ghcr").opts?.additionalSecretOutputs).toEqual(["name", "username", "password", "account"]);
});

test("a misspelled argument goes on for check() to refuse, as a secret: it may hold the password", async () => {
  new RegistryCredential("ghcr", { username: "robot", pasword: "s3cr3t" } as never);
  const r = registrationOf(TYPE, "ghcr");
  expect(await isSecret(r.props.pasword)).toBe(true);
  expect(r.props.password).toBeUndefined();
});

test(".get reads by id with the account only; any other state is refused by name", () => {
  RegistryCredential.get("existing", "reg-1");
  expect(registrationOf(TYPE, "existing").opts).toMatchObject({ id: "reg-1" });
  RegistryCredential.get("elsewhere", "reg-3", { account: { name: "b", apiKey: "k" } });
  expect(registrationOf(TYPE, "elsewhere").props.account).toBeDefined();
  expect(() => RegistryCredential.get("bad", "reg-2", { password: "x" } as never)).toThrow(/^RegistryCredential\.get\(name, id, state\?, opts\?\): "password" is not a field of its state \(account\)/);
});

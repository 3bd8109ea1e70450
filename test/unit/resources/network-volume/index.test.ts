// The NetworkVolume class (network-volume/index.ts): what it hands to Pulumi. Its arguments as
// given, an argument it does not have passed on for check() to refuse by name, the logical name,
// the account's key made secret and the account kept out of plain state; `.get` reads by id and
// takes no state but the account.
import * as pulumi from "@pulumi/pulumi";
import { shimProvider } from "../../../../src/resources/engine/shim";
import { NetworkVolume } from "../../../../src/resources/network-volume";
import { registered, registrationOf } from "../../../helpers/registered";

jest.mock("@pulumi/pulumi", () => require("../../../helpers/registered").pulumiRecordingResources());

const isSecret = (o: unknown) => (o as { isSecret: Promise<boolean> }).isSecret;

beforeEach(() => registered.splice(0));

test("the arguments as given, the logical name, the shim of its kind, under computeplatform:NetworkVolume", () => {
  new NetworkVolume("data", { size: 50, dataCenter: "EU-RO-1", type: "STANDARD", deleteWaitSeconds: 30, adopt: "vol-9" });
  const r = registrationOf("computeplatform:NetworkVolume", "data");
  expect(r.props).toEqual({ name: undefined, size: 50, dataCenter: "EU-RO-1", type: "STANDARD", deleteWaitSeconds: 30, adopt: "vol-9", account: undefined, __logicalName: "data" });
  expect(r.provider).toBe(shimProvider("network-volume"));
});

test("an argument it does not have goes on, for check() to refuse by name", () => {
  new NetworkVolume("data", { size: 50, dataCenter: "EU-RO-1", sizeGb: 50 } as never);
  expect(registrationOf("computeplatform:NetworkVolume", "data").props).toMatchObject({ sizeGb: 50, size: 50 });
});

test("the account's key is made secret, and the account is a secret output beside the program's own", async () => {
  new NetworkVolume("data", { size: 50, dataCenter: "EU-RO-1", account: { name: "b", apiKey: "cp_key_b" } }, { additionalSecretOutputs: ["name"], protect: true });
  const r = registrationOf("computeplatform:NetworkVolume", "data");
  expect(r.opts).toMatchObject({ additionalSecretOutputs: ["name", "account"], protect: true });
  expect(await isSecret(pulumi.output(r.props.account))).toBe(true);
});

test(".get reads by id with the account only; any other state is refused by name", () => {
  NetworkVolume.get("existing", "vol-1");
  expect(registrationOf("computeplatform:NetworkVolume", "existing").opts).toMatchObject({ id: "vol-1" });
  NetworkVolume.get("elsewhere", "vol-2", { account: { name: "b", apiKey: "k" } });
  expect(registrationOf("computeplatform:NetworkVolume", "elsewhere").props.account).toBeDefined();
  expect(() => NetworkVolume.get("bad", "vol-3", { size: 50 } as never)).toThrow(/^NetworkVolume\.get\(name, id, state\?, opts\?\): "size" is not a field of its state \(account\)/);
});

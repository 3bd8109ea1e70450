import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { planRegistryCredentialChange, registryUsers } from "../../../../src/resources/registry-credential/plan";
import { RegistryCredentialProvider } from "../../../../src/resources/registry-credential/provider";
import { type RegistryCredentialOutputs } from "../../../../src/resources/registry-credential/schema";

const base = { name: "ghcr", username: "robot", password: "pw-1" };
const olds: RegistryCredentialOutputs = { id: "reg-1", ...base, deleteWaitSeconds: 120 };

describe("RegistryCredential diff plan", () => {
  test.each([
    ["no change", base, [], []],
    ["rename replaces (no update on the platform)", { ...base, name: "ghcr2" }, ["name"], []],
    ["new username replaces", { ...base, username: "bot" }, ["username"], []],
    ["new password replaces", { ...base, password: "pw-2" }, ["password"], []],
    ["all three", { name: "n", username: "u", password: "p" }, ["name", "username", "password"], []],
    ["unknown password at preview replaces", { ...base, password: UNKNOWN }, ["password"], []],
    ["unknown username at preview replaces", { ...base, username: UNKNOWN }, ["username"], []],
    ["unknown name at preview replaces", { ...base, name: UNKNOWN }, ["name"], []],
    ["delete wait changes state only", { ...base, deleteWaitSeconds: 10 }, [], ["deleteWaitSeconds"]],
    ["default delete wait is no change", { ...base, deleteWaitSeconds: 120 }, [], []],
    ["unknown delete wait is an update", { ...base, deleteWaitSeconds: UNKNOWN }, [], ["deleteWaitSeconds"]],
    ["a replace carries no separate update", { ...base, password: "pw-2", deleteWaitSeconds: 5 }, ["password"], []],
  ])("%s", (_label, news, replaces, updates) => {
    const plan = planRegistryCredentialChange(olds, news as any);
    expect(plan.replaces).toEqual(replaces);
    expect(plan.updates).toEqual(updates);
  });

  test("a state made by get() (no secrets) replaces when the program gives them", () => {
    const got = { id: "reg-1", name: "ghcr", deleteWaitSeconds: 120 } as RegistryCredentialOutputs;
    expect(planRegistryCredentialChange(got, base).replaces).toEqual(["username", "password"]);
  });

  test("diff: the new credential first, and no call to the platform", async () => {
    const provider = new RegistryCredentialProvider({
      client: () => {
        throw new Error("diff must not call the platform");
      },
    });
    expect(await provider.diff("reg-1", olds, { ...base, password: "pw-2" })).toEqual({
      changes: true,
      replaces: ["password"],
      deleteBeforeReplace: false,
    });
    expect(await provider.diff("reg-1", olds, base)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(await provider.diff("reg-1", olds, { ...base, deleteWaitSeconds: 1 })).toMatchObject({ changes: true, replaces: [] });
  });

  test("update changes only the delete wait, without a request", async () => {
    const provider = new RegistryCredentialProvider({
      client: () => {
        throw new Error("update must not call the platform");
      },
    });
    expect(await provider.update("reg-1", olds, { ...base, deleteWaitSeconds: 7 })).toEqual({ outs: { ...olds, deleteWaitSeconds: 7 } });
    expect(await provider.update("reg-1", olds, base)).toEqual({ outs: olds });
  });
});

describe("registryUsers", () => {
  test("live pods and templates whose registry is the credential", () => {
    const pods = [
      { id: "p1", name: "a", status: "RUNNING", registry: "reg-1" },
      { id: "p2", name: "b", status: "TERMINATED", registry: "reg-1" },
      { id: "p3", name: "c", status: "EXITED", registry: "reg-2" },
      { id: "p4", name: "d", status: "EXITED", registry: null },
      { id: "p5", name: "e", status: "PROVISIONING", registry: "reg-1" },
    ] as any;
    const templates = [
      { id: "t1", name: "base", registry: "reg-1" },
      { id: "t2", name: "other", registry: null },
    ] as any;
    expect(registryUsers(pods, templates, "reg-1")).toEqual([
      { kind: "pod", id: "p1", name: "a", status: "RUNNING" },
      { kind: "pod", id: "p5", name: "e", status: "PROVISIONING" },
      { kind: "template", id: "t1", name: "base" },
    ]);
  });
});

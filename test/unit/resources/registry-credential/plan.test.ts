import { UNKNOWN } from "../../../../src/resources/inputs/check";
import type { Registry as WireRegistry } from "../../../../src/client";
import { deleteLine, stepLine } from "../../../../src/resources/lifecycle/step-line";
import { outputsOf, planRegistryCredentialChange, REGISTRY_CREDENTIAL_STEP_EFFECTS, registryUsers } from "../../../../src/resources/registry-credential/plan";
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

  test("a delete wait declared as recorded is no change; a state without one holds the default", () => {
    expect(planRegistryCredentialChange({ ...olds, deleteWaitSeconds: 10 }, { ...base, deleteWaitSeconds: 10 })).toEqual({ replaces: [], updates: [] });
    const { deleteWaitSeconds: _w, ...noWait } = olds;
    expect(planRegistryCredentialChange(noWait, { ...base, deleteWaitSeconds: 120 })).toEqual({ replaces: [], updates: [] });
    expect(planRegistryCredentialChange(noWait, { ...base, deleteWaitSeconds: 10 })).toEqual({ replaces: [], updates: ["deleteWaitSeconds"] });
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

describe("RegistryCredential outputs", () => {
  const wire = { id: "reg-9", name: "ghcr-live", extra: 1 } as unknown as WireRegistry;

  test("the platform's name; the secrets and the wait from the inputs, since no answer carries them", () => {
    expect(outputsOf(wire, { username: "robot", password: "pw-1" }, 30)).toEqual({ name: "ghcr-live", username: "robot", password: "pw-1", deleteWaitSeconds: 30 });
  });

  test("without secrets (a state made by get()) they stay unset; the wait defaults to 120 s", () => {
    expect(outputsOf(wire, undefined, undefined)).toEqual({ name: "ghcr-live", username: undefined, password: undefined, deleteWaitSeconds: 120 });
  });
});

describe("RegistryCredential step lines", () => {
  test("a replacement makes a new credential and destroys no data; the delete wait sends nothing", () => {
    expect(stepLine('RegistryCredential "c"', planRegistryCredentialChange(olds, { ...base, username: "bot" }), REGISTRY_CREDENTIAL_STEP_EFFECTS)).toBe(
      'RegistryCredential "c": replaced (username): a new one is made, then the old deleted; lost: the old credential (what names it through this resource\'s id follows the new one)',
    );
    expect(stepLine('RegistryCredential "c"', planRegistryCredentialChange(olds, { ...base, deleteWaitSeconds: 5 }), REGISTRY_CREDENTIAL_STEP_EFFECTS)).toBe(
      'RegistryCredential "c": no request (recorded in state only: deleteWaitSeconds)',
    );
    expect(deleteLine("RegistryCredential", "reg-1", REGISTRY_CREDENTIAL_STEP_EFFECTS)).toBe("RegistryCredential reg-1: deleted; lost: the credential");
  });

  test("a credential runs nothing: no change of it restarts a container here (a pod's own line says when its registry does)", () => {
    expect(REGISTRY_CREDENTIAL_STEP_EFFECTS.restarts).toEqual([]);
  });
});

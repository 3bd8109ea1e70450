import { deleteLine, stepLine, stepSubject } from "../../../../src/resources/lifecycle/step-line";
import { REGISTRY_CREDENTIAL_STEP_EFFECTS } from "../../../../src/resources/registry-credential/plan";
import { ENDPOINT_STEP_EFFECTS } from "../../../../src/resources/serverless-endpoint/step-effects";
import { planTemplateChange, templateStepEffects } from "../../../../src/resources/template/plan";
import { VOLUME_STEP_EFFECTS } from "../../../../src/resources/network-volume/plan";
import { RECORDED_ONLY } from "../../../../src/resources/pod/plan";
import { podStepEffects, RESTARTING_FIELDS } from "../../../../src/resources/pod/update-plan";

const onVolume = podStepEffects({ mounts: { network: [{ volumeId: "v1", path: "/workspace" }] } } as never);
const ownDisk = podStepEffects({ mounts: {} } as never);

test.each([
  [{ replaces: [], updates: [] }, undefined],
  [{ replaces: [], updates: ["maxHourlyCost", "waitTimeoutSeconds"] }, 'Pod "t": no request (recorded in state only: maxHourlyCost, waitTimeoutSeconds)'],
  [{ replaces: [], updates: ["image", "name"] }, 'Pod "t": updated in place; the container restarts, its container disk wiped (image); also name'],
  [{ replaces: [], updates: ["locked"] }, 'Pod "t": updated in place (locked)'],
  [{ replaces: [], updates: ["waitFor"] }, 'Pod "t": no write (up reads it and waits again: waitFor)'],
  [{ replaces: [], updates: ["globalNetworking"] }, 'Pod "t": updated in place; the container restarts, its container disk wiped (globalNetworking)'],
  [{ replaces: ["gpu"], updates: ["image"] }, 'Pod "t": replaced (gpu): a new one is made, then the old deleted; lost: its container disk and its public address (IP and ports); kept: the data on its network volume, mounted again'],
] as const)("a pod on a network volume: %j", (plan, line) => {
  expect(stepLine('Pod "t"', plan, onVolume)).toBe(line);
});

test("a pod with no network volume: its replacement destroys data", () => {
  expect(stepLine('Pod "t"', { replaces: ["cloud"], updates: [] }, ownDisk)).toBe(
    'Pod "t": replaced (cloud): a new one is made, then the old deleted; lost: its container disk and its public address (IP and ports) [DESTROYS DATA]',
  );
});

test("the pod's line is the same tables that decide its update: recorded-only fields send nothing, restarting fields restart", () => {
  for (const f of RECORDED_ONLY) expect(stepLine("p", { replaces: [], updates: [f] }, onVolume)).toMatch(/: no request/);
  for (const f of RESTARTING_FIELDS) expect(stepLine("p", { replaces: [], updates: [f] }, onVolume)).toMatch(/container restarts/);
});

test("a network volume: a replacement destroys its data; deleteWaitSeconds sends nothing; name and size in place", () => {
  expect(stepLine('NetworkVolume "d"', { replaces: ["dataCenter"], updates: [] }, VOLUME_STEP_EFFECTS)).toBe(
    'NetworkVolume "d": replaced (dataCenter): a new one is made, then the old deleted; lost: its data (the new volume is empty; nothing is copied) [DESTROYS DATA]',
  );
  expect(stepLine('NetworkVolume "d"', { replaces: [], updates: ["deleteWaitSeconds"] }, VOLUME_STEP_EFFECTS)).toBe('NetworkVolume "d": no request (recorded in state only: deleteWaitSeconds)');
  expect(stepLine('NetworkVolume "d"', { replaces: [], updates: ["name", "size"] }, VOLUME_STEP_EFFECTS)).toBe('NetworkVolume "d": updated in place (name, size)');
});

test("a delete says what it loses: a volume's data and a pod's own disk are marked; a pod on a network volume keeps that data", () => {
  expect(deleteLine("NetworkVolume", "v1", VOLUME_STEP_EFFECTS)).toBe("NetworkVolume v1: deleted; lost: its data [DESTROYS DATA]");
  expect(deleteLine("Pod", "p1", ownDisk)).toBe("Pod p1: deleted; lost: its container disk and its public address [DESTROYS DATA]");
  expect(deleteLine("Pod", "p1", podStepEffects({ mounts: { persistent: { size: 20, path: "/data" } } } as never))).toBe(
    "Pod p1: deleted; lost: its container disk, the volume on its own disk (mounts.persistent) and its public address [DESTROYS DATA]",
  );
  expect(deleteLine("Pod", "p1", onVolume)).toBe("Pod p1: deleted; lost: its container disk and its public address; kept: the data on its network volume");
  expect(deleteLine("Template", "t1", templateStepEffects({}, {}))).toBe("Template t1: deleted; lost: the template (it runs nothing itself)");
  expect(deleteLine("RegistryCredential", "r1", REGISTRY_CREDENTIAL_STEP_EFFECTS)).toBe("RegistryCredential r1: deleted; lost: the credential");
  expect(deleteLine("ServerlessEndpoint", "e1", ENDPOINT_STEP_EFFECTS)).toBe("ServerlessEndpoint e1: deleted; lost: its workers, its id and its request URLs");
});

test("a template: a serverless one's container change rolls the workers of the endpoints running it, a new env value too", () => {
  const serverless = { serverless: true, env: { A: "1" } };
  const plan = (news: Record<string, unknown>) => ({ replaces: [], updates: planTemplateChange(serverless as never, { ...serverless, ...news } as never).updates });
  expect(stepLine('Template "w"', plan({ image: "w:2", name: "x" }), templateStepEffects(serverless, { ...serverless, image: "w:2" }))).toBe(
    'Template "w": updated in place (name, image); every endpoint running it rolls its workers (image)',
  );
  expect(stepLine('Template "w"', plan({ env: { A: "2" } }), templateStepEffects(serverless, { ...serverless, env: { A: "2" } }))).toBe(
    'Template "w": updated in place (env); every endpoint running it rolls its workers (env)',
  );
  expect(stepLine('Template "w"', plan({ env: { B: "2" } }), templateStepEffects(serverless, { ...serverless, env: { B: "2" } }))).toBe(
    'Template "w": updated in place (env); every endpoint running it rolls its workers (env)',
  );
  // A pod template: pods made from it keep what they run.
  expect(stepLine('Template "p"', { replaces: [], updates: ["image"] }, templateStepEffects({ serverless: false }, { image: "x" }))).toBe('Template "p": updated in place (image)');
  expect(stepLine('Template "p"', { replaces: [], updates: ["deleteWaitSeconds"] }, templateStepEffects({}, {}))).toBe('Template "p": no request (recorded in state only: deleteWaitSeconds)');
  expect(stepLine('Template "p"', { replaces: ["mounts"], updates: [] }, templateStepEffects({}, {}))).toBe(
    "Template \"p\": replaced (mounts): a new one is made, then the old deleted; lost: its id (what names it through this resource's id follows the new one)",
  );
});

test("a registry credential: a new secret replaces it, holding no data; the delete wait sends nothing", () => {
  expect(stepLine('RegistryCredential "c"', { replaces: ["password"], updates: [] }, REGISTRY_CREDENTIAL_STEP_EFFECTS)).toBe(
    "RegistryCredential \"c\": replaced (password): a new one is made, then the old deleted; lost: the old credential (what names it through this resource's id follows the new one)",
  );
  expect(stepLine('RegistryCredential "c"', { replaces: [], updates: ["deleteWaitSeconds"] }, REGISTRY_CREDENTIAL_STEP_EFFECTS)).toBe('RegistryCredential "c": no request (recorded in state only: deleteWaitSeconds)');
});

describe("the line's parts, on effects of no kind in particular", () => {
  const effects = {
    noRequest: ["note"],
    readsOnly: ["waitFor"],
    restarts: ["image", "ports"],
    rollsUsers: ["image", "env"],
    replaced: { lost: "the old one", destroysData: false },
    deleted: { lost: "it", destroysData: false },
  };

  test("several fields are listed with commas, each part of the line", () => {
    expect(stepLine("X", { replaces: ["a", "b"], updates: [] }, effects)).toBe("X: replaced (a, b): a new one is made, then the old deleted; lost: the old one");
    expect(stepLine("X", { replaces: [], updates: ["waitFor", "note"] }, effects)).toBe("X: no write (up reads it and waits again: waitFor, note)");
    expect(stepLine("X", { replaces: [], updates: ["env", "args", "name"] }, { ...effects, restarts: [], rollsUsers: ["env", "args"] })).toBe(
      "X: updated in place (env, args, name); every endpoint running it rolls its workers (env, args)",
    );
    expect(stepLine("X", { replaces: [], updates: ["image", "ports", "name", "env"] }, effects)).toBe(
      "X: updated in place; the container restarts, its container disk wiped (image, ports); also name, env",
    );
  });

  test("an object whose workers roll: what is sent, why they roll, and whether up waits", () => {
    expect(stepLine("E", { replaces: [], updates: ["gpuIds", "note"], rolls: ["gpu.pools", "template.image"], waitsForRollout: true }, effects)).toBe(
      "E: updated in place (gpuIds); its workers roll, each replaced by one of the new version (gpu.pools; template.image); up waits for the rollout",
    );
    expect(stepLine("E", { replaces: [], updates: ["note"], rolls: ["template.env"], waitsForRollout: false }, effects)).toBe(
      "E: no request to it; its workers roll, each replaced by one of the new version (template.env); up does not wait for it (waitForRollout: false)",
    );
  });

  test("the subject: the kind and the logical name, the id when no name came", () => {
    // __logicalName: the key the resource class hands its logical name under (lifecycle/owner.ts).
    expect(stepSubject("Pod", { __logicalName: "trainer", image: "secret-image" }, "pod-1")).toBe('Pod "trainer"');
    expect(stepSubject("Pod", { image: "x" }, "pod-1")).toBe('Pod "pod-1"');
  });
});

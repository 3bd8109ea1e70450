import { stepLine } from "../../../../src/resources/lifecycle/step-line";
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

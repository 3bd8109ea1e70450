import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { checkNetworkVolume, type NetworkVolumeOutputs } from "../../../../src/resources/network-volume/schema";
import type { NetworkVolume as WireNetworkVolume } from "../../../../src/client";
import { deleteLine, stepLine } from "../../../../src/resources/lifecycle/step-line";
import { endpointsMounting, outputsOf, planNetworkVolumeChange, podsMounting, updateBody, VOLUME_STEP_EFFECTS } from "../../../../src/resources/network-volume/plan";
import { NetworkVolumeProvider } from "../../../../src/resources/network-volume/provider";

const base = { name: "data", size: 50, dataCenter: "EU-RO-1" };

describe("NetworkVolume check", () => {
  test.each([
    ["valid", {}, base, []],
    ["smallest size", {}, { ...base, size: 10 }, []],
    ["largest size", {}, { ...base, size: 4096 }, []],
    ["size below 10", {}, { ...base, size: 9 }, ["size"]],
    ["size above 4096", {}, { ...base, size: 4097 }, ["size"]],
    ["fractional size", {}, { ...base, size: 10.5 }, ["size"]],
    ["size as a string", {}, { ...base, size: "50" }, ["size"]],
    ["size missing", {}, { name: "data", dataCenter: "EU-RO-1" }, ["size"]],
    ["dataCenter missing", {}, { name: "data", size: 50 }, ["dataCenter"]],
    ["dataCenter empty", {}, { ...base, dataCenter: "" }, ["dataCenter"]],
    ["unknown property", {}, { ...base, bogus: 1 }, ["bogus"]],
    ["deleteWaitSeconds negative", {}, { ...base, deleteWaitSeconds: -1 }, ["deleteWaitSeconds"]],
    ["deleteWaitSeconds above an hour", {}, { ...base, deleteWaitSeconds: 3601 }, ["deleteWaitSeconds"]],
    ["grow", base, { ...base, size: 100 }, []],
    ["same size", base, base, []],
    ["shrink", { ...base, size: 100 }, base, ["size"]],
    ["shrink while moving data center (a new volume)", { ...base, size: 100 }, { ...base, dataCenter: "US-TX-3" }, []],
    ["shrink while the new data center is unknown", { ...base, size: 100 }, { ...base, dataCenter: UNKNOWN }, ["size"]],
    ["unknown size at preview", base, { ...base, size: UNKNOWN }, []],
    ["unknown dataCenter at preview", {}, { ...base, dataCenter: UNKNOWN }, []],
    ["unknown name at preview", {}, { ...base, name: UNKNOWN }, []],
    ["type STANDARD", {}, { ...base, type: "STANDARD" }, []],
    ["type HIGH_PERFORMANCE", {}, { ...base, type: "HIGH_PERFORMANCE" }, []],
    ["type of another name", {}, { ...base, type: "FAST" }, ["type"]],
    ["type lowercase", {}, { ...base, type: "standard" }, ["type"]],
    ["type null is left out", {}, { ...base, type: null }, []],
    ["unknown type at preview", {}, { ...base, type: UNKNOWN }, []],
  ])("%s", (_label, olds, news, failedProperties) => {
    const result = checkNetworkVolume(olds as any, news as any);
    expect((result.failures ?? []).map((f) => f.property)).toEqual(failedProperties);
  });

  test("a size failure names the field and the bounds", () => {
    const [failure] = checkNetworkVolume({}, { ...base, size: 5 }).failures!;
    expect(failure).toEqual({ property: "size", reason: "size must be an integer number of GB from 10 to 4096" });
  });

  test("a shrink is refused with the old and new sizes, not planned as a replace", () => {
    const [failure] = checkNetworkVolume({ ...base, size: 200 }, { ...base, size: 100 }).failures!;
    expect(failure.property).toBe("size");
    expect(failure.reason).toContain("cannot shrink from 200 to 100 GB");
    expect(failure.reason).toContain("only grow");
  });

  test("a missing name is generated from the logical name and then kept", () => {
    const first = checkNetworkVolume({}, { size: 50, dataCenter: "EU-RO-1", [LOGICAL_NAME_KEY]: "scratch" });
    expect(first.failures).toEqual([]);
    expect(first.inputs!.name).toMatch(/^scratch-[0-9a-f]{7}$/);
    const second = checkNetworkVolume(first.inputs as any, {
      size: 80,
      dataCenter: "EU-RO-1",
      [LOGICAL_NAME_KEY]: "scratch",
    });
    expect(second.inputs!.name).toBe(first.inputs!.name);
  });

  test("the engine's own properties are not reported as unknown", () => {
    const result = checkNetworkVolume({}, { ...base, __provider: "exports.handler = ...", [LOGICAL_NAME_KEY]: "v" });
    expect(result.failures).toEqual([]);
  });
});

describe("NetworkVolume diff plan", () => {
  const olds: NetworkVolumeOutputs = { id: "vol-1", ...base, type: "STANDARD", deleteWaitSeconds: 120 };
  test.each([
    ["no change", base, [], [], false],
    ["rename", { ...base, name: "data2" }, [], ["name"], false],
    ["grow", { ...base, size: 60 }, [], ["size"], false],
    ["rename and grow", { ...base, name: "d", size: 60 }, [], ["name", "size"], false],
    ["shrink", { ...base, size: 40 }, [], [], true],
    ["move data center", { ...base, dataCenter: "US-TX-3" }, ["dataCenter"], [], false],
    ["move data center and shrink (new volume)", { ...base, dataCenter: "US-TX-3", size: 20 }, ["dataCenter"], [], false],
    ["unknown data center", { ...base, dataCenter: UNKNOWN }, ["dataCenter"], [], false],
    ["unknown size", { ...base, size: UNKNOWN }, [], ["size"], false],
    ["unknown name", { ...base, name: UNKNOWN }, [], ["name"], false],
    ["delete wait changes state only", { ...base, deleteWaitSeconds: 10 }, [], ["deleteWaitSeconds"], false],
    ["default delete wait is no change", { ...base, deleteWaitSeconds: 120 }, [], [], false],
    ["same type", { ...base, type: "STANDARD" }, [], [], false],
    ["another type replaces", { ...base, type: "HIGH_PERFORMANCE" }, ["type"], [], false],
    ["type removed keeps the volume's", base, [], [], false],
    ["unknown type replaces at preview", { ...base, type: UNKNOWN }, ["type"], [], false],
    ["another type and a smaller size: a new volume, no shrink refused", { ...base, type: "HIGH_PERFORMANCE", size: 20 }, ["type"], [], false],
  ])("%s", (_label, news, replaces, updates, refused) => {
    const plan = planNetworkVolumeChange(olds, news as any);
    expect(plan.replaces).toEqual(replaces);
    expect(plan.updates).toEqual(updates);
    expect(plan.refused !== undefined).toBe(refused);
  });

  test("a delete wait declared as recorded is no change; a state without one holds the default", () => {
    expect(planNetworkVolumeChange({ ...olds, deleteWaitSeconds: 10 }, { ...base, deleteWaitSeconds: 10 })).toEqual({ replaces: [], updates: [], refused: undefined });
    const { deleteWaitSeconds: _w, ...noWait } = olds;
    expect(planNetworkVolumeChange(noWait, { ...base, deleteWaitSeconds: 120 }).updates).toEqual([]);
    expect(planNetworkVolumeChange(noWait, { ...base, deleteWaitSeconds: 10 }).updates).toEqual(["deleteWaitSeconds"]);
  });

  test("a refused shrink says why, with both sizes", () => {
    expect(planNetworkVolumeChange(olds, { ...base, size: 40 }).refused).toMatch(/cannot shrink from 50 to 40 GB/);
  });

  test("diff reports a replace only for dataCenter, and fails a shrink instead of replacing", async () => {
    const provider = new NetworkVolumeProvider({
      client: () => {
        throw new Error("diff must not call the platform");
      },
    });
    expect(await provider.diff("vol-1", olds, { ...base, size: 60 })).toEqual({
      changes: true,
      replaces: [],
      stables: ["dataCenter", "type"],
    });
    expect(await provider.diff("vol-1", olds, { ...base, dataCenter: "US-TX-3" })).toMatchObject({
      changes: true,
      replaces: ["dataCenter"],
    });
    expect(await provider.diff("vol-1", olds, base)).toMatchObject({ changes: false });
    await expect(provider.diff("vol-1", olds, { ...base, size: 20 })).rejects.toThrow(/cannot shrink from 50 to 20 GB/);
  });
});

test("a state from before type was recorded is not replaced on a guess", () => {
  const olds = { id: "vol-1", ...base, deleteWaitSeconds: 120 } as NetworkVolumeOutputs;
  expect(planNetworkVolumeChange(olds, { ...base, type: "HIGH_PERFORMANCE" } as any).replaces).toEqual([]);
});

test("a type failure names the allowed tiers", () => {
  const [failure] = checkNetworkVolume({}, { ...base, type: "FAST" }).failures!;
  expect(failure).toEqual({ property: "type", reason: "type must be one of STANDARD, HIGH_PERFORMANCE" });
});

describe("endpointsMounting", () => {
  test("finds endpoints by their networkVolumeId", () => {
    const endpoints = [
      { id: "e1", name: "one", networkVolumeId: "vol-1" },
      { id: "e2", name: "two", networkVolumeId: null },
      { id: "e3", name: "three", networkVolumeId: "vol-2" },
    ] as any;
    expect(endpointsMounting(endpoints, "vol-1")).toEqual([{ kind: "endpoint", id: "e1", name: "one" }]);
  });
});

describe("podsMounting", () => {
  const pod = (id: string, status: string, volumeId?: string) =>
    ({
      id,
      name: `n-${id}`,
      status,
      mounts: volumeId ? { network: [{ volumeId, path: "/data" }] } : {},
    }) as any;

  test("finds pods by their network mount and leaves out terminated ones", () => {
    const unmounted = { id: "f", name: "n-f", status: "RUNNING" } as any;
    const pods = [pod("a", "RUNNING", "vol-1"), pod("b", "EXITED", "vol-2"), pod("c", "TERMINATED", "vol-1"), pod("d", "EXITED", "vol-1"), pod("e", "RUNNING"), unmounted];
    expect(podsMounting(pods, "vol-1")).toEqual([
      { kind: "pod", id: "a", name: "n-a", status: "RUNNING" },
      { kind: "pod", id: "d", name: "n-d", status: "EXITED" },
    ]);
  });
});

describe("NetworkVolume on the wire", () => {
  const olds: NetworkVolumeOutputs = { id: "vol-1", ...base, type: "STANDARD", deleteWaitSeconds: 120 };

  test("outputs: what the platform has, the wait kept from the inputs (120 s when left out)", () => {
    const wire = { id: "vol-1", name: "data", size: 75, dataCenter: "EU-RO-1", type: "HIGH_PERFORMANCE", extra: 1 } as unknown as WireNetworkVolume;
    expect(outputsOf(wire, 30)).toEqual({ name: "data", size: 75, dataCenter: "EU-RO-1", type: "HIGH_PERFORMANCE", deleteWaitSeconds: 30 });
    expect(outputsOf(wire, undefined).deleteWaitSeconds).toBe(120);
  });

  test("the PATCH body: the name and the size when they changed, nothing when neither did", () => {
    const news = { ...base, deleteWaitSeconds: 120 };
    expect(updateBody(olds, { ...news, name: "data2" })).toEqual({ name: "data2" });
    expect(updateBody(olds, { ...news, size: 60 })).toEqual({ size: 60 });
    expect(updateBody(olds, { ...news, name: "data2", size: 60 })).toEqual({ name: "data2", size: 60 });
    expect(updateBody(olds, { ...news, deleteWaitSeconds: 5 })).toBeUndefined();
  });
});

describe("NetworkVolume step lines", () => {
  const olds: NetworkVolumeOutputs = { id: "vol-1", ...base, type: "STANDARD", deleteWaitSeconds: 120 };
  const line = (news: Record<string, unknown>) => stepLine('NetworkVolume "d"', planNetworkVolumeChange(olds, news), VOLUME_STEP_EFFECTS);

  test("a replacement and a delete destroy the data; a grow and a rename are PATCHes; the delete wait sends nothing", () => {
    expect(line({ ...base, dataCenter: "US-TX-3" })).toBe('NetworkVolume "d": replaced (dataCenter): a new one is made, then the old deleted; lost: its data (the new volume is empty; nothing is copied) [DESTROYS DATA]');
    expect(line({ ...base, name: "d2", size: 60 })).toBe('NetworkVolume "d": updated in place (name, size)');
    expect(line({ ...base, deleteWaitSeconds: 5 })).toBe('NetworkVolume "d": no request (recorded in state only: deleteWaitSeconds)');
    expect(deleteLine("NetworkVolume", "vol-1", VOLUME_STEP_EFFECTS)).toBe("NetworkVolume vol-1: deleted; lost: its data [DESTROYS DATA]");
  });

  test("a volume runs nothing: no change of it restarts a container", () => {
    expect(VOLUME_STEP_EFFECTS.restarts).toEqual([]);
  });
});

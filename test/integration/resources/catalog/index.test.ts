/**
 * Catalog look-ups a program makes, against the emulator over real HTTP: the filters, the
 * vCPU helper agreeing with what the platform accepts, and credentials from stack config.
 */
import * as pulumi from "@pulumi/pulumi";
import { AuthenticationError, ComputePlatform } from "../../../../src/client";
import type { Emulator } from "../../../../src/emulator";
import {
  getBilling,
  getCpuFlavor,
  getCpuFlavors,
  getDataCenter,
  getDataCenters,
  getGpuType,
  getGpuTypes,
  validVcpuCounts,
} from "../../../../src/resources/catalog";
import { setPlatformSettings } from "../../../../src/resources/engine/settings";
import { type ProviderRig, startProviderRig } from "../../../../tools/engine/rig";

let rig: ProviderRig;
let emu: Emulator;
let client: ComputePlatform;

beforeAll(async () => {
  rig = await startProviderRig();
  ({ emu, client } = rig);
});

afterAll(async () => {
  pulumi.runtime.setAllConfig({});
  setPlatformSettings({});
  await rig?.close();
});

test("getDataCenters filters on globalNetwork", async () => {
  const all = await getDataCenters({}, { client });
  const global = await getDataCenters({ globalNetwork: true }, { client });
  const local = await getDataCenters({ globalNetwork: false }, { client });
  expect(all.length).toBeGreaterThan(2);
  expect(global.length).toBeGreaterThan(0);
  expect(local.length).toBeGreaterThan(0);
  expect(global.every((dc) => dc.globalNetwork)).toBe(true);
  expect(local.every((dc) => !dc.globalNetwork)).toBe(true);
  expect([...global, ...local].map((dc) => dc.id).sort()).toEqual(all.map((dc) => dc.id).sort());
  expect(global.map((dc) => dc.id)).toContain("EU-RO-1");
});

test("getGpuTypes filters on manufacturer and memory", async () => {
  const all = await getGpuTypes({}, { client });
  const amd = await getGpuTypes({ manufacturer: "AMD" }, { client });
  const big = await getGpuTypes({ manufacturer: "NVIDIA", minMemoryGb: 80 }, { client });
  expect(amd.length).toBeGreaterThan(0);
  expect(amd.every((g) => g.manufacturer === "AMD")).toBe(true);
  expect(big.length).toBeGreaterThan(0);
  expect(big.every((g) => g.manufacturer === "NVIDIA" && g.memory >= 80)).toBe(true);
  expect(all.length).toBeGreaterThan(amd.length + big.length - 1);
});

test("look-ups by id return the contract's records, prices included; an unknown id is a NotFoundError", async () => {
  const gpu = await getGpuType("NVIDIA L40S", { client });
  expect(gpu).toMatchObject({ id: "NVIDIA L40S", manufacturer: "NVIDIA" });
  expect(typeof gpu.memory).toBe("number");
  expect(gpu.price).toEqual(expect.objectContaining({ secure: expect.any(Number) }));
  expect((await getGpuTypes({}, { client })).find((g) => g.id === gpu.id)).toEqual(gpu);

  const cpu = await getCpuFlavor("cpu3c", { client });
  expect(cpu).toMatchObject({ id: "cpu3c", vcpu: expect.any(Object) });
  expect(cpu.price).toBeDefined();

  const dc = await getDataCenter("US-TX-3", { client });
  expect(dc).toMatchObject({ id: "US-TX-3", region: "NORTH_AMERICA", networkVolumeTypes: ["HIGH_PERFORMANCE", "STANDARD"] });
  await expect(getDataCenter("MARS-1", { client })).rejects.toMatchObject({ status: 404 });
});

test("getBilling: totals, per pod with the id filter, per volume; a filter on the wrong scope is refused", async () => {
  const pod = await client.pods.create({ name: "billed", image: "busybox:latest", cpu: { id: "cpu3c", vcpuCount: 2 } });
  const volume = await client.networkVolumes.create({ name: "billed-vol", size: 10, dataCenter: "EU-RO-1" });
  try {
    const window = { startTime: new Date(Date.now() - 3_600_000), endTime: new Date(Date.now() + 3_600_000), bucketSize: "hour" as const };
    const total = await getBilling(window, { client });
    expect(total.metadata.query.bucketSize).toBe("hour");
    expect(Array.isArray(total.records)).toBe(true);

    const pods = await getBilling({ ...window, of: "pods", podId: pod.id }, { client });
    expect(pods.records.length).toBeGreaterThan(0);
    expect(pods.records.every((r) => r.podId === pod.id)).toBe(true);
    expect(pods.metadata.query.podId).toBe(pod.id);

    const volumes = await getBilling({ ...window, of: "networkVolumes", networkVolumeId: volume.id }, { client });
    expect(volumes.records.every((r) => r.networkVolumeId === volume.id)).toBe(true);

    const endpoints = await getBilling({ lastN: 2, bucketSize: "day", of: "endpoints" }, { client });
    expect(endpoints.metadata.query.bucketSize).toBe("day");

    await expect(getBilling({ of: "total", podId: pod.id } as any, { client })).rejects.toThrow(
      'getBilling: podId filters only of: "pods" (of is "total")',
    );
    await expect(getBilling({ lastN: 2, startTime: new Date() }, { client })).rejects.toThrow(/lastN.*cannot be combined/);
  } finally {
    await client.pods.delete(pod.id);
    await client.networkVolumes.delete(volume.id);
  }
});

test("a flavor's valid vCPU counts are exactly the ones the platform accepts", async () => {
  const flavors = await getCpuFlavors({ client });
  const flavor = flavors.find((f) => f.id === "cpu1e") ?? flavors[0];
  const counts = validVcpuCounts(flavor);
  expect(counts.length).toBeGreaterThan(0);
  for (const vcpuCount of counts) {
    const pod = await client.pods.create({ name: `vcpu-${vcpuCount}`, image: "busybox", cpu: { id: flavor.id, vcpuCount } });
    expect(pod.cpu).toMatchObject({ id: flavor.id, vcpuCount });
    await client.pods.delete(pod.id);
  }
  // The next power of two past the flavor's maximum is refused by the platform.
  const tooMany = counts.at(-1)! * 2;
  await expect(
    client.pods.create({ name: "vcpu-too-many", image: "busybox", cpu: { id: flavor.id, vcpuCount: tooMany } }),
  ).rejects.toThrow(/vcpu/i);
});

test("inside a program the look-ups use the stack config, and a wrong key never shows", async () => {
  const before = emu.counts().listDataCenters ?? 0;
  pulumi.runtime.setAllConfig({ "computeplatform:apiKey": emu.apiKey, "computeplatform:apiUrl": emu.url });
  const global = await getDataCenters({ globalNetwork: true });
  expect(global.length).toBeGreaterThan(0);
  expect(emu.counts().listDataCenters).toBe(before + 1);
  const flavors = await getCpuFlavors();
  expect(flavors.map((f) => f.id)).toContain("cpu3c");

  const wrongKey = "cp_wrong_key_do_not_print_123456";
  pulumi.runtime.setAllConfig({ "computeplatform:apiKey": wrongKey, "computeplatform:apiUrl": emu.url });
  const err = await getGpuTypes().then(
    () => {
      throw new Error("a wrong key should fail");
    },
    (e) => e,
  );
  expect(err).toBeInstanceOf(AuthenticationError);
  expect(String(err.message)).not.toContain(wrongKey);
  expect(JSON.stringify(err)).not.toContain(wrongKey);
});

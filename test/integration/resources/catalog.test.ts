/**
 * Catalog look-ups a program makes, against the emulator over real HTTP: the filters, the
 * vCPU helper agreeing with what the platform accepts, and credentials from stack config.
 */
import * as pulumi from "@pulumi/pulumi";
import { AuthenticationError, ComputePlatform } from "../../../src/client";
import { type Emulator, startEmulator } from "../../../src/emulator";
import { getCpuFlavors, getDataCenters, getGpuTypes, validVcpuCounts } from "../../../src/resources/catalog";
import { setPlatformSettings } from "../../../src/resources/engine/settings";

const QUOTAS = { minute: 100_000, hour: 1_000_000, day: 10_000_000 };

let emu: Emulator;
let client: ComputePlatform;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, quotas: QUOTAS, timings: { provisioningMs: 10, startingMs: 10, drainMs: 10 } });
  client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, maxRetries: 1 });
});

afterAll(async () => {
  pulumi.runtime.setAllConfig({});
  setPlatformSettings({});
  await client?.close();
  await emu?.close();
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

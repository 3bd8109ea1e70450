// The emulator's catalog and its prices (docs/emulator.md, "Prices and billing"): a pod's cost
// from its compute and cloud, a CPU pod's memory, a volume's storage price by tier, a serverless
// worker's price by its GPU tier.
import {
  CPU_FLAVORS,
  cpuMemoryGb,
  DATA_CENTERS,
  findCpu,
  findDataCenter,
  findGpu,
  GPU_TYPES,
  MODEL_CALL_PRICE,
  pricePerHour,
  serverlessTierPrice,
  VOLUME_PRICE_PER_GB_MONTH,
  volumePricePerHour,
} from "../../../../src/emulator/catalog/data";

const RTX4090 = "NVIDIA GeForce RTX 4090";

test("a GPU pod costs its type's price for its cloud × count, to the thousandth", () => {
  expect(pricePerHour({ gpuId: RTX4090, count: 2 }, "SECURE")).toBe(1.38);
  expect(pricePerHour({ gpuId: RTX4090, count: 3 }, "COMMUNITY")).toBe(1.656);
  expect(pricePerHour({ gpuId: "NVIDIA A100 80GB PCIe", count: 1 }, "COMMUNITY")).toBe(1.312);
});

test("a community host is 20 % cheaper, rounded to the thousandth; a type offered on secure only has no community count", () => {
  for (const g of GPU_TYPES) expect(g.price.community).toBe(Math.round(g.price.secure * 0.8 * 1000) / 1000);
  const mi300 = findGpu("AMD Instinct MI300X");
  expect(mi300).toMatchObject({ community: false, maxCount: { secure: 8, community: 0 } });
  expect(findGpu(RTX4090)?.maxCount).toEqual({ secure: 8, community: 4 });
});

test("a CPU pod costs its flavor's secure per-vCPU price × vcpuCount; the cloud does not change it", () => {
  expect(pricePerHour({ cpuId: "cpu3c", vcpuCount: 4 }, "SECURE")).toBe(0.12);
  expect(pricePerHour({ cpuId: "cpu3c", vcpuCount: 4 }, "COMMUNITY")).toBe(0.12);
});

test("compute the catalog does not hold costs 0", () => {
  expect(pricePerHour({ gpuId: "NVIDIA B200", count: 1 }, "SECURE")).toBe(0);
  expect(pricePerHour({ cpuId: "cpu9z", vcpuCount: 8 }, "SECURE")).toBe(0);
});

test.each([
  ["cpu3c", 4, 8],
  ["cpu3m", 32, 256],
  ["cpu1e", 2, 1], // 0.75 rounded down is 0: at least 1
  ["cpu1e", 8, 3], // 3.0
  ["cpu1e", 4, 1], // 1.5 rounded down
])("a CPU pod of %s with %d vCPUs has %d GB of memory (rounded down, at least 1)", (id, n, gb) => {
  expect(cpuMemoryGb(findCpu(id)!, n)).toBe(gb);
});

test("a volume costs size × its tier's price per GB-month of 30 days, per hour", () => {
  expect(VOLUME_PRICE_PER_GB_MONTH).toEqual({ STANDARD: 0.07, HIGH_PERFORMANCE: 0.14 });
  expect(volumePricePerHour(720, "STANDARD")).toBeCloseTo(0.07, 12);
  expect(volumePricePerHour(100, "HIGH_PERFORMANCE")).toBeCloseTo(14 / 720, 12);
});

test("a serverless GPU tier costs its dearest secure type's price; a tier with no type costs 0", () => {
  expect(serverlessTierPrice("AMPERE_80")).toBe(1.89);
  expect(serverlessTierPrice("ADA_24")).toBe(0.69);
  expect(serverlessTierPrice("HOPPER_141")).toBe(0);
});

test("a hosted-model call bills 0.002 USD", () => {
  expect(MODEL_CALL_PRICE).toBe(0.002);
});

test("look-ups find by exact id only", () => {
  expect(findCpu("cpu3g")?.vcpu).toEqual({ min: 2, max: 64 });
  expect(findCpu("CPU3G")).toBeUndefined();
  expect(findDataCenter("EU-RO-1")?.region).toBe("EUROPE");
  expect(findDataCenter("eu-ro-1")).toBeUndefined();
});

test("every data center offers a volume tier, the first its default; ids are unique in each list", () => {
  for (const d of DATA_CENTERS) expect(d.networkVolumeTypes.length).toBeGreaterThan(0);
  for (const list of [GPU_TYPES, CPU_FLAVORS, DATA_CENTERS]) expect(new Set(list.map((x) => x.id)).size).toBe(list.length);
});

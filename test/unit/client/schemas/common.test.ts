// Issue 14 #5, the client's half: vcpuCount is an integer >= 2 and a power of two, checked
// without 32-bit bit tricks (4294967298 = 2^32 + 2 passed `n & (n - 1)`).
import { schemas } from "../../../../src/client";

const pod = (vcpuCount: number) => ({ name: "p", image: "i", cpu: { id: "cpu3c", vcpuCount } });

test.each([
  [4294967298, "2^32 + 2"],
  [2 ** 33 + 4, "2^33 + 4"],
  [3 * 2 ** 40, "3 * 2^40"],
  [2 ** 32 + 2 ** 31, "2^32 + 2^31"],
  [6, "6"],
  [1, "1 (below 2)"],
  [0, "0"],
  [-4, "negative"],
  [4.5, "a fraction"],
])("vcpuCount %p (%s) is refused by the pod create schema and the CPU catalog query", (n) => {
  const create = schemas.PodCreateParamsSchema.safeParse(pod(n));
  expect(create.success).toBe(false);
  expect(create.error?.issues.map((i) => i.path.join("."))).toContain("cpu.vcpuCount");
  expect(schemas.CpuCatalogQuerySchema.safeParse({ include: ["AVAILABILITY"], vcpuCount: n }).success).toBe(false);
});

test.each([2, 4, 64, 2 ** 31, 2 ** 32, 2 ** 40, 2 ** 52])("vcpuCount %p (a power of two) passes the client; the flavor's range is the platform's rule", (n) => {
  expect(schemas.PodCreateParamsSchema.safeParse(pod(n)).success).toBe(true);
  expect(schemas.CpuCatalogQuerySchema.safeParse({ include: ["AVAILABILITY"], vcpuCount: n }).success).toBe(true);
});

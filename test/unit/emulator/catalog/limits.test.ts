// The maximums of integer fields (docs/emulator.md, "Limits"): past one, a 400 naming the field,
// the limit and the value; a GPU pod's count by its type's maxCount for the pod's cloud.
import { checkContainerLimits, checkGpuCount, MAX_DISK_GB, MAX_PERSISTENT_GB } from "../../../../src/emulator/catalog/limits";
import type { HttpError } from "../../../../src/emulator/core/problem";

function refusal(f: () => void): { status: number; detail: string } | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    return { status: (e as HttpError).status, detail: (e as HttpError).detail };
  }
}

test("disk and a persistent mount go to 4096 GB", () => {
  expect([MAX_DISK_GB, MAX_PERSISTENT_GB]).toEqual([4096, 4096]);
  expect(refusal(() => checkContainerLimits({ disk: 4096, mounts: { persistent: { size: 4096 } } }))).toBeUndefined();
  expect(refusal(() => checkContainerLimits({}))).toBeUndefined();
});

test("past them, 400 naming the field, the limit and the value", () => {
  expect(refusal(() => checkContainerLimits({ disk: 4097 }))).toEqual({ status: 400, detail: "disk: must be <= 4096, got 4097" });
  expect(refusal(() => checkContainerLimits({ disk: 1e20 }))).toEqual({ status: 400, detail: "disk: must be <= 4096, got 100000000000000000000" });
  expect(refusal(() => checkContainerLimits({ mounts: { persistent: { size: 5000 } } }))).toEqual({
    status: 400,
    detail: "mounts.persistent.size: must be <= 4096, got 5000",
  });
});

test("gpu.count goes to the type's maxCount on the pod's cloud (8 on SECURE, 4 on COMMUNITY); 1 when not given", () => {
  expect(refusal(() => checkGpuCount({ id: "NVIDIA GeForce RTX 4090", count: 8 }, "SECURE"))).toBeUndefined();
  expect(refusal(() => checkGpuCount({ id: "NVIDIA GeForce RTX 4090", count: 4 }, "COMMUNITY"))).toBeUndefined();
  expect(refusal(() => checkGpuCount({ id: "NVIDIA GeForce RTX 4090" }, "SECURE"))).toBeUndefined();
  expect(refusal(() => checkGpuCount({ id: "NVIDIA GeForce RTX 4090", count: 9 }, "SECURE"))).toEqual({
    status: 400,
    detail: "gpu.count: 9 is more than GPU type 'NVIDIA GeForce RTX 4090' allows (maxCount 8 on SECURE)",
  });
  expect(refusal(() => checkGpuCount({ id: "NVIDIA GeForce RTX 4090", count: 5 }, "COMMUNITY"))?.detail).toBe(
    "gpu.count: 5 is more than GPU type 'NVIDIA GeForce RTX 4090' allows (maxCount 4 on COMMUNITY)",
  );
});

test("a type offered on secure only allows no GPU on the community cloud", () => {
  expect(refusal(() => checkGpuCount({ id: "AMD Instinct MI300X", count: 1 }, "COMMUNITY"))?.detail).toMatch(/maxCount 0 on COMMUNITY/);
});

test("an unknown type is left to the rule that names it unknown", () => {
  expect(refusal(() => checkGpuCount({ id: "NVIDIA B200", count: 1000 }, "SECURE"))).toBeUndefined();
});

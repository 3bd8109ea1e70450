// What the catalog says of a pod's compute, checked without a write (pod/catalog-check.ts): a GPU
// type or CPU flavor it does not list (with the id it was probably meant to be), a count or vCPU
// count it does not offer; and only a compute that is new or changed, and known, is checked.
import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { catalogFailures, computeChanged } from "../../../../src/resources/pod/catalog-check";

describe("catalogFailures: what the catalog refuses, named, without a write", () => {
  const gpus = [{ id: "G", maxCount: { secure: 8, community: 0 } }, { id: "H", maxCount: { secure: 4, community: 2 } }] as never[];
  const cpus = [{ id: "cpu3c", vcpu: { min: 2, max: 32 } }] as never[];
  test.each([
    ["a listed GPU within maxCount", { gpu: { id: "G", count: 8 }, cloud: "SECURE" }, []],
    ["an unknown GPU id", { gpu: { id: ["H", "X"], count: 1 }, cloud: "SECURE" }, ["gpu.id"]],
    ["above maxCount, naming both", { gpu: { id: "H", count: 3 }, cloud: "COMMUNITY" }, ["gpu.count"]],
    ["above the secure cloud's maxCount", { gpu: { id: "H", count: 5 }, cloud: "SECURE" }, ["gpu.count"]],
    ["within the secure cloud's maxCount, above the community's", { gpu: { id: "H", count: 4 }, cloud: "SECURE" }, []],
    ["a type not offered on the cloud", { gpu: { id: "G", count: 1 }, cloud: "COMMUNITY" }, ["cloud"]],
    ["an unknown CPU flavor", { cpu: { id: "cpu9z", vcpuCount: 2 }, cloud: "SECURE" }, ["cpu.id"]],
    ["vCPUs above the flavor's range", { cpu: { id: "cpu3c", vcpuCount: 64 }, cloud: "SECURE" }, ["cpu.vcpuCount"]],
    ["vCPUs below the flavor's range", { cpu: { id: "cpu3c", vcpuCount: 1 }, cloud: "SECURE" }, ["cpu.vcpuCount"]],
  ])("%s", (_label, inputs, properties) => {
    expect(catalogFailures(inputs as never, gpus, cpus).map((f) => f.property)).toEqual(properties);
  });
  test("the count's reason names the count, the type and its maxCount", () => {
    expect(catalogFailures({ gpu: { id: "H", count: 3 }, cloud: "COMMUNITY" }, gpus, cpus)[0]!.reason).toBe(
      "gpu.count 3 is above the maxCount of H: at most 2 on COMMUNITY cloud",
    );
  });
  test("a list not read checks nothing", () => {
    expect(catalogFailures({ gpu: { id: "X", count: 1 }, cloud: "SECURE" })).toEqual([]);
    expect(catalogFailures({ cpu: { id: "cpu9z", vcpuCount: 64 }, cloud: "SECURE" }, gpus)).toEqual([]);
  });
});

describe("the reasons say what to change", () => {
  const gpus = [{ id: "NVIDIA A100 80GB PCIe", maxCount: { secure: 8, community: 8 } }] as never[];
  const cpus = [{ id: "cpu3c", vcpu: { min: 2, max: 32 } }] as never[];

  test("an id near a listed one names it; one near none says where the ids are", () => {
    expect(catalogFailures({ gpu: { id: "NVIDIA A100 80GB PCle", count: 1 }, cloud: "SECURE" }, gpus)).toEqual([
      { property: "gpu.id", reason: 'gpu.id "NVIDIA A100 80GB PCle" is not a GPU type of the catalog; did you mean "NVIDIA A100 80GB PCIe"? (getGpuTypes() lists the ids)' },
    ]);
    expect(catalogFailures({ gpu: { id: "TPU v5", count: 1 }, cloud: "SECURE" }, gpus)[0]!.reason).toBe(
      'gpu.id "TPU v5" is not a GPU type of the catalog; see getGpuTypes() for the ids',
    );
    expect(catalogFailures({ cpu: { id: "cpu3x", vcpuCount: 2 }, cloud: "SECURE" }, undefined, cpus)[0]!.reason).toBe(
      'cpu.id "cpu3x" is not a CPU flavor of the catalog; did you mean "cpu3c"? (getCpuFlavors() lists the ids)',
    );
  });

  test("a cloud that does not offer the type, and a vCPU count outside the flavor's range, name the figures", () => {
    const communityless = [{ id: "G", maxCount: { secure: 8, community: 0 } }] as never[];
    expect(catalogFailures({ gpu: { id: "G", count: 1 }, cloud: "COMMUNITY" }, communityless)[0]!.reason).toBe("G is not offered on COMMUNITY cloud (its maxCount there is 0)");
    expect(catalogFailures({ cpu: { id: "cpu3c", vcpuCount: 64 }, cloud: "SECURE" }, undefined, cpus)[0]!.reason).toBe(
      "cpu.vcpuCount 64 is outside what flavor cpu3c allows: 2 to 32",
    );
    // The range's ends are allowed.
    for (const vcpuCount of [2, 32]) expect(catalogFailures({ cpu: { id: "cpu3c", vcpuCount }, cloud: "SECURE" }, undefined, cpus)).toEqual([]);
  });

  test("a GPU pod is not checked against the CPU list, nor a CPU pod against the GPU list", () => {
    expect(catalogFailures({ gpu: { id: "NVIDIA A100 80GB PCIe", count: 1 }, cloud: "SECURE" }, gpus, [])).toEqual([]);
    expect(catalogFailures({ cpu: { id: "cpu3c", vcpuCount: 4 }, cloud: "SECURE" }, [], cpus)).toEqual([]);
  });
});

describe("computeChanged: only a new or changed compute, known at the time, is checked", () => {
  const compute = { gpu: { id: "G", count: 1 }, cloud: "SECURE" as const };

  test("a new pod's compute is checked; the same compute again is not, whatever the key order", () => {
    expect(computeChanged(undefined, compute)).toBe(true);
    expect(computeChanged({ cloud: "SECURE", gpu: { count: 1, id: "G" }, image: "other" }, compute)).toBe(false);
  });

  test("a change of GPU, count, CPU or cloud is checked", () => {
    for (const olds of [{ ...compute, gpu: { id: "H", count: 1 } }, { ...compute, gpu: { id: "G", count: 2 } }, { ...compute, cloud: "COMMUNITY" }, { cpu: { id: "cpu3c", vcpuCount: 4 }, cloud: "SECURE" }]) {
      expect(computeChanged(olds, compute)).toBe(true);
    }
  });

  test("a compute unknown at preview waits for its value", () => {
    expect(computeChanged(undefined, { gpu: { id: UNKNOWN as never, count: 1 }, cloud: "SECURE" })).toBe(false);
    expect(computeChanged(undefined, { ...compute, cloud: UNKNOWN as never })).toBe(false);
  });
});

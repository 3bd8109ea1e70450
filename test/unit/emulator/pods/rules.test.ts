// The pod's 400 rules driven directly (the platform's pod rules, docs/emulator.md "Rules it applies"): the
// cross-field rules of a create, the scheduler's placement (preferred data centers in order, the
// volume's data center, global networking, capacity) and the mount rules of an update (kind and
// volume fixed, a path may change, a persistent size only grows). The HTTP tests
// (test/integration/emulator/pods/rules.test.ts) hold each create refusal on the wire; these reach the
// boundaries and orders a body cannot pick out: the power-of-two check past 32 bits, the flavor's
// exact range, which data center wins, and every branch of an update's mounts.
import type { NetworkVolume } from "../../../../src/emulator/network-volumes/store";
import { HttpError } from "../../../../src/emulator/core/problem";
import { checkCpu, checkCreate, checkGlobalNetworkingGpu, checkGlobalNetworkingUpdate, nextMounts, schedule } from "../../../../src/emulator/pods/rules";
import type { CreatePodBody, Mounts, PodRecord } from "../../../../src/emulator/pods/types";

const NVIDIA = "NVIDIA GeForce RTX 4090";
const AMD = "AMD Instinct MI300X";

/** The 400 a rule throws: its detail, or a failure naming what did not throw. */
function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(400);
    return (e as HttpError).detail;
  }
  throw new Error("expected a 400");
}

const body = (b: Partial<CreatePodBody>): CreatePodBody => ({ name: "p", image: "img", ...b });
const volume = (dataCenter: string) => ({ id: "vol-1", dataCenter }) as NetworkVolume;
const everywhere = () => true;

describe("checkCpu: vcpuCount a power of two within the flavor's range", () => {
  test.each([2, 4, 8, 16, 32])("cpu3c takes %i vCPUs", (n) => {
    expect(() => checkCpu({ id: "cpu3c", vcpuCount: n })).not.toThrow();
  });

  test("past the flavor's range on either side, named with the range", () => {
    expect(refusal(() => checkCpu({ id: "cpu3c", vcpuCount: 64 }))).toBe("cpu.vcpuCount: flavor 'cpu3c' allows 2 to 32 vCPUs, got 64");
    // 1 is 2^0: a power of two, but below the minimum.
    expect(refusal(() => checkCpu({ id: "cpu3c", vcpuCount: 1 }))).toBe("cpu.vcpuCount: flavor 'cpu3c' allows 2 to 32 vCPUs, got 1");
    expect(() => checkCpu({ id: "cpu3g", vcpuCount: 64 })).not.toThrow();
  });

  test.each([0, -2, 3, 6, 2.5, 2 ** 32 + 2, 2 ** 53 + 2])("%d is not a power of two", (n) => {
    expect(refusal(() => checkCpu({ id: "cpu3g", vcpuCount: n }))).toBe(`cpu.vcpuCount: must be a power of two, got ${n}`);
  });

  test("a power of two past 32 bits is one (then out of range), not mistaken by 32-bit arithmetic", () => {
    expect(refusal(() => checkCpu({ id: "cpu3g", vcpuCount: 2 ** 32 }))).toMatch(/allows 2 to 64 vCPUs, got 4294967296$/);
  });

  test("an unknown flavor is named before its count is looked at", () => {
    expect(refusal(() => checkCpu({ id: "cpu9x", vcpuCount: 3 }))).toBe("cpu.id: unknown CPU flavor 'cpu9x' (see GET /v2/catalog/cpus)");
  });
});

describe("checkCreate", () => {
  test("a GPU pod or a CPU pod passes; neither or both is refused", () => {
    expect(() => checkCreate(body({ gpu: { id: NVIDIA } }))).not.toThrow();
    expect(() => checkCreate(body({ cpu: { id: "cpu3c", vcpuCount: 2 } }))).not.toThrow();
    expect(refusal(() => checkCreate(body({})))).toBe("exactly one of gpu or cpu must be present");
    expect(refusal(() => checkCreate(body({ gpu: { id: NVIDIA }, cpu: { id: "cpu3c", vcpuCount: 2 } })))).toBe("exactly one of gpu or cpu must be present");
  });

  test("a GPU pod may have a persistent mount or a network mount, not both; a CPU pod no persistent one", () => {
    expect(() => checkCreate(body({ gpu: { id: NVIDIA }, mounts: { persistent: { size: 20, path: "/w" } } }))).not.toThrow();
    expect(() => checkCreate(body({ cpu: { id: "cpu3c", vcpuCount: 2 }, mounts: { network: [{ volumeId: "v", path: "/w" }] } }))).not.toThrow();
    expect(refusal(() => checkCreate(body({ gpu: { id: NVIDIA }, mounts: { persistent: { size: 20, path: "/w" }, network: [{ volumeId: "v", path: "/n" }] } })))).toBe(
      "mounts: at most one of persistent or network may be set",
    );
    expect(refusal(() => checkCreate(body({ cpu: { id: "cpu3c", vcpuCount: 2 }, mounts: { persistent: { size: 20, path: "/w" } } })))).toMatch(/^mounts\.persistent is invalid on a CPU pod/);
  });

  test("global networking: an NVIDIA GPU passes, an AMD one and a CPU pod are refused by name", () => {
    expect(() => checkCreate(body({ gpu: { id: NVIDIA }, globalNetworking: true }))).not.toThrow();
    expect(() => checkCreate(body({ gpu: { id: AMD }, globalNetworking: false }))).not.toThrow();
    expect(refusal(() => checkCreate(body({ gpu: { id: AMD }, globalNetworking: true })))).toBe(`globalNetworking requires an NVIDIA GPU; '${AMD}' is not one`);
    expect(refusal(() => checkGlobalNetworkingGpu(undefined))).toBe("globalNetworking requires an NVIDIA GPU; it is not available on CPU pods");
  });
});

describe("checkCreate: the GPU and CPU named in the body", () => {
  test("an unknown GPU type is named; global networking on one is refused as not NVIDIA", () => {
    expect(refusal(() => checkCreate(body({ gpu: { id: "NVIDIA Nope" } })))).toBe("gpu.id: unknown GPU type 'NVIDIA Nope' (see GET /v2/catalog/gpus)");
    expect(refusal(() => checkGlobalNetworkingGpu({ id: "NVIDIA Nope" }))).toBe("globalNetworking requires an NVIDIA GPU; 'NVIDIA Nope' is not one");
  });

  test("the GPU count is held to the type's maximum on the pod's cloud, secure when none is given", () => {
    expect(() => checkCreate(body({ gpu: { id: NVIDIA, count: 8 } }))).not.toThrow();
    expect(refusal(() => checkCreate(body({ gpu: { id: NVIDIA, count: 9 } })))).toMatch(/^gpu\.count: 9 is more than .*\(maxCount 8 on SECURE\)$/);
    expect(refusal(() => checkCreate(body({ gpu: { id: NVIDIA, count: 5 }, cloud: "COMMUNITY" })))).toMatch(/^gpu\.count: 5 is more than .* on COMMUNITY\)$/);
  });

  test("a CPU pod's flavor and count are checked", () => {
    expect(refusal(() => checkCreate(body({ cpu: { id: "cpu3c", vcpuCount: 3 } })))).toBe("cpu.vcpuCount: must be a power of two, got 3");
  });

  test("an empty network mount list is refused: network is left out for no mount", () => {
    expect(refusal(() => checkCreate(body({ gpu: { id: NVIDIA }, mounts: { network: [] } })))).toBe(
      "mounts.network: an empty list is not allowed (omit network for no mount)",
    );
  });
});

describe("schedule", () => {
  test("no preference: the catalog's first data center with capacity", () => {
    expect(schedule(body({ gpu: { id: NVIDIA } }), undefined, everywhere)).toBe("US-TX-3");
    expect(schedule(body({ gpu: { id: NVIDIA } }), undefined, (_g, dc) => dc !== "US-TX-3")).toBe("US-KS-2");
    // An empty preference is none.
    expect(schedule(body({ gpu: { id: NVIDIA }, dataCenterIds: [] }), undefined, everywhere)).toBe("US-TX-3");
  });

  test("the preferred data centers in the caller's order, the first with capacity", () => {
    const b = body({ gpu: { id: NVIDIA }, dataCenterIds: ["EU-CZ-1", "EU-RO-1", "EU-CZ-1"] });
    expect(schedule(b, undefined, everywhere)).toBe("EU-CZ-1");
    const asked: string[] = [];
    expect(schedule(b, undefined, (g, dc) => (asked.push(`${g}@${dc}`), dc === "EU-RO-1"))).toBe("EU-RO-1");
    // Asked once per data center, the repeated one too.
    expect(asked).toEqual([`${NVIDIA}@EU-CZ-1`, `${NVIDIA}@EU-RO-1`]);
  });

  test("no capacity anywhere allowed: a 400 naming the GPU type; a CPU pod needs no GPU capacity", () => {
    expect(refusal(() => schedule(body({ gpu: { id: NVIDIA }, dataCenterIds: ["EU-RO-1"] }), undefined, () => false))).toBe(
      `no capacity for GPU type '${NVIDIA}' in the allowed data centers`,
    );
    expect(schedule(body({ cpu: { id: "cpu3c", vcpuCount: 2 }, dataCenterIds: ["CA-MTL-1"] }), undefined, () => false)).toBe("CA-MTL-1");
  });

  test("an unknown preferred data center is refused, whatever comes after it", () => {
    expect(refusal(() => schedule(body({ gpu: { id: NVIDIA }, dataCenterIds: ["US-TX-3", "MARS-1"] }), undefined, everywhere))).toBe(
      "dataCenterIds: unknown data center 'MARS-1' (see GET /v2/catalog/datacenters)",
    );
  });

  test("a network volume places the pod in its data center, if the preference allows it", () => {
    expect(schedule(body({ cpu: { id: "cpu3c", vcpuCount: 2 } }), volume("EU-CZ-1"), everywhere)).toBe("EU-CZ-1");
    expect(schedule(body({ gpu: { id: NVIDIA }, dataCenterIds: ["US-TX-3", "EU-CZ-1"] }), volume("EU-CZ-1"), everywhere)).toBe("EU-CZ-1");
    expect(refusal(() => schedule(body({ gpu: { id: NVIDIA }, dataCenterIds: ["US-TX-3", "US-KS-2"] }), volume("EU-CZ-1"), everywhere))).toBe(
      "mounts.network[0].volumeId: network volume 'vol-1' is in data center EU-CZ-1, which is not among dataCenterIds (US-TX-3, US-KS-2); the volume must be in the pod's data center",
    );
    // The volume's data center without capacity: no other data center will do.
    expect(refusal(() => schedule(body({ gpu: { id: NVIDIA } }), volume("EU-RO-1"), (_g, dc) => dc !== "EU-RO-1"))).toMatch(/^no capacity/);
  });

  test("global networking keeps the data centers that support it", () => {
    const b = body({ gpu: { id: NVIDIA }, globalNetworking: true, dataCenterIds: ["EU-CZ-1", "CA-MTL-1", "EU-RO-1"] });
    expect(schedule(b, undefined, everywhere)).toBe("EU-RO-1");
    expect(refusal(() => schedule({ ...b, dataCenterIds: ["EU-CZ-1", "US-GA-1"] }, undefined, everywhere))).toMatch(
      /^globalNetworking: no data center that supports global networking among the allowed data centers/,
    );
    expect(refusal(() => schedule(b, volume("EU-CZ-1"), everywhere))).toMatch(/^globalNetworking: no data center/);
  });
});

function pod(mounts: Mounts, more: Partial<PodRecord> = {}): PodRecord {
  return { gpu: { id: NVIDIA, count: 1 }, mounts, dataCenterId: "EU-RO-1", ...more } as PodRecord;
}

describe("nextMounts: an update's mounts", () => {
  const persistent = pod({ persistent: { size: 20, path: "/w" } });
  const network = pod({ network: [{ volumeId: "vol-1", path: "/n" }] });

  test("no mount in the update keeps the pod's, an empty object too", () => {
    expect(nextMounts(persistent, undefined)).toBe(persistent.mounts);
    expect(nextMounts(network, {})).toBe(network.mounts);
  });

  test("a persistent mount grows or stays, its path may change; it never shrinks", () => {
    expect(nextMounts(persistent, { persistent: { size: 20, path: "/x" } })).toEqual({ persistent: { size: 20, path: "/x" } });
    expect(nextMounts(persistent, { persistent: { size: 21, path: "/w" } })).toEqual({ persistent: { size: 21, path: "/w" } });
    expect(refusal(() => nextMounts(persistent, { persistent: { size: 19, path: "/w" } }))).toBe(
      "mounts.persistent.size: a persistent mount only grows (it is 20 GB, asked 19 GB)",
    );
  });

  test("a network mount's path may change; its volume may not; it cannot be cleared", () => {
    expect(nextMounts(network, { network: [{ volumeId: "vol-1", path: "/m" }] })).toEqual({ network: [{ volumeId: "vol-1", path: "/m" }] });
    expect(refusal(() => nextMounts(network, { network: [{ volumeId: "vol-2", path: "/n" }] }))).toBe(
      "mounts.network[0].volumeId: the network volume of a pod cannot change (it is 'vol-1')",
    );
    expect(refusal(() => nextMounts(network, { network: [] }))).toBe("mounts.network: clearing the network mount is unsupported (network: [] is not allowed)");
  });

  test("the kind of mount is fixed at creation", () => {
    expect(refusal(() => nextMounts(persistent, { network: [{ volumeId: "vol-1", path: "/n" }] }))).toMatch(/^mounts\.network: the kind of mount is fixed at creation/);
    expect(refusal(() => nextMounts(network, { persistent: { size: 20, path: "/w" } }))).toMatch(/^mounts\.persistent: the kind of mount is fixed at creation/);
    expect(refusal(() => nextMounts(pod({}), { persistent: { size: 20, path: "/w" } }))).toMatch(/^mounts\.persistent: the kind of mount is fixed/);
    expect(refusal(() => nextMounts(persistent, { persistent: { size: 30, path: "/w" }, network: [{ volumeId: "vol-1", path: "/n" }] }))).toBe(
      "mounts: at most one of persistent or network may be set",
    );
  });

  test("a CPU pod is told it takes no persistent mount, before the kind rule", () => {
    const cpuPod = pod({ network: [{ volumeId: "vol-1", path: "/n" }] }, { gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 2 } });
    expect(refusal(() => nextMounts(cpuPod, { persistent: { size: 20, path: "/w" } }))).toMatch(/^mounts\.persistent is invalid on a CPU pod/);
  });
});

describe("checkGlobalNetworkingUpdate", () => {
  test("an NVIDIA pod in a data center with global networking may turn it on", () => {
    expect(() => checkGlobalNetworkingUpdate(pod({}))).not.toThrow();
  });

  test("not in a data center without it, nor on an AMD or CPU pod", () => {
    expect(refusal(() => checkGlobalNetworkingUpdate(pod({}, { dataCenterId: "EU-CZ-1" })))).toBe(
      "globalNetworking: the pod's data center EU-CZ-1 does not support global networking",
    );
    expect(refusal(() => checkGlobalNetworkingUpdate(pod({}, { dataCenterId: "XX-NOWHERE-1" })))).toBe(
      "globalNetworking: the pod's data center XX-NOWHERE-1 does not support global networking",
    );
    expect(refusal(() => checkGlobalNetworkingUpdate(pod({}, { gpu: { id: AMD, count: 1 } })))).toMatch(/is not one$/);
    expect(refusal(() => checkGlobalNetworkingUpdate(pod({}, { gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 2 } })))).toMatch(/not available on CPU pods$/);
  });
});

// What an up leaves running (what-runs.ts), the compute the stack's cost prices: the live object
// for what up leaves alone (a preference list still holding the type a pod got, a field hidden by
// ignoreChanges, an endpoint field never declared), the declared compute for a new or replacing
// object, the platform's defaults for what a new endpoint leaves out. The live object is found by
// the id seen last, else by the owner token the entry carries.
import { autoName, pendingName, replacementToken } from "../../../../src/resources/lifecycle/owner";
import { ENDPOINT_WORKER_DEFAULTS } from "../../../../src/resources/inputs/endpoint-defaults";
import {
  endpointRuns,
  findLiveEndpoint,
  findLivePod,
  type LiveEndpointCompute,
  type LivePodCompute,
  podRuns,
} from "../../../../src/resources/stack-cost/what-runs";

const TOKEN = "0123456789abcdef";
const livePod = (over: Partial<LivePodCompute> = {}): LivePodCompute => ({
  id: "p1",
  name: "trainer",
  status: "RUNNING",
  createdAt: "2026-01-01T00:00:00.000Z",
  env: {},
  gpu: { id: "NVIDIA A40", count: 1 },
  cloud: "SECURE",
  ...over,
});
const owned = (mark: string, over: Partial<LivePodCompute> = {}) => livePod({ env: { COMPUTEPLATFORM_OWNER: mark }, ...over });

describe("findLivePod", () => {
  it("by the id found last, when it is still there", () => {
    const pods = [owned(`${TOKEN}.aaaa1111`, { id: "p2" }), livePod({ id: "p1" })];
    expect(findLivePod(pods, TOKEN, "p1")?.id).toBe("p1");
  });

  it("else by the owner token: a mark that is the token or starts with it and a dot", () => {
    expect(findLivePod([owned(TOKEN)], TOKEN, undefined)?.id).toBe("p1");
    expect(findLivePod([owned(`${TOKEN}.aaaa1111`)], TOKEN, "gone")?.id).toBe("p1");
    expect(findLivePod([owned(`${TOKEN}x.aaaa1111`)], TOKEN, undefined)).toBeUndefined();
    expect(findLivePod([livePod()], TOKEN, undefined)).toBeUndefined();
  });

  it("a replacement: the token derived from the id found last, or a mark ending with the base", () => {
    const replacing = replacementToken(TOKEN, "p-old");
    expect(findLivePod([owned(`${replacing}.bbbb2222`, { id: "p-new" })], TOKEN, "p-old")?.id).toBe("p-new");
    expect(findLivePod([owned(`${replacing}.bbbb2222`, { id: "p-new" })], TOKEN, undefined)).toBeUndefined();
    expect(findLivePod([owned(`other.bbbb2222.${TOKEN}`, { id: "p-r" })], TOKEN, undefined)?.id).toBe("p-r");
  });

  it("the newest of several; never a terminated pod or an unfinished create", () => {
    const pods = [
      owned(TOKEN, { id: "old", createdAt: "2026-01-01T00:00:00.000Z" }),
      owned(TOKEN, { id: "new", createdAt: "2026-01-03T00:00:00.000Z" }),
      owned(TOKEN, { id: "mid", createdAt: "2026-01-02T00:00:00.000Z" }),
    ];
    expect(findLivePod(pods, TOKEN, undefined)?.id).toBe("new");
    expect(findLivePod([owned(TOKEN, { status: "TERMINATED" })], TOKEN, "p1")).toBeUndefined();
    expect(findLivePod([owned(TOKEN, { name: pendingName("trainer") })], TOKEN, "p1")).toBeUndefined();
  });

  it("without an owner token, only the id finds it", () => {
    expect(findLivePod([owned(TOKEN)], undefined, "gone")).toBeUndefined();
  });
});

describe("findLiveEndpoint", () => {
  const ep = (id: string, name: string): LiveEndpointCompute => ({ id, name, gpuIds: "AMPERE_48" });

  it("by the id found last, else by the name the program gives", () => {
    const eps = [ep("e1", "a"), ep("e2", "given")];
    expect(findLiveEndpoint(eps, { name: "web", declaredName: "given" }, "e1")?.id).toBe("e1");
    expect(findLiveEndpoint(eps, { name: "web", declaredName: "given" }, "gone")?.id).toBe("e2");
    expect(findLiveEndpoint(eps, { name: "web", declaredName: "none" }, undefined)).toBeUndefined();
  });

  it("an auto-named endpoint by its token's auto-name, or its replacement's; the last listed of several", () => {
    const auto = autoName("web", undefined, TOKEN);
    const replaced = autoName("web", undefined, replacementToken(TOKEN, "e-old"));
    expect(findLiveEndpoint([ep("e1", auto), ep("e3", auto)], { name: "web", owner: TOKEN }, undefined)?.id).toBe("e3");
    expect(findLiveEndpoint([ep("e2", replaced)], { name: "web", owner: TOKEN }, "e-old")?.id).toBe("e2");
    expect(findLiveEndpoint([ep("e2", replaced)], { name: "web", owner: TOKEN }, undefined)).toBeUndefined();
    expect(findLiveEndpoint([ep("e1", auto)], { name: "web" }, undefined)).toBeUndefined();
  });
});

describe("podRuns", () => {
  const declared = { gpu: { id: "NVIDIA A40", count: 1 }, cloud: "SECURE" as const, desiredStatus: "RUNNING" as const };

  it("a new pod runs the declared compute; with a preference list, the first type and the order to try", () => {
    expect(podRuns(declared, undefined)).toEqual({ gpu: { id: "NVIDIA A40", count: 1 }, cloud: "SECURE", running: true });
    expect(podRuns({ ...declared, gpu: { id: ["NVIDIA L4", "NVIDIA A40"], count: 2 } }, undefined)).toEqual({
      gpu: { id: "NVIDIA L4", count: 2 },
      cloud: "SECURE",
      running: true,
      choices: ["NVIDIA L4", "NVIDIA A40"],
    });
    expect(podRuns({ cpu: { id: "cpu3c", vcpuCount: 4 }, cloud: "COMMUNITY", desiredStatus: "EXITED" }, undefined)).toEqual({
      cpu: { id: "cpu3c", vcpuCount: 4 },
      cloud: "COMMUNITY",
      running: false,
    });
  });

  it("a pod kept in place runs its live compute: a list that still holds the type it got keeps that type", () => {
    const live = livePod({ gpu: { id: "NVIDIA A40", count: 1 } });
    expect(podRuns({ ...declared, gpu: { id: ["NVIDIA L4", "NVIDIA A40"], count: 1 } }, live)).toEqual({
      gpu: { id: "NVIDIA A40", count: 1 },
      cpu: undefined,
      cloud: "SECURE",
      running: true,
    });
    expect(podRuns({ ...declared, desiredStatus: "EXITED" }, live).running).toBe(false);
  });

  it.each([
    ["a list without the type it got", { gpu: { id: ["NVIDIA L4"], count: 1 } }, { id: "NVIDIA L4", count: 1 }],
    ["a new GPU count", { gpu: { id: "NVIDIA A40", count: 2 } }, { id: "NVIDIA A40", count: 2 }],
    ["another cloud", { cloud: "COMMUNITY" as const }, { id: "NVIDIA A40", count: 1 }],
  ])("%s replaces it: the declared compute runs", (_, over, gpu) => {
    expect(podRuns({ ...declared, ...over }, livePod()).gpu).toEqual(gpu);
  });

  it("a GPU pod declared as CPU (or the reverse) replaces it; a CPU pod keeps its shape unless id or vCPUs change", () => {
    expect(podRuns({ cpu: { id: "cpu3c", vcpuCount: 2 }, cloud: "SECURE", desiredStatus: "RUNNING" }, livePod())).toEqual({
      cpu: { id: "cpu3c", vcpuCount: 2 },
      cloud: "SECURE",
      running: true,
    });
    const cpuPod = livePod({ gpu: null, cpu: { id: "cpu3c", vcpuCount: 2 } });
    expect(podRuns(declared, cpuPod).gpu).toEqual({ id: "NVIDIA A40", count: 1 });
    const cpuDeclared = { cloud: "SECURE" as const, desiredStatus: "RUNNING" as const };
    expect(podRuns({ ...cpuDeclared, cpu: { id: "cpu3c", vcpuCount: 2 } }, cpuPod)).toMatchObject({ cpu: { id: "cpu3c", vcpuCount: 2 }, gpu: undefined });
    expect(podRuns({ ...cpuDeclared, cpu: { id: "cpu5c", vcpuCount: 2 } }, cpuPod).cpu).toEqual({ id: "cpu5c", vcpuCount: 2 });
    expect(podRuns({ ...cpuDeclared, cpu: { id: "cpu3c", vcpuCount: 8 } }, cpuPod).cpu).toEqual({ id: "cpu3c", vcpuCount: 8 });
  });

  it("a field hidden by ignoreChanges keeps its live value, so up leaves the pod as it is", () => {
    const live = livePod({ gpu: { id: "NVIDIA A40", count: 2 }, cloud: "COMMUNITY", status: "EXITED" });
    const changed = { gpu: { id: "NVIDIA L4", count: 1 }, cloud: "SECURE" as const, desiredStatus: "RUNNING" as const };
    expect(podRuns({ ...changed, ignore: ["gpu", "cloud", "desiredStatus"] }, live)).toEqual({
      gpu: { id: "NVIDIA A40", count: 2 },
      cpu: undefined,
      cloud: "COMMUNITY",
      running: false,
    });
    expect(podRuns({ ...changed, cloud: "COMMUNITY", ignore: ["gpu.id", "gpu.count"] }, live).gpu).toEqual({ id: "NVIDIA A40", count: 2 });
    // Only the count hidden: the declared type differs, so it is replaced with the live count.
    expect(podRuns({ ...changed, cloud: "COMMUNITY", ignore: ["gpu.count"] }, live).gpu).toEqual({ id: "NVIDIA L4", count: 2 });
    // A path that only begins like a field's is not that field.
    expect(podRuns({ ...changed, cloud: "COMMUNITY", ignore: ["gpuX"] }, live).gpu).toEqual({ id: "NVIDIA L4", count: 1 });
    expect(podRuns({ ...declared, ignore: ["desiredStatus"] }, livePod({ status: "RUNNING" })).running).toBe(true);
    const cpuLive = livePod({ gpu: null, cpu: { id: "cpu3c", vcpuCount: 2 } });
    expect(podRuns({ cpu: { id: "cpu5c", vcpuCount: 8 }, cloud: "SECURE", desiredStatus: "RUNNING", ignore: ["cpu"] }, cpuLive).cpu).toEqual({ id: "cpu3c", vcpuCount: 2 });
  });

  it("what a replacement runs is the declared compute in full: its cloud too, never the live pod's", () => {
    expect(podRuns({ ...declared, cloud: "COMMUNITY" }, livePod())).toStrictEqual({ gpu: { id: "NVIDIA A40", count: 1 }, cloud: "COMMUNITY", running: true });
    expect(podRuns({ ...declared, gpu: { id: "NVIDIA A40", count: 2 }, desiredStatus: "EXITED" }, livePod())).toStrictEqual({
      gpu: { id: "NVIDIA A40", count: 2 },
      cloud: "SECURE",
      running: false,
    });
  });

  it.each(["EXITED", "ERROR", "TERMINATED"])("a hidden desiredStatus of a pod %s keeps it stopped", (status) => {
    expect(podRuns({ ...declared, ignore: ["desiredStatus"] }, livePod({ status })).running).toBe(false);
  });

  it("a hidden GPU type or count of a CPU pod declared as a GPU one has no live value: the declared GPU replaces it", () => {
    const cpuLive = livePod({ gpu: null, cpu: { id: "cpu3c", vcpuCount: 2 } });
    expect(podRuns({ ...declared, ignore: ["gpu.id", "gpu.count"] }, cpuLive)).toStrictEqual({ gpu: { id: "NVIDIA A40", count: 1 }, cloud: "SECURE", running: true });
    const cpuDeclared = { cpu: { id: "cpu3c", vcpuCount: 2 }, cloud: "SECURE" as const, desiredStatus: "RUNNING" as const };
    expect(podRuns({ ...cpuDeclared, ignore: ["gpu.id", "gpu.count"] }, livePod())).toStrictEqual({ cpu: { id: "cpu3c", vcpuCount: 2 }, cloud: "SECURE", running: true });
  });

  it("ignoreChanges on a new pod changes nothing: there is no live value", () => {
    expect(podRuns({ ...declared, ignore: ["gpu", "cloud"] }, undefined)).toEqual({ gpu: { id: "NVIDIA A40", count: 1 }, cloud: "SECURE", running: true });
  });
});

describe("endpointRuns", () => {
  const removed = { workersMin: 0, workersMax: 1 };
  const live: LiveEndpointCompute = { id: "e1", name: "web", gpuIds: "AMPERE_48", workersMin: 2, workersMax: 5, gpuCount: 2 };

  it("the platform's defaults for a new endpoint that leaves its workers out", () => {
    expect(ENDPOINT_WORKER_DEFAULTS).toEqual({ workersMin: 0, workersMax: 3, gpuCount: 1 });
    expect(endpointRuns({ gpuIds: "ADA_24" }, undefined, undefined, removed)).toEqual({ gpuIds: "ADA_24", workersMin: 0, workersMax: 3, gpuCount: 1 });
  });

  it("what the program declares is saved", () => {
    expect(endpointRuns({ gpuIds: "ADA_24", workersMin: 1, workersMax: 4, gpuCount: 2 }, undefined, live, removed)).toEqual({
      gpuIds: "ADA_24",
      workersMin: 1,
      workersMax: 4,
      gpuCount: 2,
    });
  });

  it("a field never declared keeps its live value", () => {
    expect(endpointRuns({ gpuIds: "AMPERE_48" }, {}, live, removed)).toEqual({ gpuIds: "AMPERE_48", workersMin: 2, workersMax: 5, gpuCount: 2 });
    expect(endpointRuns({ gpuIds: "AMPERE_48" }, undefined, { ...live, workersMax: null }, removed).workersMax).toBe(3);
  });

  it("a field declared before and removed now goes back to the provider's default for it, else the platform's", () => {
    const before = { workersMin: 2, workersMax: 5, gpuCount: 2 };
    expect(endpointRuns({ gpuIds: "AMPERE_48" }, before, live, removed)).toEqual({ gpuIds: "AMPERE_48", workersMin: 0, workersMax: 1, gpuCount: 1 });
    expect(endpointRuns({ gpuIds: "AMPERE_48" }, before, live, { ...removed, gpuCount: 4 }).gpuCount).toBe(4);
  });

  it("ignoreChanges keeps the live value of a hidden field, gpuIds included, over what is declared", () => {
    const d = { gpuIds: "ADA_24", workersMin: 1, workersMax: 1, gpuCount: 1, ignore: ["workersMax", "gpuIds"] };
    expect(endpointRuns(d, undefined, live, removed)).toEqual({ gpuIds: "AMPERE_48", workersMin: 1, workersMax: 5, gpuCount: 1 });
    // No live endpoint, or no live value: the hidden field is what is declared.
    expect(endpointRuns(d, undefined, undefined, removed)).toEqual({ gpuIds: "ADA_24", workersMin: 1, workersMax: 1, gpuCount: 1 });
    expect(endpointRuns(d, undefined, { ...live, workersMax: null }, removed).workersMax).toBe(1);
  });
});

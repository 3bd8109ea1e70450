import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { LOGICAL_NAME_KEY } from "../../../../src/resources/lifecycle/owner";
import { checkPod, DEFAULT_WAIT_TIMEOUT_SECONDS } from "../../../../src/resources/pod/schema";

const base = { image: "img:1", gpu: { id: "NVIDIA_A100" }, [LOGICAL_NAME_KEY]: "trainer" };

function failuresOf(news: Record<string, unknown>, olds?: Record<string, unknown>) {
  return checkPod(olds, news).failures ?? [];
}

describe("Pod check: every pod rule of the platform, named by property", () => {
  test.each<[string, Record<string, unknown>, string, RegExp]>([
    ["neither gpu nor cpu", { gpu: undefined }, "gpu", /exactly one of gpu or cpu.*neither/],
    ["both gpu and cpu", { cpu: { id: "cpu3c", vcpuCount: 2 } }, "cpu", /exactly one of gpu or cpu, not both/],
    ["gpu with an extra property", { gpu: { id: "g", count: 1, memory: 80 } }, "gpu", /gpu accepts only id and count; remove memory/],
    ["cpu with memory", { gpu: undefined, cpu: { id: "c", vcpuCount: 2, memory: 4 } }, "cpu", /cpu accepts only id and vcpuCount/],
    ["gpu.count 0", { gpu: { id: "g", count: 0 } }, "gpu.count", /at least 1/],
    ["vcpuCount 1", { gpu: undefined, cpu: { id: "c", vcpuCount: 1 } }, "cpu.vcpuCount", /at least 2/],
    ["vcpuCount 6", { gpu: undefined, cpu: { id: "c", vcpuCount: 6 } }, "cpu.vcpuCount", /power of two/],
    ["vcpuCount 4294967298 (2^32 + 2: a 32-bit power-of-two test passes it)", { gpu: undefined, cpu: { id: "c", vcpuCount: 4294967298 } }, "cpu.vcpuCount", /power of two/],
    ["vcpuCount missing", { gpu: undefined, cpu: { id: "c" } }, "cpu.vcpuCount", /required/],
    ["disk 0", { disk: 0 }, "disk", /at least 1/],
    ["disk 1.5", { disk: 1.5 }, "disk", /whole number/],
    ["port without protocol", { ports: ["8888"] }, "ports[0]", /<port>\/<protocol>/],
    ["port 70000", { ports: ["22/tcp", "70000/tcp"] }, "ports[1]", /1 to 65535/],
    ["both mount kinds", { mounts: { persistent: { size: 20, path: "/p" }, network: [{ volumeId: "v", path: "/n" }] } }, "mounts", /at most one of mounts.persistent or mounts.network/],
    ["network []", { mounts: { network: [] } }, "mounts.network", /must not be \[\]/],
    ["two network mounts", { mounts: { network: [{ volumeId: "a", path: "/a" }, { volumeId: "b", path: "/b" }] } }, "mounts.network", /at most one entry/],
    ["network mount without path", { mounts: { network: [{ volumeId: "v" }] } }, "mounts.network[0].path", /must be a string/],
    ["network mount with an extra property", { mounts: { network: [{ volumeId: "v", path: "/w", size: 1 }] } }, "mounts.network[0]", /volumeId and path; remove size/],
    ["persistent size 9", { mounts: { persistent: { size: 9, path: "/p" } } }, "mounts.persistent.size", /at least 10/],
    ["persistent on a CPU pod", { gpu: undefined, cpu: { id: "c", vcpuCount: 2 }, mounts: { persistent: { size: 10, path: "/p" } } }, "mounts.persistent", /invalid on a CPU pod/],
    ["globalNetworking on a CPU pod", { gpu: undefined, cpu: { id: "c", vcpuCount: 2 }, globalNetworking: true }, "globalNetworking", /requires an NVIDIA GPU/],
    ["globalNetworking on an AMD GPU (the id names its manufacturer)", { gpu: { id: "AMD Instinct MI300X" }, globalNetworking: true }, "globalNetworking", /requires an NVIDIA GPU; AMD Instinct MI300X is made by AMD/],
    ["a name that is not a string", { name: 42 }, "name", /name must be a string/],
    ["empty image", { image: "" }, "image", /must not be empty/],
    ["missing image", { image: undefined }, "image", /image is required/],
    ["unknown cloud", { cloud: "PRIVATE" }, "cloud", /SECURE or COMMUNITY/],
    ["unknown desiredStatus", { desiredStatus: "STOPPED" }, "desiredStatus", /RUNNING or EXITED/],
    ["unknown waitFor", { waitFor: "HEALTHY" }, "waitFor", /RUNNING or PORTS/],
    ["timeout 0", { waitTimeoutSeconds: 0 }, "waitTimeoutSeconds", /at least 1/],
    ["env value not a string", { env: { A: 1 } }, "env.A", /must be strings/],
    ["a property Pod does not have", { bogus: 1 }, "bogus", /^bogus is not a Pod argument; its arguments are name, image/],
    ["a misspelled one", { imagee: "x" }, "imagee", /^imagee is not a Pod argument; did you mean image\?$/],
    ["gpu.id []", { gpu: { id: [] } }, "gpu.id", /must not be \[\]/],
    ["gpu.id naming a type twice", { gpu: { id: ["g", "h", "g"] } }, "gpu.id", /must not name a GPU type twice/],
    ["gpu.id with an empty entry", { gpu: { id: ["g", ""] } }, "gpu.id[1]", /must not be empty/],
    ["gpu.id not a string or list", { gpu: { id: 7 } }, "gpu.id", /GPU type ID or a list of them/],
    ["globalNetworking with an AMD type in the preference list", { gpu: { id: ["NVIDIA L40S", "AMD Instinct MI300X"] }, globalNetworking: true }, "globalNetworking", /AMD Instinct MI300X is made by AMD/],
    ["maxHourlyCost 0", { maxHourlyCost: 0 }, "maxHourlyCost", /more than 0/],
    ["maxHourlyCost not a number", { maxHourlyCost: "5" }, "maxHourlyCost", /number of USD per hour/],
  ])("%s", (_label, change, property, reason) => {
    const failures = failuresOf({ ...base, ...change });
    const hit = failures.find((f) => f.property === property);
    expect({ failures, hit: hit?.reason }).toEqual({ failures, hit: expect.stringMatching(reason) });
  });

  test("globalNetworking on an NVIDIA GPU, or one whose id names no other manufacturer, passes check", () => {
    expect(failuresOf({ ...base, gpu: { id: "NVIDIA GeForce RTX 4090" }, globalNetworking: true })).toEqual([]);
    expect(failuresOf({ ...base, gpu: { id: "NVIDIA_A100" }, globalNetworking: true })).toEqual([]);
  });

  test("a valid declaration passes, with the defaults filled in", () => {
    const r = checkPod(undefined, { ...base, name: "t1" });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toEqual({
      ...base,
      name: "t1",
      gpu: { id: "NVIDIA_A100", count: 1 },
      cloud: "SECURE",
      globalNetworking: false,
      locked: false,
      desiredStatus: "RUNNING",
      waitFor: "RUNNING",
      waitTimeoutSeconds: DEFAULT_WAIT_TIMEOUT_SECONDS,
      // The owner token (lifecycle/owner.ts): hidden, never part of a diff.
      __ownerToken: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });

  test("writing a default explicitly checks to the same inputs as leaving it out", () => {
    const implicit = checkPod(undefined, { ...base, name: "n" }).inputs;
    const explicit = checkPod(undefined, {
      ...base,
      name: "n",
      gpu: { id: "NVIDIA_A100", count: 1 },
      cloud: "SECURE",
      globalNetworking: false,
      locked: false,
      desiredStatus: "RUNNING",
      waitFor: "RUNNING",
      waitTimeoutSeconds: 600,
      dataCenterIds: [],
      env: {},
      mounts: {},
      args: undefined,
      disk: null,
    }).inputs;
    expect(explicit).toEqual(implicit);
  });

  test("registry: null is kept (it declares 'no registry'), not dropped like other nulls", () => {
    expect(checkPod(undefined, { ...base, registry: null }).inputs).toHaveProperty("registry", null);
  });

  test("the name: the user's, else the one generated before, else logical name + 7 hex", () => {
    expect(checkPod(undefined, { ...base, name: "mine" }).inputs!.name).toBe("mine");
    expect(checkPod({ name: "trainer-abc1234" }, base).inputs!.name).toBe("trainer-abc1234");
    expect(checkPod(undefined, base).inputs!.name).toMatch(/^trainer-[0-9a-f]{7}$/);
    // On a replace the engine checks again without olds: a fresh name, so two pods never share one.
    expect(checkPod({}, base).inputs!.name).not.toBe("trainer-abc1234");
  });

  test("values unknown at preview pass, and the rules that need them wait", () => {
    const news = {
      ...base,
      gpu: UNKNOWN,
      cpu: undefined,
      disk: UNKNOWN,
      ports: [UNKNOWN, "22/tcp"],
      env: { A: UNKNOWN },
      mounts: { network: [{ volumeId: UNKNOWN, path: "/w" }] },
      image: UNKNOWN,
      globalNetworking: true,
    };
    expect(failuresOf(news)).toEqual([]);
    // cpu unknown: whether globalNetworking fits is not known yet either.
    expect(failuresOf({ ...base, gpu: undefined, cpu: UNKNOWN, globalNetworking: true })).toEqual([]);
    // But a known violation next to an unknown is still reported.
    expect(failuresOf({ ...base, disk: UNKNOWN, ports: ["x"] }).map((f) => f.property)).toEqual(["ports[0]"]);
  });

  test("nothing undefined is left in the inputs (Pulumi's Struct marshalling rejects it)", () => {
    const r = checkPod(undefined, { ...base, args: undefined, env: undefined, mounts: { persistent: undefined, network: [{ volumeId: "v", path: "/w" }] } });
    expect(JSON.stringify(r.inputs)).toBe(JSON.stringify(JSON.parse(JSON.stringify(r.inputs))));
    expect((Object.values(r.inputs!) as unknown[]).includes(undefined)).toBe(false);
    expect(r.inputs!.mounts).toEqual({ network: [{ volumeId: "v", path: "/w" }] });
  });
});

import { UNKNOWN } from "../../../../src/resources/inputs/check";
import { LOGICAL_NAME_KEY, ownerToken } from "../../../../src/resources/lifecycle/owner";
import { checkPod, crossFieldFailures, DEFAULT_WAIT_TIMEOUT_SECONDS, otherManufacturer, podArgsSchema } from "../../../../src/resources/pod/schema";

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

describe("Pod check: each failure's reason, whole, names the field and the rule", () => {
  const cpuPod = { gpu: undefined, cpu: { id: "c", vcpuCount: 2 } };
  test.each<[string, Record<string, unknown>, string, string]>([
    ["gpu.count not a number", { gpu: { id: "g", count: "2" } }, "gpu.count", "gpu.count must be a number"],
    ["gpu.count fractional", { gpu: { id: "g", count: 1.5 } }, "gpu.count", "gpu.count must be a whole number"],
    ["gpu.count 0", { gpu: { id: "g", count: 0 } }, "gpu.count", "gpu.count must be at least 1"],
    ["gpu.id empty", { gpu: { id: "" } }, "gpu.id", "gpu.id must not be empty"],
    ["gpu.id []", { gpu: { id: [] } }, "gpu.id", "gpu.id must not be []: name at least one GPU type"],
    ["gpu.id naming a type twice", { gpu: { id: ["g", "g"] } }, "gpu.id", "gpu.id must not name a GPU type twice"],
    ["gpu.id with an empty entry", { gpu: { id: ["g", ""] } }, "gpu.id[1]", "each gpu.id must not be empty"],
    ["gpu.id with an entry not a string", { gpu: { id: ["g", 3] } }, "gpu.id", "gpu.id must be a GPU type ID or a list of them in order of preference"],
    ["gpu.id not a string or list", { gpu: { id: 7 } }, "gpu.id", "gpu.id must be a GPU type ID or a list of them in order of preference"],
    ["gpu with an extra property", { gpu: { id: "g", memory: 80 } }, "gpu", "gpu accepts only id and count; remove memory"],
    ["cpu.id empty", { ...cpuPod, cpu: { id: "", vcpuCount: 2 } }, "cpu.id", "cpu.id must not be empty"],
    ["cpu.vcpuCount missing", { ...cpuPod, cpu: { id: "c" } }, "cpu.vcpuCount", "cpu.vcpuCount is required"],
    ["cpu.vcpuCount not a number", { ...cpuPod, cpu: { id: "c", vcpuCount: "2" } }, "cpu.vcpuCount", "cpu.vcpuCount must be a number"],
    ["cpu.vcpuCount fractional", { ...cpuPod, cpu: { id: "c", vcpuCount: 2.5 } }, "cpu.vcpuCount", "cpu.vcpuCount must be a whole number"],
    ["cpu.vcpuCount 1", { ...cpuPod, cpu: { id: "c", vcpuCount: 1 } }, "cpu.vcpuCount", "cpu.vcpuCount must be at least 2"],
    ["cpu.vcpuCount 12", { ...cpuPod, cpu: { id: "c", vcpuCount: 12 } }, "cpu.vcpuCount", "cpu.vcpuCount must be a power of two (2, 4, 8, 16, ...)"],
    ["cpu with memory", { ...cpuPod, cpu: { id: "c", vcpuCount: 2, memory: 4 } }, "cpu", "cpu accepts only id and vcpuCount (memory follows from the flavor); remove memory"],
    ["env declaring the pod's id", { env: { COMPUTEPLATFORM_POD_ID: "x" } }, "env.COMPUTEPLATFORM_POD_ID", "env.COMPUTEPLATFORM_POD_ID is set by the platform to the pod's id; remove it from env"],
    ["env declaring the owner token", { env: { COMPUTEPLATFORM_OWNER: "x" } }, "env.COMPUTEPLATFORM_OWNER", "env.COMPUTEPLATFORM_OWNER is set by this provider to find a pod again after an interrupted create; remove it from env"],
    ["env declaring the stack", { env: { COMPUTEPLATFORM_STACK: "x" } }, "env.COMPUTEPLATFORM_STACK", "env.COMPUTEPLATFORM_STACK is set by this provider to say which stack a pod is (budgets count by it); remove it from env"],
    ["mounts with another kind", { mounts: { scratch: {} } }, "mounts", "mounts accepts only persistent or network; remove scratch"],
    ["mounts.network not a list", { mounts: { network: { volumeId: "v", path: "/w" } } }, "mounts.network", "mounts.network must be a list"],
    ["mounts.network []", { mounts: { network: [] } }, "mounts.network", "mounts.network must not be []: leave network out for no mount (a network mount cannot be cleared)"],
    ["two network mounts", { mounts: { network: [{ volumeId: "a", path: "/a" }, { volumeId: "b", path: "/b" }] } }, "mounts.network", "mounts.network holds at most one entry"],
    ["a network mount without volumeId", { mounts: { network: [{ path: "/w" }] } }, "mounts.network[0].volumeId", "mounts.network[].volumeId must be a string"],
    ["a network mount with an empty path", { mounts: { network: [{ volumeId: "v", path: "" }] } }, "mounts.network[0].path", "mounts.network[].path (it has no default) must not be empty"],
    ["a network mount with an extra property", { mounts: { network: [{ volumeId: "v", path: "/w", size: 1 }] } }, "mounts.network[0]", "a network mount accepts only volumeId and path; remove size"],
    ["both mount kinds", { mounts: { persistent: { size: 20, path: "/p" }, network: [{ volumeId: "v", path: "/n" }] } }, "mounts", "set at most one of mounts.persistent or mounts.network, not both"],
    ["cloud of another name", { cloud: "PRIVATE" }, "cloud", "cloud must be SECURE or COMMUNITY"],
    ["dataCenterIds not a list", { dataCenterIds: "EU-RO-1" }, "dataCenterIds", "dataCenterIds must be a list"],
    ["dataCenterIds with an empty entry", { dataCenterIds: ["EU-RO-1", ""] }, "dataCenterIds[1]", "each data center ID must not be empty"],
    ["globalNetworking not a boolean", { globalNetworking: "yes" }, "globalNetworking", "globalNetworking must be true or false"],
    ["locked not a boolean", { locked: 1 }, "locked", "locked must be true or false"],
    ["desiredStatus of another name", { desiredStatus: "STOPPED" }, "desiredStatus", "desiredStatus must be RUNNING or EXITED"],
    ["waitFor of another name", { waitFor: "HEALTHY" }, "waitFor", "waitFor must be RUNNING or PORTS"],
    ["waitTimeoutSeconds not a number", { waitTimeoutSeconds: "60" }, "waitTimeoutSeconds", "waitTimeoutSeconds must be a number of seconds"],
    ["waitTimeoutSeconds fractional", { waitTimeoutSeconds: 1.5 }, "waitTimeoutSeconds", "waitTimeoutSeconds must be a whole number of seconds"],
    ["waitTimeoutSeconds 0", { waitTimeoutSeconds: 0 }, "waitTimeoutSeconds", "waitTimeoutSeconds must be at least 1"],
    ["waitTimeoutSeconds above a day", { waitTimeoutSeconds: 86_401 }, "waitTimeoutSeconds", "waitTimeoutSeconds must be at most 86400 (a day)"],
    ["adopt empty", { adopt: "" }, "adopt", "adopt (the ID of an existing pod) must not be empty"],
    ["maxHourlyCost not a number", { maxHourlyCost: "5" }, "maxHourlyCost", "maxHourlyCost must be a number of USD per hour"],
    ["maxHourlyCost 0", { maxHourlyCost: 0 }, "maxHourlyCost", "maxHourlyCost must be more than 0 (USD per hour)"],
    ["persistent on a CPU pod", { ...cpuPod, mounts: { persistent: { size: 10, path: "/p" } } }, "mounts.persistent", "a persistent mount is invalid on a CPU pod: CPU pods take a network volume (mounts.network)"],
    ["globalNetworking on a CPU pod", { ...cpuPod, globalNetworking: true }, "globalNetworking", "globalNetworking requires an NVIDIA GPU pod; it is not available with cpu"],
    ["globalNetworking on an Intel GPU", { gpu: { id: "intel Arc A770" }, globalNetworking: true }, "globalNetworking", "globalNetworking requires an NVIDIA GPU; intel Arc A770 is made by Intel. Pick an NVIDIA gpu.id or set globalNetworking: false"],
    ["neither gpu nor cpu", { gpu: undefined }, "gpu", "set exactly one of gpu or cpu: neither is set"],
    ["both gpu and cpu", { cpu: { id: "c", vcpuCount: 2 } }, "cpu", "set exactly one of gpu or cpu, not both"],
  ])("%s", (_label, change, property, reason) => {
    expect(failuresOf({ ...base, ...change })).toEqual([{ property, reason }]);
  });

  test("the bounds themselves pass", () => {
    expect(failuresOf({ ...base, waitTimeoutSeconds: 1 })).toEqual([]);
    expect(failuresOf({ ...base, waitTimeoutSeconds: 86_400 })).toEqual([]);
    expect(failuresOf({ ...base, gpu: { id: ["g", "h"], count: 1 }, maxHourlyCost: 0.01 })).toEqual([]);
    expect(failuresOf({ ...base, gpu: undefined, cpu: { id: "c", vcpuCount: 2 ** 40 }, mounts: { network: [{ volumeId: "v", path: "/w" }] } })).toEqual([]);
  });

  test("gpu given as a list, not an object, is refused at gpu itself (no count is written into it)", () => {
    const r = checkPod(undefined, { ...base, gpu: ["NVIDIA_A100"] });
    expect(r.inputs!.gpu).toEqual(["NVIDIA_A100"]);
    expect(r.failures!.map((f) => f.property)).toEqual(["gpu"]);
  });

  test("env given as a list is refused at env, not taken for no keys", () => {
    expect(failuresOf({ ...base, env: [] })).toEqual([{ property: "env", reason: "env must be a map of strings" }]);
  });

  test("the exported schema, used on its own, names the properties to remove and refuses an empty name", () => {
    const inputs = checkPod(undefined, { ...base, name: "n" }).inputs!;
    const { [LOGICAL_NAME_KEY]: _l, __ownerToken: _t, ...own } = inputs as Record<string, unknown>;
    expect(podArgsSchema.safeParse({ ...own, bogus: 1 }).error?.issues.map((i) => i.message)).toEqual(["Pod accepts only the properties of PodArgs; remove bogus"]);
    expect(podArgsSchema.safeParse({ ...own, name: "" }).error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([["name", "name must not be empty"]]);
  });
});

describe("Pod check: what it writes in", () => {
  test("the owner token is the Pod's, from its logical name, and the auto-name ends with it", () => {
    const r = checkPod(undefined, base);
    const token = ownerToken("Pod", undefined, base);
    expect(r.inputs!.__ownerToken).toBe(token);
    expect(r.inputs!.name).toBe(`trainer-${token!.slice(0, 7)}`);
  });

  test("a replacement's token comes from the object it replaces", () => {
    const predecessorOf = () => "pod-old";
    expect(checkPod(undefined, base, predecessorOf).inputs!.__ownerToken).toBe(ownerToken("Pod", undefined, base, predecessorOf));
    expect(checkPod(undefined, base, predecessorOf).inputs!.__ownerToken).not.toBe(ownerToken("Pod", undefined, base));
  });

  test("without a logical name there is no token, and the name is made from the kind", () => {
    const { [LOGICAL_NAME_KEY]: _l, ...news } = base;
    const inputs = checkPod(undefined, news).inputs!;
    expect(inputs).not.toHaveProperty("__ownerToken");
    expect(inputs.name).toMatch(/^pod-[0-9a-f]{7}$/);
  });

  test("written values are kept over the defaults", () => {
    const written = { cloud: "COMMUNITY", globalNetworking: true, locked: true, desiredStatus: "EXITED", waitFor: "PORTS", waitTimeoutSeconds: 30 };
    const r = checkPod(undefined, { ...base, ...written, gpu: { id: "g", count: 2 }, dataCenterIds: ["EU-RO-1"], env: { A: "1" } });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toMatchObject({ ...written, gpu: { id: "g", count: 2 }, dataCenterIds: ["EU-RO-1"], env: { A: "1" } });
  });

  test("null means not set: the defaults, and no gpu.count of null", () => {
    const r = checkPod(undefined, { ...base, gpu: { id: "g", count: null }, cloud: null, locked: null, waitTimeoutSeconds: null, mounts: { persistent: null } });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toMatchObject({ gpu: { id: "g", count: 1 }, cloud: "SECURE", locked: false, waitTimeoutSeconds: DEFAULT_WAIT_TIMEOUT_SECONDS });
    expect(r.inputs).not.toHaveProperty("mounts");
  });

  test("values unknown at preview are kept as they are", () => {
    const inputs = checkPod(undefined, { ...base, gpu: UNKNOWN, mounts: UNKNOWN, env: UNKNOWN }).inputs!;
    expect(inputs).toMatchObject({ gpu: UNKNOWN, mounts: UNKNOWN, env: UNKNOWN });
  });
});

describe("the rules that tie fields together", () => {
  test("an unknown cpu holds back the persistent mount's rule", () => {
    expect(crossFieldFailures({ gpu: undefined, cpu: UNKNOWN, mounts: { persistent: { size: 10, path: "/p" } } })).toEqual([]);
  });

  test("an unknown mount or an absent one ties nothing", () => {
    expect(crossFieldFailures({ gpu: { id: "g" }, mounts: UNKNOWN })).toEqual([]);
    expect(crossFieldFailures({ gpu: { id: "g" }, mounts: { persistent: null, network: [{ volumeId: "v", path: "/w" }] } })).toEqual([]);
    expect(crossFieldFailures({ cpu: { id: "c", vcpuCount: 2 }, mounts: { network: [{ volumeId: "v", path: "/w" }] } })).toEqual([]);
  });

  test("an AMD or Intel GPU is fine without globalNetworking", () => {
    expect(crossFieldFailures({ gpu: { id: ["AMD Instinct MI300X", "Intel Gaudi"] }, globalNetworking: false })).toEqual([]);
  });

  test("every non-NVIDIA choice of a preference list is named", () => {
    expect(crossFieldFailures({ gpu: { id: ["AMD Instinct MI300X", "NVIDIA L40S", "Intel Gaudi 3"] }, globalNetworking: true }).map((f) => f.reason)).toEqual([
      "globalNetworking requires an NVIDIA GPU; AMD Instinct MI300X is made by AMD. Pick an NVIDIA gpu.id or set globalNetworking: false",
      "globalNetworking requires an NVIDIA GPU; Intel Gaudi 3 is made by Intel. Pick an NVIDIA gpu.id or set globalNetworking: false",
    ]);
  });
});

test.each([
  ["AMD Instinct MI300X", "AMD"],
  ["amd mi250", "AMD"],
  ["Intel Gaudi 3", "Intel"],
  ["INTEL Max 1550", "Intel"],
  ["NVIDIA GeForce RTX 4090", undefined],
  ["AMDX 1", undefined],
  ["NVIDIA AMD-like", undefined],
])("the manufacturer a GPU id names: %s", (id, maker) => {
  expect(otherManufacturer(id)).toBe(maker);
});

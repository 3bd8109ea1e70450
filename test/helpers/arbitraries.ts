/**
 * fast-check arbitraries for Pod and ServerlessEndpoint args: valid ones (within the emulator's
 * catalog, so the platform must accept them), hostile strings, and single mutations that make
 * a valid args object invalid in one named property.
 */
import fc from "fast-check";
import { CPU_FLAVORS, DATA_CENTERS, GPU_TYPES } from "../../src/emulator/catalog/data";
import { GPU_IDS, LOCATIONS } from "../../src/resources/serverless-endpoint/schema";

/** Pieces that break naive quoting, templating, parsing and display. */
const NASTY = ['"', "'", "`", "{", "}", "$" + "{HOME}", "{{x}}", "\n", "\r\n", "\t", "\\", "\\n", "\u0000", "é", "漢字", "🚀", "\u202e", "<b>", "%s", "../", "null", "[]", ";", "$(id)"];

/** Hostile text: unicode of every plane, nasty pieces, and long runs (up to 64 KiB). */
export const hostile = (minLength = 0): fc.Arbitrary<string> =>
  fc
    .oneof(
      { weight: 3, arbitrary: fc.array(fc.constantFrom(...NASTY), { minLength: Math.max(1, minLength), maxLength: 8 }).map((a) => a.join("")) },
      { weight: 2, arbitrary: fc.string({ unit: "binary", minLength, maxLength: 24 }) },
      { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength, maxLength: 16 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 65_536 }).map((n) => `${"long-".repeat(n / 5)}end`) },
    )
    .filter((s) => s.length >= minLength);

/** Env keys the platform keeps for itself are left out: see the pod-id test. */
const envKey = hostile(1).filter((k) => k !== "COMPUTEPLATFORM_POD_ID");

const port = fc.tuple(fc.integer({ min: 1, max: 65535 }), fc.constantFrom("http", "tcp", "udp")).map(([n, p]) => `${n}/${p}`);
const powersOfTwo = (min: number, max: number) => [2, 4, 8, 16, 32, 64, 128].filter((n) => n >= min && n <= max);

const gpuCompute = fc.record({
  gpu: fc.record({ id: fc.constantFrom(...GPU_TYPES.map((g) => g.id)), count: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }) }),
  persistent: fc.option(fc.record({ size: fc.integer({ min: 10, max: 2000 }), path: hostile(1) }), { nil: undefined }),
  globalNetworking: fc.boolean(),
});

const cpuCompute = fc
  .constantFrom(...CPU_FLAVORS)
  .chain((f) => fc.record({ cpu: fc.record({ id: fc.constant(f.id), vcpuCount: fc.constantFrom(...powersOfTwo(f.vcpu.min, f.vcpu.max)) }) }));

/** Pod args the platform accepts: every optional property present or not. */
export const validPodArgs: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    compute: fc.oneof(gpuCompute, cpuCompute),
    name: fc.option(hostile(1), { nil: undefined }),
    image: hostile(1),
    args: fc.option(hostile(), { nil: undefined }),
    disk: fc.option(fc.integer({ min: 1, max: 2000 }), { nil: undefined }),
    ports: fc.option(fc.uniqueArray(port, { maxLength: 4, selector: (p) => p.split("/")[0] }), { nil: undefined }),
    env: fc.option(fc.dictionary(envKey, hostile(), { maxKeys: 4 }), { nil: undefined }),
    cloud: fc.option(fc.constantFrom("SECURE", "COMMUNITY"), { nil: undefined }),
    dataCenterIds: fc.option(fc.subarray(DATA_CENTERS.map((d) => d.id), { minLength: 1 }), { nil: undefined }),
    locked: fc.option(fc.boolean(), { nil: undefined }),
    desiredStatus: fc.option(fc.constantFrom("RUNNING", "EXITED"), { nil: undefined }),
    waitFor: fc.option(fc.constantFrom("RUNNING", "PORTS"), { nil: undefined }),
  })
  .map(({ compute, ...rest }) => {
    const args: Record<string, unknown> = { ...rest, waitTimeoutSeconds: 10 };
    if ("gpu" in compute) {
      args.gpu = compute.gpu;
      if (compute.persistent) args.mounts = { persistent: compute.persistent };
      const type = GPU_TYPES.find((g) => g.id === compute.gpu.id)!;
      // The platform's limits: a type is offered on COMMUNITY only where its maxCount there is
      // above 0, and a pod holds at most maxCount GPUs of it on its cloud.
      if (rest.cloud === "COMMUNITY" && type.maxCount.community === 0) args.cloud = "SECURE";
      const max = args.cloud === "COMMUNITY" ? type.maxCount.community : type.maxCount.secure;
      if (compute.gpu.count !== undefined && compute.gpu.count > max) args.gpu = { ...compute.gpu, count: max };
      const nvidia = type.manufacturer === "NVIDIA";
      // Global networking needs an NVIDIA GPU and an eligible data center among the allowed ones.
      const eligible = !rest.dataCenterIds || rest.dataCenterIds.some((id) => DATA_CENTERS.find((d) => d.id === id)!.globalNetwork);
      if (compute.globalNetworking && nvidia && eligible) args.globalNetworking = true;
    } else {
      args.cpu = compute.cpu;
    }
    for (const k of Object.keys(args)) if (args[k] === undefined) delete args[k];
    return args;
  });

/** One way to break a valid args object, and the property the failure must name. */
export interface Mutation {
  property: string;
  apply: (args: Record<string, unknown>) => Record<string, unknown>;
}

const set = (property: string, value: unknown): Mutation => ({ property, apply: (a) => ({ ...a, [property.split(/[.[]/)[0]]: value }) });
const gpuPod = (a: Record<string, unknown>) => {
  const { cpu: _c, mounts: _m, ...rest } = a;
  return { ...rest, gpu: { id: GPU_TYPES[0].id } };
};
const cpuPod = (a: Record<string, unknown>) => {
  const { gpu: _g, mounts: _m, globalNetworking: _n, ...rest } = a;
  return { ...rest, cpu: { id: CPU_FLAVORS[0].id, vcpuCount: 2 } };
};

export const POD_MUTATIONS: Mutation[] = [
  set("name", 42),
  set("name", { first: "a" }),
  { property: "image", apply: ({ image: _i, ...a }) => a },
  set("image", ""),
  set("image", ["img"]),
  set("args", 3),
  set("disk", 0),
  set("disk", -5),
  set("disk", 1.5),
  set("disk", "20"),
  set("ports", "8888/http"),
  set("ports[0]", ["8888"]),
  set("ports[0]", ["0/http"]),
  set("ports[0]", ["70000/tcp"]),
  set("ports[0]", ["80/HTTP"]),
  set("ports[0]", [8888]),
  set("env", "A=1"),
  set("env.A", { A: 1 }),
  set("registry", 5),
  { property: "gpu.id", apply: (a) => ({ ...gpuPod(a), gpu: { id: "" } }) },
  { property: "gpu.count", apply: (a) => ({ ...gpuPod(a), gpu: { id: GPU_TYPES[0].id, count: 0 } }) },
  { property: "gpu.count", apply: (a) => ({ ...gpuPod(a), gpu: { id: GPU_TYPES[0].id, count: 2.5 } }) },
  { property: "gpu", apply: (a) => ({ ...gpuPod(a), gpu: { id: GPU_TYPES[0].id, memory: 80 } }) },
  { property: "cpu.vcpuCount", apply: (a) => ({ ...cpuPod(a), cpu: { id: CPU_FLAVORS[0].id, vcpuCount: 3 } }) },
  { property: "cpu.vcpuCount", apply: (a) => ({ ...cpuPod(a), cpu: { id: CPU_FLAVORS[0].id, vcpuCount: 1 } }) },
  { property: "cpu.vcpuCount", apply: (a) => ({ ...cpuPod(a), cpu: { id: CPU_FLAVORS[0].id } }) },
  { property: "cpu", apply: (a) => ({ ...cpuPod(a), cpu: { id: CPU_FLAVORS[0].id, vcpuCount: 2, memory: 4 } }) },
  { property: "cpu", apply: (a) => ({ ...gpuPod(a), cpu: { id: CPU_FLAVORS[0].id, vcpuCount: 2 } }) },
  { property: "gpu", apply: ({ gpu: _g, cpu: _c, mounts: _m, globalNetworking: _n, ...a }) => a },
  { property: "mounts.persistent", apply: (a) => ({ ...cpuPod(a), mounts: { persistent: { size: 20, path: "/data" } } }) },
  { property: "globalNetworking", apply: (a) => ({ ...cpuPod(a), globalNetworking: true }) },
  { property: "mounts.persistent.size", apply: (a) => ({ ...gpuPod(a), mounts: { persistent: { size: 9, path: "/data" } } }) },
  { property: "mounts.persistent.path", apply: (a) => ({ ...gpuPod(a), mounts: { persistent: { size: 20 } } }) },
  { property: "mounts.network", apply: (a) => ({ ...a, mounts: { network: [] } }) },
  { property: "mounts.network", apply: (a) => ({ ...a, mounts: { network: [{ volumeId: "v1", path: "/a" }, { volumeId: "v2", path: "/b" }] } }) },
  { property: "mounts.network[0].path", apply: (a) => ({ ...a, mounts: { network: [{ volumeId: "v1" }] } }) },
  { property: "mounts", apply: (a) => ({ ...gpuPod(a), mounts: { persistent: { size: 20, path: "/p" }, network: [{ volumeId: "v1", path: "/n" }] } }) },
  { property: "mounts", apply: (a) => ({ ...a, mounts: { tmpfs: { size: 1 } } }) },
  set("cloud", "PRIVATE"),
  set("dataCenterIds", "US-TX-3"),
  set("dataCenterIds[0]", [""]),
  set("globalNetworking", "yes"),
  set("locked", 1),
  set("desiredStatus", "STOPPED"),
  set("waitFor", "HEALTHY"),
  set("waitTimeoutSeconds", 0),
  set("waitTimeoutSeconds", 86_401),
  set("waitTimeoutSeconds", 1.5),
  set("adopt", ""),
  { property: "bogus", apply: (a) => ({ ...a, bogus: true }) },
];

/** ServerlessEndpoint args the platform accepts; the wait is off or trivially met, to stay quick. */
export const validEndpointArgs: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    name: fc.option(hostile(1), { nil: undefined }),
    gpuIds: fc.constantFrom(...GPU_IDS),
    templateId: hostile(1),
    type: fc.option(fc.constantFrom("QB", "LB"), { nil: undefined }),
    idleTimeout: fc.option(fc.integer({ min: 0, max: 3600 }), { nil: undefined }),
    locations: fc.option(
      fc.oneof(fc.constant(null), fc.constant(""), fc.subarray([...LOCATIONS], { minLength: 1 }).map((l) => l.join(","))),
      { nil: undefined },
    ),
    flashBootType: fc.option(fc.constantFrom("OFF", "FLASHBOOT"), { nil: undefined }),
    scalerType: fc.option(fc.constantFrom("QUEUE_DELAY", "REQUEST_COUNT"), { nil: undefined }),
    scalerValue: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
    workers: fc.option(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 })), { nil: undefined }),
    waitForWorkers: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map(({ workers, ...rest }) => {
    const args: Record<string, unknown> = { ...rest, readyTimeoutSeconds: 10, drainTimeoutSeconds: 10 };
    if (workers) {
      args.workersMin = Math.min(...workers);
      args.workersMax = Math.max(...workers);
    }
    for (const k of Object.keys(args)) if (args[k] === undefined) delete args[k];
    return args;
  });

export const ENDPOINT_MUTATIONS: Mutation[] = [
  set("name", 7),
  { property: "gpuIds", apply: ({ gpuIds: _g, ...a }) => a },
  set("gpuIds", "H100"),
  set("gpuIds", "ampere_24"),
  { property: "templateId", apply: ({ templateId: _t, ...a }) => a },
  set("templateId", ""),
  set("type", "XB"),
  set("idleTimeout", -1),
  set("idleTimeout", 2.5),
  set("idleTimeout", "5"),
  set("locations", "EU"),
  set("locations", "US,US"),
  set("locations", "US, RO"),
  set("flashBootType", "ON"),
  set("scalerType", "CPU"),
  set("scalerValue", -3),
  set("workersMin", -1),
  set("workersMax", 0.5),
  { property: "workersMin", apply: (a) => ({ ...a, workersMin: 3, workersMax: 2 }) },
  set("networkVolumeId", ""),
  set("waitForWorkers", "true"),
  set("readyTimeoutSeconds", 0),
  set("readyTimeoutSeconds", 86_401),
  set("drainTimeoutSeconds", -1),
];

/** Whether `failures` name `property`: the path itself, a path inside it, or (unknown keys) the key in the reason. */
export function names(failures: { property: string; reason: string }[], property: string): boolean {
  return failures.some(
    (f) =>
      f.property === property ||
      f.property.startsWith(`${property}.`) ||
      f.property.startsWith(`${property}[`) ||
      (f.property === "(inputs)" && f.reason.includes(property)),
  );
}

import { ResponseValidationError, RequestValidationError } from "../../../../src/client/core/errors";
import { checkParams } from "../../../../src/client/context";
import { Transport } from "../../../../src/client/core/transport";
import { PacingRegistry } from "../../../../src/client/core/pacing";
import {
  EndpointInputSchema,
  EndpointReleasesSchema,
  EndpointSchema,
  EndpointWorkersSchema,
  JobAnswerSchema,
  NetworkVolumeCreateParamsSchema,
  PodCreateParamsSchema,
  PodSchema,
  PodUpdateParamsSchema,
  RunSyncResponseSchema,
} from "../../../../src/client/schemas";
import { FakeClock } from "../../../helpers/fake-clock";
import { wirePod } from "../../../helpers/loopback";

const transport = new Transport({
  apiKey: "k_test_1234",
  timeoutMs: 1000,
  maxRetries: 0,
  maxRetryDelayMs: 1000,
  clock: new FakeClock(),
  pacing: new PacingRegistry(),
  logger: undefined,
  random: () => 0,
  backoff: { baseDelayMs: 1, maxBackoffMs: 1 },
});
const req = { method: "GET", url: "http://127.0.0.1:1/v2/pods/p1", auth: "bearer" as const, setting: "apiUrl" as const };

function responseError(schema: Parameters<Transport["validate"]>[0], value: unknown): ResponseValidationError {
  try {
    transport.validate(schema, value, req, "a Pod");
  } catch (err) {
    if (err instanceof ResponseValidationError) return err;
    throw err;
  }
  throw new Error("expected a ResponseValidationError");
}

function paramsError(schema: Parameters<typeof checkParams>[0], value: unknown): RequestValidationError {
  try {
    checkParams(schema, value, "params");
  } catch (err) {
    if (err instanceof RequestValidationError) return err;
    throw err;
  }
  throw new Error("expected a RequestValidationError");
}

describe("responses: strict about required fields, lenient to new ones", () => {
  test("a full pod passes, and unknown extra fields survive", () => {
    const pod = transport.validate(PodSchema, wirePod({ futureField: { a: 1 } }), req, "a Pod");
    expect(pod.id).toBe("pod-1");
    expect((pod as Record<string, unknown>).futureField).toEqual({ a: 1 });
  });

  test("a pod with runtime, cpu, mounts and global networking passes", () => {
    const pod = wirePod({
      gpu: undefined,
      cpu: { id: "cpu3c", vcpuCount: 4, memory: 8 },
      status: "RUNNING",
      runtime: { uptime: 5, cpu: { util: 3 }, memory: { util: 40 }, ports: [{ private: 22, public: null, type: "tcp", ip: null }] },
      mounts: { network: [{ volumeId: "vol-1", path: "/data" }] },
      globalNetworking: { enabled: true, ip: "10.0.0.2", internalDns: "pod-1.internal" },
      startedAt: "2026-01-01T00:00:05Z",
    });
    expect(() => transport.validate(PodSchema, pod, req, "a Pod")).not.toThrow();
  });

  test.each([
    ["missing cost", { cost: undefined }, "cost is required"],
    ["unknown status", { status: "SLEEPING" }, "status must be one of"],
    ["missing enum", { status: undefined }, "status is required"],
    ["missing nullable", { runtime: undefined }, "runtime is required"],
    ["wrong type", { disk: "20" }, "disk is invalid"],
    ["nested", { mounts: { network: [{ volumeId: "v" }] } }, "mounts.network[0].path is required"],
    ["bad date", { createdAt: "yesterday" }, "createdAt is invalid"],
    ["unknown action", { actions: ["start", "explode"] }, "actions[1] must be one of"],
    ["globalNetworking without enabled", { globalNetworking: {} }, "globalNetworking.enabled is required"],
  ])("%s names the field", (_what, over, expected) => {
    const err = responseError(PodSchema, wirePod(over));
    expect(err.message).toContain(expected);
    expect(err.message).toContain("GET /v2/pods/p1 returned a Pod that breaks the contract");
    expect(err.issues.length).toBeGreaterThan(0);
  });

  test("endpoint and runsync responses", () => {
    expect(responseError(EndpointSchema, { id: "e", name: "n", templateId: "t", pods: [] }).message).toContain("gpuIds is required");
    expect(responseError(RunSyncResponseSchema, { id: "r", status: "COMPLETED" }).message).toContain("output is required");
  });

  test("a job's answer carries the worker that took it", () => {
    const answer = JobAnswerSchema.parse({ id: "j", status: "COMPLETED", output: {}, workerId: "w1" });
    expect(answer.workerId).toBe("w1");
    expect(responseError(JobAnswerSchema, { id: "j", status: "IN_PROGRESS", workerId: 7 }).message).toContain("workerId is invalid");
  });

  test("releases and workers: nullable where the contract says, a status it may add later kept as sent", () => {
    const releases = { rollout: { inProgress: true, workersOnLatest: 1, workersTotal: 2, percentOnLatest: 50 } };
    const release = { id: "r", source: "MANUAL", createdAt: "2026-01-01T00:00:00Z", workerCount: 1, diff: [{ field: "template.env", old: ["A"], new: null }] };
    expect(EndpointReleasesSchema.parse({ ...releases, endpointVersion: null, releases: [{ ...release, version: null, buildId: null }] }).releases[0]!.diff[0]!.new).toBeNull();
    expect(responseError(EndpointReleasesSchema, { ...releases, releases: [{ ...release, diff: [{ field: "x", old: 1 }] }] }).message).toContain("releases[0].diff[0].new");
    expect(responseError(EndpointReleasesSchema, { rollout: { ...releases.rollout, percentOnLatest: 101 }, releases: [] }).message).toContain("rollout.percentOnLatest");
    const worker = { id: "w", status: "DRAINING", isStale: true, gpuCount: 1, version: null, image: null };
    const summary = { running: 0, idle: 0, initializing: 0, throttled: 0, unhealthy: 0, total: 1 };
    expect(EndpointWorkersSchema.parse({ workers: [worker], summary }).workers[0]!.status).toBe("DRAINING");
  });
});

describe("params are checked before anything is sent", () => {
  const good = { name: "p", image: "img", gpu: { id: "NVIDIA A100" } };
  test("a good create passes", () => {
    expect(checkParams(PodCreateParamsSchema, good, "params")).toEqual(good);
  });
  test.each([
    ["missing mount path", { ...good, mounts: { network: [{ volumeId: "v" }] } }, "mounts.network[0].path is required"],
    ["unknown property", { ...good, bogus: 1 }, "bogus is not an allowed property"],
    ["unknown gpu property", { ...good, gpu: { id: "x", memory: 3 } }, "gpu.memory is not an allowed property"],
    ["neither gpu nor cpu", { name: "p", image: "i" }, "exactly one of gpu or cpu"],
    ["both gpu and cpu", { ...good, cpu: { id: "c", vcpuCount: 2 } }, "exactly one of gpu or cpu"],
    ["vcpu not a power of two", { name: "p", image: "i", cpu: { id: "c", vcpuCount: 6 } }, "cpu.vcpuCount must be a power of two"],
    ["vcpu too small", { name: "p", image: "i", cpu: { id: "c", vcpuCount: 1 } }, "cpu.vcpuCount must be >= 2"],
    ["persistent on cpu", { name: "p", image: "i", cpu: { id: "c", vcpuCount: 2 }, mounts: { persistent: { size: 10, path: "/w" } } }, "mounts.persistent is invalid on a CPU pod"],
    ["both mount kinds", { ...good, mounts: { persistent: { size: 10, path: "/w" }, network: [{ volumeId: "v", path: "/d" }] } }, "mounts may set persistent or network"],
    ["persistent too small", { ...good, mounts: { persistent: { size: 5, path: "/w" } } }, "mounts.persistent.size must be >= 10"],
    ["two network mounts", { ...good, mounts: { network: [{ volumeId: "a", path: "/a" }, { volumeId: "b", path: "/b" }] } }, "mounts.network must have at most 1 item"],
    ["empty name", { ...good, name: "" }, "name must be at least 1 character"],
    ["bad port", { ...good, ports: ["8888"] }, "ports[0] is invalid"],
  ])("%s", (_what, params, expected) => {
    expect(paramsError(PodCreateParamsSchema, params).message).toContain(expected);
  });
  test("update accepts only the updatable fields", () => {
    expect(paramsError(PodUpdateParamsSchema, { gpu: { id: "x" } }).message).toContain("gpu is not an allowed property");
    expect(paramsError(NetworkVolumeCreateParamsSchema, { name: "v", size: 5000, dataCenter: "US" }).message).toContain("size must be <= 4096");
  });
  test("endpoint input: tiers, enums and required fields", () => {
    expect(paramsError(EndpointInputSchema, { name: "n", gpuIds: "H100", templateId: "t" }).message).toContain('gpuIds "H100" is not one of');
    expect(paramsError(EndpointInputSchema, { name: "n", gpuIds: "AMPERE_16", templateId: "t", flashBootType: "fast" }).message).toContain(
      "flashBootType must be one of",
    );
    expect(paramsError(EndpointInputSchema, { gpuIds: "AMPERE_16", templateId: "t" }).message).toContain("name is required");
    expect(checkParams(EndpointInputSchema, { name: "n", gpuIds: "AMPERE_16,ADA_24", templateId: "t", locations: "US,FR" }, "x").gpuIds).toBe(
      "AMPERE_16,ADA_24",
    );
  });
});

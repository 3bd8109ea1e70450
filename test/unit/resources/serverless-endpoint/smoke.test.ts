import * as pulumi from "@pulumi/pulumi";
import { type ComputePlatform, makeApiError, ModelJobFailedError, ModelJobInProgressError } from "../../../../src/client";
import { shimProvider } from "../../../../src/resources/engine/shim";
import { runSyncSmokeTest, smokeCall } from "../../../../src/resources/serverless-endpoint/smoke";
import { noteWorkersRun, workersRun } from "../../../../src/resources/serverless-endpoint/workers-run";
import { registered, registrationOf } from "../../../helpers/registered";

// The SmokeTest resource records what it is given, and answers as its provider's create would.
jest.mock("@pulumi/pulumi", () => {
  const recording = require("../../../helpers/registered").pulumiRecordingResources();
  const actual = jest.requireActual("@pulumi/pulumi");
  const Recorded = recording.dynamic.Resource as new (...args: unknown[]) => object;
  class Answered extends Recorded {
    constructor(...args: unknown[]) {
      super(...args);
      const answer = { jobId: "job-1", status: "COMPLETED", output: { image_url: "http://x/i.png" }, imageUrl: "http://x/i.png", workerId: "w-1", release: 4 };
      for (const [key, value] of Object.entries(answer)) (this as Record<string, unknown>)[key] = actual.output(value);
    }
  }
  return { ...recording, dynamic: { ...recording.dynamic, Resource: Answered } };
});

/** A client whose runSync resolves or throws what the real client does, counting the calls. */
function answering(answer: Record<string, unknown> | Error) {
  const calls: unknown[][] = [];
  const runSync = async (...args: unknown[]) => {
    calls.push(args);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const client = { jobs: { runSync } } as unknown as Pick<ComputePlatform, "jobs">;
  return { client, calls };
}

const input = { prompt: "a lighthouse", width: 16, height: 16 };

describe("runsync smoke test: each outcome of the client's followed job", () => {
  test("COMPLETED gives the job id and the image URL", async () => {
    const { client } = answering({ id: "job-1", status: "COMPLETED", output: { image_url: "http://x/i.png" } });
    await expect(smokeCall(client, "sdxl-turbo", input)).resolves.toEqual({ id: "job-1", status: "COMPLETED", output: { image_url: "http://x/i.png" }, imageUrl: "http://x/i.png", workerId: null, release: null });
  });

  test("any output a worker returns is the result's output (a text model's list, a plain string)", async () => {
    for (const output of [[{ choices: [{ tokens: ["hi"] }] }], "hello", 3]) {
      const { client } = answering({ id: "job-1", status: "COMPLETED", output });
      await expect(smokeCall(client, "ep1", { prompt: "hi" })).resolves.toEqual({ id: "job-1", status: "COMPLETED", output, imageUrl: null, workerId: null, release: null });
    }
  });

  test("the smoke test's timeoutMs is the client's deadline for following the job, and bounds each hold when shorter than the platform's", async () => {
    const { client, calls } = answering({ id: "job-1", status: "COMPLETED", output: {} });
    await expect(smokeCall(client, "sdxl-turbo", input, 45_000)).resolves.toMatchObject({ imageUrl: null });
    await smokeCall(client, "sdxl-turbo", input, 600_000);
    await smokeCall(client, "sdxl-turbo", input);
    // A hold is a whole number of ms, at least the platform's least; the default's own length asks for no hold of its own.
    await smokeCall(client, "sdxl-turbo", input, 500);
    await smokeCall(client, "sdxl-turbo", input, 2500.7);
    await smokeCall(client, "sdxl-turbo", input, 90_000);
    expect(calls).toEqual([
      ["sdxl-turbo", input, { deadlineMs: 45_000, wait: 45_000 }],
      ["sdxl-turbo", input, { deadlineMs: 600_000 }],
      ["sdxl-turbo", input, { deadlineMs: undefined }],
      ["sdxl-turbo", input, { deadlineMs: 500, wait: 1000 }],
      ["sdxl-turbo", input, { deadlineMs: 2500.7, wait: 2500 }],
      ["sdxl-turbo", input, { deadlineMs: 90_000 }],
    ]);
  });

  test("no output is null; an image_url that is not a string, or a workerId that is not one, is none", async () => {
    const { client } = answering({ id: "job-1", status: "COMPLETED" });
    await expect(smokeCall(client, "ep1", {})).resolves.toEqual({ id: "job-1", status: "COMPLETED", output: null, imageUrl: null, workerId: null, release: null });
    const odd = answering({ id: "job-2", status: "COMPLETED", output: { image_url: 5 }, workerId: 7 });
    await expect(smokeCall(odd.client, "ep1", {})).resolves.toMatchObject({ imageUrl: null, workerId: null, release: null });
  });

  test("an error that is not the job's own is the client's, as it is", async () => {
    const refused = makeApiError({ status: 401, method: "POST", url: "http://h/v2/ep1/runsync", errors: [] } as never);
    const { client } = answering(refused);
    await expect(smokeCall(client, "ep1", {})).rejects.toBe(refused);
  });

  test("FAILED fails clearly: model, job id and the platform's error", async () => {
    const { client, calls } = answering(new ModelJobFailedError("sdxl-turbo", "job-2", "CUDA out of memory"));
    await expect(smokeCall(client, "sdxl-turbo", input)).rejects.toThrow(
      /smoke test of endpoint sdxl-turbo failed: job job-2 ended FAILED: CUDA out of memory/,
    );
    expect(calls).toHaveLength(1);
  });

  test("still IN_PROGRESS at the deadline says the job runs on, is paid, and what to do; it is not sent again", async () => {
    const { client, calls } = answering(new ModelJobInProgressError("sdxl-turbo", "job-3", 600_000));
    await expect(smokeCall(client, "sdxl-turbo", input)).rejects.toThrow(
      /job job-3 was still IN_PROGRESS after 600000 ms \(the smoke test's timeoutMs\).*runs on.*paid.*not sent again.*raise timeoutMs/s,
    );
    expect(calls).toHaveLength(1);
  });
});

describe("which release served the smoke job", () => {
  const workers = (list: Record<string, unknown>[], endpointVersion = 4) => ({
    serverless: { workers: async () => ({ endpointVersion, workers: list, summary: {} }) },
  });
  const job = { id: "job-9", status: "COMPLETED", output: { ok: true }, workerId: "w-new" };

  test("a worker of the latest version: the result names it and its release", async () => {
    const { client } = answering(job);
    const result = await smokeCall({ ...client, ...workers([{ id: "w-new", status: "IDLE", isStale: false, version: 4, gpuCount: 1 }]) } as never, "ep1", {});
    expect(result).toMatchObject({ workerId: "w-new", release: 4 });
  });

  test("a stale worker fails the smoke test, naming the job, the worker, its release and the latest", async () => {
    const { client } = answering(job);
    const stale = workers([{ id: "w-new", status: "RUNNING", isStale: true, version: 3, image: "worker:3", gpuCount: 1 }]);
    await expect(smokeCall({ ...client, ...stale } as never, "ep1", {})).rejects.toThrow(
      'smoke test of endpoint ep1 failed: job job-9 was served by worker w-new, which runs release 3 (image "worker:3"), not the endpoint\'s latest release 4: its rollout was not over.',
    );
  });

  test("a worker not stale but of another version than the endpoint's latest fails it too; with no image or version named, the message says so", async () => {
    const { client } = answering(job);
    const older = workers([{ id: "w-new", status: "IDLE", isStale: false, version: 3, gpuCount: 1 }]);
    await expect(smokeCall({ ...client, ...older } as never, "ep1", {})).rejects.toThrow(
      "smoke test of endpoint ep1 failed: job job-9 was served by worker w-new, which runs release 3, not the endpoint's latest release 4: its rollout was not over. " +
        "Run `pulumi up` again once it is (a ServerlessEndpoint waits for its rollout unless waitForRollout is false).",
    );
    const unversioned = { serverless: { workers: async () => ({ workers: [{ id: "w-new", status: "IDLE", isStale: true, gpuCount: 1 }], summary: {} }) } };
    await expect(smokeCall({ ...client, ...unversioned } as never, "ep1", {})).rejects.toThrow(
      "job job-9 was served by worker w-new, which runs release ?, not the endpoint's latest release ?: its rollout was not over",
    );
  });

  test("a worker whose version or the endpoint's latest is not told: its release as far as known, not a failure", async () => {
    const { client } = answering(job);
    const noLatest = { serverless: { workers: async () => ({ workers: [{ id: "w-new", status: "IDLE", isStale: false, version: 3, gpuCount: 1 }], summary: {} }) } };
    await expect(smokeCall({ ...client, ...noLatest } as never, "ep1", {})).resolves.toMatchObject({ release: 3 });
    const noVersion = workers([{ id: "w-new", status: "IDLE", isStale: false, version: "3", gpuCount: 1 }]);
    await expect(smokeCall({ ...client, ...noVersion } as never, "ep1", {})).resolves.toMatchObject({ release: null });
  });

  test("no serverless half (a client of hosted models only): the release is unknown; a workers read that fails otherwise than 404 fails the test", async () => {
    const { client } = answering(job);
    await expect(smokeCall(client, "sdxl-turbo", {})).resolves.toMatchObject({ workerId: "w-new", release: null });
    const down = makeApiError({ status: 500, method: "GET", url: "http://h/v2/serverless/ep1/workers", errors: [] } as never);
    const failing = { serverless: { workers: async () => Promise.reject(down) } };
    await expect(smokeCall({ ...client, ...failing } as never, "ep1", {})).rejects.toBe(down);
  });

  test("no workers list (a hosted model) or the worker gone since: the release is unknown, not a failure", async () => {
    const { client } = answering(job);
    const gone = { serverless: { workers: async () => Promise.reject(makeApiError({ status: 404, method: "GET", url: "http://h/v2/serverless/m/workers", errors: [] } as never)) } };
    await expect(smokeCall({ ...client, ...gone } as never, "sdxl-turbo", {})).resolves.toMatchObject({ workerId: "w-new", release: null });
    await expect(smokeCall({ ...client, ...workers([]) } as never, "ep1", {})).resolves.toMatchObject({ workerId: "w-new", release: null });
  });
});

describe("runSyncSmokeTest: the SmokeTest resource it registers, and its result", () => {
  const TYPE = "computeplatform:SmokeTest";
  const valueOf = <T>(o: unknown) => new Promise<T>((resolve) => pulumi.output(o as T).apply((v) => (resolve(v as T), v)));

  beforeEach(() => {
    registered.splice(0);
  });

  test("neither endpoint nor endpointId: refused before anything is registered, naming both", () => {
    expect(() => runSyncSmokeTest({ input: {} })).toThrow(
      "runSyncSmokeTest: give endpoint (the stack's ServerlessEndpoint) or endpointId (an endpoint's or hosted model's id)",
    );
    expect(registered).toEqual([]);
  });

  test("by endpointId: its shim provider, every output named, the inputs it tests, the answer kept secret in state", async () => {
    const dependsOn = [{} as pulumi.Resource];
    const result = runSyncSmokeTest({ endpointId: "sdxl-turbo", input: { prompt: "hi" }, triggers: ["w1"], timeoutMs: 5000, dependsOn });
    const r = registrationOf(TYPE, "smoke-test");
    expect(r.provider).toBe(shimProvider("smoke-test"));
    expect(r.props).toEqual({
      jobId: undefined, status: undefined, output: undefined, imageUrl: undefined, workerId: undefined, release: undefined, ranAt: undefined, reason: undefined,
      endpointId: "sdxl-turbo", account: undefined, workers: undefined, input: { prompt: "hi" }, triggers: ["w1"], timeoutMs: 5000, __logicalName: "smoke-test",
    });
    expect(r.opts).toEqual({ dependsOn, additionalSecretOutputs: ["output", "imageUrl", "account"] });
    expect(await valueOf(result)).toEqual({ id: "job-1", status: "COMPLETED", output: { image_url: "http://x/i.png" }, imageUrl: "http://x/i.png", workerId: "w-1", release: 4 });
  });

  test("by the stack's endpoint: its id is called, what its workers run is tested, its account carries the job", async () => {
    const endpoint = { id: pulumi.output("ep-7") } as unknown as pulumi.Resource & { id: pulumi.Output<string> };
    noteWorkersRun(endpoint, { templateId: "tpl-1", account: { name: "team", apiKey: "k-1" } });
    runSyncSmokeTest({ endpoint, endpointId: "ignored", input: {}, name: "smoke-ep" });
    const r = registrationOf(TYPE, "smoke-ep");
    expect(r.props.endpointId).toBe(endpoint.id);
    expect(r.props.workers).toBe(workersRun(endpoint));
    expect(r.props.__logicalName).toBe("smoke-ep");
    expect(await valueOf<{ name: string }>(r.props.account)).toMatchObject({ name: "team" });
    runSyncSmokeTest({ endpoint, input: {}, name: "smoke-other", account: { name: "other", apiKey: "k-2" } });
    expect(await valueOf<{ name: string }>(registrationOf(TYPE, "smoke-other").props.account)).toMatchObject({ name: "other" });
  });

  test("the result is secret when the input is, and only then", async () => {
    expect(await pulumi.isSecret(runSyncSmokeTest({ endpointId: "ep1", name: "a", input: pulumi.secret({ token: "t" }) }))).toBe(true);
    expect(await pulumi.isSecret(runSyncSmokeTest({ endpointId: "ep1", name: "b", input: { prompt: "hi" } }))).toBe(false);
  });
});

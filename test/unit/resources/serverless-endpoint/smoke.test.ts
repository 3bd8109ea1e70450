import { type ComputePlatform, makeApiError, ModelJobFailedError, ModelJobInProgressError } from "../../../../src/client";
import { smokeCall } from "../../../../src/resources/serverless-endpoint/smoke";

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
    expect(calls).toEqual([
      ["sdxl-turbo", input, { deadlineMs: 45_000, wait: 45_000 }],
      ["sdxl-turbo", input, { deadlineMs: 600_000 }],
      ["sdxl-turbo", input, { deadlineMs: undefined }],
    ]);
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

  test("no workers list (a hosted model) or the worker gone since: the release is unknown, not a failure", async () => {
    const { client } = answering(job);
    const gone = { serverless: { workers: async () => Promise.reject(makeApiError({ status: 404, method: "GET", url: "http://h/v2/serverless/m/workers", errors: [] } as never)) } };
    await expect(smokeCall({ ...client, ...gone } as never, "sdxl-turbo", {})).resolves.toMatchObject({ workerId: "w-new", release: null });
    await expect(smokeCall({ ...client, ...workers([]) } as never, "ep1", {})).resolves.toMatchObject({ workerId: "w-new", release: null });
  });
});

import type { ComputePlatform } from "../../../../src/client";
import { smokeCall } from "../../../../src/resources/serverless-endpoint/smoke";

/** A client whose runsync answers `answer` (the platform's shapes), counting the calls. */
function answering(answer: Record<string, unknown>) {
  const calls: unknown[] = [];
  const client = { models: { runSync: async (...args: unknown[]) => (calls.push(args), answer) } } as unknown as Pick<ComputePlatform, "models">;
  return { client, calls };
}

const input = { prompt: "a lighthouse", width: 16, height: 16 };

describe("runsync smoke test: each answer of the platform's hosted model call", () => {
  test("COMPLETED gives the job id and the image URL", async () => {
    const { client } = answering({ id: "job-1", status: "COMPLETED", output: { image_url: "http://x/i.png" } });
    await expect(smokeCall(client, "sdxl-turbo", input)).resolves.toEqual({ id: "job-1", status: "COMPLETED", imageUrl: "http://x/i.png" });
  });

  test("FAILED fails clearly: model, job id and the platform's error", async () => {
    const { client, calls } = answering({ id: "job-2", status: "FAILED", error: "CUDA out of memory" });
    await expect(smokeCall(client, "sdxl-turbo", input)).rejects.toThrow(
      /smoke test of model sdxl-turbo failed: job job-2 ended FAILED: CUDA out of memory/,
    );
    expect(calls).toHaveLength(1);
  });

  test("IN_PROGRESS says the job runs on, is paid, and what to do; it is not sent again", async () => {
    const { client, calls } = answering({ id: "job-3", status: "IN_PROGRESS" });
    await expect(smokeCall(client, "sdxl-turbo", input)).rejects.toThrow(
      /job job-3 was still IN_PROGRESS when the call's wait ran out.*runs on.*paid.*not sent again/s,
    );
    expect(calls).toHaveLength(1);
  });
});

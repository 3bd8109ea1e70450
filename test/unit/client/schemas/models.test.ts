// The hosted models' schemas (schemas/models.ts): runsync's `wait` within the platform's 1 s to
// 5 min, a deadline of at least one wait's floor, and every answer of the job routes read by
// its status (what each status must carry).
import type { z } from "zod";
import { schemas } from "../../../../src/client";

const problems = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};
const { RUNSYNC_WAIT_MS, RUNSYNC_DEADLINE_MS } = schemas;

test("wait is an integer from 1000 to 300000 ms, and a refusal says so", () => {
  for (const wait of [1000, 90000, 300000]) expect(problems(schemas.RunSyncWaitSchema, wait)).toEqual([]);
  for (const wait of [999, 300001, 1500.5, -1, "90000", Number.NaN]) {
    expect(problems(schemas.RunSyncWaitSchema, wait)).toContain(": wait must be an integer from 1000 to 300000 ms");
  }
  expect(RUNSYNC_WAIT_MS.default).toBeGreaterThanOrEqual(RUNSYNC_WAIT_MS.min);
  expect(RUNSYNC_WAIT_MS.default).toBeLessThanOrEqual(RUNSYNC_WAIT_MS.max);
});

test("a deadline is an integer of at least 1000 ms with no ceiling; the default outlasts the longest wait", () => {
  for (const deadlineMs of [1000, RUNSYNC_DEADLINE_MS, 86_400_000]) expect(problems(schemas.RunSyncDeadlineSchema, deadlineMs)).toEqual([]);
  for (const deadlineMs of [999, 0, 1000.5, "1000"]) {
    expect(problems(schemas.RunSyncDeadlineSchema, deadlineMs)).toContain(": deadlineMs must be an integer of at least 1000 ms");
  }
  expect(RUNSYNC_DEADLINE_MS).toBeGreaterThan(RUNSYNC_WAIT_MS.max);
});

describe("a job's answer is read by its status", () => {
  const read = (body: unknown) => problems(schemas.ModelJobAnswerSchema, body);

  test("COMPLETED carries the output (an image's URL where the model makes one), and its times", () => {
    expect(read({ id: "j1", status: "COMPLETED", output: { image_url: "http://h/i.png" }, delayTime: 12, executionTime: 340 })).toEqual([]);
    expect(read({ id: "j1", status: "COMPLETED", output: { text: "hi" } })).toEqual([]);
    expect(read({ id: "j1", status: "COMPLETED" })).toEqual([expect.stringMatching(/^output: /)]);
    expect(read({ id: "j1", status: "COMPLETED", output: { image_url: 7 } })).toEqual([expect.stringMatching(/^output.image_url: /)]);
  });

  test("IN_QUEUE and IN_PROGRESS carry only the job's id", () => {
    for (const status of ["IN_QUEUE", "IN_PROGRESS"]) {
      expect(read({ id: "j1", status })).toEqual([]);
      expect(read({ status })).toEqual([expect.stringMatching(/^id: /)]);
    }
  });

  test("FAILED must say why; the platform's own endings (CANCELLED, TIMED_OUT) may", () => {
    expect(read({ id: "j1", status: "FAILED", error: "out of memory" })).toEqual([]);
    expect(read({ id: "j1", status: "FAILED" })).toEqual([expect.stringMatching(/^error: /)]);
    for (const status of ["CANCELLED", "TIMED_OUT"]) {
      expect(read({ id: "j1", status })).toEqual([]);
      expect(read({ id: "j1", status, error: "past the execution timeout", executionTime: 600000 })).toEqual([]);
    }
  });

  test("a status the routes never answer is refused, and the answer is the same under its older name", () => {
    expect(read({ id: "j1", status: "PAUSED" })).toEqual([expect.stringMatching(/^status: /)]);
    expect(schemas.RunSyncAnswerSchema).toBe(schemas.ModelJobAnswerSchema);
  });

  test("fields the platform may add are kept", () => {
    expect(schemas.ModelJobAnswerSchema.parse({ id: "j1", status: "IN_QUEUE", workerId: "w-1" })).toEqual({ id: "j1", status: "IN_QUEUE", workerId: "w-1" });
  });
});

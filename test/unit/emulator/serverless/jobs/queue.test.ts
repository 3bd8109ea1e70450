// An endpoint's job queue (queue.ts) driven directly through the serverless service, on a clock
// the test moves: a submission refused before it is queued (unknown endpoint, a body that is not
// an object, a bad envelope, a queue full of jobs not ended), a job's cancel, retry and purge, and
// the replay of its events, linear in them (issue 53, case 6): n queued jobs served one by one by
// a single worker cost the replay a bounded number of looks per job, so twice the jobs cost
// twice the work. Counted (EndpointJobs.replaySteps), never timed. The queue's HTTP routes and
// scaling over real HTTP are test/integration/emulator/serverless/jobs/calls.test.ts.
import type { Job } from "../../../../../src/emulator/serverless/jobs/job";
import { ServerlessService } from "../../../../../src/emulator/serverless/service";

async function rig(workersMax: number, jobLimits?: { queuedJobs?: number; queuedBytes?: number }) {
  const clock = { t: 1_700_000_000_000 };
  const svc = new ServerlessService({
    clock: { now: () => clock.t },
    timings: { startingMs: 0, drainMs: 0 },
    random: () => 0.5,
    imageBaseUrl: () => "http://127.0.0.1:1",
    jobLimits,
  });
  const gql = async (query: string) => (await svc.executeGraphql({ query }, { canRead: true, canWrite: true })) as { body: any };
  const made = await gql(`mutation { saveEndpoint(input: { name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: ${workersMax} }) { id } }`);
  const id = made.body.data.saveEndpoint.id as string;
  const submit = (body: unknown) => {
    const r = svc.endpointJobs.submit(id, body);
    if (!("job" in r)) throw new Error(`refused: ${JSON.stringify(r.reply)}`);
    return r.job;
  };
  return { svc, jobs: svc.endpointJobs, id, clock, gql, submit };
}

describe("a submission is refused before it is queued", () => {
  test("an unknown endpoint is 404; a body that is no JSON object 400; a bad envelope 422 naming each rule", async () => {
    const { jobs, id } = await rig(0);
    expect(jobs.submit("nope", { input: {} })).toMatchObject({ reply: { status: 404, body: { detail: 'no endpoint "nope"' } } });
    for (const body of [null, [], "x", 5]) {
      expect(jobs.submit(id, body)).toMatchObject({ reply: { status: 400, body: { detail: "request body must be a JSON object of the form { input: { ... } }" } } });
    }
    const bad = jobs.submit(id, { input: {}, bogus: 1 });
    expect(bad).toMatchObject({ reply: { status: 422 } });
    expect(JSON.stringify(bad)).toContain("bogus");
    expect(jobs.health(id).jobs.inQueue).toBe(0);
  });

  test("a queue holding its limit of jobs not ended, or of their input's bytes, answers 429 until some end", async () => {
    const { jobs, id, submit } = await rig(0, { queuedJobs: 2 });
    submit({ input: { a: 1 } });
    const second = submit({ input: { a: 2 } });
    const full = jobs.submit(id, { input: { a: 3 } });
    expect(full).toMatchObject({ reply: { status: 429, body: { detail: `endpoint ${id} holds 2 jobs not ended (14 bytes of input); it takes at most 2 jobs and 67108864 bytes: retry when some have ended` } } });
    jobs.cancel(second);
    expect("job" in jobs.submit(id, { input: { a: 3 } })).toBe(true);

    // At the limit of bytes is still room; over it is not.
    const bytes = await rig(0, { queuedBytes: 14 });
    bytes.submit({ input: { a: 1 } });
    bytes.submit({ input: { a: 2 } });
    expect(bytes.jobs.submit(bytes.id, { input: { a: 3 } })).toMatchObject({ reply: { status: 429 } });
    expect(bytes.jobs.health(bytes.id).jobs.inQueue).toBe(2);
  });

  test("a job is queued with its id, its endpoint and its ttl from the policy or the default", async () => {
    const { jobs, id, submit, clock } = await rig(0);
    const job = submit({ input: { x: 1 }, policy: { ttl: 10_000 } });
    expect(job).toMatchObject({ endpointId: id, status: "IN_QUEUE", submittedAt: clock.t, ttlEnd: clock.t + 10_000, seq: 1, input: { x: 1 } });
    expect(job.id).toBe(`1-iiiiiiii-${id.slice(0, 4)}`);
    expect(submit({ input: {} }).ttlEnd).toBe(clock.t + 86_400_000);
    expect(jobs.find(id, job.id)).toBe(job);
    expect(jobs.find(id, "other")).toBeUndefined();
    expect(jobs.find("nope", job.id)).toBeUndefined();
  });
});

describe("a job's cancel, retry and purge", () => {
  test("cancel ends a queued job; a retry takes only a FAILED or TIMED_OUT job back to the queue", async () => {
    const { jobs, id, submit } = await rig(0);
    const job = submit({ input: {} });
    expect(jobs.cancel(job)).toEqual({ id: job.id, status: "CANCELLED" });
    expect(jobs.cancel(job)).toEqual({ id: job.id, status: "CANCELLED" });
    expect(jobs.retry(job)).toMatchObject({ status: 409, body: { detail: `job ${job.id} is CANCELLED; only a FAILED or TIMED_OUT job can be retried` } });
    const failing = submit({ input: { fail: "boom" } });
    expect(jobs.health(id).jobs).toMatchObject({ inQueue: 1, inProgress: 0, failed: 0 });
    expect(failing.status).toBe("IN_QUEUE");
  });

  test("a job that failed is retried: queued again, its run forgotten, counted as retried", async () => {
    const { jobs, id, submit, clock, gql } = await rig(1);
    const job: Job = submit({ input: { fail: "boom" } });
    clock.t += 60_000;
    jobs.sync(clock.t);
    expect(job.status).toBe("FAILED");
    await gql(`mutation { saveEndpoint(input: { id: "${id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: 0 }) { id } }`);
    clock.t += 60_000;
    expect(jobs.retry(job)).toEqual({ status: 200, body: { id: job.id, status: "IN_QUEUE" } });
    expect(job).toMatchObject({ status: "IN_QUEUE", submittedAt: clock.t, chunkTimes: [], streamRead: 0 });
    for (const k of ["workerId", "startedAt", "finishedAt", "outcome"] as const) expect(job[k]).toBeUndefined();
    expect(jobs.health(id).jobs).toMatchObject({ inQueue: 1, failed: 1, retried: 1 });
  });

  test("purge drops the queued jobs and keeps the others", async () => {
    const { jobs, id, submit } = await rig(0);
    const a = submit({ input: {} });
    const b = submit({ input: {} });
    jobs.cancel(b);
    expect(jobs.purge(id)).toEqual({ removed: 1, status: "completed" });
    expect(jobs.find(id, a.id)).toBeUndefined();
    expect(jobs.find(id, b.id)).toBe(b);
    expect(jobs.purge(id)).toEqual({ removed: 0, status: "completed" });
  });
});

async function replayOf(n: number): Promise<{ steps: number; completed: number }> {
  const { svc, id, clock, gql } = await rig(0);
  for (let i = 0; i < n; i++) expect("job" in svc.endpointJobs.submit(id, { input: { i, sleep_ms: 1000 } })).toBe(true);
  const before = svc.endpointJobs.replaySteps;
  const saved = await gql(`mutation { saveEndpoint(input: { id: "${id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: 1 }) { id } }`);
  expect(saved.body.errors).toBeUndefined();
  // Time for every job, one after another, on the one worker.
  clock.t += n * 1000 + 10_000;
  svc.endpointJobs.sync(clock.t);
  return { steps: svc.endpointJobs.replaySteps - before, completed: svc.endpointJobs.health(id).jobs.completed };
}

test("n jobs on one worker: every job served, and twice the jobs cost at most about twice the replay's work", async () => {
  const small = await replayOf(1000);
  const large = await replayOf(2000);
  expect(small.completed).toBe(1000);
  expect(large.completed).toBe(2000);
  // A few looks per job (started, running, ended), whatever the queue's length.
  expect(large.steps / 2000).toBeLessThan(5);
  expect(large.steps / small.steps).toBeLessThan(2.5);
});

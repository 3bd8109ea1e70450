// An endpoint's job queue (queue.ts) driven directly through the serverless service, on a clock
// the test moves: a submission refused before it is queued (unknown endpoint, a body that is not
// an object, a bad envelope, a queue full of jobs not ended), a job's cancel, retry and purge, its
// run on a worker (or an embedder's handler) to its end or its timeout, calls held on it, the one
// timer that acts with no reader (on jest's fake timers, which stand for real time), and the
// replay of its events, linear in them (issue 53, case 6): n queued jobs served one by one by a
// single worker cost the replay a bounded number of looks per job, so twice the jobs cost twice
// the work. Counted (EndpointJobs.replaySteps), never timed. The queue's HTTP routes and scaling
// over real HTTP are test/integration/emulator/serverless/jobs/calls.test.ts.
//
// Mutation testing runs this file against each of queue.ts's mutants: the replay runs at 100 and
// 200 jobs here (1,000 and 2,000 in test/load/job-queue-replay.test.ts), and a mutant that leaves
// a held call waiting fails at this file's bound, not at Stryker's own timeout (and the restart of
// its test process that follows). A mutant that spins the replay's loops is stopped by Stryker's
// hit limit, a hundred times the mutant's hits in the unmutated run, kept small by small tests.
import type { Job, JobHandler } from "../../../../../src/emulator/serverless/jobs/job";
import { ServerlessService } from "../../../../../src/emulator/serverless/service";
import { expectLinearReplay } from "../../../../helpers/job-replay";

// Every test here takes milliseconds; a bound for a held call that never ends.
jest.setTimeout(5000);

/** Fields of the endpoint besides its name, GPU, template and workers (GraphQL input syntax). */
type Extra = { timeScale?: number; handler?: JobHandler; endpoint?: string; heldCalls?: number };

async function rig(workersMax: number, jobLimits?: { queuedJobs?: number; queuedBytes?: number }, extra: Extra = {}) {
  const clock = { t: 1_700_000_000_000 };
  const svc = new ServerlessService({
    clock: { now: () => clock.t },
    timings: { startingMs: 0, drainMs: 0 },
    random: () => 0.5,
    imageBaseUrl: () => "http://127.0.0.1:1",
    jobLimits: { ...jobLimits, ...(extra.heldCalls !== undefined ? { heldCalls: extra.heldCalls } : {}) },
    timeScale: extra.timeScale,
    handler: extra.handler,
  });
  const gql = async (query: string) => (await svc.executeGraphql({ query }, { canRead: true, canWrite: true })) as { body: any };
  const made = await gql(`mutation { saveEndpoint(input: { name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: ${workersMax} ${extra.endpoint ?? ""} }) { id } }`);
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
    expect([jobs.has(id), jobs.has("nope")]).toEqual([true, false]);
    expect(jobs.submit("nope", { input: {} })).toMatchObject({ reply: { status: 404, body: { detail: 'no endpoint "nope"' } } });
    for (const body of [null, [], "x", 5]) {
      expect(jobs.submit(id, body)).toMatchObject({ reply: { status: 400, body: { detail: "request body must be a JSON object of the form { input: { ... } }" } } });
    }
    const bad = jobs.submit(id, { input: {}, bogus: 1, policy: { ttl: 5 } });
    const rules = ["$: additional properties 'bogus' not allowed", "$.policy.ttl: must be at least 10000 ms, got 5"];
    expect(bad).toMatchObject({ reply: { status: 422, body: { detail: rules.join("; "), errors: rules } } });
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

  test("the limit counts the jobs not ended at the submission's time: one that ended meanwhile, unread, leaves room", async () => {
    const { jobs, id, submit, clock } = await rig(1, { queuedJobs: 1 });
    const first = submit({ input: { sleep_ms: 1000 } });
    expect(jobs.submit(id, { input: {} })).toMatchObject({ reply: { status: 429 } });
    clock.t += 1000;
    const second = submit({ input: {} });
    expect(first.status).toBe("COMPLETED");
    expect(second).toMatchObject({ status: "COMPLETED", startedAt: clock.t });
    jobs.close();
  });

  test("a job is queued with its id, its endpoint and its ttl from the policy or the default", async () => {
    const { jobs, id, submit, clock } = await rig(0);
    const job = submit({ input: { x: 1 }, policy: { ttl: 10_000 } });
    expect(job).toMatchObject({ endpointId: id, input: { x: 1 }, policy: { ttl: 10_000 }, seq: 1, submittedAt: clock.t, ttlEnd: clock.t + 10_000, status: "IN_QUEUE", chunkTimes: [], streamRead: 0, bytes: 7 });
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

  test("a finished job keeps its status, its end and its count when cancelled, one that ended unread too", async () => {
    const { jobs, id, submit, clock } = await rig(1);
    const t0 = clock.t;
    const done = submit({ input: { sleep_ms: 1000 } });
    clock.t += 1000;
    expect(done.status).toBe("IN_PROGRESS");
    expect(jobs.cancel(done)).toEqual({ id: done.id, status: "COMPLETED" });
    clock.t += 1000;
    expect(jobs.cancel(done)).toEqual({ id: done.id, status: "COMPLETED" });
    expect(done.finishedAt).toBe(t0 + 1000);
    expect(jobs.health(id).jobs).toMatchObject({ completed: 1, failed: 0 });
    jobs.close();
  });

  test("a cancel frees the worker for the next queued job at once", async () => {
    const { jobs, submit, clock } = await rig(1);
    const running = submit({ input: { sleep_ms: 60_000 } });
    const queued = submit({ input: { sleep_ms: 60_000 } });
    expect(queued.status).toBe("IN_QUEUE");
    clock.t += 500;
    jobs.cancel(running);
    expect(queued).toMatchObject({ status: "IN_PROGRESS", startedAt: clock.t, workerId: running.workerId });
    jobs.close();
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
    expect(job).toMatchObject({ status: "IN_QUEUE", submittedAt: clock.t, ttlEnd: clock.t + 86_400_000, chunkTimes: [], streamRead: 0 });
    for (const k of ["workerId", "startedAt", "endsAt", "deadline", "plan", "finishedAt", "outcome", "webhookResult"] as const) expect(job[k]).toBeUndefined();
    expect(jobs.health(id).jobs).toMatchObject({ inQueue: 1, failed: 1, retried: 1 });
  });

  test("a job that timed out is retried with its own ttl, and a free worker takes it at once", async () => {
    const { jobs, id, submit, clock } = await rig(1, undefined, { timeScale: 10, handler: () => new Promise(() => undefined) });
    const job: Job = submit({ input: {}, policy: { ttl: 10_000 }, webhook: "http://example.com/hook" });
    clock.t += 1000;
    expect(jobs.find(id, job.id)).toMatchObject({ status: "TIMED_OUT", webhookResult: "not called: the emulator calls loopback addresses only" });
    clock.t += 1000;
    expect(jobs.retry(job)).toEqual({ status: 200, body: { id: job.id, status: "IN_QUEUE" } });
    expect(job).toMatchObject({ status: "IN_PROGRESS", submittedAt: clock.t, startedAt: clock.t, ttlEnd: clock.t + 1000, deadline: clock.t + 1000 });
    expect(job.webhookResult).toBeUndefined();
    expect(jobs.health(id).jobs).toMatchObject({ inProgress: 1, failed: 1, retried: 1 });
    jobs.close();
  });

  test("purge drops the queued jobs and keeps the others: a worker added later finds none", async () => {
    const { jobs, id, submit, gql } = await rig(1);
    const running = submit({ input: { sleep_ms: 60_000 } });
    const a = submit({ input: {} });
    const b = submit({ input: {} });
    jobs.cancel(b);
    expect(jobs.purge(id)).toEqual({ removed: 1, status: "completed" });
    expect(jobs.find(id, a.id)).toBeUndefined();
    expect(jobs.find(id, b.id)).toBe(b);
    expect(jobs.find(id, running.id)).toMatchObject({ status: "IN_PROGRESS" });
    // Purged, it is no longer the queue's to cancel: it reads as it stood.
    expect(jobs.cancel(a)).toEqual({ id: a.id, status: "IN_QUEUE" });
    expect(jobs.health(id)).toMatchObject({ jobs: { inQueue: 0, inProgress: 1 } });
    expect(jobs.purge(id)).toEqual({ removed: 0, status: "completed" });
    await gql(`mutation { saveEndpoint(input: { id: "${id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: 2 }) { id } }`);
    expect(jobs.health(id)).toMatchObject({ jobs: { inQueue: 0, inProgress: 1 }, workers: { running: 1 } });
    expect(a.status).toBe("IN_QUEUE");
    jobs.close();
  });

  test("purge replays first: a job whose ttl passed is TIMED_OUT, not purged", async () => {
    const { jobs, id, submit, clock } = await rig(0);
    const job = submit({ input: {}, policy: { ttl: 10_000 } });
    clock.t += 10_000;
    expect(jobs.purge(id)).toEqual({ removed: 0, status: "completed" });
    expect(job.status).toBe("TIMED_OUT");
  });
});

describe("a job's run on a worker", () => {
  test("a free worker takes the job at once; it ends COMPLETED at its time, its output the input, its worker idle again", async () => {
    const { jobs, id, submit, clock } = await rig(1);
    const t0 = clock.t;
    const job = submit({ input: { sleep_ms: 1000, x: 1 } });
    expect(job).toMatchObject({ status: "IN_PROGRESS", startedAt: t0, endsAt: t0 + 1000, deadline: t0 + 300_000 });
    expect(jobs.health(id)).toMatchObject({ jobs: { inProgress: 1, inQueue: 0 }, workers: { running: 1, idle: 0 } });
    clock.t = t0 + 999;
    expect(jobs.find(id, job.id)!.status).toBe("IN_PROGRESS");
    clock.t = t0 + 1000;
    expect(jobs.find(id, job.id)).toMatchObject({ status: "COMPLETED", finishedAt: t0 + 1000, outcome: { output: { sleep_ms: 1000, x: 1 } } });
    expect(jobs.answer(job)).toMatchObject({ id: job.id, status: "COMPLETED", delayTime: 0, executionTime: 1000, output: { sleep_ms: 1000, x: 1 } });
    expect(jobs.health(id)).toMatchObject({ jobs: { completed: 1, failed: 0, inProgress: 0 }, workers: { running: 0, idle: 1 } });
    jobs.close();
  });

  test("a job whose input asks to fail ends FAILED with its error, counted as failed", async () => {
    const { jobs, id, submit, clock } = await rig(1);
    const job = submit({ input: { fail: "boom", sleep_ms: 10 } });
    clock.t += 10;
    jobs.sync(clock.t);
    expect(job).toMatchObject({ status: "FAILED", outcome: { error: "boom" } });
    expect(jobs.health(id).jobs).toMatchObject({ completed: 0, failed: 1 });
    jobs.close();
  });

  test("a job past its execution timeout ends TIMED_OUT at the timeout; one ending at it completes", async () => {
    const { jobs, id, submit, clock } = await rig(1);
    const t0 = clock.t;
    const late = submit({ input: { sleep_ms: 8000 }, policy: { executionTimeout: 5000 } });
    clock.t = t0 + 10_000;
    jobs.sync(clock.t);
    expect(late).toMatchObject({ status: "TIMED_OUT", finishedAt: t0 + 5000, outcome: { error: "job exceeded its execution timeout or ttl" } });
    const onTime = submit({ input: { sleep_ms: 5000 }, policy: { executionTimeout: 5000 } });
    clock.t = t0 + 20_000;
    jobs.sync(clock.t);
    expect(onTime).toMatchObject({ status: "COMPLETED", finishedAt: t0 + 15_000 });
    expect(jobs.health(id).jobs).toMatchObject({ completed: 1, failed: 1 });
    jobs.close();
  });

  test("the job queued behind one that timed out starts at the timeout", async () => {
    const { jobs, submit, clock } = await rig(1);
    const t0 = clock.t;
    const late = submit({ input: { sleep_ms: 8000 }, policy: { executionTimeout: 5000 } });
    const next = submit({ input: { sleep_ms: 1000 } });
    clock.t = t0 + 20_000;
    jobs.sync(clock.t);
    expect(late).toMatchObject({ status: "TIMED_OUT", finishedAt: t0 + 5000 });
    expect(next).toMatchObject({ status: "COMPLETED", startedAt: t0 + 5000, finishedAt: t0 + 6000, workerId: late.workerId });
    jobs.close();
  });

  test("the endpoint's execution timeout holds when the policy names none; 0 is no timeout, and the ttl still ends the job", async () => {
    const { jobs, submit, clock } = await rig(1, undefined, { endpoint: "executionTimeoutMs: 6000" });
    const t0 = clock.t;
    expect(submit({ input: { sleep_ms: 60_000 } }).deadline).toBe(t0 + 6000);
    jobs.close();
    const none = await rig(1, undefined, { endpoint: "executionTimeoutMs: 0" });
    const job = none.submit({ input: { sleep_ms: 60_000 }, policy: { ttl: 20_000 } });
    expect(job.deadline).toBe(none.clock.t + 20_000);
    none.clock.t += 20_000;
    none.jobs.sync(none.clock.t);
    expect(job).toMatchObject({ status: "TIMED_OUT", outcome: { error: "job exceeded its execution timeout or ttl" } });
    none.jobs.close();
  });

  test("a queued job whose ttl passes ends TIMED_OUT at its ttl, never taken", async () => {
    const { jobs, id, submit, clock } = await rig(0);
    const t0 = clock.t;
    const job = submit({ input: {}, policy: { ttl: 10_000 } });
    clock.t = t0 + 9_999;
    jobs.sync(clock.t);
    expect(job.status).toBe("IN_QUEUE");
    clock.t = t0 + 30_000;
    jobs.sync(clock.t);
    expect(job).toMatchObject({ status: "TIMED_OUT", finishedAt: t0 + 10_000, outcome: { error: "job's ttl passed while it was queued" } });
    expect(job.workerId).toBeUndefined();
    expect(jobs.health(id).jobs).toMatchObject({ inQueue: 0, failed: 1 });
  });

  test("durations are emulated ms: at a time scale of 10 a job of 1000 ms and a ttl of 10 s take a tenth as long on the clock", async () => {
    const { jobs, submit, clock } = await rig(1, undefined, { timeScale: 10 });
    const t0 = clock.t;
    const job = submit({ input: { sleep_ms: 1000, stream: ["a", "b"] }, policy: { ttl: 10_000, executionTimeout: 5000 } });
    expect(job).toMatchObject({ ttlEnd: t0 + 1000, endsAt: t0 + 100, deadline: t0 + 500, chunkTimes: [t0 + 50, t0 + 100] });
    jobs.close();
  });

  test("a job whose worker leaves goes back to the queue, its run forgotten", async () => {
    const { jobs, id, submit, clock, gql } = await rig(1);
    const job = submit({ input: { sleep_ms: 60_000, stream: [1, 2] } });
    expect(job.status).toBe("IN_PROGRESS");
    clock.t += 1000;
    await gql(`mutation { saveEndpoint(input: { id: "${id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: 0 }) { id } }`);
    jobs.sync(clock.t);
    expect(job).toMatchObject({ status: "IN_QUEUE", chunkTimes: [], streamRead: 0 });
    for (const k of ["workerId", "startedAt", "endsAt", "deadline", "plan"] as const) expect(job[k]).toBeUndefined();
    expect(jobs.health(id).jobs).toMatchObject({ inQueue: 1, inProgress: 0 });
  });

  test("the worker idle the longest takes the next job", async () => {
    // A worker per job: both run at once, each on its own worker.
    const { jobs, id, submit, clock } = await rig(2, undefined, { endpoint: 'scalerType: "REQUEST_COUNT", scalerValue: 1' });
    const a = submit({ input: { sleep_ms: 2000 } });
    const b = submit({ input: { sleep_ms: 1000 } });
    expect([a.status, b.status]).toEqual(["IN_PROGRESS", "IN_PROGRESS"]);
    expect(a.workerId).not.toBe(b.workerId);
    clock.t += 3000;
    jobs.sync(clock.t);
    // b's worker (listed second) has been idle since +1000, a's since +2000.
    const c = submit({ input: {} });
    expect(c).toMatchObject({ workerId: b.workerId, startedAt: clock.t });
    expect(jobs.health(id).jobs.completed).toBe(3);
    jobs.close();
  });

  test("a stream yields each chunk at its time, once", async () => {
    const { jobs, submit, clock } = await rig(1);
    const t0 = clock.t;
    const job = submit({ input: { sleep_ms: 3000, stream: ["a", "b", "c"] } });
    expect(job.chunkTimes).toEqual([t0 + 1000, t0 + 2000, t0 + 3000]);
    expect(jobs.stream(job)).toEqual({ status: "IN_PROGRESS", stream: [] });
    clock.t = t0 + 1000;
    expect(jobs.stream(job)).toEqual({ status: "IN_PROGRESS", stream: [{ output: "a" }] });
    clock.t = t0 + 2999;
    expect(jobs.stream(job)).toEqual({ status: "IN_PROGRESS", stream: [{ output: "b" }] });
    clock.t = t0 + 5000;
    jobs.sync(clock.t);
    expect(jobs.stream(job)).toEqual({ status: "COMPLETED", stream: [{ output: "c" }] });
    expect(jobs.stream(job)).toEqual({ status: "COMPLETED", stream: [] });
    jobs.close();
  });

  test("a queued job streams nothing; a job cancelled midway keeps only the chunks made before its end", async () => {
    const { jobs, submit, clock } = await rig(1);
    const t0 = clock.t;
    const job = submit({ input: { sleep_ms: 3000, stream: ["a", "b", "c"] } });
    const queued = submit({ input: { stream: ["x"] } });
    expect(jobs.stream(queued)).toEqual({ status: "IN_QUEUE", stream: [] });
    clock.t = t0 + 1500;
    jobs.cancel(job);
    clock.t = t0 + 5000;
    expect(jobs.stream(job)).toEqual({ status: "CANCELLED", stream: [{ output: "a" }] });
    jobs.close();
  });

  test("a job cancelled while it runs ends there, and its worker is free for the next", async () => {
    const { jobs, id, submit, clock } = await rig(1);
    const job = submit({ input: { sleep_ms: 60_000 } });
    clock.t += 500;
    expect(jobs.cancel(job)).toEqual({ id: job.id, status: "CANCELLED" });
    expect(job.finishedAt).toBe(clock.t);
    const next = submit({ input: {} });
    expect(next.status).toBe("COMPLETED");
    expect(next.workerId).toBe(job.workerId);
    expect(jobs.health(id).jobs).toMatchObject({ completed: 1, failed: 0, inProgress: 0 });
    jobs.close();
  });
});

describe("a handler in place of the test worker", () => {
  const flush = () => new Promise((r) => setImmediate(r));

  test("its answer is the job's output, ended when it answers; undefined answers null", async () => {
    const seen: unknown[] = [];
    const { jobs, submit, clock } = await rig(1, undefined, {
      handler: async (j) => {
        seen.push(j);
        return j.input.none ? undefined : { echoed: j.input };
      },
    });
    const job = submit({ input: { v: 1 } });
    expect(job).toMatchObject({ status: "IN_PROGRESS" });
    expect(job.endsAt).toBeUndefined();
    clock.t += 250;
    await flush();
    expect(job).toMatchObject({ status: "COMPLETED", finishedAt: clock.t, outcome: { output: { echoed: { v: 1 } } } });
    expect(seen).toEqual([{ id: job.id, endpointId: job.endpointId, input: { v: 1 } }]);
    // The handler gets a copy: what it changes is not the job's input.
    expect((seen[0] as { input: unknown }).input).not.toBe(job.input);
    const none = submit({ input: { none: true } });
    await flush();
    expect(none.outcome).toEqual({ output: null });
    jobs.close();
  });

  test("a handler that throws fails the job with its message (or what it threw, as text)", async () => {
    const { jobs, submit } = await rig(1, undefined, {
      handler: (j) => {
        if (j.input.error) throw new Error("handler broke");
        throw "plain text";
      },
    });
    const a = submit({ input: { error: true, stream: [] } });
    await flush();
    expect(a).toMatchObject({ status: "FAILED", outcome: { error: "handler broke" } });
    expect(jobs.stream(a)).toEqual({ status: "FAILED", stream: [] });
    const b = submit({ input: {} });
    await flush();
    expect(b).toMatchObject({ status: "FAILED", outcome: { error: "plain text" } });
    jobs.close();
  });

  test("a stream's chunks are the handler's list when the input asks for a stream", async () => {
    const { jobs, submit } = await rig(1, undefined, { handler: async () => ["x", "y"] });
    const streamed = submit({ input: { stream: [] } });
    await flush();
    expect(jobs.stream(streamed)).toEqual({ status: "COMPLETED", stream: [{ output: "x" }, { output: "y" }] });
    const plain = submit({ input: {} });
    await flush();
    expect(jobs.stream(plain)).toEqual({ status: "COMPLETED", stream: [] });
    jobs.close();
    const text = await rig(1, undefined, { handler: async () => "not a list" });
    const asked = text.submit({ input: { stream: [] } });
    await flush();
    expect(text.jobs.stream(asked)).toEqual({ status: "COMPLETED", stream: [] });
    expect(asked.outcome).toEqual({ output: "not a list" });
    text.jobs.close();
  });

  test("the late answer of a run whose worker left is ignored once the job runs again", async () => {
    const answers: ((v: unknown) => void)[] = [];
    const { jobs, id, submit, clock, gql } = await rig(1, undefined, { handler: () => new Promise((r) => answers.push(r)) });
    const scale = (n: number) => gql(`mutation { saveEndpoint(input: { id: "${id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: ${n} }) { id } }`);
    const job = submit({ input: {} });
    clock.t += 1000;
    await scale(0);
    jobs.sync(clock.t);
    expect(job.status).toBe("IN_QUEUE");
    clock.t += 1000;
    await scale(1);
    jobs.sync(clock.t);
    expect(job).toMatchObject({ status: "IN_PROGRESS", startedAt: clock.t });
    answers[0]({ first: true });
    await flush();
    expect(job.status).toBe("IN_PROGRESS");
    answers[1]({ second: true });
    await flush();
    expect(job).toMatchObject({ status: "COMPLETED", outcome: { output: { second: true } } });
    jobs.close();
  });

  test("a late answer of a job cancelled meanwhile is ignored", async () => {
    let answer: (v: unknown) => void = () => undefined;
    const { jobs, submit } = await rig(1, undefined, { handler: () => new Promise((r) => (answer = r)) });
    const job = submit({ input: { stream: [] } });
    jobs.cancel(job);
    answer(["late"]);
    await flush();
    expect(job.status).toBe("CANCELLED");
    expect(job.outcome).toBeUndefined();
    expect(jobs.stream(job)).toEqual({ status: "CANCELLED", stream: [] });
    jobs.close();
  });
});

describe("calls held on a job", () => {
  test("a job already ended, or a wait of 0, is answered at once; a job not in the queue is undefined", async () => {
    const { jobs, submit } = await rig(1);
    const done = submit({ input: {} });
    expect(done.status).toBe("COMPLETED");
    await expect(jobs.waitFor(done, 60_000)).resolves.toMatchObject({ id: done.id, status: "COMPLETED" });
    jobs.close();
    const idle = await rig(0, undefined, { heldCalls: 1 });
    const queued = idle.submit({ input: {} });
    const atOnce = idle.jobs.waitFor(queued, 0);
    expect(idle.jobs.canHold()).toBe(true);
    await expect(atOnce).resolves.toMatchObject({ status: "IN_QUEUE" });
    idle.jobs.purge(idle.id);
    await expect(idle.jobs.waitFor(queued, 60_000)).resolves.toBeUndefined();
  });

  test("a held call ends with the job's end, or undefined when the job is purged", async () => {
    const { jobs, submit, clock, id } = await rig(0);
    const a = submit({ input: {} });
    const b = submit({ input: {} });
    const heldA = jobs.waitFor(a, 60_000);
    const heldB = jobs.waitFor(b, 60_000);
    jobs.cancel(a);
    await expect(heldA).resolves.toMatchObject({ id: a.id, status: "CANCELLED" });
    clock.t += 1;
    jobs.purge(id);
    await expect(heldB).resolves.toBeUndefined();
    jobs.close();
  });

  test("a closed queue answers a held call at once with the job as it is", async () => {
    const { jobs, submit } = await rig(0);
    const job = submit({ input: {} });
    const held = jobs.waitFor(job, 60_000);
    jobs.close();
    await expect(held).resolves.toMatchObject({ status: "IN_QUEUE" });
    await expect(jobs.waitFor(job, 60_000)).resolves.toMatchObject({ status: "IN_QUEUE" });
  });

  test("past the limit of held calls, no more is held: 503 with Retry-After", async () => {
    const { jobs } = await rig(0, undefined, { heldCalls: 1 });
    expect(jobs.canHold()).toBe(true);
    const release = jobs.holdOther();
    expect(release).toBeInstanceOf(Function);
    expect(jobs.canHold()).toBe(false);
    expect(jobs.holdOther()).toBeUndefined();
    expect(jobs.tooManyHeld()).toMatchObject({ status: 503, headers: { "retry-after": "1" } });
    release!();
    expect(jobs.canHold()).toBe(true);
  });
});

describe("the one timer: what must happen with no reader", () => {
  // Jest's clock stands for real time (the timer and performance.now()); the rig's clock is the
  // emulator's, moved by the test.
  beforeEach(() => jest.useFakeTimers({ doNotFake: ["setImmediate", "nextTick", "queueMicrotask"] }));
  afterEach(() => jest.useRealTimers());
  const settled = (p: Promise<unknown>) => {
    const state = { done: false, value: undefined as unknown };
    void p.then((v) => Object.assign(state, { done: true, value: v }));
    return state;
  };

  test("no timer while nothing waits: a job with no webhook and no held call arms none; close clears the one armed", async () => {
    const { jobs, id, submit } = await rig(1);
    const job = submit({ input: { sleep_ms: 500 } });
    expect(jest.getTimerCount()).toBe(0);
    void jobs.waitFor(job, 60_000);
    expect(jest.getTimerCount()).toBe(1);
    jobs.close();
    expect(jest.getTimerCount()).toBe(0);
    // A closed queue arms none again, even for a job with a webhook.
    submit({ input: { sleep_ms: 500 }, webhook: "http://example.com/hook" });
    jobs.find(id, job.id);
    expect(jest.getTimerCount()).toBe(0);
  });

  test("a held call ends when its wait runs out in real time, with the job as it is", async () => {
    const { jobs, submit } = await rig(0);
    const job = submit({ input: {} });
    const held = settled(jobs.waitFor(job, 5000));
    await jest.advanceTimersByTimeAsync(4999);
    expect(held.done).toBe(false);
    await jest.advanceTimersByTimeAsync(2);
    expect(held).toMatchObject({ done: true, value: { id: job.id, status: "IN_QUEUE" } });
    expect(jest.getTimerCount()).toBe(0);
    jobs.close();
  });

  test("at a time scale of 10 a wait of 5 s is half a second, of real time or on the clock", async () => {
    const { jobs, submit, clock } = await rig(0, undefined, { timeScale: 10 });
    const held = settled(jobs.waitFor(submit({ input: {} }), 5000));
    await jest.advanceTimersByTimeAsync(499);
    expect(held.done).toBe(false);
    await jest.advanceTimersByTimeAsync(2);
    expect(held.done).toBe(true);
    // A wait of 50 s, 5 s on the clock: the clock moved past it is seen at the next tick, within a second.
    const moved = settled(jobs.waitFor(submit({ input: {} }), 50_000));
    clock.t += 5000;
    await jest.advanceTimersByTimeAsync(1000);
    expect(moved.done).toBe(true);
    jobs.close();
  });

  test("a clock moved past a held call's wait, by no request, is seen within a second", async () => {
    const { jobs, submit, clock } = await rig(0);
    const held = settled(jobs.waitFor(submit({ input: {} }), 5000));
    clock.t += 5000;
    await jest.advanceTimersByTimeAsync(999);
    expect(held.done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(held).toMatchObject({ done: true, value: { status: "IN_QUEUE" } });
    jobs.close();
  });

  test("a held call ends with its job, at the job's end, with no other read", async () => {
    const { jobs, submit, clock } = await rig(1);
    const job = submit({ input: { sleep_ms: 500 } });
    const held = settled(jobs.waitFor(job, 60_000));
    clock.t += 500;
    // The timer fires a millisecond past the job's next event, so that its replay is past it.
    await jest.advanceTimersByTimeAsync(500);
    expect(held.done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(held).toMatchObject({ done: true, value: { id: job.id, status: "COMPLETED" } });
    jobs.close();
  });

  test("a job with a webhook ends at its time with no reader, and its webhook is called then", async () => {
    const { jobs, submit, clock } = await rig(1);
    const job = submit({ input: { sleep_ms: 500 }, webhook: "http://example.com/hook" });
    expect(jest.getTimerCount()).toBe(1);
    clock.t += 500;
    await jest.advanceTimersByTimeAsync(500);
    expect(job.status).toBe("IN_PROGRESS");
    await jest.advanceTimersByTimeAsync(1);
    expect(job).toMatchObject({ status: "COMPLETED", webhookResult: "not called: the emulator calls loopback addresses only" });
    // Nothing is left to wait for: no timer.
    expect(jest.getTimerCount()).toBe(0);
    jobs.close();
  });
});

describe("what the queue tells", () => {
  test("the most recent jobs, newest first, as many as asked", async () => {
    const { jobs, id, submit } = await rig(0);
    const a = submit({ input: { n: 1 }, webhook: "http://example.com/hook" });
    const b = submit({ input: { n: 2 } });
    const c = submit({ input: { n: 3 } });
    const recent = jobs.recent(id, 2);
    expect(recent.map((r) => r.answer.id)).toEqual([c.id, b.id]);
    expect(recent[0]).toEqual({ answer: jobs.answer(c), submittedAt: c.submittedAt, webhook: undefined, webhookResult: undefined });
    expect(jobs.recent(id, 10).at(-1)).toMatchObject({ answer: { id: a.id }, webhook: "http://example.com/hook" });
    expect(jobs.recent("nope", 10)).toEqual([]);
  });

  test("the recent jobs are read as of now: one that ended unread reads ended", async () => {
    const { jobs, id, submit, clock } = await rig(1);
    const job = submit({ input: { sleep_ms: 1000 }, webhook: "http://example.com/hook" });
    clock.t += 1000;
    expect(jobs.recent(id, 1)).toEqual([
      { answer: { id: job.id, status: "COMPLETED", workerId: job.workerId, delayTime: 0, executionTime: 1000, output: { sleep_ms: 1000 } }, submittedAt: job.submittedAt, webhook: "http://example.com/hook", webhookResult: "not called: the emulator calls loopback addresses only" },
    ]);
    jobs.close();
  });

  test("a job with a webhook that ends keeps what became of its call: an address not on loopback is never called", async () => {
    const { jobs, submit } = await rig(0);
    const job = submit({ input: {}, webhook: "http://example.com/hook" });
    expect(job.webhookResult).toBeUndefined();
    jobs.cancel(job);
    expect(job.webhookResult).toBe("not called: the emulator calls loopback addresses only");
  });

  test("a deleted endpoint's queue is dropped, and its held calls end as gone", async () => {
    const { jobs, submit, id, gql, clock } = await rig(0);
    const job = submit({ input: {} });
    const held = jobs.waitFor(job, 60_000);
    const deleted = await gql(`mutation { deleteEndpoint(id: "${id}") }`);
    expect(deleted.body.errors).toBeUndefined();
    clock.t += 1;
    jobs.sync(clock.t);
    await expect(held).resolves.toBeUndefined();
    expect(jobs.has(id)).toBe(false);
    expect(jobs.find(id, job.id)).toBeUndefined();
    expect(jobs.recent(id, 10)).toEqual([]);
    await expect(jobs.waitFor(job, 60_000)).resolves.toBeUndefined();
    expect(jobs.cancel(job)).toEqual({ id: job.id, status: "IN_QUEUE" });
    jobs.close();
  });

  test("a finished job stays readable for the retention time, then goes with the next full pass (every 64 submissions)", async () => {
    const { jobs, id, submit, clock } = await rig(1);
    const first = submit({ input: {} });
    expect(first.status).toBe("COMPLETED");
    clock.t += 16 * 60_000;
    for (let i = 0; i < 63; i++) submit({ input: {} });
    expect(jobs.find(id, first.id)).toBe(first);
    submit({ input: {} });
    expect(jobs.find(id, first.id)).toBeUndefined();
    jobs.close();
  });

  test("the retention time is emulated: at a time scale of 10, a tenth as long on the clock", async () => {
    const { jobs, id, submit, clock } = await rig(1, undefined, { timeScale: 10 });
    const first = submit({ input: {} });
    clock.t += 90_000 - 1;
    for (let i = 0; i < 63; i++) submit({ input: {} });
    const kept = submit({ input: {} });
    clock.t += 1;
    for (let i = 0; i < 63; i++) submit({ input: {} });
    expect(jobs.find(id, first.id)).toBe(first);
    expect(jobs.find(id, kept.id)).toBe(kept);
    submit({ input: {} });
    expect(jobs.find(id, first.id)).toBeUndefined();
    expect(jobs.find(id, kept.id)).toBe(kept);
    jobs.close();
  });
});

test("n jobs on one worker: every job served, and twice the jobs cost at most about twice the replay's work", async () => {
  // 100 and 200 jobs: mutation testing runs this against every mutant of the replay; the load
  // suite runs 1,000 and 2,000 (test/load/job-queue-replay.test.ts).
  await expectLinearReplay(100);
});

// The replay of an endpoint's queue held linear in its events (issue 53, case 6): n queued jobs
// served one by one by a single worker cost the replay a bounded number of looks per job, so
// twice the jobs cost about twice the work. Counted (EndpointJobs.replaySteps), never timed. Run
// small by the queue's unit test (test/unit/emulator/serverless/jobs/queue.test.ts, where
// mutation testing runs it against every mutant) and at a size worth the name by the load suite
// (test/load/job-queue-replay.test.ts).
import { ServerlessService } from "../../src/emulator/serverless/service";

async function replayOf(n: number): Promise<{ steps: number; completed: number }> {
  let now = 1_700_000_000_000;
  const svc = new ServerlessService({
    clock: { now: () => now },
    timings: { startingMs: 0, drainMs: 0 },
    random: () => 0.5,
    imageBaseUrl: () => "http://127.0.0.1:1",
  });
  const save = async (workersMax: number, id?: string) => {
    const input = `${id ? `id: "${id}", ` : ""}name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: ${workersMax}`;
    const r = (await svc.executeGraphql({ query: `mutation { saveEndpoint(input: { ${input} }) { id } }` }, { canRead: true, canWrite: true })) as { body: any };
    expect(r.body.errors).toBeUndefined();
    return r.body.data.saveEndpoint.id as string;
  };
  const id = await save(0);
  const jobs = svc.endpointJobs;
  for (let i = 0; i < n; i++) expect("job" in jobs.submit(id, { input: { i, sleep_ms: 1000 } })).toBe(true);
  const before = jobs.replaySteps;
  await save(1, id);
  // Time for every job, one after another, on the one worker.
  now += n * 1000 + 10_000;
  jobs.sync(now);
  const out = { steps: jobs.replaySteps - before, completed: jobs.health(id).jobs.completed };
  jobs.close();
  return out;
}

/** `small` and then twice as many jobs on one worker: every job served, a few looks per job, twice the jobs about twice the work. */
export async function expectLinearReplay(small: number): Promise<void> {
  const one = await replayOf(small);
  const two = await replayOf(2 * small);
  expect(one.completed).toBe(small);
  expect(two.completed).toBe(2 * small);
  // A few looks per job (started, running, ended), whatever the queue's length.
  expect(two.steps / (2 * small)).toBeLessThan(5);
  expect(two.steps / one.steps).toBeLessThan(2.5);
}

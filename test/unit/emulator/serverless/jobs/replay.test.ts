// The replay of an endpoint's jobs is linear in its events (issue 53, case 6): n queued jobs
// served one by one by a single worker cost the replay a bounded number of looks per job, so
// twice the jobs cost twice the work. Counted (EndpointJobs.replaySteps), never timed.
import { ServerlessService } from "../../../../../src/emulator/serverless/service";

async function replayOf(n: number): Promise<{ steps: number; completed: number }> {
  let t = 1_700_000_000_000;
  const svc = new ServerlessService({ clock: { now: () => t }, timings: { startingMs: 0, drainMs: 0 }, random: () => 0.5, imageBaseUrl: () => "http://127.0.0.1:1" });
  const gql = async (query: string) => (await svc.executeGraphql({ query }, { canRead: true, canWrite: true })) as { body: any };
  const made = await gql(`mutation { saveEndpoint(input: { name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: 0 }) { id } }`);
  const id = made.body.data.saveEndpoint.id as string;
  for (let i = 0; i < n; i++) expect("job" in svc.endpointJobs.submit(id, { input: { i, sleep_ms: 1000 } })).toBe(true);
  const before = svc.endpointJobs.replaySteps;
  const saved = await gql(`mutation { saveEndpoint(input: { id: "${id}", name: "ep", gpuIds: "AMPERE_16", templateId: "tpl-1", workersMin: 0, workersMax: 1 }) { id } }`);
  expect(saved.body.errors).toBeUndefined();
  // Time for every job, one after another, on the one worker.
  t += n * 1000 + 10_000;
  svc.endpointJobs.sync(t);
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

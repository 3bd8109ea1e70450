// The replay of an endpoint's queue at size: 1,000 and then 2,000 queued jobs served one by one
// by a single worker, every job served and twice the jobs about twice the replay's work (counted,
// never timed). About size (five seconds on a loaded machine), so it runs in test:faults; npm test
// runs the same rule at 100 and 200 jobs (test/unit/emulator/serverless/jobs/queue.test.ts).
import { expectLinearReplay } from "../helpers/job-replay";

test("n jobs on one worker, at 1,000 and 2,000: every job served, and twice the jobs cost at most about twice the replay's work", async () => {
  await expectLinearReplay(1000);
});

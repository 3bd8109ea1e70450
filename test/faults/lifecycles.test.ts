/**
 * Stack lifecycles (create, update in place, replace, refresh, destroy of a Pod and a
 * ServerlessEndpoint) through the real providers against the emulator while it injects 429
 * storms, 5xx, slow responses, connections cut after the request was processed, pods that end
 * in ERROR and no capacity. Seeded and bounded: a failed operation is run again at most a few
 * times, as a user would run `pulumi up` again. After every operation, from the emulator's own
 * state: nothing live that the stack does not know, nothing created twice, nothing in state
 * that is gone; every failure says what failed; every stack is destroyed at the end.
 * `npm run soak` runs the same lifecycles many more times.
 */
import { emptyFigures, faultCounts, liveEndpoints, livePods, PROFILES, type Rig, runLifecycle, startRig } from "../../tools/faults";

let rig: Rig;
beforeAll(async () => {
  // One retry only: a budget spent is an operation that fails, and the next `up` must recover it.
  // Lists in a new order every time: no look-up of the providers may rest on list order.
  rig = await startRig({ faults: { seed: 7 }, maxRetries: 1, listOrder: "shuffled" });
});
afterAll(() => rig?.close());

test("every profile, auto-named and named: no leak, no duplicate, every failure clear and recovered", async () => {
  const fig = emptyFigures();
  for (const [i, profile] of PROFILES.entries()) {
    rig.emu.setFaults({ seed: 100 + i });
    await runLifecycle(rig, profile, `s${i}a`, false, fig);
    await runLifecycle(rig, profile, `s${i}n`, true, fig);
  }
  rig.emu.setFaults({});
  const faults = faultCounts(rig.emu);
  console.log(
    `faults suite: ${fig.lifecycles} lifecycles, ${fig.operations} operations (${fig.failedOperations} failed and recovered), ` +
      `${faults.requests} requests; injected: 429 ${faults["429"]}, 5xx ${faults["5xx"]}, dropped ${faults.dropped}, ` +
      `pods in ERROR ${fig.podsInError}, no-capacity refusals ${fig.noCapacityRefusals}; failures by call ${JSON.stringify(fig.failuresBy)}; ` +
      `orphans ${fig.orphans.length}, duplicates ${fig.duplicates.length}`,
  );
  expect(fig.orphans).toEqual([]);
  expect(fig.duplicates).toEqual([]);
  expect(fig.missing).toEqual([]);
  expect(fig.unclearMessages).toEqual([]);
  expect(fig.notConverged).toEqual([]);
  expect(fig.lifecycles).toBe(PROFILES.length * 2);
  // The faults really happened, of every kind, and some operations really failed.
  expect(faults["429"]).toBeGreaterThan(20);
  expect(faults["5xx"]).toBeGreaterThan(20);
  expect(faults.dropped).toBeGreaterThan(10);
  expect(fig.podsInError).toBeGreaterThanOrEqual(2);
  expect(fig.noCapacityRefusals).toBeGreaterThanOrEqual(2);
  // How many operations fail depends on timing as well as the seed (a slower poll meets fewer
  // faults): 7 to 14 over this round's runs. Half a failure a profile proves the recovery ran.
  expect(fig.failedOperations).toBeGreaterThanOrEqual(Math.ceil(PROFILES.length / 2));
  // And the platform is empty: every pod terminated, every endpoint deleted.
  expect(livePods(rig.emu.state())).toEqual([]);
  expect(liveEndpoints(rig.emu.state())).toEqual([]);
});

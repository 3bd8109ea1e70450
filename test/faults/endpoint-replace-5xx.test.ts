/**
 * A replacement keeps the endpoint's name and template (only `type` forces a replace), so when
 * the new endpoint's create is answered 5xx without being processed, the client's look-up by
 * name must not take the old endpoint for the new one: the engine deletes the old one next,
 * and the stack would point at an endpoint that no longer exists.
 */
import { seededRandom } from "../../src/emulator/core/faults";
import { type Rig, startRig } from "../../tools/faults";

/** A seed whose first roll at `rate` fails (then one roll picks the status) and whose next roll passes. */
function seedFailingFirstOnly(rate: number): number {
  for (let seed = 1; seed < 10_000; seed++) {
    const r = seededRandom(seed);
    const first = r() < rate;
    r();
    if (first && !(r() < rate)) return seed;
  }
  throw new Error("no seed found");
}

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig?.close());

test("a 5xx on the replacement's create makes a new endpoint, not the old one adopted", async () => {
  const p = rig.providers.endpoint;
  const args = { name: "keep-name", gpuIds: "AMPERE_24", templateId: rig.templateId, workersMin: 0, workersMax: 1, __logicalName: "api" };
  const old = await p.create((await p.check!({}, args)).inputs);
  const replacement = (await p.check!({}, { ...args, type: "LB" })).inputs;
  const from = rig.emu.requestLog().length;
  rig.emu.setFaults({ rate5xx: 0.5, seed: seedFailingFirstOnly(0.5) });
  const made = await p.create(replacement);
  rig.emu.setFaults({});
  // The create was refused unprocessed, the look-up ran, then a second create.
  const ops = rig.emu.requestLog().slice(from, from + 3).map((e) => [e.op, e.status >= 500 ? "5xx" : e.status]);
  expect(ops).toEqual([["graphql", "5xx"], ["myself", 200], ["saveEndpoint", 200]]);
  expect(made.id).not.toBe(old.id);
  expect(made.outs.type).toBe("LB");
  const live = rig.emu.state().endpoints as { id: string; type: string }[];
  expect(live.map((e) => [e.id, e.type]).sort()).toEqual([[old.id, "QB"], [made.id, "LB"]].sort());
});

/**
 * The narrowest leak window `npm run soak` found: a create whose answer is lost after the
 * platform made the object (connection cut), and whose look-up by name then fails too (5xx
 * until the client's retry budget is spent). The client says so clearly
 * (AmbiguousRequestError: "may exist: list by name before creating it again").
 * The Pod provider then looks a few more times, and settles it. The endpoint provider passes
 * the error on without an id, so the engine records nothing and the next `up` creates a
 * second endpoint of the same name. KNOWN LEAK: that test pins the exact outcome; a fix (the
 * Pod's extra look-ups, or a look-up by name before creating) makes it fail, and it is then
 * turned around.
 */
import { AmbiguousRequestError } from "../../src/client";
import { seededRandom } from "../../src/emulator/faults";
import { liveEndpoints, livePods, MiniEngine, type Rig, startRig } from "./rig";

/**
 * A seed under { rate5xx: 0.5, dropAfterProcessRate: 0.5 } whose first request is processed
 * and cut, and whose next two requests (the look-up and its one retry) are answered 5xx. Each
 * request rolls 5xx then drop; a 5xx draws once more for its status.
 */
function seedCutThenTwo5xx(): number {
  for (let seed = 1; seed < 100_000; seed++) {
    const r = seededRandom(seed);
    if (!(r() >= 0.5 && r() < 0.5)) continue;
    let ok = true;
    for (let i = 0; i < 2 && ok; i++) {
      ok = r() < 0.5;
      r();
      r();
    }
    if (ok) return seed;
  }
  throw new Error("no seed found");
}

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ maxRetries: 1 });
});
afterAll(() => rig?.close());

test("pod: answer lost and look-up failed; the provider looks again and adopts the one pod it made", async () => {
  const engine = new MiniEngine(rig.providers);
  const program = [{ kind: "pod" as const, name: "amb-pod", args: { name: "amb-worker", image: "img/app:1", gpu: { id: rig.gpuId } } }];
  const from = rig.emu.requestLog().length;
  rig.emu.setFaults({ rate5xx: 0.5, dropAfterProcessRate: 0.5, seed: seedCutThenTwo5xx() });
  const up = await engine.up(program);
  rig.emu.setFaults({});
  // The window really opened: the create was cut after processing, then two look-ups failed.
  const log = rig.emu.requestLog().slice(from, from + 3);
  expect(log.map((e) => [e.op, e.dropped || e.status >= 500])).toEqual([["createPod", true], ["listPods", true], ["listPods", true]]);
  expect(up.ok).toBe(true);
  expect(livePods(rig.emu.state()).map((p) => [p.id, p.name])).toEqual([[engine.state.get("amb-pod")!.id, "amb-worker"]]);
  expect((await engine.destroy()).ok).toBe(true);
  expect(livePods(rig.emu.state())).toEqual([]);
});

test("KNOWN LEAK endpoint: answer lost and look-up failed; clear error, then the next up makes a second one", async () => {
  const args = { name: "amb-api", gpuIds: "AMPERE_24", templateId: "tpl-a", workersMin: 0, workersMax: 1 };
  const engine = new MiniEngine(rig.providers);
  const program = [{ kind: "endpoint" as const, name: "amb-endpoint", args }];
  rig.emu.setFaults({ rate5xx: 0.5, dropAfterProcessRate: 0.5, seed: seedCutThenTwo5xx() });
  const first = await engine.up(program);
  rig.emu.setFaults({});
  expect(first.ok).toBe(false);
  expect(first.failure!.error).toBeInstanceOf(AmbiguousRequestError);
  expect(first.failure!.message).toMatch(/^Creating endpoint "amb-api" failed ambiguously.*may exist: list by name before creating it again/);
  expect(engine.state.size).toBe(0);

  const second = await engine.up(program);
  expect(second.ok).toBe(true);
  const live = liveEndpoints(rig.emu.state());
  expect(live.map((o) => o.name)).toEqual(["amb-api", "amb-api"]);
  const orphan = live.find((o) => !engine.knownIds().has(o.id))!;
  expect((await engine.destroy()).ok).toBe(true);
  expect(liveEndpoints(rig.emu.state()).map((o) => o.id)).toEqual([orphan.id]);
  await rig.providers.endpoint.delete!(orphan.id, { drainTimeoutSeconds: 5 });
  expect(liveEndpoints(rig.emu.state())).toEqual([]);
});

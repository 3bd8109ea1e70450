// The list the owner look-ups and the waits of one client share (src/resources/lifecycle/shared-list.ts). Pure: no I/O.
import { RUN_GAP_MS, SharedList } from "../../../../src/resources/lifecycle/shared-list";

describe("SharedList", () => {
  let now = 0;
  const clock = { now: () => now };
  beforeEach(() => {
    now = 0;
  });

  test("look-ups at once share one call; a create that ended needs a list sent after it", async () => {
    let calls = 0;
    const l = new SharedList(async () => [++calls], clock);
    const [a, b, c] = await Promise.all([l.entry("t1").items, l.entry("t2").items, l.entry("t3").items]);
    expect([a, b, c, calls]).toEqual([[1], [1], [1], 1]);
    l.fence("t1");
    expect(await l.entry("t2").items).toEqual([1]);
    expect(await l.entry("t1").items).toEqual([2]);
    expect(l.calls).toBe(2);
  });

  test("a list is not aged by the clock; one sent before list number `after` is not taken; a failed one is not shared", async () => {
    let calls = 0;
    let fail = true;
    const l = new SharedList(async () => {
      calls++;
      if (fail) throw new Error("5xx");
      return [calls];
    }, clock);
    await expect(l.entry("t").items).rejects.toThrow("5xx");
    fail = false;
    expect(l.entry("t")).toMatchObject({ seq: 2 });
    now += 60 * 60_000;
    expect(await l.entry("t").items).toEqual([2]);
    expect(await l.entry("t", 2).items).toEqual([3]);
  });

  test("the looks before creates share the run's list, the poller's newer ones included; a gap past RUN_GAP_MS starts a new run", async () => {
    let calls = 0;
    const l = new SharedList(async () => [++calls], clock);
    // The waits of an earlier command listed: a new run does not take that list.
    await l.fresh();
    expect(await l.before("a")).toEqual([2]);
    now += RUN_GAP_MS;
    expect(await l.before("b")).toEqual([2]);
    // A wait's list (the poller) is newer, and serves the run's next look.
    await l.fresh();
    now += RUN_GAP_MS;
    expect(await l.before("c")).toEqual([3]);
    now += RUN_GAP_MS + 1;
    expect(await l.before("d")).toEqual([4]);
    expect(calls).toBe(4);
  });
});

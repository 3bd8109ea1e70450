// The list the owner look-ups and the waits of one client share (src/resources/lifecycle/shared-list.ts). Pure: no I/O.
import type { StatusRead } from "../../../../src/resources/lifecycle/poller";
import { ClientLists, RUN_GAP_MS, SharedList } from "../../../../src/resources/lifecycle/shared-list";

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

  test("since: the newest list if sent after the one numbered, else a new one; a failed list is not shared with since either", async () => {
    let calls = 0;
    let fail = false;
    const l = new SharedList(async () => {
      calls++;
      if (fail) throw new Error("5xx");
      return [calls];
    }, clock);
    expect(await l.since(0)).toEqual([1]);
    expect(await l.since(0)).toEqual([1]);
    expect(await l.since(1)).toEqual([2]);
    fail = true;
    await expect(l.since(2)).rejects.toThrow("5xx");
    fail = false;
    // The failed third is dropped: a call after it that would take it sends a fourth.
    expect(await l.since(0)).toEqual([4]);
    expect(l.calls).toBe(4);
  });

  test("a fence keeps the lists sent before it from the token only; the list in flight at the fence is one of them", async () => {
    let calls = 0;
    const l = new SharedList(async () => [++calls], clock);
    const first = l.entry("t").items;
    l.fence("t");
    expect(await first).toEqual([1]);
    expect(await l.entry("t").items).toEqual([2]);
    expect(await l.entry("u").items).toEqual([2]);
    expect(l.entry("u", 1).seq).toBe(2);
  });

  test("answers: whether entry would take the newest list for a key (sent after `after` and the key's fence), sending none; fenced: whether the key has a fence", async () => {
    const l = new SharedList(async () => [1], clock);
    expect(l.answers("t")).toBe(false);
    await l.entry("t").items;
    expect([l.answers("t"), l.answers("t", 1)]).toEqual([true, false]);
    expect(l.fenced("t")).toBe(false);
    l.fence("t");
    expect([l.answers("t"), l.answers("u")]).toEqual([false, true]);
    expect([l.fenced("t"), l.fenced("u")]).toEqual([true, false]);
    expect(l.calls).toBe(1);
  });

  test("before: a look exactly RUN_GAP_MS after the last is in its run; the run's list is the newest one after its start", async () => {
    let calls = 0;
    const l = new SharedList(async () => [++calls], clock, 500);
    expect(await l.before("a")).toEqual([1]);
    now += 500;
    expect(await l.before("b")).toEqual([1]);
    now += 501;
    expect(await l.before("c")).toEqual([2]);
  });
});

describe("ClientLists", () => {
  test("one list and one poller per client; the poller's lists are the shared list's, sent as status reads", async () => {
    let t = 0;
    const clock = { now: () => t, sleep: async (ms: number) => void (t += ms) };
    const asked: { client: string; how: StatusRead | undefined }[] = [];
    const lists = new ClientLists(async (client: { name: string }, how?: StatusRead) => {
      asked.push({ client: client.name, how });
      return [{ id: "p1", status: "RUNNING" }];
    }, clock, { noun: "pod", slow: () => false, intervalMs: 1 });
    const c1 = { name: "c1" };
    const c2 = { name: "c2" };
    expect(lists.of(c1)).toBe(lists.of(c1));
    expect(lists.of(c2).list).not.toBe(lists.of(c1).list);
    const { list, poller } = lists.of(c1);
    await expect(poller.wait("p1", { until: (p) => (p ? "done" : "pending"), timeoutMs: 1000, description: "RUNNING" })).resolves.toEqual({ id: "p1", status: "RUNNING" });
    expect(list.calls).toBe(1);
    expect(asked).toEqual([{ client: "c1", how: expect.objectContaining({ yieldToWork: true }) }]);
    expect(await list.entry("t").items).toEqual([{ id: "p1", status: "RUNNING" }]);
    expect(list.calls).toBe(1);
  });
});

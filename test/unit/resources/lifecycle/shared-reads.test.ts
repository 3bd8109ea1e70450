// Reads of one kind that come together share one list (src/resources/lifecycle/shared-reads.ts).
// Pure: a scripted list and GET, a fake clock (a sleep moves it at once).
import { NotFoundError } from "../../../../src/client";
import { listed } from "../../../../src/client/core/records";
import { ClientReads, orGone, SharedReads, TOGETHER_MS, WINDOW_MS } from "../../../../src/resources/lifecycle/shared-reads";
import { SharedList } from "../../../../src/resources/lifecycle/shared-list";
import { FakeClock } from "../../../helpers/fake-clock";

interface Item {
  id: string;
  v: number;
}

function rig(listed: () => Item[]) {
  const clock = new FakeClock();
  const sent: string[] = [];
  const list = new SharedList<Item>(async () => {
    sent.push("list");
    return listed();
  }, clock);
  const reads = new SharedReads(list, clock);
  const byId = new Map<string, Item>();
  const one = async (id: string) => {
    sent.push(`get ${id}`);
    return byId.get(id);
  };
  return { reads, sent, byId, one, clock, advance: (ms: number) => (clock.current += ms) };
}

describe("SharedReads", () => {
  test("a lone read is one GET by id after a short window; reads after it share one list", async () => {
    const items = [1, 2, 3, 4].map((i) => ({ id: `p${i}`, v: i }));
    const r = rig(() => items);
    for (const it of items) r.byId.set(it.id, it);
    expect(await r.reads.read("p1", { one: r.one })).toEqual(items[0]);
    expect(r.sent).toEqual(["get p1"]);
    expect(r.clock.sleeps).toEqual([WINDOW_MS]);
    // Three more together (a refresh): one list answers all of them.
    const got = await Promise.all(["p2", "p3", "p4"].map((id) => r.reads.read(id, { one: r.one })));
    expect(got).toEqual(items.slice(1));
    expect(r.sent).toEqual(["get p1", "list"]);
    expect(r.reads.counts).toEqual({ lone: 1, listed: 3, confirmed: 0 });
  });

  test("N reads arriving at once cost one list, whatever N; the first waits for it too", async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ id: `p${i}`, v: i }));
    const r = rig(() => items);
    for (const it of items) r.byId.set(it.id, it);
    const got = await Promise.all(items.map((it) => r.reads.read(it.id, { one: r.one })));
    expect(got).toEqual(items);
    expect(r.sent).toEqual(["list"]);
    expect(r.reads.counts).toEqual({ lone: 0, listed: 300, confirmed: 0 });
  });

  test("a refresh whose reads keep arriving for a minute (a stack of thousands) costs one list", async () => {
    const items = Array.from({ length: 3000 }, (_, i) => ({ id: `p${i}`, v: i }));
    const r = rig(() => items);
    const reads: Promise<Item | undefined>[] = [];
    // The engine hands the plugin two reads at once, then one every 20 ms, each answered before the next comes.
    for (const [i, it] of items.entries()) {
      reads.push(r.reads.read(it.id, { one: r.one }));
      if (i > 0) await reads.at(-1);
      r.advance(20);
    }
    expect(await Promise.all(reads)).toEqual(items);
    expect(r.sent).toEqual(["list"]);
    expect(r.reads.counts).toEqual({ lone: 0, listed: 3000, confirmed: 0 });
  });

  test("a refresh whose reads of a kind pause while other kinds' are handed over costs one list; a read after a pause takes it at once", async () => {
    const items = Array.from({ length: 201 }, (_, i) => ({ id: `e${i}`, v: i }));
    const r = rig(() => items);
    const burst = (from: number, to: number) => Promise.all(items.slice(from, to).map((it) => r.reads.read(it.id, { one: r.one })));
    const got = await burst(0, 102);
    // At N = 1,000 the plugin got 102 endpoint reads, then 7.6 s of pod reads, then the other 98.
    r.advance(7600);
    got.push(...(await burst(102, 200)));
    // And one more a minute later, alone.
    r.advance(60_000);
    got.push(...(await burst(200, 201)));
    expect(got).toEqual(items);
    expect(r.sent).toEqual(["list"]);
    expect(r.clock.sleeps).toEqual([WINDOW_MS]);
    expect(r.reads.counts).toEqual({ lone: 0, listed: 201, confirmed: 0 });
  });

  test("once this process wrote an object of the kind, the next read after a quiet spell begins a run: no list of the write's waits", async () => {
    let v = 1;
    const r = rig(() => [{ id: "a", v }, { id: "b", v }, { id: "c", v }]);
    await Promise.all(["a", "b"].map((id) => r.reads.read(id, { one: r.one })));
    // An update of "a", and its wait's list; then another program changes "c".
    r.reads.wrote("a");
    await r.reads.list.fresh();
    v = 2;
    r.advance(TOGETHER_MS + 1);
    const got = await Promise.all(["c", "a"].map((id) => r.reads.read(id, { one: r.one })));
    expect(got).toEqual([{ id: "c", v: 2 }, { id: "a", v: 2 }]);
    expect(r.sent).toEqual(["list", "list", "list"]);
  });

  test("a read after a quiet spell of an object read before begins a run (a later command, in a process that lives on)", async () => {
    let v = 1;
    const r = rig(() => [{ id: "a", v }, { id: "b", v }]);
    r.byId.set("a", { id: "a", v });
    await r.reads.read("a", { one: r.one });
    // A list sent after the read of "a" ended, for "b"; then "a" changes.
    expect(await r.reads.read("b", { one: r.one })).toEqual({ id: "b", v: 1 });
    v = 2;
    r.byId.set("a", { id: "a", v });
    r.advance(TOGETHER_MS + 1);
    expect(await r.reads.read("a", { one: r.one })).toEqual({ id: "a", v: 2 });
    expect(r.sent).toEqual(["get a", "list", "get a"]);
  });

  test("a read long after the last one is alone again: a GET, not a list", async () => {
    const r = rig(() => [{ id: "a", v: 1 }]);
    r.byId.set("a", { id: "a", v: 1 });
    await r.reads.read("a", { one: r.one });
    r.advance(TOGETHER_MS + 1);
    await r.reads.read("a", { one: r.one });
    expect(r.sent).toEqual(["get a", "get a"]);
  });

  test("one missing from the list is confirmed by its own GET: gone, or there after all", async () => {
    // The list lags: "late" exists but is not listed yet; "gone" is gone.
    const r = rig(() => [{ id: "a", v: 1 }]);
    r.byId.set("a", { id: "a", v: 1 });
    r.byId.set("late", { id: "late", v: 2 });
    const got = await Promise.all(["a", "b", "late", "gone"].map((id) => r.reads.read(id, { one: r.one })));
    expect(got).toEqual([{ id: "a", v: 1 }, undefined, { id: "late", v: 2 }, undefined]);
    expect(r.sent).toEqual(["list", "get b", "get late", "get gone"]);
  });

  test("a kind read only through its list confirms with one later list shared by every miss", async () => {
    let n = 0;
    // The list lags: "x" shows only in the second one; "y" is gone.
    const r = rig(() => (++n === 1 ? [{ id: "first", v: 1 }] : [{ id: "first", v: 1 }, { id: "x", v: 9 }]));
    const confirmations: number[] = [];
    const ways = {
      one: r.one,
      confirm: async (id: string, seq: number) => {
        confirmations.push(seq);
        return (await r.reads.list.since(seq)).find((i) => i.id === id);
      },
    };
    const got = await Promise.all(["first", "x", "y"].map((id) => r.reads.read(id, ways)));
    expect(got).toEqual([{ id: "first", v: 1 }, { id: "x", v: 9 }, undefined]);
    expect(confirmations).toEqual([1, 1]);
    expect(r.sent).toEqual(["list", "list"]);
  });

  test("a write by this process fences the lists sent before it for that object only", async () => {
    let v = 1;
    const r = rig(() => [
      { id: "a", v },
      { id: "b", v },
      { id: "c", v },
    ]);
    await Promise.all(["a", "c"].map((id) => r.reads.read(id, { one: r.one })));
    v = 2;
    r.reads.wrote("a");
    // "b" may still read the list of a moment ago; "a" needs a list sent after the write.
    expect(await r.reads.read("b", { one: r.one })).toEqual({ id: "b", v: 1 });
    expect(await r.reads.read("a", { one: r.one })).toEqual({ id: "a", v: 2 });
    expect(r.sent).toEqual(["list", "list"]);
  });

  test("a list that fails for a reason a retry may fix falls back to the GET; a fatal one is passed on", async () => {
    let failure: Error & { status?: number } = Object.assign(new Error("503"), { status: 503 });
    const r = rig(() => {
      throw failure;
    });
    r.byId.set("b", { id: "b", v: 1 });
    await r.reads.read("a", { one: r.one });
    expect(await r.reads.read("b", { one: r.one })).toEqual({ id: "b", v: 1 });
    failure = Object.assign(new Error("401"), { status: 401 });
    await expect(r.reads.read("c", { one: r.one })).rejects.toThrow("401");
  });

  test("a second read of the same object needs a list sent after the first read ended", async () => {
    let v = 1;
    const r = rig(() => [
      { id: "a", v },
      { id: "b", v },
      { id: "c", v },
    ]);
    await Promise.all(["a", "b"].map((id) => r.reads.read(id, { one: r.one })));
    v = 2;
    // "c" was not read yet: the list of a moment ago answers it. "a" again: a new list.
    expect(await r.reads.read("c", { one: r.one })).toEqual({ id: "c", v: 1 });
    expect(await r.reads.read("a", { one: r.one })).toEqual({ id: "a", v: 2 });
    expect(r.sent).toEqual(["list", "list"]);
  });

  test("a run of reads never takes a list sent before it started (the waits of an earlier up)", async () => {
    let v = 1;
    const r = rig(() => [{ id: "a", v }, { id: "b", v }]);
    await r.reads.list.fresh();
    v = 2;
    const got = await Promise.all(["a", "b"].map((id) => r.reads.read(id, { one: r.one })));
    expect(got).toEqual([{ id: "a", v: 2 }, { id: "b", v: 2 }]);
    expect(r.sent).toEqual(["list", "list"]);
  });

  test("a read exactly TOGETHER_MS after the last one began is still together: it takes the list", async () => {
    const r = rig(() => [{ id: "a", v: 1 }, { id: "b", v: 1 }]);
    r.byId.set("a", { id: "a", v: 1 });
    await r.reads.read("a", { one: r.one });
    // The lone read began WINDOW_MS before it ended (its window).
    r.advance(TOGETHER_MS - WINDOW_MS);
    expect(await r.reads.read("b", { one: r.one })).toEqual({ id: "b", v: 1 });
    expect(r.sent).toEqual(["get a", "list"]);
    expect(r.reads.counts).toEqual({ lone: 1, listed: 1, confirmed: 0 });
  });

  test("a read that comes while another is in flight, however long after it began, is together", async () => {
    const r = rig(() => [{ id: "a", v: 1 }, { id: "b", v: 1 }]);
    let release!: () => void;
    const slow = new Promise<void>((ok) => (release = ok));
    r.byId.set("a", { id: "a", v: 1 });
    const a = r.reads.read("a", {
      one: async (id) => {
        await slow;
        return r.one(id);
      },
    });
    while (r.clock.sleeps.length === 0) await new Promise((ok) => setImmediate(ok));
    await new Promise((ok) => setImmediate(ok));
    r.advance(TOGETHER_MS * 10);
    const b = r.reads.read("b", { one: r.one });
    release();
    expect(await Promise.all([a, b])).toEqual([{ id: "a", v: 1 }, { id: "b", v: 1 }]);
    expect(r.sent).toEqual(["list", "get a"]);
    expect(r.clock.sleeps).toEqual([WINDOW_MS]);
  });

  test("with no window (windowMs 0) the first read is a GET at once, with no pause", async () => {
    const clock = new FakeClock();
    const sent: string[] = [];
    const list = new SharedList<Item>(async () => (sent.push("list"), []), clock);
    const reads = new SharedReads(list, clock, { togetherMs: TOGETHER_MS, windowMs: 0 });
    expect(await reads.read("a", { one: async (id) => (sent.push(`get ${id}`), { id, v: 1 }) })).toEqual({ id: "a", v: 1 });
    expect(sent).toEqual(["get a"]);
    expect(clock.sleeps).toEqual([]);
  });

  test("one listed but unreadable is read alone, never taken for gone", async () => {
    const r = rig(() => listed<Item>([{ id: "a", v: 1 }], [{ index: 1, id: "odd", name: "odd", issues: [] }]));
    r.byId.set("odd", { id: "odd", v: 7 });
    const got = await Promise.all(["a", "odd"].map((id) => r.reads.read(id, { one: r.one, confirm: async () => undefined })));
    expect(got).toEqual([{ id: "a", v: 1 }, { id: "odd", v: 7 }]);
    expect(r.sent).toEqual(["list", "get odd"]);
    expect(r.reads.counts).toEqual({ lone: 1, listed: 1, confirmed: 0 });
  });

  test("counts: a missing one confirmed, a failed list's fallback counted as lone", async () => {
    let fail = false;
    const r = rig(() => {
      if (fail) throw Object.assign(new Error("503"), { status: 503 });
      return [{ id: "a", v: 1 }];
    });
    await Promise.all(["a", "b"].map((id) => r.reads.read(id, { one: r.one })));
    expect(r.reads.counts).toEqual({ lone: 0, listed: 1, confirmed: 1 });
    fail = true;
    r.reads.wrote("a");
    await Promise.all(["a", "c"].map((id) => r.reads.read(id, { one: r.one })));
    expect(r.reads.counts).toEqual({ lone: 2, listed: 1, confirmed: 1 });
  });

  test("ClientReads: one SharedReads per client, over that client's own list", async () => {
    const clock = new FakeClock();
    const asked: string[] = [];
    const reads = ClientReads.listing(async (client: { name: string }) => (asked.push(client.name), [{ id: client.name, v: 1 }]), clock);
    const c1 = { name: "c1" };
    const c2 = { name: "c2" };
    expect(reads.of(c1)).toBe(reads.of(c1));
    expect(reads.of(c2)).not.toBe(reads.of(c1));
    const one = async () => undefined;
    expect(await Promise.all([reads.of(c1).read("c1", { one }), reads.of(c1).read("x", { one })])).toEqual([{ id: "c1", v: 1 }, undefined]);
    expect(await Promise.all([reads.of(c2).read("c2", { one }), reads.of(c2).read("y", { one })])).toEqual([{ id: "c2", v: 1 }, undefined]);
    expect(asked).toEqual(["c1", "c2"]);
    const shared = new SharedList<Item>(async () => [], clock);
    expect(new ClientReads(() => shared, clock).of(c1).list).toBe(shared);
  });

  test("orGone: a 404 is undefined, anything else is thrown", async () => {
    const nf = new NotFoundError("no pod", { status: 404, title: "Not Found", detail: "no pod", errors: [], method: "GET", url: "http://x/v2/pods/1" } as never);
    await expect(orGone(async () => Promise.reject(nf))).resolves.toBeUndefined();
    await expect(orGone(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(orGone(async () => 5)).resolves.toBe(5);
  });
});

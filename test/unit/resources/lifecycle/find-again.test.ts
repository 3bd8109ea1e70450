// Finding a create again (src/resources/lifecycle/find-again.ts): after an answer that proves
// nothing, only an object this very create made is taken, and never one that was there before.
// Pure: the list is a function, the clock records its pauses (FakeClock).
import { AmbiguousRequestError, type CreateOptions } from "../../../../src/client";
import { listed } from "../../../../src/client/core/records";
import {
  createFoundAgain,
  createListedFirst,
  findMade,
  idsOf,
  listBefore,
  type MadeLook,
} from "../../../../src/resources/lifecycle/find-again";
import { LOOKUPS } from "../../../../src/resources/lifecycle/look";
import { RUN_GAP_MS, SharedList } from "../../../../src/resources/lifecycle/shared-list";
import { FakeClock } from "../../../helpers/fake-clock";

type Item = { id: string; name: string; at?: number };

/** Moves only when a look pauses, and records each pause. */
let clock = new FakeClock(0);
beforeEach(() => {
  clock = new FakeClock(0);
});

/** A refusal that proves the create was not made (a 400). */
const refusal = () => Object.assign(new Error("400 bad image"), { status: 400 });

const ambiguous = () => new AmbiguousRequestError("pod", "trainer", new Error("socket hang up") as never, new Error("502"));

/** Lists answering `answers` in turn (the last one again when they run out), counting calls; an Error or string answer is thrown. */
function lists(...answers: (Item[] | Error | string)[]) {
  const l = {
    calls: 0,
    list: async (): Promise<Item[]> => {
      const a = answers[Math.min(l.calls++, answers.length - 1)];
      if (a instanceof Error || typeof a === "string") throw a;
      return a;
    },
  };
  return l;
}

function look(list: () => Promise<Item[]>, over: Partial<MadeLook<Item>> & { cause?: AmbiguousRequestError } = {}) {
  return {
    noun: "pod",
    name: "trainer",
    list,
    isOurs: (i: Item) => i.name === "trainer",
    excluded: new Set<string>(),
    unknownHint: "delete it",
    clock,
    ...over,
  };
}

describe("the ids seen before", () => {
  test("are the ids listed and those of the unreadable records that carry one", () => {
    const items = listed<Item>(
      [{ id: "a", name: "x" }],
      [
        { index: 1, id: "u1", name: "y", issues: [] },
        { index: 2, id: undefined, name: "z", issues: [] },
      ],
    );
    // Strict: an unreadable record without an id adds no undefined.
    expect([...idsOf(items)]).toStrictEqual(["a", "u1"]);
    expect([...idsOf([{ id: "b" }])]).toStrictEqual(["b"]);
  });
});

describe("the list before a create", () => {
  test("is one list for the creates of one command however long they keep coming, and a new one for a later command", async () => {
    let calls = 0;
    const list = new SharedList<Item>(async () => [{ id: `l${++calls}`, name: "x" }], clock);
    const what = { noun: "volume", clock };
    // A thousand creates the engine hands over one a second (a stack of thousands, its checks in between).
    for (let i = 0; i < 1000; i++) {
      await expect(listBefore(list, `k${i}`, { ...what, name: `v${i}` })).resolves.toEqual([{ id: "l1", name: "x" }]);
      clock.current += 1000;
    }
    expect(calls).toBe(1);
    // The same name again (a replacement of k5, after its first create ended): a list sent after that end.
    list.fence("k5");
    await expect(listBefore(list, "k5", { ...what, name: "v5" })).resolves.toEqual([{ id: "l2", name: "x" }]);
    await expect(listBefore(list, "k1000", { ...what, name: "v1000" })).resolves.toEqual([{ id: "l2", name: "x" }]);
    // A look more than RUN_GAP_MS after the last one (the next command): its own list.
    clock.current += RUN_GAP_MS + 1;
    await expect(listBefore(list, "k1001", { ...what, name: "v1001" })).resolves.toEqual([{ id: "l3", name: "x" }]);
    expect([calls, clock.sleeps]).toEqual([3, []]);
  });

  test(`a failed list is looked at again up to LOOKUPS (${LOOKUPS}) times with the look pauses`, async () => {
    const l = lists(new Error("502"), "socket closed", [{ id: "a", name: "x" }]);
    const list = new SharedList<Item>(l.list, clock);
    await expect(listBefore(list, "k", { noun: "pod", name: "trainer", clock })).resolves.toEqual([{ id: "a", name: "x" }]);
    expect(l.calls).toBe(3);
    expect(clock.sleeps).toEqual([500, 1000]);
  });

  test("a list that keeps failing fails the create before it is sent, saying nothing was created and why (a thrown non-Error as it is)", async () => {
    const l = lists("connection reset");
    const list = new SharedList<Item>(l.list, clock);
    const err = await listBefore(list, "k", { noun: "volume", name: "data", clock }).catch((e: Error) => e);
    expect((err as Error).message).toBe(
      'creating volume "data": nothing was created, because listing the volumes there before it failed (connection reset); run the deployment again',
    );
    expect((err as Error).cause).toBe("connection reset");
    expect(l.calls).toBe(LOOKUPS);
  });

  test("a refusal no retry fixes (a bad key) is passed on at once, without a pause", async () => {
    const refused = Object.assign(new Error("401 unauthorized"), { status: 401 });
    const l = lists(refused);
    const list = new SharedList<Item>(l.list, clock);
    await expect(listBefore(list, "k", { noun: "pod", name: "trainer", clock })).rejects.toThrow("(401 unauthorized)");
    expect(l.calls).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });
});

describe("finding the object a create made", () => {
  test("one new match of ours is the one made: objects there before and objects not ours are never taken", async () => {
    const l = lists([
      { id: "old", name: "trainer" },
      { id: "web", name: "web" },
      { id: "new", name: "trainer" },
    ]);
    await expect(findMade(look(l.list, { excluded: new Set(["old"]), cause: ambiguous() }))).resolves.toEqual({ id: "new", name: "trainer" });
    expect(clock.sleeps).toEqual([500]);
  });

  test("two new matches fail as unknown rather than guess, without looking again", async () => {
    const cause = ambiguous();
    const l = lists([
      { id: "n1", name: "trainer" },
      { id: "n2", name: "trainer" },
    ]);
    const err = (await findMade(look(l.list, { cause })).catch((e: Error) => e)) as Error;
    expect(err.message).toBe(
      'creating pod "trainer" failed and whether the pod exists is unknown (2 pods that match it appeared since it began (n1, n2)); ' +
        "the stack's state holds no pod for it. " +
        'Before running the deployment again, look for a pod named "trainer" and delete it.',
    );
    expect(err.cause).toBe(cause);
    expect(l.calls).toBe(1);
    expect(clock.sleeps).toEqual([500]);
  });

  test("of several new matches, the newest is taken when the kind can tell which was made last", async () => {
    const l = lists([
      { id: "n1", name: "trainer", at: 1 },
      { id: "n2", name: "trainer", at: 5 },
      { id: "n3", name: "trainer", at: 2 },
    ]);
    const newest = (items: Item[]) => items.reduce<Item | undefined>((a, b) => (!a || b.at! > a.at! ? b : a), undefined);
    await expect(findMade(look(l.list, { newest }))).resolves.toMatchObject({ id: "n2" });
  });

  test("an object found that cannot be its own (no ambiguous answer) is looked for at once, without a pause", async () => {
    const l = lists([{ id: "n1", name: "trainer" }]);
    await expect(findMade(look(l.list))).resolves.toEqual({ id: "n1", name: "trainer" });
    expect(clock.sleeps).toEqual([]);
  });

  test(`a failed list is looked at again up to LOOKUPS (${LOOKUPS}) times with the look pauses`, async () => {
    const l = lists(new Error("502"), [{ id: "n1", name: "trainer" }]);
    await expect(findMade(look(l.list, { cause: ambiguous() }))).resolves.toEqual({ id: "n1", name: "trainer" });
    expect(l.calls).toBe(2);
    expect(clock.sleeps).toEqual([500, 1000]);
  });

  test("lists that keep failing leave the outcome unknown, naming the last failure (a thrown non-Error as it is) and what to look for", async () => {
    const l = lists(new Error("502"), "socket closed");
    const err = (await findMade(look(l.list, { noun: "endpoint", name: "chat", unknownHint: "delete it by hand", cause: ambiguous() })).catch((e: Error) => e)) as Error;
    expect(err.message).toBe(
      'creating endpoint "chat" failed and whether the endpoint exists is unknown (socket closed); ' +
        "the stack's state holds no endpoint for it. " +
        'Before running the deployment again, look for an endpoint named "chat" and delete it by hand.',
    );
    expect(l.calls).toBe(LOOKUPS);
  });

  test("a list without it after an ambiguous answer proves it was not made, naming that answer", async () => {
    const cause = ambiguous();
    const l = lists([{ id: "web", name: "web" }]);
    const err = (await findMade(look(l.list, { cause })).catch((e: Error) => e)) as Error;
    expect(err.message).toBe(`creating pod "trainer" failed and no pod was made (${cause.message}); run the deployment again`);
    expect(err.cause).toBe(cause);
    expect(l.calls).toBe(1);
  });

  describe("a record the client cannot read", () => {
    const issues = [
      { path: "status", message: "is not a known value" },
      { path: "gpu.count", message: "is too big" },
    ];

    test("of the create's name may be the one made: looked at again, then unknown, named by its id and broken fields", async () => {
      const l = lists(listed<Item>([], [{ index: 3, id: "u1", name: "trainer", issues }]));
      await expect(findMade(look(l.list, { cause: ambiguous() }))).rejects.toThrow(
        "whether the pod exists is unknown (pod record u1 cannot be read (status is not a known value; gpu.count is too big))",
      );
      expect(l.calls).toBe(LOOKUPS);
      expect(clock.sleeps).toEqual([500, 1000, 2000]);
    });

    test("without a name or an id may be the one made too, named by its place in the list", async () => {
      const l = lists(listed<Item>([], [{ index: 3, id: undefined, name: undefined, issues: [issues[0]!] }]));
      await expect(findMade(look(l.list))).rejects.toThrow("(pod record #3 cannot be read (status is not a known value))");
    });

    test("that becomes readable on a later look is the one made", async () => {
      const l = lists(listed<Item>([], [{ index: 0, id: "u1", name: "trainer", issues }]), [{ id: "u1", name: "trainer" }]);
      await expect(findMade(look(l.list))).resolves.toEqual({ id: "u1", name: "trainer" });
    });

    test("of another name, or there before the create, proves nothing is missing: no object was made", async () => {
      const otherName = lists(listed<Item>([], [{ index: 0, id: "u1", name: "web", issues }]));
      await expect(findMade(look(otherName.list))).rejects.toThrow("no pod was made (the pod found by name existed before this create)");
      expect(otherName.calls).toBe(1);
      const seenBefore = lists(listed<Item>([], [{ index: 0, id: "u1", name: "trainer", issues }]));
      await expect(findMade(look(seenBefore.list, { excluded: new Set(["u1"]) }))).rejects.toThrow("no pod was made");
      expect(seenBefore.calls).toBe(1);
    });
  });
});

describe("a create settled by finding it again", () => {
  function creating(create: (opts: CreateOptions) => Promise<Item>, over: Partial<MadeLook<Item>> & { claimed?: Set<string> } = {}) {
    const l = lists([]);
    const sent: CreateOptions[] = [];
    const s = {
      ...look(l.list),
      claimed: new Set<string>(),
      ...over,
      create: (opts: CreateOptions) => {
        sent.push(opts);
        return create(opts);
      },
    };
    return { s, sent, l };
  }

  test("an object of ours that is new is taken as made, claimed, and no list is read", async () => {
    const { s, sent, l } = creating(async () => ({ id: "n1", name: "trainer" }), { excluded: new Set(["old"]), claimed: new Set(["c1"]) });
    await expect(createFoundAgain(s)).resolves.toEqual({ id: "n1", name: "trainer" });
    // No signal given: none is sent (not even an undefined one).
    expect(sent).toStrictEqual([{ seenBefore: new Set(["old", "c1"]) }]);
    expect([...s.claimed]).toEqual(["c1", "n1"]);
    expect(l.calls).toBe(0);
  });

  test("the create is sent the signal that cancels it", async () => {
    const signal = new AbortController().signal;
    const { s, sent } = creating(async () => ({ id: "n1", name: "trainer" }), { signal });
    await createFoundAgain(s);
    expect(sent[0]!.signal).toBe(signal);
  });

  test("an ambiguous create adopts only an object whose id was not in the list before, nor claimed by another create", async () => {
    const l = lists([
      { id: "old", name: "trainer" },
      { id: "c1", name: "trainer" },
      { id: "n1", name: "trainer" },
    ]);
    const { s } = creating(
      async () => {
        throw ambiguous();
      },
      { list: l.list, excluded: new Set(["old"]), claimed: new Set(["c1"]) },
    );
    await expect(createFoundAgain(s)).resolves.toEqual({ id: "n1", name: "trainer" });
    expect(clock.sleeps).toEqual([500]);
    expect(s.claimed.has("n1")).toBe(true);
  });

  test("a create error that is not ambiguous is passed on as it is, without a look", async () => {
    const refused = refusal();
    const { s, l } = creating(async () => {
      throw refused;
    });
    await expect(createFoundAgain(s)).rejects.toBe(refused);
    expect(l.calls).toBe(0);
    expect(s.claimed.size).toBe(0);
  });

  test("a create answering an object there before, or not ours, is looked for again at once", async () => {
    for (const answer of [
      { id: "old", name: "trainer" },
      { id: "x", name: "web" },
    ]) {
      const l = lists([
        { id: "old", name: "trainer" },
        { id: "n1", name: "trainer" },
      ]);
      const { s } = creating(async () => answer, { list: l.list, excluded: new Set(["old"]) });
      await expect(createFoundAgain(s)).resolves.toEqual({ id: "n1", name: "trainer" });
      expect(l.calls).toBe(1);
      expect([...s.claimed]).toEqual(["n1"]);
    }
    expect(clock.sleeps).toEqual([]);
  });
});

describe("a create that lists first", () => {
  test("takes the list before it as its ids seen before, and fences its name when it ends so the next create of the name lists again", async () => {
    let calls = 0;
    const before = new SharedList<Item>(async () => [{ id: `l${++calls}`, name: "x" }], clock);
    const sent: CreateOptions[] = [];
    const claimed = new Set<string>();
    let made = 0;
    const create = (name: string, fail = false) =>
      createListedFirst<Item>({
        ...look(async () => []),
        name,
        isOurs: (i) => i.name === name,
        before,
        claimed,
        create: async (opts) => {
          sent.push(opts);
          if (fail) throw refusal();
          return { id: `m${++made}`, name };
        },
      });
    await expect(create("trainer")).resolves.toEqual({ id: "m1", name: "trainer" });
    expect(sent[0]!.seenBefore).toEqual(new Set(["l1"]));
    await create("web");
    expect(calls).toBe(1);
    expect(sent[1]!.seenBefore).toEqual(new Set(["l1", "m1"]));
    await expect(create("trainer", true)).rejects.toThrow("bad image");
    expect(calls).toBe(2);
    await create("trainer");
    expect(calls).toBe(3);
  });
});

// Look, make, retire (src/resources/lifecycle/recovery.ts): the create of every kind that owns
// what it makes, and what such a provider keeps across the calls of one plugin process.
// Pure: the list is a function, the clock records its pauses (FakeClock).
import { systemClock } from "../../../../src/client";
import { listed } from "../../../../src/client/core/records";
import type { ProviderOptions } from "../../../../src/resources/engine/settings";
import type { StatusRead } from "../../../../src/resources/lifecycle/poller";
import { SharedList } from "../../../../src/resources/lifecycle/shared-list";
import { FakeClock } from "../../../helpers/fake-clock";
import { createWithRecovery, OwningProvider, RETIRE_ATTEMPTS, type RecoverySteps } from "../../../../src/resources/lifecycle/recovery";

type Item = { id: string; name: string; token?: string };
type Made = { id: string; how: string };

/** Moves only when a look pauses, and records each pause. */
let clock = new FakeClock(0);
beforeEach(() => {
  clock = new FakeClock(0);
});

/** The steps of one create of pod "trainer" with owner token "tok", recording what it was asked. */
function stepsOf(listedItems: Item[], over: Partial<RecoverySteps<Item, Made>> = {}) {
  const asked = { fit: [] as Item[][], takenOver: [] as string[], seenBefore: [] as string[][], removed: [] as string[], partial: [] as string[] };
  const s: RecoverySteps<Item, Made> = {
    noun: "pod",
    name: "trainer",
    token: "tok",
    findByHand: "pods whose env OWNER starts with tok",
    list: new SharedList<Item>(async () => listedItems, clock),
    earlierTries: (items) => items.filter((i) => i.token === "tok"),
    fit: (earlier) => {
      asked.fit.push(earlier);
      return earlier.find((i) => i.name === "trainer");
    },
    takeOver: async (item) => {
      asked.takenOver.push(item.id);
      return { id: item.id, how: "taken over" };
    },
    createNew: async (seenBefore) => {
      asked.seenBefore.push([...seenBefore].sort());
      return { id: "new", how: "created" };
    },
    keptId: () => undefined,
    remove: async (item) => void asked.removed.push(item.id),
    partial: (id, result, reason) => {
      asked.partial.push(`${id} ${result.how}: ${reason}`);
      return new Error(`partial ${id}`);
    },
    handedOver: new Set<string>(),
    clock,
    ...over,
  };
  return { s, asked };
}

const other = { id: "o1", name: "web" };
const pendingA = { id: "e1", name: "trainer-pending", token: "tok" };
const pendingB = { id: "e2", name: "trainer", token: "tok" };

test("with no earlier try a new object is created, told every id listed before it (unreadable ones too), and nothing is retired", async () => {
  const items = listed<Item>([other, { id: "o2", name: "db" }], [{ index: 2, id: "u1", name: undefined, issues: [] }]);
  const { s, asked } = stepsOf(items);
  await expect(createWithRecovery(s)).resolves.toEqual({ id: "new", how: "created" });
  expect(asked.seenBefore).toEqual([["o1", "o2", "u1"]]);
  expect(asked.fit).toEqual([[]]);
  expect(asked.removed).toEqual([]);
  expect([...s.handedOver]).toEqual(["new"]);
});

test("the earlier try that fits is taken over instead of creating, and the other earlier tries are retired", async () => {
  const { s, asked } = stepsOf([other, pendingA, pendingB]);
  await expect(createWithRecovery(s)).resolves.toEqual({ id: "e2", how: "taken over" });
  expect(asked.fit).toEqual([[pendingA, pendingB]]);
  expect(asked.takenOver).toEqual(["e2"]);
  expect(asked.seenBefore).toEqual([]);
  expect(asked.removed).toEqual(["e1"]);
  expect([...s.handedOver]).toEqual(["e2"]);
});

test("an object this process already handed to the engine is never an earlier try: neither taken over nor retired", async () => {
  const { s, asked } = stepsOf([pendingA, pendingB], { handedOver: new Set(["e2"]) });
  await expect(createWithRecovery(s)).resolves.toEqual({ id: "new", how: "created" });
  expect(asked.fit).toEqual([[pendingA]]);
  expect(asked.removed).toEqual(["e1"]);
  expect([...s.handedOver].sort()).toEqual(["e2", "new"]);
});

test("a create that made nothing fails with its own error and retires nothing: the earlier tries stay for the next try", async () => {
  const failure = new Error("503 no capacity");
  const { s, asked } = stepsOf([pendingA], {
    fit: () => undefined,
    createNew: async () => {
      throw failure;
    },
  });
  await expect(createWithRecovery(s)).rejects.toBe(failure);
  expect(asked.removed).toEqual([]);
  expect(s.handedOver.size).toBe(0);
});

test("a failed take-over that kept its id hands that id over, retires the other earlier tries, and still fails with its error", async () => {
  const failure = new Error("partial: e2 made but not started");
  const { s, asked } = stepsOf([pendingA, pendingB], {
    takeOver: async () => {
      throw failure;
    },
    keptId: (err) => (err === failure ? "e2" : undefined),
  });
  await expect(createWithRecovery(s)).rejects.toBe(failure);
  expect(asked.removed).toEqual(["e1"]);
  expect(asked.partial).toEqual([]);
  expect([...s.handedOver]).toEqual(["e2"]);
});

test(`an earlier try that cannot be deleted is tried ${RETIRE_ATTEMPTS} times, then named (id, name, last error) in the partial-state error of the object made`, async () => {
  const tries: string[] = [];
  const { s, asked } = stepsOf([pendingA, { ...pendingB, name: "trainer-pending-2" }], {
    fit: () => undefined,
    remove: async (item) => {
      tries.push(item.id);
      // A thrown value that is not an Error is named as it is.
      throw item.id === "e1" ? new Error(`409 busy ${tries.length}`) : "gone wrong";
    },
  });
  await expect(createWithRecovery(s)).rejects.toThrow("partial new");
  expect(tries).toEqual(["e1", "e1", "e1", "e2", "e2", "e2"]);
  expect(asked.partial).toEqual([
    'new created: the pod was made, but an earlier try of this create could not be deleted: e1 ("trainer-pending"): 409 busy 3; ' +
      'e2 ("trainer-pending-2"): gone wrong. Delete it by hand: no stack knows it.',
  ]);
  expect([...s.handedOver]).toEqual(["new"]);
});

test("a delete that succeeds on a later attempt is not sent again, and leaves nothing to report", async () => {
  const tries: string[] = [];
  const { s, asked } = stepsOf([pendingA], {
    fit: () => undefined,
    remove: async (item) => {
      tries.push(item.id);
      if (tries.length === 1) throw new Error("500");
    },
  });
  await expect(createWithRecovery(s)).resolves.toEqual({ id: "new", how: "created" });
  expect(tries).toEqual(["e1", "e1"]);
  expect(asked.partial).toEqual([]);
});

test("an earlier try that another create of this process handed over meanwhile is not retired", async () => {
  const { s, asked } = stepsOf([pendingA, { ...pendingB, name: "trainer-pending-2" }], {
    fit: () => undefined,
    createNew: async () => {
      // A create of the same resource in this process, running alongside, took e2 over.
      s.handedOver.add("e2");
      return { id: "new", how: "created" };
    },
  });
  await expect(createWithRecovery(s)).resolves.toEqual({ id: "new", how: "created" });
  expect(asked.removed).toEqual(["e1"]);
});

test("a failed create that kept a new id still retires the earlier tries before failing with its error", async () => {
  const failure = new Error("created new but its wait failed");
  const { s, asked } = stepsOf([pendingA], {
    fit: () => undefined,
    createNew: async () => {
      throw failure;
    },
    keptId: () => "new",
  });
  await expect(createWithRecovery(s)).rejects.toBe(failure);
  expect(asked.removed).toEqual(["e1"]);
  expect([...s.handedOver]).toEqual(["new"]);
});

test("the list before a create is shared by creates of other tokens, and fenced for its own token when it ends, whether it made something or not", async () => {
  let calls = 0;
  const list = new SharedList<Item>(async () => {
    calls++;
    return [];
  }, clock);
  await createWithRecovery(stepsOf([], { list }).s);
  expect(calls).toBe(1);
  await createWithRecovery(stepsOf([], { list, token: "other-token" }).s);
  expect(calls).toBe(1);
  await createWithRecovery(stepsOf([], { list }).s);
  expect(calls).toBe(2);
  const failing = stepsOf([], {
    list,
    token: "other-token",
    createNew: async () => {
      throw new Error("400 bad image");
    },
  });
  await expect(createWithRecovery(failing.s)).rejects.toThrow("400 bad image");
  expect(calls).toBe(2);
  await createWithRecovery(stepsOf([], { list, token: "other-token" }).s);
  expect(calls).toBe(3);
});

test("a list before that keeps failing is looked at again with the look pauses, then fails saying nothing was created", async () => {
  let calls = 0;
  const list = new SharedList<Item>(async () => {
    calls++;
    throw new Error(`list ${calls} timed out`);
  }, clock);
  const { s, asked } = stepsOf([], { list });
  await expect(createWithRecovery(s)).rejects.toThrow(
    'creating pod "trainer": nothing was created, because listing the pods there before it failed (list 3 timed out); run the deployment again',
  );
  expect(calls).toBe(3);
  expect(clock.sleeps).toEqual([500, 1000]);
  expect(asked.seenBefore).toEqual([]);
});

describe("an owning provider", () => {
  type Client = { name: string };
  class Provider extends OwningProvider<Client, Item> {
    seen() {
      return { client: this.client, clock: this.clock, signal: this.signal, lists: this.lists, reads: this.reads, handedOver: this.handedOver, predecessors: this.predecessors };
    }
  }
  const poller = { noun: "pod", slow: () => false };

  test("calls the given client with the given clock and signal, its lists and reads sharing one list per client", async () => {
    const calls: unknown[][] = [];
    const a: Client = { name: "a" };
    const given = () => a;
    const signal = new AbortController().signal;
    const options: ProviderOptions<Client> = { client: given, clock, signal };
    const p = new Provider(options, () => ({ name: "default" }), async (client, sig, how) => {
      calls.push([client, sig, how]);
      return [other];
    }, poller).seen();
    expect(p.client).toBe(given);
    expect(p.clock).toBe(clock);
    expect(p.signal).toBe(signal);
    const list = p.lists.of(a).list;
    expect(p.reads.of(a).list).toBe(list);
    const how: StatusRead = { yieldToWork: true, onSend: () => {} };
    await expect(list.fresh(how)).resolves.toEqual([other]);
    expect(calls).toEqual([[a, signal, how]]);
    expect(p.handedOver.size).toBe(0);
  });

  test("without options, uses the default client and the system clock", () => {
    const fallback = () => ({ name: "default" });
    const p = new Provider({}, fallback, async () => [], poller).seen();
    expect(p.client).toBe(fallback);
    expect(p.clock).toBe(systemClock);
    expect(p.signal).toBeUndefined();
  });
});

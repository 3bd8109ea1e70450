// The create-with-recovery pieces every owning kind shares (src/resources/lifecycle/recovery.ts).
// Pure: the list is a function, the clock records its pauses.
import { AmbiguousRequestError } from "../../../../src/client";
import { findMade, lookPauseMs } from "../../../../src/resources/lifecycle/recovery";

const pauses: number[] = [];
const clock = { sleep: async (ms: number) => void pauses.push(ms) };
beforeEach(() => pauses.splice(0));

test("look-up pauses are the client's backoff at its ceiling: 0.5, 1, 2 s, at most 5 s", () => {
  expect([1, 2, 3, 4, 5].map(lookPauseMs)).toEqual([500, 1000, 2000, 4000, 5000]);
});

type Item = { id: string; name: string; at: number };
const find = (list: () => Promise<Item[]>, opts: { excluded?: string[]; cause?: AmbiguousRequestError } = {}) =>
  findMade<Item>({
    noun: "pod",
    name: "trainer",
    list,
    isOurs: (i) => i.name === "trainer",
    excluded: new Set(opts.excluded ?? []),
    cause: opts.cause,
    unknownHint: "delete it",
    newest: (items) => items.reduce<Item | undefined>((a, b) => (!a || b.at > a.at ? b : a), undefined),
    clock,
  });

test("the newest of ours that did not exist before is the one made; no pause without an ambiguous answer", async () => {
  const items = [
    { id: "a", name: "trainer", at: 3 },
    { id: "b", name: "trainer", at: 2 },
    { id: "c", name: "other", at: 9 },
  ];
  await expect(find(async () => items, { excluded: ["a"] })).resolves.toMatchObject({ id: "b" });
  expect(pauses).toEqual([]);
});

test("a list that answers without it proves nothing was made", async () => {
  await expect(find(async () => [{ id: "c", name: "other", at: 1 }])).rejects.toThrow(
    'creating pod "trainer" failed and no pod was made (the pod found by name existed before this create); run the deployment again',
  );
});

test("lists that keep failing after an ambiguous create: the error says the outcome is unknown and what to do", async () => {
  const cause = new AmbiguousRequestError("pod", "trainer", new Error("socket hang up") as never, new Error("502"));
  let calls = 0;
  const failing = async (): Promise<Item[]> => {
    calls++;
    throw new Error(`list ${calls} failed`);
  };
  await expect(find(failing, { cause })).rejects.toThrow(
    /whether the pod exists is unknown \(list 3 failed\); the stack's state holds no pod for it\. Before running the deployment again, look for a pod named "trainer" and delete it\./,
  );
  expect(calls).toBe(3);
  expect(pauses).toEqual([500, 1000, 2000]);
});

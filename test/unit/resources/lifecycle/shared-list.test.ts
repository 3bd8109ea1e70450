// The list the owner look-ups and the waits of one client share (src/resources/lifecycle/shared-list.ts). Pure: no I/O.
import { SharedList } from "../../../../src/resources/lifecycle/shared-list";

describe("SharedList", () => {
  let now = 0;
  const clock = { now: () => now };

  test("look-ups at once share one call; a create that ended needs a list sent after it", async () => {
    let calls = 0;
    const l = new SharedList(async () => [++calls], clock, 2000);
    const [a, b, c] = await Promise.all([l.get("t1"), l.get("t2"), l.get("t3")]);
    expect([a, b, c, calls]).toEqual([[1], [1], [1], 1]);
    l.fence("t1");
    expect(await l.get("t2")).toEqual([1]);
    expect(await l.get("t1")).toEqual([2]);
    expect(l.calls).toBe(2);
  });

  test("a list older than maxAgeMs is not reused; a failed one is not shared", async () => {
    let calls = 0;
    let fail = true;
    const l = new SharedList(
      async () => {
        calls++;
        if (fail) throw new Error("5xx");
        return [calls];
      },
      clock,
      2000,
    );
    await expect(l.get("t")).rejects.toThrow("5xx");
    fail = false;
    expect(await l.get("t")).toEqual([2]);
    now += 2001;
    expect(await l.get("t")).toEqual([3]);
  });
});

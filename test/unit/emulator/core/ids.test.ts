// The ids and numbers the emulator hands out: ids carry a counter so they sort by creation, a
// random tail so they are not guessed, and both counters survive a restart.
import { Ids } from "../../../../src/emulator/core/ids";

test("an id is the prefix, the counter in base 36 over four places, and eight lower-case letters or digits", () => {
  const ids = new Ids();
  expect(ids.newId("p")).toMatch(/^p0001[a-z0-9]{8}$/);
  expect(ids.newId("vol-")).toMatch(/^vol-0002[a-z0-9]{8}$/);
});

test("ids sort in the order they were made, past the first base-36 digit", () => {
  const ids = new Ids();
  const made = Array.from({ length: 40 }, () => ids.newId("p"));
  expect([...made].sort()).toEqual(made);
  expect(made[35].slice(1, 5)).toBe("0010");
});

test("two ids of one counter value differ in their tail (two emulators never share an id by chance)", () => {
  const tails = new Set(Array.from({ length: 20 }, () => new Ids().newId("p").slice(5)));
  expect(tails.size).toBe(20);
});

test("numbers count from 1 apart from ids", () => {
  const ids = new Ids();
  ids.newId("p");
  ids.newId("p");
  expect([ids.nextNumber(), ids.nextNumber()]).toEqual([1, 2]);
});

test("both counters are saved under their own keys and continue after a restore", () => {
  const ids = new Ids();
  ids.newId("p");
  ids.newId("p");
  ids.nextNumber();
  const saved = Object.fromEntries(ids.stateParts().map((p) => [p.key, p.snapshot()]));
  expect(saved).toEqual({ idCounter: 2, numberCounter: 1 });
  const again = new Ids();
  for (const p of again.stateParts()) p.restore(saved[p.key]);
  expect(again.newId("p")).toMatch(/^p0003/);
  expect(again.nextNumber()).toBe(2);
});

test.each([-1, 1.5, "2", null])("a saved counter of %p stops the load naming it", (v) => {
  const [idPart, numberPart] = new Ids().stateParts();
  expect(() => idPart.restore(v)).toThrow("state file: idCounter must be an integer >= 0");
  expect(() => numberPart.restore(v)).toThrow("state file: numberCounter must be an integer >= 0");
});

// The meter (docs/emulator.md, "Prices and billing"): usage segments at a rate from one instant
// to another, or still open, and one-off charges; billing and the console read nothing else.
import { Meter, type Segment } from "../../../../src/emulator/core/meter";

const H = 3_600_000;

test("open meters an id until close; a second open closes the running segment first", () => {
  const m = new Meter();
  m.open("pod", "p1", "podGpu", 0.69, 0);
  expect(m.running("pod", "p1")).toBe(true);
  m.open("pod", "p1", "podGpu", 1.38, H);
  m.close("pod", "p1", 2 * H);
  expect(m.running("pod", "p1")).toBe(false);
  expect(m.overlapping(0, 3 * H)).toEqual([
    { resource: "pod", id: "p1", component: "podGpu", rate: 0.69, from: 0, to: H },
    { resource: "pod", id: "p1", component: "podGpu", rate: 1.38, from: H, to: 2 * H },
  ]);
});

test("a segment is known by its resource and id together: closing a volume of the pod's id leaves the pod running", () => {
  const m = new Meter();
  m.open("pod", "x", "podGpu", 1, 0);
  m.open("networkVolume", "x", "storageStandard", 0.01, 0);
  m.close("networkVolume", "x", H);
  expect(m.running("pod", "x")).toBe(true);
  expect(m.running("networkVolume", "x")).toBe(false);
});

test("a close before the segment's start ends it at its start (never a negative span); closing what is not metered does nothing", () => {
  const m = new Meter();
  m.close("pod", "none", 5);
  m.open("pod", "p", "podCpu", 1, 10 * H);
  m.close("pod", "p", 9 * H);
  expect(m.overlapping(0, 20 * H)).toEqual([{ resource: "pod", id: "p", component: "podCpu", rate: 1, from: 10 * H, to: 10 * H }]);
});

test("overlapping takes segments that share time with [from, to), open ones too, and charges inside it", () => {
  const m = new Meter();
  m.open("pod", "before", "podGpu", 1, 0);
  m.close("pod", "before", H); // ends as the window starts: out
  m.open("pod", "across", "podGpu", 1, H / 2);
  m.close("pod", "across", H + 1);
  m.open("pod", "open", "podGpu", 1, 0);
  m.open("pod", "after", "podGpu", 1, 2 * H); // starts as the window ends: out
  m.charge("endpoint", "at-start", "endpoint", 0.002, H);
  m.charge("endpoint", "at-end", "endpoint", 0.002, 2 * H);
  expect(m.overlapping(H, 2 * H).map((s) => s.id)).toEqual(["across", "open", "at-start"]);
  const [charge] = m.overlapping(H, H + 1).filter((s) => s.charge);
  expect(charge).toEqual({ resource: "endpoint", id: "at-start", component: "endpoint", rate: 0.002, from: H, to: H, charge: true });
});

test("overlapping answers copies: changing one changes nothing metered", () => {
  const m = new Meter();
  m.open("pod", "p", "podGpu", 1, 0);
  m.overlapping(0, H)[0].to = 5;
  expect(m.running("pod", "p")).toBe(true);
});

test("the segments are saved whole and restored as copies; a part that is not an array stops the load", () => {
  const m = new Meter();
  m.open("pod", "p", "podGpu", 1, 0);
  m.charge("endpoint", "e", "endpoint", 0.5, 7);
  const part = m.statePart();
  expect(part.key).toBe("meter");
  const saved = JSON.parse(JSON.stringify(part.snapshot())) as Segment[];
  const again = new Meter();
  again.statePart().restore(saved);
  saved[0].to = 1;
  expect(again.running("pod", "p")).toBe(true);
  expect(again.overlapping(0, H)).toEqual(m.overlapping(0, H));
  expect(() => again.statePart().restore({})).toThrow("state file: meter must be an array");
});

test("past 100,000 segments the oldest closed one is dropped, never one still running", () => {
  const m = new Meter();
  m.open("pod", "long", "podGpu", 1, 0);
  for (let i = 0; i < 100_000; i++) m.charge("endpoint", `c${i}`, "endpoint", 0.001, i + 1);
  const kept = m.overlapping(0, 200_000);
  expect(kept).toHaveLength(100_000);
  expect(kept[0].id).toBe("long");
  expect(kept[1].id).toBe("c1");
});

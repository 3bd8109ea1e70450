// The sweep as a table (account/table.ts): columns padded to their widest cell, the money columns
// right-aligned with four and two decimals, the rows in the sweep's order, then the totals line
// (one object or several) and each note.
import type { Sweep, SweptObject } from "../../../src/account/sweep";
import { sweepTable } from "../../../src/account/table";

const object = (over: Partial<SweptObject>): SweptObject => ({
  kind: "Pod",
  id: "pod-1",
  name: "trainer",
  state: "RUNNING",
  owner: { by: "unknown", text: "unknown" },
  perHour: 0,
  perMonth: 0,
  cost: "bills nothing",
  ...over,
});

const sweep = (objects: SweptObject[], notes: string[] = []): Sweep => {
  const perHour = objects.reduce((s, o) => s + o.perHour, 0);
  return { objects, totals: { objects: objects.length, perHour, perMonth: perHour * 720 }, notes };
};

test("each column is as wide as its widest cell; money (and its heading) right-aligned; the last column unpadded", () => {
  const text = sweepTable(
    sweep([
      object({ id: "pod-long-id-1", name: "trainer", perHour: 12.5, perMonth: 9000, cost: "1 × NVIDIA L40S", owner: { by: "state", text: "stack ml/dev (Pod::trainer)" } }),
      object({ kind: "NetworkVolume", id: "vol-1", name: "data", state: "100 GB STANDARD", perHour: 0.0097, perMonth: 7, cost: "100 GB × $0.07/GB-month" }),
      object({ kind: "Template", id: "tpl-1", name: "sdxl", state: "serverless" }),
    ]),
  );
  expect(text.split("\n")).toEqual([
    "KIND           ID             NAME     STATE            OWNER                          $/HOUR   $/MONTH  COST",
    "Pod            pod-long-id-1  trainer  RUNNING          stack ml/dev (Pod::trainer)  $12.5000  $9000.00  1 × NVIDIA L40S",
    "NetworkVolume  vol-1          data     100 GB STANDARD  unknown                       $0.0097     $7.00  100 GB × $0.07/GB-month",
    "Template       tpl-1          sdxl     serverless       unknown                       $0.0000     $0.00  bills nothing",
    "",
    "3 objects: $12.5097/hour, $9006.98/month at today's rate",
  ]);
});

test("the header alone stands when the account is empty; one object is said in the singular", () => {
  expect(sweepTable(sweep([])).split("\n")).toEqual(["KIND  ID  NAME  STATE  OWNER  $/HOUR  $/MONTH  COST", "", "0 objects: $0.0000/hour, $0.00/month at today's rate"]);
  expect(sweepTable(sweep([object({ perHour: 0.44, perMonth: 316.8 })])).split("\n").at(-1)).toBe("1 object: $0.4400/hour, $316.80/month at today's rate");
});

test("rows keep the sweep's order, and each note follows the totals", () => {
  const rows = [object({ id: "b", name: "b", perHour: 1 }), object({ id: "a", name: "a", perHour: 2 })];
  const lines = sweepTable(sweep(rows, ["Owners: first", "Costs: second"])).split("\n");
  expect(lines.slice(1, 3).map((l) => l.split(/\s+/)[1])).toEqual(["b", "a"]);
  expect(lines.slice(-2)).toEqual(["note: Owners: first", "note: Costs: second"]);
});

// The request log page and the faults page (docs/emulator.md, "The console"): newest first,
// filtered by status and by who sent it (keyed by default, the keyless ones counted aside),
// injected faults, quota 429s and the console's own calls marked; the faults in force, each
// removable, and the forms that set them.
import type { FaultsJson } from "../../../../src/emulator/core/faults";
import type { RequestLogEntry } from "../../../../src/emulator/core/request-log";
import { faultsControls, faultsLive, logControls, logPage, matches, STATUS_FILTERS } from "../../../../src/emulator/console/log-and-faults";
import type { ConsoleSource } from "../../../../src/emulator/console/source";

const entry = (op: string, status: number, over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  at: "2026-01-01T12:34:56.789Z",
  method: "GET",
  path: "/v2/pods",
  status,
  key: "key_0123abcd",
  op,
  dropped: false,
  ...over,
});

const NO_FAULTS: FaultsJson = { seed: 1, rate429: 0, rate5xx: 0, dropAfterProcessRate: 0, slowMs: 0, errorImages: [], noCapacity: [], modelJobMs: 0, failingPrompts: [] };

const source = (log: RequestLogEntry[], faults: FaultsJson = NO_FAULTS): ConsoleSource => ({ accounts: () => [], requestLog: () => log, faults: () => faults });

const ops = (page: string) => [...page.matchAll(/data-op="([^"]+)"/g)].map((m) => m[1]);

test.each([
  ["all", [200, 204, 404, 429, 500, 503], []],
  ["2xx", [200, 204], [404, 500]],
  ["4xx", [404, 429], [200, 500]],
  ["429", [429], [404]],
  ["5xx", [500, 503], [429]],
] as const)("the %s filter takes %j and leaves %j", (filter, taken, left) => {
  for (const s of taken) expect(matches(entry("x", s), filter)).toBe(true);
  for (const s of left) expect(matches(entry("x", s), filter)).toBe(false);
});

test("the faults filter takes what an injected fault shaped (not a quota's 429); console, the console's own calls", () => {
  expect(matches(entry("x", 429, { fault: "rate429" }), "faults")).toBe(true);
  expect(matches(entry("x", 429), "faults")).toBe(false);
  expect(matches(entry("x", 200, { via: "console" }), "console")).toBe(true);
  expect(matches(entry("x", 200), "console")).toBe(false);
  expect(STATUS_FILTERS).toEqual(["all", "2xx", "4xx", "429", "5xx", "faults", "console"]);
});

test("newest first, the keyed requests by default, the keyless ones counted aside", () => {
  const log = [entry("first", 200), entry("anon", 401, { key: null, op: "unauthenticated" }), entry("second", 201)];
  const page = logPage(source(log), "all").html;
  expect(ops(page)).toEqual(["second", "first"]);
  expect(page).toContain("2 of the 3 requests the log holds\n(newest first; 1 sent without a key not shown");
  expect(ops(logPage(source(log), "all", "keyless").html)).toEqual(["unauthenticated"]);
  expect(ops(logPage(source(log), "all", "everyone").html)).toEqual(["second", "unauthenticated", "first"]);
  expect(logPage(source(log), "all", "everyone").html).not.toContain("not shown");
});

test("at most 300 rows are shown, the newest, and the summary says so", () => {
  const log = Array.from({ length: 301 }, (_, i) => entry(`op${i}`, 200));
  const page = logPage(source(log), "all").html;
  expect(ops(page)).toHaveLength(300);
  expect(ops(page)[0]).toBe("op300");
  expect(page).toContain("301 of the 301 requests the log holds\n(newest first, the first 300 shown)");
});

test("marks: an injected fault by name, a quota's 429 as quota, the console's calls; a cut connection has no status", () => {
  const log = [
    entry("a", 429),
    entry("b", 429, { fault: "rate429" }),
    entry("c", 201, { dropped: true, fault: "dropAfterProcess" }),
    entry("d", 200, { via: "console" }),
  ];
  const rows = logPage(source(log), "all").html.split("<tr ").slice(1);
  const marks = rows.map((r) => [...r.matchAll(/<span class="mark">([^<]+)<\/span>/g)].map((m) => m[1]));
  expect(marks).toEqual([["console"], ["cut after processing"], ["injected 429"], ["quota"]]);
  expect(rows[1]).toContain('<td class="num">—</td>');
  expect(rows[3]).toContain('class="r429" ');
  expect(rows[2]).toContain('class="r429 fault" ');
  expect(rows[0]).toContain('data-via="console"');
});

test("a path or op is escaped; the time shows as HH:MM:SS.mmm", () => {
  const page = logPage(source([entry("<x>", 404, { path: "/v2/pods/<script>" })]), "all").html;
  expect(page).toContain("<td>12:34:56.789</td><td>GET</td><td>/v2/pods/&lt;script&gt;</td>");
  expect(page).not.toContain("<script>");
});

test("nothing matching is said so", () => {
  expect(logPage(source([entry("a", 200)]), "5xx").html).toContain("No requests match.");
});

test("the filter form is a GET form with the current choices selected", () => {
  const form = logControls("429", "everyone").html;
  expect(form).toContain('<form class="controls" method="get" action="/console/log">');
  expect(form).toContain('<option value="429" selected>429</option>');
  expect(form).toContain('<option value="everyone" selected>everyone</option>');
  expect(form.match(/ selected/g)).toHaveLength(2);
});

test("the faults in force: rates as percents, each no-capacity entry and error image with a button that removes it alone", () => {
  const faults: FaultsJson = {
    ...NO_FAULTS,
    rate429: 0.1,
    slowMs: 250,
    noCapacity: [{ gpuId: "NVIDIA L40S", dataCenterId: "US-TX-3" }, { gpuId: "NVIDIA GeForce RTX 4090" }],
    errorImages: [":broken$", "bad"],
  };
  const page = faultsLive(source([], faults)).html;
  expect(page).toContain("<dt>429 rate</dt><dd>10 %</dd>");
  expect(page).toContain("<dt>Slow answers</dt><dd>250 ms</dd>");
  expect(page).toContain('data-no-capacity="NVIDIA GeForce RTX 4090@*">NVIDIA GeForce RTX 4090 in every data center');
  const rest = JSON.stringify({ noCapacity: [{ gpuId: "NVIDIA GeForce RTX 4090" }] }).replaceAll('"', "&quot;");
  expect(page).toContain(`data-body="${rest}"`);
  expect(page).toContain(`data-body="${JSON.stringify({ errorImages: ["bad"] }).replaceAll('"', "&quot;")}"`);
  expect(page).toContain('data-call="DELETE /console/emulator/faults" data-body="null">Clear all faults');
});

test("no faults read as such", () => {
  const page = faultsLive(source([])).html;
  expect(page).toContain("Every GPU type has capacity everywhere.");
  expect(page).toContain("No image fails to start.");
});

test("the forms start from the rates in force, as percents to a tenth, and offer every GPU type and data center", () => {
  const form = faultsControls(source([], { ...NO_FAULTS, rate5xx: 0.1234 })).html;
  expect(form).toContain('name="rate5xx" type="number" min="0" max="100" step="0.1" value="12.3"');
  expect(form).toContain('<option value="NVIDIA GeForce RTX 4090">');
  expect(form).toContain('<option value="EU-RO-1">');
});

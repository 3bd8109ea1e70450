// A page's transcript of a command is that command's output: `--write` puts a run's output
// there, and any other run fails when the page shows other steps, cost lines or outputs.
// What varies between runs (ids, ports, timings, request counts, progress lines) does not count.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pageTranscript, settleTranscript } from "../../../scripts/transcripts";

const RUN = [
  "emulator: http://127.0.0.1:41937",
  "== up (new stack)",
  "    t+   92 ms  pod batch-1 (p0004ggpeuzxp): RUNNING",
  "  +  create    Pod batch  id p0004ggpeuzxp",
  "  cost: $0.00/h -> $0.69/h (+$0.69/h): pod batch added (+$0.69/h)",
  "  API requests:   createPod 1, listPods 3  (1203 ms)",
  "  Outputs:",
  '      batchPodId : "p0004ggpeuzxp"',
  "OK",
].join("\n");

let file: string;
beforeEach(() => {
  file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "transcripts-")), "README.md");
  fs.writeFileSync(file, "# Example\n\n<!-- output: npm run example -- x -->\n\n```\nold\n```\n\n<!-- /output -->\n\nAfter.\n");
});
afterEach(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));

test("--write puts the run's output between the markers, and keeps the rest of the page", () => {
  expect(settleTranscript(file, "npm run example -- x", RUN, true).ok).toBe(true);
  expect(pageTranscript(file, "npm run example -- x")).toBe(`${RUN}\n`);
  expect(fs.readFileSync(file, "utf8")).toMatch(/^# Example\n[\s\S]*<!-- \/output -->\n\nAfter\.\n$/);
});

test("another run with other ids, ports, timings and counts matches", () => {
  settleTranscript(file, "npm run example -- x", RUN, true);
  const again = RUN.replace(/p0004ggpeuzxp/g, "p0009zzzzzzzz").replace("41937", "40001").replace("1203 ms", "88 ms").replace("listPods 3", "listPods 5").replace("   92 ms", "  130 ms");
  expect(settleTranscript(file, "npm run example -- x", again, false)).toEqual({ line: expect.stringContaining("this run's shape"), ok: true });
});

test.each([
  ["a step", RUN.replace("+  create    Pod batch", "~  update    Pod batch")],
  ["a cost line", RUN.replace("(+$0.69/h): pod", "(+$0.86/h): pod")],
  ["an output", RUN.replace("batchPodId :", "podId      :")],
  ["a missing line", RUN.replace("  Outputs:\n", "")],
])("a run that differs in %s fails, naming the line", (_what, run) => {
  settleTranscript(file, "npm run example -- x", RUN, true);
  const r = settleTranscript(file, "npm run example -- x", run, false);
  expect(r.ok).toBe(false);
  expect(r.line).toContain("is stale (rewrite it with `npm run example -- x --write`)");
});

test("a page without the markers is left alone", () => {
  fs.writeFileSync(file, "# No transcript\n");
  expect(settleTranscript(file, "npm run example -- x", RUN, false)).toEqual({ line: "", ok: true });
});

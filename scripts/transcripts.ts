/**
 * Transcripts in the docs come from a run. `npm run demo -- --write` and
 * `npm run example -- <name> --write` put the run's output between a page's markers
 * (`<!-- output: <command> -->` and `<!-- /output -->`); every other run of the same command
 * compares itself with what the page shows and fails when they differ, so a page cannot go
 * stale while CI runs the command. What varies between runs (ids, ports, timings, polling
 * counts, progress lines) is left out of the comparison; the steps, the cost lines, the
 * outputs' names and the summary are compared.
 */
import * as fs from "node:fs";

const begin = (command: string) => `<!-- output: ${command} -->`;
const END = "<!-- /output -->";

/** The lines two runs of the same command share: ids, ports and numbers of ms masked, volatile lines dropped. */
export function shape(text: string): string[] {
  return text
    .split("\n")
    // A provider's own lines (the smoke test's) come through the engine's log, which a phase may
    // end before it delivers: whether one shows in a phase varies from run to run.
    .filter((l) => l.trim() !== "" && !/^\s+t\+/.test(l) && !/^\s+API requests/.test(l) && !/in all/.test(l) && !/^\s+smoke test "/.test(l))
    .map((l) =>
      l
        .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")
        .replace(/\b(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,}\b/g, "ID")
        .replace(/\d+ ms/g, "N ms")
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "TIME")
        .trimEnd(),
    );
}

/** The transcript a page holds for `command`, or undefined when it has none. */
export function pageTranscript(file: string, command: string): string | undefined {
  const text = fs.readFileSync(file, "utf8");
  const at = text.indexOf(begin(command));
  if (at === -1) return undefined;
  const body = text.slice(at + begin(command).length, text.indexOf(END, at));
  return /```\w*\n([\s\S]*?)```/.exec(body)?.[1];
}

/** Writes `output` as the page's transcript of `command` (the markers must be there). */
export function writeTranscript(file: string, command: string, output: string): void {
  const text = fs.readFileSync(file, "utf8");
  const at = text.indexOf(begin(command));
  const end = text.indexOf(END, at);
  if (at === -1 || end === -1) throw new Error(`${file} has no ${begin(command)} ... ${END} markers`);
  fs.writeFileSync(file, `${text.slice(0, at)}${begin(command)}\n\n\`\`\`\n${output.trimEnd()}\n\`\`\`\n\n${text.slice(end)}`);
}

/**
 * After a run: with `--write`, the page gets this run's output; otherwise the page's transcript
 * (if it has one) must have this run's shape. Returns a line to print, and whether it holds.
 */
export function settleTranscript(file: string, command: string, output: string, write: boolean): { line: string; ok: boolean } {
  if (write) {
    writeTranscript(file, command, output);
    return { line: `transcript written to ${file}`, ok: true };
  }
  const shown = pageTranscript(file, command);
  if (shown === undefined) return { line: "", ok: true };
  const [want, got] = [shape(shown), shape(output)];
  const i = want.findIndex((l, n) => l !== got[n]);
  if (i === -1 && want.length === got.length) return { line: `transcript in ${file}: this run's shape`, ok: true };
  const at = i === -1 ? Math.min(want.length, got.length) : i;
  return {
    line: `transcript in ${file} is stale (rewrite it with \`${command}${command.includes(" -- ") ? "" : " --"} --write\`): line ${at + 1} shows\n  ${want[at] ?? "(nothing)"}\nwhere this run printed\n  ${got[at] ?? "(nothing)"}`,
    ok: false,
  };
}

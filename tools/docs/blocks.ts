// The fenced code blocks of the user's pages (README.md, docs/*.md), each sorted by what a reader
// does with it, so that each kind has one check:
// - a whole TypeScript program (it has an `import`): type-checked as copied, and, when it is a
//   client or emulator program (it imports no Pulumi), run against an emulator (by
//   test/integration/docs/doc-blocks.test.ts, and from the installed tarball by
//   `npm run test:package`);
// - a transcript (a block with no language right after a program, its first line `$ ...`): the
//   output that program printed, compared with what it prints now;
// - a TypeScript excerpt (no `import`): a line-for-line excerpt of a program that runs
//   (test/unit/docs/docs.test.ts);
// - JSON: parsed; shell commands, YAML, and quoted messages and trees: read, not run here;
// - docs/design.md's TypeScript: sketches of interfaces for contributors, not programs.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(__dirname, "../..");

export interface Block {
  page: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  lang: string;
  code: string;
  kind: "program" | "excerpt" | "transcript" | "json" | "sketch" | "other";
  /** For a program: it imports no Pulumi, so it runs as a plain Node program. */
  runs?: boolean;
  /** For a program: the transcript block that follows it, if any. */
  transcript?: Block;
}

/** The user's pages, README first. */
export const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];

/** Every fenced block of a page, in order, with its kind. */
export function blocksOf(page: string, text = readFileSync(join(ROOT, page), "utf8")): Block[] {
  const found: Block[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const [lang, code] = [m[1]!, m[2]!];
    const block: Block = { page, line: text.slice(0, m.index).split("\n").length, lang, code, kind: "other" };
    const before = found.at(-1);
    if (lang === "ts" && page === "docs/design.md") block.kind = "sketch";
    else if (lang === "ts" && /^import /m.test(code)) {
      block.kind = "program";
      block.runs = !/from "@pulumi\/pulumi"|from "pulumi-computeplatform"/.test(code);
    } else if (lang === "ts") block.kind = "excerpt";
    else if (lang === "json") block.kind = "json";
    else if (lang === "" && code.startsWith("$ ") && before?.kind === "program") {
      block.kind = "transcript";
      before.transcript = block;
    }
    found.push(block);
  }
  return found;
}

/** The name a block's program is saved under: page and line. */
export const fileStem = (b: Block) => `${b.page.replace(/\.md$/, "").replace(/\W+/g, "-")}-${b.line}`;

/**
 * A transcript's expected output (the lines after its `$ ` commands) as one pattern per line:
 * what varies between runs (ids, hashes, an emulator's port) is any such token; everything else,
 * numbers included, must match.
 */
export function expectedOutput(transcript: Block): RegExp[] {
  return transcript.code
    .trimEnd()
    .split("\n")
    .filter((l) => !l.startsWith("$ "))
    .map((line) => {
      const parts = line.split(/(127\.0\.0\.1:\d+|\b(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,}\b)/);
      return new RegExp(
        `^${parts
          .map((p, i) => (i % 2 === 0 ? p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : p.startsWith("127.") ? "127\\.0\\.0\\.1:\\d+" : "[a-z0-9]+"))
          .join("")}$`,
      );
    });
}

/** Printed by a line added to the copy that runs: a program that stops early (or never starts) lacks it. */
export const END = "-- doc block ran to its end --";

/** The copy of a runnable program that is run: the block as copied, then a line that prints END. */
export const runnableCopy = (b: Block) => `${b.code}console.log(${JSON.stringify(END)});\n`;

/**
 * What a run of `runnableCopy(b)` printed, checked: it ran to its end and, when the page shows a
 * transcript, printed those lines. The problems, none when it did.
 */
export function outputProblems(b: Block, stdout: string): string[] {
  if (!stdout.split("\n").includes(END)) return [`${b.page}:${b.line} stopped before its end; it printed:\n${stdout}`];
  if (!b.transcript) return [];
  const lines = stdout.replace(`${END}\n`, "").trimEnd().split("\n");
  const expected = expectedOutput(b.transcript);
  if (lines.length !== expected.length) return [`${b.page}:${b.line} printed ${lines.length} lines, its transcript ${expected.length}:\n${lines.join("\n")}`];
  return expected.flatMap((pattern, i) => (pattern.test(lines[i]!) ? [] : [`${b.page}:${b.line} line ${i + 1}: ${JSON.stringify(lines[i])} is not ${pattern}`]));
}

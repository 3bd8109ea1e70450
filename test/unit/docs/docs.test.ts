// The user documentation stays true to what runs: every TypeScript excerpt in README.md and
// docs/*.md (a block with no `import`: whole programs are type-checked and run as copied by
// test/integration/docs/doc-blocks.test.ts) is an excerpt, line for line, of a program that a
// test runs (the packed-package program, which `npm run test:package` runs through Pulumi's
// plugin, or an example, which the engine tests run), and every relative link points at a file
// and heading that exist.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const ROOT = join(__dirname, "../../..");
/** The user's pages: design.md (notes for contributors) and emulator.md (an API sketch) are not. */
const PAGES = [
  "README.md",
  "CHANGELOG.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md") && f !== "design.md" && f !== "emulator.md")
    .map((f) => `docs/${f}`),
];
/** Programs that run: the package test's (`npm run test:package`), and the examples (test/examples/). */
const PROGRAMS = [
  ...readdirSync(join(ROOT, "scripts/package-test/program")).map((f) => `scripts/package-test/program/${f}`),
  ...readdirSync(join(ROOT, "examples")).map((e) => `examples/${e}/index.ts`).filter((f) => existsSync(join(ROOT, f))),
];

const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter((l) => l !== "");

/** The ```ts blocks of a page, with the line each starts on. */
function tsBlocks(text: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const re = /^```ts\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) blocks.push({ line: text.slice(0, m.index).split("\n").length, code: m[1] });
  return blocks;
}

/** Whether `block`'s lines appear one after another in `program`'s (both trimmed, blank lines dropped). */
function isExcerpt(block: string[], program: string[]): boolean {
  return program.some((_, i) => block.every((l, j) => program[i + j] === l));
}

/** GitHub's anchor of a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\s-]/g, "")
    .replace(/\s/g, "-");

const blocks = PAGES.flatMap((page) => tsBlocks(read(page)).map((b) => ({ page, ...b }))).filter((b) => !/^import /m.test(b.code));
const programs = PROGRAMS.map((f) => ({ file: f, lines: lines(read(f)) }));

test("the pages hold TypeScript examples", () => {
  expect(blocks.length).toBeGreaterThan(8);
});

test.each(blocks.map((b) => [`${b.page}:${b.line}`, b] as const))("%s is an excerpt of a program that runs", (_where, b) => {
  const found = programs.filter((p) => isExcerpt(lines(b.code), p.lines)).map((p) => p.file);
  expect(found).not.toEqual([]);
});

test.each(PAGES)("%s: every relative link resolves to a file and heading", (page) => {
  const text = read(page).replace(/^```[\s\S]*?^```$/gm, "");
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target)) continue;
    const [file, anchor] = target.split("#");
    const path = file ? resolve(dirname(join(ROOT, page)), file) : join(ROOT, page);
    if (!existsSync(path)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor && !readFileSync(path, "utf8").split("\n").some((l) => /^#+ /.test(l) && slug(l.replace(/^#+ /, "")) === anchor)) {
      broken.push(`${target}: no such heading`);
    }
  }
  expect(broken).toEqual([]);
});

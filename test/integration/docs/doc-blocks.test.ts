// Every code block of README.md and docs/ that a reader would run, run or type-checked as
// copied (tools/docs/blocks.ts sorts them). Type checking is one compiler program
// over all of them (TypeScript 7, as `npm run typecheck`), against the package's built types:
// client and emulator programs as ES modules (they may await at the top), Pulumi programs as
// CommonJS. Client and emulator programs then run the documented way
// (`node --require ./scripts/register-ts.js file.ts`) against an emulator, and a transcript that
// follows one in the page must be what it prints. The counts are printed.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { type Emulator, startEmulator } from "../../../src/emulator";
import { type Block, blocksOf, fileStem, outputProblems, PAGES, ROOT, runnableCopy } from "../../../tools/docs/blocks";

const run = promisify(execFile);
const DIR = path.join(ROOT, "node_modules/.cache/doc-blocks");
const REGISTER = path.join(ROOT, "scripts/register-ts.js");

const blocks = PAGES.flatMap((page) => blocksOf(page));
const programs = blocks.filter((b) => b.kind === "program");
const runnable = programs.filter((b) => b.runs);

let emu: Emulator;
let typeErrors: string;

beforeAll(async () => {
  fs.rmSync(DIR, { recursive: true, force: true });
  fs.mkdirSync(DIR, { recursive: true });
  // One file per program, where Node resolves the package by name (the repository's own link).
  const files = programs.map((b) => {
    const file = `${fileStem(b)}.${b.runs ? "mts" : "ts"}`;
    fs.writeFileSync(path.join(DIR, file), b.code);
    if (b.runs) fs.writeFileSync(path.join(DIR, `${fileStem(b)}.ts`), runnableCopy(b));
    return file;
  });
  fs.writeFileSync(
    path.join(DIR, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", types: ["node"], noEmit: true, skipLibCheck: true },
      files,
    }),
  );
  const tsc = path.join(ROOT, "node_modules/typescript-native/bin/tsc");
  typeErrors = await run(process.execPath, [tsc, "-p", DIR, "--pretty", "false"], { cwd: DIR, timeout: 120_000 }).then(
    () => "",
    (err: { stdout: string }) => err.stdout,
  );
  emu = await startEmulator({ port: 0, timeScale: 1000 });
  const count = new Map<string, number>();
  for (const b of blocks) count.set(b.kind, (count.get(b.kind) ?? 0) + 1);
  const kinds = [...count].map(([k, n]) => `${k} ${n}`);
  console.log(`doc blocks: ${blocks.length} in ${PAGES.length} pages (${kinds.join(", ")}); ${programs.length} programs type-checked, ${runnable.length} run`);
}, 180_000);

afterAll(async () => {
  await emu?.close();
});

const where = (b: Block) => `${b.page}:${b.line}`;

test("the pages hold programs, some of them run", () => {
  expect(programs.length).toBeGreaterThan(8);
  expect(runnable.length).toBeGreaterThan(4);
});

test.each(programs.map((b) => [where(b), b] as const))("%s type-checks as copied", (_w, b) => {
  const mine = typeErrors.split("\n").filter((l) => l.startsWith(`${fileStem(b)}.`));
  expect(mine).toEqual([]);
});

test("the type checker saw every program (no error outside them)", () => {
  const others = typeErrors.split("\n").filter((l) => l.trim() !== "" && !programs.some((b) => l.startsWith(`${fileStem(b)}.`)) && !/^\s/.test(l));
  expect(others).toEqual([]);
});

test.each(runnable.map((b) => [where(b), b] as const))(
  "%s runs against the emulator, and prints what its transcript says",
  async (_w, b) => {
    const env = {
      ...process.env,
      COMPUTEPLATFORM_API_URL: emu.url,
      COMPUTEPLATFORM_SERVERLESS_URL: emu.url,
      COMPUTEPLATFORM_API_KEY: emu.apiKey,
      GHCR_TOKEN: "doc-blocks-registry-token",
    };
    const { stdout } = await run(process.execPath, ["--require", REGISTER, `${fileStem(b)}.ts`], { cwd: DIR, env, timeout: 60_000 }).catch(
      (err: { code: number; stdout: string; stderr: string }) => {
        throw new Error(`${where(b)} exited ${err.code}:\n${err.stdout}${err.stderr}`);
      },
    );
    // The loader once ran nothing of a file with a top-level await, and exited 0: the end marker.
    expect(outputProblems(b, stdout)).toEqual([]);
  },
  90_000,
);

test.each(blocks.filter((b) => b.kind === "json").map((b) => [where(b), b] as const))("%s is JSON", (_w, b) => {
  expect(() => JSON.parse(b.code)).not.toThrow();
});

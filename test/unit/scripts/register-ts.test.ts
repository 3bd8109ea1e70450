// Scripts run from TypeScript through scripts/register-ts.js (the demo, the soak, the package
// test, the contract snapshot) report the .ts line an error comes from: Babel drops the types,
// which moves the lines, and its inline source map is what puts them back.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

const REGISTER = path.resolve(__dirname, "../../../scripts/register-ts.js");
const run = promisify(execFile);

// Types before the throw: Babel's output has fewer lines than this file.
const SOURCE = [
  "interface Settings {", //    1
  "  a: number;", //            2
  "  b: string;", //            3
  "}", //                       4
  "type More = Settings & {", // 5
  "  c: boolean;", //           6
  "};", //                      7
  'const x: More = { a: 1, b: "x", c: true };', // 8
  "export function boom(v: More): never {", // 9
  "  throw new Error(`boom ${v.a}`);", //      10
  "}", //                                     11
  "try {", //                                 12
  "  boom(x);", //                            13
  "} catch (err) {", //                       14
  "  console.log((err as Error).stack);", //  15
  "}", //                                     16
  "boom(x);", //                              17
  "",
].join("\n");

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "register-ts-"));
  fs.writeFileSync(path.join(dir, "throws.ts"), SOURCE);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("a thrown error's stack names the .ts lines, caught or not", async () => {
  const file = path.join(dir, "throws.ts");
  const failed = await run(process.execPath, ["--require", REGISTER, file], { timeout: 60_000 }).then(
    () => undefined,
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
  expect(failed?.code).toBe(1);
  // Caught and printed: thrown at line 10 from the call at line 13.
  expect(failed!.stdout).toContain(`at boom (${file}:10:9)`);
  expect(failed!.stdout).toContain(`${file}:13:3`);
  // Uncaught: Node's report points at line 10 and the call at line 17.
  expect(failed!.stderr).toContain(`${file}:10`);
  expect(failed!.stderr).toContain(`at boom (${file}:10:9)`);
  expect(failed!.stderr).toContain(`${file}:17:1`);
}, 60_000);

/** Runs `source` saved as a .ts file, from the temporary folder (not the repository), through the hook. */
async function runTs(name: string, source: string): Promise<{ code: number; stdout: string; stderr: string }> {
  fs.writeFileSync(path.join(dir, name), source);
  return run(process.execPath, ["--require", REGISTER, name], { cwd: dir, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

// A doc's example saved as a file awaits at its top. Node, handed CommonJS with such an await,
// loaded nothing and exited 0: an example "passed" without running.
test("a top-level await runs, with imports and exports, from any folder", async () => {
  const r = await runTs(
    "awaits.ts",
    [
      'import * as os from "node:os";',
      "const wait = (ms: number) => new Promise<number>((r) => setTimeout(() => r(ms), ms));",
      "const waited: number = await wait(20);",
      "for await (const n of [1, 2]) console.log(`n ${n}`);",
      "console.log(`waited ${waited}`, typeof os.tmpdir);",
      "export const done = true;",
      "",
    ].join("\n"),
  );
  expect(r).toEqual({ code: 0, stdout: "n 1\nn 2\nwaited 20 function\n", stderr: "" });
}, 60_000);

test("a rejected top-level await fails with the error and the .ts line", async () => {
  const r = await runTs("rejects.ts", ["type N = number;", "const n: N = 3;", "await Promise.resolve(n);", "throw new Error(`boom ${n}`);", ""].join("\n"));
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("Error: boom 3");
  expect(r.stderr).toContain(`${path.join(dir, "rejects.ts")}:4:7`);
}, 60_000);

test("a top-level await that never settles fails loudly, as Node does for an ES module", async () => {
  const r = await runTs("hangs.ts", ['await new Promise(() => {});', 'console.log("unreachable");', ""].join("\n"));
  expect(r.code).toBe(13);
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain(`top-level await never settled in ${path.join(dir, "hangs.ts")}`);
}, 60_000);

// The hook keeps Babel's output on disk, by the file's name and text: an edited file must run
// its new text, not the output cached for the old one.
test("a file edited between two runs runs its new text", async () => {
  const first = await runTs("edited.ts", 'const n: number = 1;\nconsole.log(`run ${n}`);\n');
  const second = await runTs("edited.ts", 'const n: number = 2;\nconsole.log(`run ${n}`);\n');
  expect([first.stdout, second.stdout]).toEqual(["run 1\n", "run 2\n"]);
}, 60_000);

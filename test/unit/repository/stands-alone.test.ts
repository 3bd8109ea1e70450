// The repository stands alone: a clone in a folder with nothing beside it has everything its
// code, tests, CI and docs read. No tracked file (`.ci/run` included) names a path outside the
// checkout: no climb out of it (`../` past the root), no sibling folder of the machine it was
// written on, no absolute path of that machine. And none cites as its authority a document a
// user cannot open (the team's notes on the platform, by name or by section number): the docs,
// JSDoc and comments describe the platform in the project's own words, and may name the public
// contract they follow (its copy is in contract/).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");

/** Every tracked file, as git lists it (a clone has the same list). */
const TRACKED = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
  .split("\0")
  .filter((f) => f && fs.existsSync(path.join(ROOT, f)));

function text(file: string): string | undefined {
  const bytes = fs.readFileSync(path.join(ROOT, file));
  return bytes.includes(0) ? undefined : bytes.toString("utf8");
}

// Written in pieces so that this file does not hold the strings it looks for.
const UP = "..";
/** Folders beside the checkout that the project's authorities lived in, and machine paths. */
const OUTSIDE = [`${UP}/shared`, ["shared", "spec", ""].join("/"), ["shared", "STYLE"].join("/"), ["", "work", ""].join("/"), ["", "Users", ""].join("/"), ["", "root", ""].join("/")];

/**
 * Each `../` chain in the text, with the line it is on, that resolves outside the repository
 * from the file's folder. In the lock file a `file:` dependency is relative to the package that
 * has it (the workspace's folder), so those are resolved from there.
 */
function escapes(file: string, body: string): string[] {
  if (file === "package-lock.json") return lockEscapes(body);
  const dir = path.dirname(path.join(ROOT, file));
  const out: string[] = [];
  const lines = body.split("\n");
  lines.forEach((line, i) => {
    const chains = [...line.matchAll(/(?:\.\.[\\/])+(?:\.\.(?![\w.]))?/g)].map((m) => m[0]);
    // `path.join(__dirname, "..", "..")` climbs too.
    for (const m of line.matchAll(/__dirname\s*,((?:\s*["']\.\.["']\s*,?)+)/g)) chains.push(m[1].match(/\.\./g)!.join("/"));
    for (const chain of chains) {
      const target = path.resolve(dir, chain);
      if (target !== ROOT && !target.startsWith(ROOT + path.sep)) out.push(`${file}:${i + 1}: ${line.trim()}`);
    }
  });
  return out;
}

function lockEscapes(body: string): string[] {
  const lock = JSON.parse(body) as { packages: Record<string, { dependencies?: Record<string, string>; resolved?: string }> };
  const out: string[] = [];
  for (const [key, pkg] of Object.entries(lock.packages)) {
    const refs = [...Object.values(pkg.dependencies ?? {}), pkg.resolved ?? ""].filter((v) => v.startsWith("file:") || v.startsWith("."));
    for (const ref of refs) {
      const target = path.resolve(ROOT, key, ref.replace(/^file:/, ""));
      if (target !== ROOT && !target.startsWith(ROOT + path.sep)) out.push(`package-lock.json: ${key || "(root)"} -> ${ref}`);
    }
  }
  const rest = body.replace(/"file:[^"]*"/g, '""');
  return [...out, ...escapes("package-lock.json.rest", rest)];
}

/** Citations of documents that are not in the repository: by name, or by a section number after "spec" or "section". */
const CITATIONS = [
  new RegExp(["open", "parts"].join("[- ]"), "i"),
  new RegExp(["platform-api", "md"].join("\\."), "i"),
  new RegExp(["STYLE", "md"].join("\\.")),
  new RegExp(["\\bspec", "(?:\\s+section)?\\s+§?\\d+(?:\\.\\d+)*"].join(""), "i"),
  new RegExp(["\\bsection", "\\s+\\d+\\.\\d+"].join(""), "i"),
  new RegExp(["§", "\\s?\\d"].join("")),
];

function citations(file: string, body: string): string[] {
  const out: string[] = [];
  body.split("\n").forEach((line, i) => {
    if (CITATIONS.some((re) => re.test(line))) out.push(`${file}:${i + 1}: ${line.trim()}`);
  });
  return out;
}

function mentions(file: string, body: string, needles: readonly string[]): string[] {
  const out: string[] = [];
  body.split("\n").forEach((line, i) => {
    if (needles.some((n) => line.includes(n))) out.push(`${file}:${i + 1}: ${line.trim()}`);
  });
  return out;
}

describe("the repository refers to nothing outside itself", () => {
  test("git lists the files, the CI script among them", () => {
    expect(TRACKED).toContain(".ci/run");
    expect(TRACKED.length).toBeGreaterThan(100);
  });

  test("no tracked file names a folder beside the checkout or a path of the machine", () => {
    // The checkout's own absolute location, wherever it is, is one of the machine's paths too.
    const needles = [...OUTSIDE, ROOT + path.sep];
    const found = TRACKED.flatMap((file) => {
      const body = text(file);
      return body === undefined ? [] : mentions(file, body, needles);
    });
    expect(found).toEqual([]);
  });

  test("no relative path climbs out of the repository from the file that holds it", () => {
    // Stryker's recorded results (tools/mutation/incremental) hold copies of test files, whose
    // relative imports are relative to the test's folder, not the record's: the tests themselves
    // are checked where they are. Machine paths in the records are still refused (above).
    const records = /^tools\/mutation\/incremental\/[^/]+\.json$/;
    const found = TRACKED.filter((file) => !records.test(file)).flatMap((file) => {
      const body = text(file);
      return body === undefined ? [] : escapes(file, body);
    });
    expect(found).toEqual([]);
  });

  test("no doc, JSDoc or comment cites a document the repository does not hold", () => {
    // contract/ is the copy of the public contract itself (its own words, not ours).
    const found = TRACKED.filter((file) => !file.startsWith("contract/")).flatMap((file) => {
      const body = text(file);
      return body === undefined ? [] : citations(file, body);
    });
    expect(found).toEqual([]);
  });

  test("CI runs in a fresh clone placed in an empty folder, and runs the README's test command there", () => {
    const ci = text(".ci/run")!;
    const readme = text("README.md")!;
    const command = /## Run the tests\n+```sh\n([^\n]+)\n```/.exec(readme)?.[1];
    expect(command).toBe("npm test");
    // The clone goes into a new temporary folder, and the rest of the script runs inside it.
    expect(ci).toMatch(/place="\$\(mktemp -d\)"/);
    expect(ci).toMatch(/git clone -q "\$checkout" "\$place\/repo"/);
    expect(ci).toMatch(/cd "\$place\/repo" && COMPUTEPLATFORM_CI_IN_CLONE=1 bash \.ci\/run/);
    const inClone = ci.slice(ci.indexOf("\nfi\n"));
    for (const step of ["npm ci ", "npm run typecheck", "npm run lint", "npm run docs", `${command} -- --json`, "npm run test:package"]) {
      expect(inClone).toContain(step);
    }
  });

  test("the checks find what they look for", () => {
    for (const cited of [`(${["open", "parts"].join("-")} "Rate limits")`, `the Pod object of ${"spec"} 2.2`, `(${"spec"} 2.4 rule 4)`, `${"Spec"} section 2`, `(${"section"} 2.9)`, `see ${"platform-api"}.md`]) {
      expect(citations("src/x.ts", `// ${cited}`)).toHaveLength(1);
    }
    for (const fine of ["the platform's public REST v2 contract of 2026-07-22", "OpenAPI 3.1", "ports.map((spec, i) => spec)", "RFC 9651 section 3"]) {
      expect(citations("src/x.ts", `// ${fine}`)).toEqual([]);
    }
    expect(escapes("docs/design.md", `see [spec](${UP}/${UP}/x/y.md)`)).toHaveLength(1);
    expect(escapes("docs/design.md", `see [spec](${UP}/src/index.ts)`)).toEqual([]);
    expect(escapes(".ci/run", `cd "$(dirname "$0")/${UP}"`)).toEqual([]);
    expect(escapes(".ci/run", `cd "$(dirname "$0")/${UP}/${UP}"`)).toHaveLength(1);
    expect(escapes("test/helpers/x.ts", `path.join(__dirname, "${UP}", "${UP}", "${UP}", "x")`)).toHaveLength(1);
    expect(escapes("test/helpers/x.ts", `path.join(__dirname, "${UP}", "${UP}", "x")`)).toEqual([]);
    expect(mentions("README.md", `read ${OUTSIDE[0]}/spec/a.md`, OUTSIDE)).toHaveLength(1);
  });
});

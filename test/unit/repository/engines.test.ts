// The Node.js minimum the package declares (`engines.node`) agrees with what its runtime
// dependencies declare, read from the installed packages: every Node version the project says
// it supports satisfies each dependency's `engines.node`, and the project's minimum is the
// strictest dependency's (no higher without a reason written here). The README and the
// installation page say the same minimum. No version number is copied into this test.
import * as fs from "node:fs";
import * as path from "node:path";
import * as semver from "semver";
import { MIN_NODE_VERSION } from "../../../src/client/core/runtime";

const ROOT = path.resolve(__dirname, "../../..");
const own = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
const range: string = own.engines.node;
/** What runs with the package: its dependencies and its peers (the user's `@pulumi/pulumi`, which the plugin loads beside it). */
const runtime: Record<string, string> = { ...own.dependencies, ...own.peerDependencies };

interface Installed {
  name: string;
  dir: string;
  node?: string;
}

/** The folder a package `name` resolves to from `from`, by Node's node_modules lookup. */
function locate(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Each runtime dependency and theirs (dependencies and installed optional ones), once. */
function runtimeDependencies(): { found: Installed[]; missing: string[] } {
  const seen = new Map<string, Installed>();
  const missing: string[] = [];
  const visit = (name: string, from: string, optional: boolean) => {
    const dir = locate(name, from);
    if (!dir) {
      if (!optional) missing.push(`${name} (needed by ${path.relative(ROOT, from) || "the project"})`);
      return;
    }
    if (seen.has(dir)) return;
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    seen.set(dir, { name: `${pkg.name}@${pkg.version}`, dir, node: pkg.engines?.node });
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, dir, true);
  };
  for (const dep of Object.keys(runtime)) visit(dep, ROOT, false);
  return { found: [...seen.values()], missing };
}

const { found, missing } = runtimeDependencies();
const declaring = found.filter((d) => d.node !== undefined && semver.validRange(d.node) !== null);

test("the project's engines.node is a valid range with a minimum", () => {
  expect(semver.validRange(range)).not.toBeNull();
  expect(semver.minVersion(range)).not.toBeNull();
});

test("every runtime dependency is installed and the walk reads their engines", () => {
  expect(missing).toEqual([]);
  for (const dep of Object.keys(runtime)) expect(found.some((d) => d.name.startsWith(`${dep}@`))).toBe(true);
  expect(declaring.length).toBeGreaterThan(Object.keys(runtime).length);
});

test("every Node version the project supports satisfies each dependency's engines.node", () => {
  const refused = declaring
    .filter((d) => !semver.subset(range, d.node!))
    .map((d) => `${d.name} (${path.relative(ROOT, d.dir)}) needs node ${d.node}; the project says ${range}`);
  expect(refused).toEqual([]);
});

test("the project's minimum is the strictest dependency's minimum", () => {
  const strictest = declaring.reduce((a, b) => (semver.gt(semver.minVersion(b.node!)!, semver.minVersion(a.node!)!) ? b : a));
  expect({ minimum: semver.minVersion(range)!.version }).toEqual({ minimum: semver.minVersion(strictest.node!)!.version });
});

test.each(["README.md", "docs/installation-configuration.md"])("%s states the same minimum", (file) => {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const stated = [...text.matchAll(/Node\.js (\d+\.\d+(?:\.\d+)?) or newer/g)].map((m) => semver.coerce(m[1])!.version);
  expect(stated.length).toBeGreaterThan(0);
  for (const version of stated) expect(version).toBe(semver.minVersion(range)!.version);
});

test("the client refuses a Node.js below the same minimum", () => {
  expect(MIN_NODE_VERSION).toBe(semver.minVersion(range)!.version);
});

test("the check refuses a minimum below a dependency's", () => {
  // The same comparison as above, on a range one patch below the strictest dependency's minimum.
  const strictest = declaring.reduce((a, b) => (semver.gt(semver.minVersion(b.node!)!, semver.minVersion(a.node!)!) ? b : a));
  const min = semver.minVersion(strictest.node!)!;
  const below = min.patch > 0 ? `${min.major}.${min.minor}.${min.patch - 1}` : `${min.major - 1}.0.0`;
  expect(semver.subset(`>=${below}`, strictest.node!)).toBe(false);
});

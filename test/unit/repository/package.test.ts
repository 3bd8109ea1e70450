// What a user of the package meets before the code: the version the CHANGELOG's newest section
// names, a command (`npx computeplatform-emulator`) that runs after a build, `npm pack` that
// builds first, and guides whose links all lead to files the package ships. The tarball itself
// is checked by `npm run test:package` (scripts/package-test/tarball.ts); this is its cheap
// half, from package.json's `files` rather than a pack.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { relativeLinks } from "../../../scripts/package-test/tarball";

const ROOT = path.resolve(__dirname, "../../..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  version: string;
  bin: Record<string, string>;
  files: string[];
  scripts: Record<string, string>;
};

test("the CHANGELOG's newest section is package.json's version", () => {
  const newest = /^## (\S+)/m.exec(fs.readFileSync(path.join(ROOT, "CHANGELOG.md"), "utf8"))?.[1];
  expect(newest).toBe(pkg.version);
});

test("npm pack builds first (a clone has no dist/)", () => {
  expect(pkg.scripts.prepack).toBe("npm run build");
});

// `npm test` builds first (pretest), so dist/ is the build's.
test.each(Object.entries(pkg.bin))("the built %s is executable and runs as a command", async (name, file) => {
  const built = path.join(ROOT, file);
  expect(fs.readFileSync(built, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  expect(fs.statSync(built).mode & 0o111).toBe(0o111);
  // Run as a command, not through `node`: the shebang and the execute bit are what it needs.
  const { stdout } = await promisify(execFile)(built, ["--help"], { timeout: 60_000 });
  expect(stdout).toContain(`Usage: ${name} `);
}, 60_000);

/** Whether `file` (relative to the root) is packed by one of `files`' entries (a folder, a file or `dir/*.ext`). */
function packed(file: string): boolean {
  return ["package.json", "README.md", ...pkg.files].some((entry) => {
    if (entry.includes("*")) {
      const [dir, ext] = entry.split("*") as [string, string];
      return file.startsWith(dir) && file.endsWith(ext) && !file.slice(dir.length).includes("/");
    }
    return file === entry || file.startsWith(`${entry}/`);
  });
}

const pages = ["README.md", "CHANGELOG.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

test.each(pages)("%s is packed, and each relative link leads to a packed file", (page) => {
  expect(packed(page)).toBe(true);
  const dead = relativeLinks(fs.readFileSync(path.join(ROOT, page), "utf8"))
    .map((target) => path.posix.normalize(path.posix.join(path.posix.dirname(page), target)))
    .filter((file) => !packed(file) || !fs.existsSync(path.join(ROOT, file)));
  expect(dead).toEqual([]);
});

test("the install steps name the tarball npm pack writes for this version", () => {
  const named = pages.flatMap((page) => [...fs.readFileSync(path.join(ROOT, page), "utf8").matchAll(/pulumi-computeplatform-([\w.-]+?)\.tgz/g)].map((m) => `${page}: ${m[1]}`));
  expect(named.length).toBeGreaterThan(0);
  expect(named.filter((n) => !n.endsWith(`: ${pkg.version}`))).toEqual([]);
});

// What `npm pack` may put in the tarball: what a user's program, its types and the emulator's
// command need (the console's browser script and stylesheet among them), the guides a user reads
// (README, CHANGELOG, docs/ and the examples they link to), and nothing else (no sources, tests,
// benchmarks or source maps). Every relative link of a packed page leads to a packed file, so a
// guide read from node_modules/pulumi-computeplatform has no dead link.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";

/** One entry of `npm pack --json`'s `files`. */
export interface PackedFile {
  path: string;
  size: number;
}

/** Top-level files besides dist/: npm's own (package.json, README) and the ones `files` names. */
const TOP_LEVEL = new Set(["package.json", "README.md", "CHANGELOG.md", "LICENSE"]);
const REQUIRED = ["package.json", "README.md", "CHANGELOG.md", "docs/pod.md", "examples/quickstart/index.ts"];
/** The guides: docs/ pages and their images, and the examples (programs a user copies, with their READMEs). */
const GUIDES = /^(docs\/[a-z0-9-]+\.md|docs\/images\/[a-z0-9-]+\.png|examples\/[a-z0-9-]+\/([A-Za-z0-9.-]+))$/;
/** The emulator console's browser files: served as they are, so no declaration twin and no map. */
const BROWSER_ASSETS = /^dist\/emulator\/console\/assets\/[a-z0-9-]+\.(js|css|svg)$/;

interface Manifest {
  main: string;
  types: string;
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
}

/** Every path the manifest points at (main, types, bin, each export condition), normalized. */
function manifestTargets(pkg: Manifest): string[] {
  const targets = [pkg.main, pkg.types, ...Object.values(pkg.bin)];
  for (const entry of Object.values(pkg.exports)) targets.push(...(typeof entry === "string" ? [entry] : Object.values(entry)));
  return targets.map((t) => path.posix.normalize(t));
}

/** The file part of each relative link of a Markdown page, outside code blocks (`[text](target#anchor)`). */
export function relativeLinks(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```$/gm, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split("#")[0]!)
    .filter((t) => t !== "" && !/^[a-z]+:/.test(t));
}

/** Throws, naming the file and the rule, unless the packed list is exactly what a user needs. */
export function checkTarball(files: PackedFile[], root: string): void {
  const paths = new Set(files.map((f) => f.path));
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as Manifest;
  for (const p of paths) {
    if (BROWSER_ASSETS.test(p)) {
      const text = fs.readFileSync(path.join(root, p), "utf8");
      assert.ok(!text.includes("sourceMappingURL"), `tarball: ${p} points at a source map that is not shipped`);
    } else if (p.startsWith("dist/")) {
      assert.match(p, /\.(d\.ts|js)$/, `tarball: ${p} is neither JavaScript nor a declaration (a source map or a stray file)`);
      const twin = p.endsWith(".d.ts") ? p.replace(/\.d\.ts$/, ".js") : p.replace(/\.js$/, ".d.ts");
      assert.ok(paths.has(twin), `tarball: ${p} has no ${twin}`);
      if (p.endsWith(".js")) {
        const text = fs.readFileSync(path.join(root, p), "utf8");
        assert.ok(!text.includes("sourceMappingURL"), `tarball: ${p} points at a source map that is not shipped`);
      }
    } else if (!GUIDES.test(p)) {
      assert.ok(TOP_LEVEL.has(p), `tarball: ${p} is outside dist/, docs/ and examples/ and not one of ${[...TOP_LEVEL].join(", ")}`);
    }
  }
  for (const page of [...paths].filter((p) => p.endsWith(".md"))) {
    for (const target of relativeLinks(fs.readFileSync(path.join(root, page), "utf8"))) {
      const file = path.posix.normalize(path.posix.join(path.posix.dirname(page), target));
      assert.ok(paths.has(file), `tarball: ${page} links to ${target}, which is not packed (a dead link for a package user)`);
    }
  }
  for (const p of REQUIRED) assert.ok(paths.has(p), `tarball: ${p} is missing`);
  for (const t of manifestTargets(pkg).filter((x) => x !== "package.json")) {
    assert.ok(paths.has(t), `tarball: package.json points at ${t}, which is not packed`);
  }
}

// Lets the repo's Node 22 run the demo, the benchmarks and a doc's example straight from
// TypeScript: each .ts file is compiled on require by Babel (the same setup jest uses,
// scripts/babel-ts.js), types stripped, CommonJS out. Type checking is `npm run typecheck`'s
// job, not this hook's.
//
// Top-level `await` (a doc's example saved as a file uses it): CommonJS has none, and Node,
// handed a CommonJS module with an `await` at its top, silently loads nothing and exits 0. So
// a file with a top-level `await` runs as the body of an async function instead: its imports
// and exports work as before, a rejection prints the error and exits 1, and a top-level await
// that never settles (nothing left to wait for) exits 13 naming the file, as Node does for an
// ES module.
"use strict";
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const options = require("./babel-ts.js");

// The demo, each example and the package test start a dozen node processes apiece (the plugin,
// the program of each phase), each loading Pulumi's SDK and TypeScript again: with Node's compile
// cache on disk they share the compiled code, as jest's runs do (jest.config.js; the same folder).
// A cache the user set is kept.
const CACHE = path.join(__dirname, "..", "node_modules", ".cache");
process.env.NODE_COMPILE_CACHE ??= path.join(CACHE, "node-compile-cache");
require("node:module").enableCompileCache?.(process.env.NODE_COMPILE_CACHE);

// Babel's output, kept on disk by what went in: the file's name and text, and this hook's and
// the Babel setup's own text and versions. Loading the emulator and the engine harness is 130
// files; compiling them again took each run (an example, the demo, the package test) seconds of
// CPU before it did anything, and Babel itself is loaded only when something is not cached.
const TRANSFORMS = path.join(CACHE, "register-ts");
const SALT = [__filename, path.join(__dirname, "babel-ts.js")]
  .map((f) => fs.readFileSync(f, "utf8"))
  .concat(["@babel/core", "@babel/preset-typescript", "@babel/plugin-transform-modules-commonjs", "@babel/plugin-transform-export-namespace-from"].map((p) => require(`${p}/package.json`).version))
  .join("\0");

// Babel writes an inline source map into each compiled file; Node reads it only when source
// maps are on (as `--enable-source-maps` would set), so a stack trace names the .ts line that
// threw rather than a line of Babel's output.
process.setSourceMapsEnabled(true);

/** A Babel plugin that notes, in the file's metadata, whether an `await` sits outside every function. */
function noteTopLevelAwait() {
  const mark = (path, state) => {
    if (!path.getFunctionParent()) state.file.metadata.topLevelAwait = true;
  };
  return {
    visitor: {
      AwaitExpression: mark,
      ForOfStatement(path, state) {
        if (path.node.await) mark(path, state);
      },
    },
  };
}

/** Compiles a module's TypeScript to CommonJS; `topLevelAwait` says whether it awaits outside any function. */
function compile(source, filename) {
  const key = crypto.createHash("sha256").update(`${SALT}\0${filename}\0${source}`).digest("hex");
  const file = path.join(TRANSFORMS, `${key}.json`);
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    // Not cached yet (or a torn write, which the rename below rules out): compile.
  }
  const { code, metadata } = require("@babel/core").transformSync(source, { ...options, filename, plugins: [noteTopLevelAwait, ...options.plugins] });
  const out = { code, topLevelAwait: metadata.topLevelAwait === true };
  try {
    // Written whole under another name, then renamed: processes started side by side read a
    // complete entry or none.
    fs.mkdirSync(TRANSFORMS, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(out));
    fs.renameSync(tmp, file);
  } catch {
    // A read-only checkout runs uncached.
  }
  return out;
}

const pending = new Set();
process.on("beforeExit", () => {
  if (pending.size === 0) return;
  process.stderr.write(`Error: top-level await never settled in ${[...pending].join(", ")} (nothing was left to wait for)\n`);
  process.exit(13);
});

/**
 * The module's code as the body of an async function, on the same lines (the opening goes on
 * line 1, the closing after the last line and before the source map), so the map still holds.
 */
function asAsyncBody(code, filename) {
  const at = code.lastIndexOf("\n//# sourceMappingURL=");
  const [body, map] = at === -1 ? [code, ""] : [code.slice(0, at), code.slice(at)];
  const file = JSON.stringify(filename);
  return (
    `"use strict"; __registerTs.pending.add(${file}); (async () => {${body.replace(/^"use strict";/, "")}\n})().then(` +
    `() => { __registerTs.pending.delete(${file}); }, ` +
    `(err) => { __registerTs.pending.delete(${file}); process.exitCode = 1; console.error(err); });${map}`
  );
}

globalThis.__registerTs = { pending };

require.extensions[".ts"] = (module, filename) => {
  const { code, topLevelAwait } = compile(fs.readFileSync(filename, "utf8"), filename);
  module._compile(topLevelAwait ? asAsyncBody(code, filename) : code, filename);
};

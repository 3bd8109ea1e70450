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
const fs = require("node:fs");
const { transformSync } = require("@babel/core");
const options = require("./babel-ts.js");

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
  const { code, metadata } = transformSync(source, { ...options, filename, plugins: [noteTopLevelAwait, ...options.plugins] });
  return { code, topLevelAwait: metadata.topLevelAwait === true };
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

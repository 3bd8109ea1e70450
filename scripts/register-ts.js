// Lets the repo's Node 22 run the demo and the benchmarks straight from TypeScript: each .ts
// file is compiled on require by Babel (the same setup jest uses, scripts/babel-ts.js), types
// stripped, CommonJS out. Type checking is `npm run typecheck`'s job, not this hook's.
"use strict";
const fs = require("node:fs");
const { transformSync } = require("@babel/core");
const options = require("./babel-ts.js");

// Babel writes an inline source map into each compiled file; Node reads it only when source
// maps are on (as `--enable-source-maps` would set), so a stack trace names the .ts line that
// threw rather than a line of Babel's output.
process.setSourceMapsEnabled(true);

require.extensions[".ts"] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, "utf8"), { ...options, filename });
  module._compile(code, filename);
};

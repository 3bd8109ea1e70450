// Lets the repo's Node 22 run the demo and the benchmarks straight from TypeScript: each .ts
// file is compiled on require by Babel (the same setup jest uses, scripts/babel-ts.js), types
// stripped, CommonJS out. Type checking is `npm run typecheck`'s job, not this hook's.
"use strict";
const fs = require("node:fs");
const { transformSync } = require("@babel/core");
const options = require("./babel-ts.js");

require.extensions[".ts"] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, "utf8"), { ...options, filename });
  module._compile(code, filename);
};

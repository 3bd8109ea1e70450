// Lets `node` run the TypeScript sources directly (for `npm run soak`): .ts files are compiled
// by @swc/core on require, as jest's transform does, with the same options. Types are not
// checked here; `npm run typecheck` does that.
"use strict";
const fs = require("node:fs");
const swc = require("@swc/core");

require.extensions[".ts"] = (module, filename) => {
  const { code } = swc.transformSync(fs.readFileSync(filename, "utf8"), {
    filename,
    jsc: { parser: { syntax: "typescript" }, target: "es2023" },
    module: { type: "commonjs" },
    sourceMaps: "inline",
  });
  module._compile(code, filename);
};

// Lets the repo's Node 22 run the demo and the engine harness straight from TypeScript: each
// .ts file is compiled on require by @swc/core (the compiler jest already uses here), types
// stripped, CommonJS out. Type checking is `npm run typecheck`'s job, not this hook's.
"use strict";
const fs = require("node:fs");
const { transformSync } = require("@swc/core");

require.extensions[".ts"] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, "utf8"), {
    filename,
    jsc: { parser: { syntax: "typescript" }, target: "es2023" },
    module: { type: "commonjs" },
    sourceMaps: "inline",
  });
  module._compile(code, filename);
};

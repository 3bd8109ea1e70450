// `npm run bench`: the benchmarks are TypeScript, like the tests; the repo's require hook
// (Babel, types stripped, nothing written to disk) runs them on the repo's Node 22.
"use strict";
require("../scripts/register-ts.js");

// `node bench/run.js` runs on whatever `node` is first on PATH. On one older than the package
// needs, every request failed as undici would not load (issue 50 took it for a failure at scale):
// refuse at once, naming the way to the repository's own Node.
try {
  require("../src/client/core/runtime.ts").requireSupportedNode();
} catch (err) {
  console.error(`${err.message}: \`npm run bench -- <options>\` or \`npx node bench/run.js <options>\` use the repository's.`);
  process.exit(1);
}

require("./main.ts")
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );

// `npm run bench`: the benchmarks are TypeScript, like the tests; the repo's require hook
// (Babel, types stripped, nothing written to disk) runs them on the repo's Node 22.
"use strict";
require("../scripts/register-ts.js");

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

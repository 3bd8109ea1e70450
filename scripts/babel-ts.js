// One Babel setup for everything that runs TypeScript straight from source (jest, the demo,
// the benchmarks, a doc's example saved as a .ts file): types stripped, ES modules to CommonJS,
// nothing else. Babel is pure JavaScript, so `npm ci` needs no platform binary; the registry
// these machines reach serves only the linux builds of native packages, and a lock file without
// the other platforms' optional binaries makes `npm ci` refuse to install. Type checking is
// `npm run typecheck`.
//
// Presets and plugins are resolved from this file, not from the working directory (Babel's
// default), so `node --require <repo>/scripts/register-ts.js file.ts` works from any folder.
"use strict";
module.exports = {
  babelrc: false,
  configFile: false,
  sourceMaps: "inline",
  presets: [[require.resolve("@babel/preset-typescript"), { allowDeclareFields: true, onlyRemoveTypeImports: false }]],
  plugins: [require.resolve("@babel/plugin-transform-export-namespace-from"), require.resolve("@babel/plugin-transform-modules-commonjs")],
};

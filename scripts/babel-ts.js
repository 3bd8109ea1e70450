// One Babel setup for everything that runs TypeScript straight from source (jest, the demo,
// the benchmarks): types stripped, ES modules to CommonJS, nothing else. Babel is pure
// JavaScript, so `npm ci` needs no platform binary; the registry these machines reach serves
// only the linux builds of native packages, and a lock file without the other platforms'
// optional binaries makes `npm ci` refuse to install. Type checking is `npm run typecheck`.
"use strict";
module.exports = {
  babelrc: false,
  configFile: false,
  sourceMaps: "inline",
  presets: [["@babel/preset-typescript", { allowDeclareFields: true, onlyRemoveTypeImports: false }]],
  plugins: ["@babel/plugin-transform-export-namespace-from", "@babel/plugin-transform-modules-commonjs"],
};

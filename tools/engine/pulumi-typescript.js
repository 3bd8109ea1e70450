// Loaded with `node --require` into a process that runs an example's index.ts: compiles
// TypeScript the way `pulumi up` does. This is the registration of @pulumi/pulumi's
// cmd/run/run.js (CommonJS path), with its own helpers: the project's tsconfig.json read by
// Pulumi's reader, the project's `typescript`/`ts-node` if installed, else the ones Pulumi
// vendors (TypeScript 3.8, ts-node 7), and type checking unless PULUMI_NODEJS_TRANSPILE_ONLY
// is "true" or the tsconfig says `noCheck`.
"use strict";
const path = require("node:path");

const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [process.cwd()] }));
const tsutils = require(path.join(pulumiDir, "tsutils"));

const tsConfigPath = process.env.PULUMI_NODEJS_TSCONFIG_PATH ?? "tsconfig.json";
const compilerOptions = tsutils.loadTypeScriptCompilerOptions(tsConfigPath);
const { tsnodeRequire, typescriptRequire } = tsutils.typeScriptRequireStrings();
const transpileOnlyEnv = process.env.PULUMI_NODEJS_TRANSPILE_ONLY;
const transpileOnly = transpileOnlyEnv ? transpileOnlyEnv === "true" : compilerOptions.noCheck;
const ts = require(typescriptRequire);
const [major, minor] = ts.version.split(".").map(Number);
const useNodeNext = major > 4 || (major === 4 && minor >= 7);

require(tsnodeRequire).register({
  compiler: typescriptRequire,
  transpileOnly,
  project: tsConfigPath,
  skipProject: !require("node:fs").existsSync(tsConfigPath),
  compilerOptions: {
    target: "ES2020",
    module: useNodeNext ? "nodenext" : "commonjs",
    moduleResolution: useNodeNext ? "nodenext" : "node",
    sourceMap: "true",
    ...compilerOptions,
  },
});

// Babel strips types only (scripts/babel-ts.js); `npm run typecheck` (TypeScript 7, native)
// is the type check.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.(t|j)sx?$": ["babel-jest", require("./scripts/babel-ts.js")],
  },
  testTimeout: 30000,
};

// Lint with typescript-eslint's syntax rules (no type information: TypeScript 7 has no JS API,
// so the parser uses the `typescript` 6 package; the type check is `npm run typecheck`).
"use strict";
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");

module.exports = tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: {
        require: "readonly", module: "writable", process: "readonly", console: "readonly",
        Buffer: "readonly", __dirname: "readonly", __filename: "readonly", setTimeout: "readonly",
        clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly",
        setImmediate: "readonly", URL: "readonly", fetch: "readonly", AbortController: "readonly",
        AbortSignal: "readonly", TextEncoder: "readonly", TextDecoder: "readonly",
        structuredClone: "readonly", queueMicrotask: "readonly", performance: "readonly",
        Response: "readonly", Request: "readonly", Headers: "readonly", exports: "writable",
      },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-require-imports": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // The console's script runs in the browser, as a classic script.
    files: ["src/emulator/console/assets/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: {
        document: "readonly", location: "readonly", fetch: "readonly", FormData: "readonly",
        Element: "readonly", HTMLFormElement: "readonly", HTMLSelectElement: "readonly",
        setInterval: "readonly", JSON: "readonly",
      },
    },
  },
);

// Part of `npm run build`: the console's script and stylesheet are served as they are, so the
// TypeScript build does not emit them; they are copied beside the compiled console.
"use strict";
const { cpSync } = require("node:fs");
const { join } = require("node:path");

const root = join(__dirname, "..");
cpSync(join(root, "src/emulator/console/assets"), join(root, "dist/emulator/console/assets"), { recursive: true });

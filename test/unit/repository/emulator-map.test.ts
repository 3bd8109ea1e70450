// The emulator's map is one list (tools/layers/emulator-map.js): the lint holds the imports to it
// and docs/design.md shows it. This keeps the page equal to the list and the list whole: a folder
// of the emulator that no row names would be held by no rule.
import * as fs from "node:fs";
import * as path from "node:path";

const { EMULATOR_MAP, renderEmulatorMap } = require("../../../tools/layers/emulator-map") as {
  EMULATOR_MAP: { folder: string; imports: string[]; types: string[] }[];
  renderEmulatorMap(): string;
};

const ROOT = path.resolve(__dirname, "../../..");
const EMULATOR = path.join(ROOT, "src/emulator");

/** Every folder under src/emulator/ that holds source, as the map names them. */
function sourceFolders(dir = EMULATOR): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === "assets") continue;
    const full = path.join(dir, entry.name);
    if (fs.readdirSync(full).some((f) => f.endsWith(".ts"))) out.push(path.relative(EMULATOR, full).split(path.sep).join("/"));
    out.push(...sourceFolders(full));
  }
  return out.sort();
}

describe("the emulator's map", () => {
  it("is what docs/design.md shows, row for row", () => {
    const page = fs.readFileSync(path.join(ROOT, "docs/design.md"), "utf8");
    const shown = /<!-- emulator-map[^>]*-->\n([\s\S]*?)\n<!-- \/emulator-map -->/.exec(page);
    expect(shown).not.toBeNull();
    expect(shown![1]).toBe(renderEmulatorMap());
  });

  it("names every folder of the emulator, and only those", () => {
    const named = EMULATOR_MAP.map((row) => row.folder).filter((f) => f !== "top");
    expect([...named].sort()).toEqual(sourceFolders());
  });

  it("lets a folder import only rows below it, so the table is an order and no two folders meet in a cycle", () => {
    const order = EMULATOR_MAP.map((row) => row.folder);
    for (const [i, row] of EMULATOR_MAP.entries()) {
      for (const target of [...row.imports, ...row.types].filter((t) => t !== "*")) {
        expect({ folder: row.folder, target, below: order.indexOf(target) > i }).toEqual({ folder: row.folder, target, below: true });
      }
    }
  });
});

import { readFileSync } from "node:fs";
import { join } from "node:path";

/** One row of a README update-versus-replace table: its first cell and the verdict it states. */
export interface ReadmeRow {
  row: string;
  verdict: "replace" | "update";
}

/**
 * The rows of the README's update-versus-replace table of `kind` (the table after the line
 * `**<kind>**`). A verdict cell starts with "replaces" or "updates in place"; anything else fails.
 */
export function readmeTable(kind: string): ReadmeRow[] {
  const text = readFileSync(join(__dirname, "..", "..", "README.md"), "utf8");
  const start = text.indexOf(`\n**${kind}**\n`);
  if (start < 0) throw new Error(`README has no **${kind}** table`);
  const rows: ReadmeRow[] = [];
  let inTable = false;
  for (const line of text.slice(start).split("\n").slice(2)) {
    if (!line.startsWith("|")) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const [first, second] = line.split("|").slice(1, 3).map((c) => c.trim());
    if (first === "Property" || /^-+$/.test(first!)) continue;
    const verdict = second!.startsWith("replaces") ? "replace" : second!.startsWith("updates in place") ? "update" : undefined;
    if (!verdict) throw new Error(`README ${kind} row "${first}": verdict "${second}" is neither replaces nor updates in place`);
    rows.push({ row: first!, verdict });
  }
  return rows;
}

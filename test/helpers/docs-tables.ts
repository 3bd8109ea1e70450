import { readFileSync } from "node:fs";
import { join } from "node:path";

/** One row of a resource page's update-versus-replace table: its first cell and the verdict it states. */
export interface DocsRow {
  row: string;
  verdict: "replace" | "update" | "refuse";
}

/** `ServerlessEndpoint` -> `docs/serverless-endpoint.md`. */
export function docsPage(kind: string): string {
  return join(__dirname, "..", "..", "docs", `${kind.replace(/[A-Z]/g, (c, i) => (i ? "-" : "") + c.toLowerCase())}.md`);
}

/**
 * The rows of the update-versus-replace table on `kind`'s page under `docs/` (the table after
 * the heading `## Update or replace`). A verdict cell starts with "replaces", "updates in
 * place" or "refused at preview"; anything else fails.
 */
export function docsTable(kind: string): DocsRow[] {
  const file = docsPage(kind);
  const text = readFileSync(file, "utf8");
  const start = text.indexOf("\n## Update or replace\n");
  if (start < 0) throw new Error(`${file} has no "## Update or replace" section`);
  const rows: DocsRow[] = [];
  let inTable = false;
  for (const line of text.slice(start).split("\n").slice(2)) {
    if (!line.startsWith("|")) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const [first, second] = line.split("|").slice(1, 3).map((c) => c.trim());
    if (first === "Property" || /^-+$/.test(first!)) continue;
    const verdict = second!.startsWith("replaces")
      ? "replace"
      : second!.startsWith("updates in place")
        ? "update"
        : second!.startsWith("refused at preview")
          ? "refuse"
          : undefined;
    if (!verdict) throw new Error(`${file} row "${first}": verdict "${second}" is none of replaces, updates in place, refused at preview`);
    rows.push({ row: first!, verdict });
  }
  return rows;
}

/** The text of the `## Update or replace` section of `kind`'s page (its table and the notes after it). */
export function docsUpdateSection(kind: string): string {
  const text = readFileSync(docsPage(kind), "utf8");
  const start = text.indexOf("\n## Update or replace\n");
  if (start < 0) throw new Error(`${docsPage(kind)} has no "## Update or replace" section`);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

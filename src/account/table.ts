// The sweep as a text table: one row per object, largest first, then the totals and the notes.
import type { Sweep } from "./sweep";

const money = (n: number, digits: number) => `$${n.toFixed(digits)}`;

/** Columns padded to their widest cell; the money columns right-aligned. */
export function sweepTable(sweep: Sweep): string {
  const head = ["KIND", "ID", "NAME", "STATE", "OWNER", "$/HOUR", "$/MONTH", "COST"];
  const rows = sweep.objects.map((o) => [o.kind, o.id, o.name, o.state, o.owner.text, money(o.perHour, 4), money(o.perMonth, 2), o.cost]);
  const right = new Set([5, 6]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const { totals } = sweep;
  return [
    line(head),
    ...rows.map(line),
    "",
    `${totals.objects} object${totals.objects === 1 ? "" : "s"}: ${money(totals.perHour, 4)}/hour, ${money(totals.perMonth, 2)}/month at today's rate`,
    ...sweep.notes.map((n) => `note: ${n}`),
  ].join("\n");
}

import { DEFAULT_SHAPE, fmt, table } from "./common";
import { type FleetResult, runFleet } from "./fleet";

export async function main(argv: string[]): Promise<number> {
  const ns = (argv.find((a) => a.startsWith("--n="))?.slice(4) ?? "10,30,100").split(",").map(Number);
  const variants = (argv.find((a) => a.startsWith("--variants="))?.slice(11) ?? "provider,baseline").split(",") as ("provider" | "baseline")[];
  const rows: FleetResult[] = [];
  for (const n of ns) {
    for (const v of variants) {
      const r = await runFleet(DEFAULT_SHAPE, v, n, 300_000);
      rows.push(r);
      console.log(JSON.stringify(r));
    }
  }
  console.log(
    table(
      ["variant", "N", "wall s", "up s", "down s", "sent", "429", "LB s", "ratio"],
      rows.map((r) => [r.variant, r.pods, fmt(r.wallMs / 1000), fmt(r.upMs / 1000), fmt(r.downMs / 1000), r.sent, r.rejected429, fmt(r.lowerBoundMs / 1000), fmt(r.wallMs / r.lowerBoundMs, 2)]),
    ),
  );
  return 0;
}

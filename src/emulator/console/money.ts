// An account's money, from the meter that billing reads: the cost per hour of what runs now,
// what has been billed so far, and an SVG chart of cumulative spend over the emulator's clock. The
// chart is drawn by hand (a polyline and a few ticks): no script, no inline style.

import type { Segment } from "../core/meter";
import { html, raw, type Raw, table, usd } from "./html";
import type { AccountSource } from "./source";

const HOUR = 3_600_000;

/** USD a segment has accrued by `t`. */
export function accrued(s: Segment, t: number): number {
  if (s.charge) return s.from <= t ? s.rate : 0;
  const end = Math.min(s.to ?? t, t);
  return end > s.from ? (s.rate * (end - s.from)) / HOUR : 0;
}

export interface Money {
  /** USD per hour of the segments still open. */
  perHourNow: number;
  billed: number;
  /** Cumulative spend at evenly spaced instants from the first segment to now. */
  series: { t: number; usd: number }[];
  byResource: { resource: string; id: string; usd: number; perHour: number }[];
}

export function money(segments: Segment[], now: number, points = 60): Money {
  const perHourNow = segments.filter((s) => !s.charge && s.to === null).reduce((a, s) => a + s.rate, 0);
  const billed = segments.reduce((a, s) => a + accrued(s, now), 0);
  const start = segments.reduce((a, s) => Math.min(a, s.from), now);
  const series: Money["series"] = [];
  for (let i = 0; i <= points; i++) {
    const t = start + ((now - start) * i) / points;
    series.push({ t, usd: segments.reduce((a, s) => a + accrued(s, t), 0) });
  }
  const by = new Map<string, Money["byResource"][number]>();
  for (const s of segments) {
    const k = `${s.resource}/${s.id}`;
    const row = by.get(k) ?? { resource: s.resource, id: s.id, usd: 0, perHour: 0 };
    row.usd += accrued(s, now);
    if (!s.charge && s.to === null) row.perHour += s.rate;
    by.set(k, row);
  }
  return { perHourNow, billed, series, byResource: [...by.values()].sort((a, b) => b.usd - a.usd) };
}

const W = 720;
const H = 240;
const PAD = { left: 64, right: 16, top: 12, bottom: 36 };

/**
 * Minutes on the emulator's clock since the first charge on x (the clock billing runs on: a
 * `timeScale` speeds up pod states and rate-limit windows, not billing), USD on y.
 */
export function spendChart(series: Money["series"]): Raw {
  const t0 = series[0]?.t ?? 0;
  const spanMin = Math.max(((series.at(-1)?.t ?? t0) - t0) / 60_000, 1e-9);
  const top = Math.max(series.at(-1)?.usd ?? 0, 1e-6);
  const x = (t: number) => PAD.left + ((t - t0) / 60_000 / spanMin) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / top) * (H - PAD.top - PAD.bottom);
  const points = series.map((p) => `${x(p.t).toFixed(1)},${y(p.usd).toFixed(1)}`).join(" ");
  const yTicks = [0, 0.5, 1].map(
    (f) => html`<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(top * f).toFixed(1)}" y2="${y(top * f).toFixed(1)}"/>
<text class="tick" x="${PAD.left - 6}" y="${(y(top * f) + 4).toFixed(1)}" text-anchor="end">${usd(top * f, 4)}</text>`,
  );
  const xTicks = [0, 0.5, 1].map(
    (f) => html`<text class="tick" x="${(PAD.left + f * (W - PAD.left - PAD.right)).toFixed(1)}" y="${H - PAD.bottom + 16}" text-anchor="${f === 1 ? "end" : f === 0 ? "start" : "middle"}">${(spanMin * f).toFixed(1)} min</text>`,
  );
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Cumulative spend over time" data-points="${series.length}">
${yTicks}${xTicks}
<text class="axis" x="${(PAD.left + W - PAD.right) / 2}" y="${H - 4}" text-anchor="middle">minutes since the first charge (the emulator's clock)</text>
<polyline class="spend" fill="none" points="${points}"/>
</svg>`;
}

export function moneyPage(src: AccountSource): Raw {
  const m = money(src.segments(), src.now());
  const rows = m.byResource
    .slice(0, 50)
    .map(
      (r) => html`<tr><td>${r.resource}</td><td>${r.id}</td><td class="num">${usd(r.perHour, 4)}</td><td class="num">${usd(r.usd, 6)}</td></tr>`,
    );
  return html`<dl class="figures">
<div><dt>Cost per hour now</dt><dd data-figure="per-hour">${usd(m.perHourNow, 4)}</dd></div>
<div><dt>Billed so far</dt><dd data-figure="billed">${usd(m.billed, 6)}</dd></div>
</dl>
${spendChart(m.series)}
<h2>By resource${raw(m.byResource.length > 50 ? " (the 50 that cost most)" : "")}</h2>
${table(["Kind", "Id", "Cost/h now", "Billed"], rows, "Nothing billed yet.")}
<p class="hint">From the same meter as <code>GET /v2/billing</code>: pods from creation until stopped or terminated,
volumes from creation to deletion, serverless workers (<code>serverless</code>, one row per worker) from start until they
leave, one charge per hosted-model call.</p>`;
}

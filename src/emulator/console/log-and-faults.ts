// The request log page (newest first, filterable by status and by whether a key was sent, the
// keyed requests by default; 429s and injected faults marked, the console's own calls marked) and the faults page (what is in force, and the forms that
// set it through PATCH /emulator/faults).

import { DATA_CENTERS, GPU_TYPES } from "../catalog/data";
import type { RequestLogEntry } from "../core/request-log";
import { callButton, html, raw, type Raw, table } from "./html";
import type { ConsoleSource } from "./source";

export const STATUS_FILTERS = ["all", "2xx", "4xx", "429", "5xx", "faults", "console"] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];
/**
 * Whose requests the page shows. A stack's requests carry a key; anyone who can reach the port
 * can send keyless ones (each a 401), so the page shows the keyed ones unless asked: a flood of
 * keyless requests never pushes a stack's `createNetworkVolume` off it (the log keeps the two
 * apart as well, core/request-log.ts).
 */
export const WHO_FILTERS = ["keyed", "keyless", "everyone"] as const;
export type WhoFilter = (typeof WHO_FILTERS)[number];

/** Rows shown at most: the log keeps more, the page stays fast. */
const SHOWN = 300;

export function matches(e: RequestLogEntry, f: StatusFilter): boolean {
  switch (f) {
    case "all":
      return true;
    case "2xx":
      return e.status >= 200 && e.status < 300;
    case "4xx":
      return e.status >= 400 && e.status < 500;
    case "429":
      return e.status === 429;
    case "5xx":
      return e.status >= 500;
    case "faults":
      return e.fault !== undefined;
    case "console":
      return e.via === "console";
  }
}

const FAULT_LABELS: Record<NonNullable<RequestLogEntry["fault"]>, string> = {
  rate429: "injected 429",
  rate5xx: "injected 5xx",
  dropAfterProcess: "cut after processing",
  slow: "slowed",
};

function logRow(e: RequestLogEntry): Raw {
  const classes = [e.status === 429 ? "r429" : "", e.fault ? "fault" : "", e.status >= 500 ? "r5xx" : ""].filter(Boolean).join(" ");
  const marks = [e.fault ? FAULT_LABELS[e.fault] : "", e.status === 429 && !e.fault ? "quota" : "", e.via === "console" ? "console" : ""]
    .filter(Boolean)
    .map((m) => html`<span class="mark">${m}</span>`);
  return html`<tr class="${classes}" data-status="${e.status}" data-op="${e.op}"${raw(e.via ? ` data-via="${e.via}"` : "")}>
<td>${e.at.slice(11, 23)}</td><td>${e.method}</td><td>${e.path}</td><td class="num">${e.dropped ? "—" : e.status}</td>
<td>${e.op}</td><td>${e.key ?? "none"}</td><td>${marks}</td></tr>`;
}

const sentBy = (e: RequestLogEntry, who: WhoFilter): boolean => who === "everyone" || (e.key === null) === (who === "keyless");

export function logPage(src: ConsoleSource, filter: StatusFilter, who: WhoFilter = "keyed"): Raw {
  const all = src.requestLog();
  const kept = all.filter((e) => sentBy(e, who) && matches(e, filter)).reverse();
  const hidden = who === "keyed" ? all.filter((e) => e.key === null).length : 0;
  const aside = hidden > 0 ? `; ${hidden} sent without a key not shown (Sent by: everyone, or without a key)` : "";
  return html`<p class="summary" data-count="${kept.length}">${kept.length} of the ${all.length} requests the log holds
(newest first${raw(kept.length > SHOWN ? `, the first ${SHOWN} shown` : "")}${aside}). Keys appear by id (a fingerprint), never
themselves. Page views of the console are not logged; its sign-in, sign-out and controls are, marked console.</p>${table(
    ["Time (UTC)", "Method", "Path", "Status", "Operation", "Key id", "Marks"],
    kept.slice(0, SHOWN).map(logRow),
    "No requests match.",
  )}`;
}

const WHO_LABELS: Record<WhoFilter, string> = { keyed: "with a key", keyless: "without a key", everyone: "everyone" };

/** The filter form: a plain GET form, so it works without the script too. */
export function logControls(filter: StatusFilter, who: WhoFilter = "keyed"): Raw {
  const options = STATUS_FILTERS.map((f) => html`<option value="${f}"${raw(f === filter ? " selected" : "")}>${f}</option>`);
  const whoOptions = WHO_FILTERS.map((w) => html`<option value="${w}"${raw(w === who ? " selected" : "")}>${WHO_LABELS[w]}</option>`);
  return html`<form class="controls" method="get" action="/console/log">
<label for="status">Status</label> <select id="status" name="status" data-auto-submit>${options}</select>
<label for="who">Sent by</label> <select id="who" name="who" data-auto-submit>${whoOptions}</select>
<noscript><button type="submit">Filter</button></noscript>
</form>`;
}

export function faultsLive(src: ConsoleSource): Raw {
  const f = src.faults();
  const rates = [
    ["429 rate", `${f.rate429 * 100} %`],
    ["5xx rate", `${f.rate5xx * 100} %`],
    ["Cut after processing", `${f.dropAfterProcessRate * 100} %`],
    ["Slow answers", `${f.slowMs} ms`],
    ["Hosted-model job length", `${f.modelJobMs} ms`],
    ["Seed", String(f.seed)],
  ].map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`);
  const noCap = f.noCapacity.map((n, i) => {
    const rest = f.noCapacity.filter((_, j) => j !== i);
    return html`<li data-no-capacity="${n.gpuId}@${n.dataCenterId ?? "*"}">${n.gpuId} in ${n.dataCenterId ?? "every data center"}
${callButton("Remove", "PATCH", "/console/emulator/faults", { noCapacity: rest })}</li>`;
  });
  const images = f.errorImages.map((p, i) => {
    const rest = f.errorImages.filter((_, j) => j !== i);
    return html`<li data-error-image="${p}"><code>${p}</code> ${callButton("Remove", "PATCH", "/console/emulator/faults", { errorImages: rest })}</li>`;
  });
  return html`<dl class="figures">${rates}</dl>
<h2>No capacity</h2>${noCap.length ? html`<ul>${noCap}</ul>` : html`<p class="empty">Every GPU type has capacity everywhere.</p>`}
<h2>Error images</h2>${images.length ? html`<ul>${images}</ul>` : html`<p class="empty">No image fails to start.</p>`}
<p>${callButton("Clear all faults", "DELETE", "/console/emulator/faults", null, true)}</p>`;
}

export function faultsControls(src: ConsoleSource): Raw {
  const f = src.faults();
  const gpus = GPU_TYPES.map((g) => html`<option value="${g.id}">${g.id}</option>`);
  const dcs = DATA_CENTERS.map((d) => html`<option value="${d.id}">${d.id}</option>`);
  const pct = (v: number) => String(Math.round(v * 1000) / 10);
  return html`<section class="controls">
<form data-form="rates">
<label>429 rate (%) <input name="rate429" type="number" min="0" max="100" step="0.1" value="${pct(f.rate429)}"></label>
<label>5xx rate (%) <input name="rate5xx" type="number" min="0" max="100" step="0.1" value="${pct(f.rate5xx)}"></label>
<label>Cut after processing (%) <input name="dropAfterProcessRate" type="number" min="0" max="100" step="0.1" value="${pct(f.dropAfterProcessRate)}"></label>
<label>Slow answers (ms) <input name="slowMs" type="number" min="0" step="1" value="${f.slowMs}"></label>
<button type="submit">Set rates</button>
</form>
<form data-form="noCapacity">
<label>No capacity for <select name="gpuId">${gpus}</select></label>
<label>in <select name="dataCenterId"><option value="">every data center</option>${dcs}</select></label>
<button type="submit">Add</button>
</form>
<form data-form="errorImages">
<label>Pods whose image matches <input name="pattern" type="text" placeholder="regular expression, e.g. :broken$" required></label>
<button type="submit">go to ERROR</button>
</form>
</section>`;
}

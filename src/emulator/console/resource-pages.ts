// The console's resource pages: pods, endpoints, network volumes, templates and registry
// credentials, each item with its id linking to its JSON. Only the live part is built here;
// ./html.ts puts the frame around it. Rows carry data-* attributes so a script (or a test)
// can find an item without parsing text.

import { GPU_TYPES, volumePricePerHour } from "../catalog/data";
import type { PodView } from "../pods/store";
import type { ReleasesView } from "../serverless/rest/endpoints";
import type { EndpointView } from "../serverless/service";
import { eventButton, html, jsonLink, type Raw, table, usd } from "./html";
import type { AccountSource } from "./source";

function compute(p: PodView): string {
  if (p.gpu) return `${p.gpu.count} × ${p.gpu.id}`;
  return p.cpu ? `${p.cpu.vcpuCount} vCPU ${p.cpu.id} (${p.cpu.memory} GB)` : "";
}

function mounts(p: PodView): string {
  const net = p.mounts.network?.[0];
  if (net) return `${net.volumeId} at ${net.path}`;
  if (p.mounts.persistent) return `${p.mounts.persistent.size} GB at ${p.mounts.persistent.path}`;
  return "none";
}

/** Emulated seconds as "2 h 5 min", "3 min 20 s", "12 s". */
export function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s} s`;
  return `${s} s`;
}

/** `own`: the pod is on the signed-in key's account, the one the console's outside events act on. */
function podRow(p: PodView, own: boolean): Raw {
  const terminate = own && p.status !== "TERMINATED";
  const stop = p.status !== "EXITED" && terminate;
  return html`<tr data-pod-id="${p.id}" data-status="${p.status}" data-dc="${p.dataCenterId ?? ""}" data-gpu="${p.gpu?.id ?? ""}">
<td>${p.name}</td><td>${jsonLink("pods", p.id)}</td><td><span class="status s-${p.status}">${p.status}</span></td>
<td>${compute(p)}</td><td>${p.dataCenterId ?? ""}</td><td class="num">${usd(p.cost)}</td>
<td class="num">${p.runtime ? duration(p.runtime.uptime) : "—"}</td><td>${mounts(p)}</td><td>${p.locked ? "locked" : ""}</td>
<td class="actions">${stop ? eventButton("Stop (host gone)", "stopPod") : ""}${
    terminate ? eventButton("Terminate", "terminatePod", true) : ""
  }</td></tr>`;
}

export function podsPage(src: AccountSource, showTerminated: boolean, own = true): Raw {
  const all = src.pods();
  const shown = showTerminated ? all : all.filter((p) => p.status !== "TERMINATED");
  const terminated = all.length - all.filter((p) => p.status !== "TERMINATED").length;
  const toggle = showTerminated
    ? html`<a href="/console/pods">hide TERMINATED</a>`
    : html`<a href="/console/pods?terminated=1">show ${terminated} TERMINATED</a>`;
  const rows = shown.map((p) => podRow(p, own));
  return html`<p class="summary" data-count="${shown.length}">${shown.length} pods · ${toggle}</p>${table(
    ["Name", "Id", "Status", "Compute", "Data center", "Cost/h", "Uptime", "Mounts", "Lock", "Outside events"],
    rows,
    "No pods.",
  )}`;
}

const TIER_PRICES = new Map<string, number[]>();
for (const g of GPU_TYPES) if (g.pool) TIER_PRICES.set(g.pool, [...(TIER_PRICES.get(g.pool) ?? []), g.price.secure]);

/** USD per hour at `workersMin` on the cheapest GPU of the tiers to `workersMax` on the dearest, `gpuCount` GPUs a worker. */
export function endpointCostRange(e: EndpointView): { min: number; max: number } {
  const prices = e.gpuIds.split(",").flatMap((tier) => TIER_PRICES.get(tier) ?? []);
  if (prices.length === 0) return { min: 0, max: 0 };
  return { min: e.workersMin * e.gpuCount * Math.min(...prices), max: e.workersMax * e.gpuCount * Math.max(...prices) };
}

/** "done" or how far the rollout is: the workers on the latest version of all listed. */
function rolloutText(r: ReleasesView["rollout"]): string {
  const part = `${r.workersOnLatest} of ${r.workersTotal} workers on the latest (${r.percentOnLatest}%)`;
  return r.inProgress ? `rolling out: ${part}` : `done: ${part}`;
}

function endpointRow(src: AccountSource, e: EndpointView, own: boolean): Raw {
  const by = (s: string) => e.pods.filter((w) => w.desiredStatus === s).length;
  const range = endpointCostRange(e);
  const rel = src.endpointReleases(e.id);
  return html`<tr data-endpoint-id="${e.id}" data-version="${rel.endpointVersion}" data-rollout="${rel.rollout.inProgress ? "in-progress" : "done"}">
<td>${e.name}</td><td>${jsonLink("endpoints", e.id)}</td>
<td class="num">v${rel.endpointVersion}</td><td>${rolloutText(rel.rollout)}</td>
<td>${by("RUNNING")} running, ${by("STARTING")} starting, ${by("EXITED")} draining</td>
<td class="num">${e.workersMin}</td><td class="num">${e.workersMax}</td><td>${e.gpuCount} × ${e.gpuIds.split(",").join(", ")}</td>
<td class="num">${usd(range.min)} – ${usd(range.max)}</td>
<td class="actions">${own ? eventButton("Delete (outside)", "deleteEndpoint", true) : ""}</td></tr>`;
}

/** An endpoint's queue, workers by state, spend so far and recent jobs, each job's answer one click away. */
function endpointJobsSection(src: AccountSource, e: EndpointView): Raw {
  const { health, recent } = src.endpointJobs(e.id);
  const now = src.now();
  const spent = src
    .segments()
    .filter((s) => s.resource === "serverless" && s.id.startsWith(`${e.id}-w`))
    .reduce((a, s) => a + (Math.max(0, Math.min(s.to ?? now, now) - s.from) * s.rate) / 3_600_000, 0);
  const rows = recent.map(
    (j) => html`<tr data-job-id="${j.answer.id}"><td>${new Date(j.submittedAt).toISOString()}</td><td>${j.answer.status}</td><td><code>${j.answer.workerId ?? ""}</code></td>
<td><details><summary>${j.answer.id}</summary><pre>${JSON.stringify(j.answer, null, 2)}</pre></details></td></tr>`,
  );
  const q = health.jobs;
  const w = health.workers;
  return html`<section class="endpoint-jobs" data-endpoint-id="${e.id}"><h2>${e.name} <code>${e.id}</code></h2>
<p data-queue="${q.inQueue}">Queue: ${q.inQueue} waiting, ${q.inProgress} running; ${q.completed} completed, ${q.failed} failed, ${q.retried} retried.
Workers: ${w.initializing} initializing, ${w.idle} idle, ${w.running} running, ${w.unhealthy} unhealthy. Spent: <span data-figure="spent">${usd(spent, 6)}</span>.</p>
${releasesPart(src.endpointReleases(e.id))}
${table(["Submitted", "Status", "Worker", "Job (click for its answer)"], rows, "No jobs yet.")}</section>`;
}

/** A diff entry as one line: `field: old → new`, values as JSON (env as its names only). */
const diffLine = (d: ReleasesView["releases"][number]["diff"][number]) => html`<li><code>${d.field}</code>: ${JSON.stringify(d.old)} → ${JSON.stringify(d.new)}</li>`;

/** The endpoint's version, its rollout's progress and its releases (newest first) with their diffs. */
function releasesPart(rel: ReleasesView): Raw {
  const rows = rel.releases
    .slice(0, 10)
    .map(
      (r) => html`<tr data-release-version="${r.version}"><td class="num">v${r.version}</td><td>${r.createdAt}</td><td class="num">${r.workerCount}</td>
<td>${r.diff.length === 0 ? "created" : html`<ul class="diff">${r.diff.map(diffLine)}</ul>`}</td></tr>`,
    );
  const more = rel.releases.length > 10 ? ` (the newest 10 of ${rel.releases.length}; all in listEndpointReleases)` : "";
  return html`<p data-rollout="${rel.rollout.inProgress ? "in-progress" : "done"}" data-percent="${rel.rollout.percentOnLatest}">Version <strong>v${rel.endpointVersion}</strong>, ${rolloutText(rel.rollout)}.
Releases${more}:</p>
${table(["Version", "Created", "Workers on it", "What changed"], rows, "No releases.")}`;
}

export function endpointsPage(src: AccountSource, own = true): Raw {
  const list = src.endpoints();
  return html`<p class="summary" data-count="${list.length}">${list.length} serverless endpoints. Cost range: workersMin on
the cheapest GPU of the tiers to workersMax on the dearest, at list price; workers bill gpuCount × their tier's price while they run.</p>${table(
    ["Name", "Id", "Version", "Rollout", "Workers", "workersMin", "workersMax", "GPU tiers", "Cost/h", "Outside events"],
    list.map((e) => endpointRow(src, e, own)),
    "No serverless endpoints.",
  )}${list.map((e) => endpointJobsSection(src, e))}`;
}

export function volumesPage(src: AccountSource): Raw {
  const list = src.volumes();
  const rows = list.map(
    (v) => html`<tr data-volume-id="${v.id}"><td>${v.name}</td><td>${jsonLink("volumes", v.id)}</td><td>${v.dataCenter}</td>
<td class="num">${v.size} GB</td><td>${v.type}</td><td class="num">${usd(volumePricePerHour(v.size, v.type), 4)}</td></tr>`,
  );
  return html`<p class="summary" data-count="${list.length}">${list.length} network volumes.</p>${table(
    ["Name", "Id", "Data center", "Size", "Type", "Cost/h"],
    rows,
    "No network volumes.",
  )}`;
}

export function templatesPage(src: AccountSource): Raw {
  const list = src.templates();
  const rows = list.map(
    (t) => html`<tr data-template-id="${t.id}"><td>${t.name}</td><td>${jsonLink("templates", t.id)}</td><td>${t.image}</td>
<td>${t.serverless ? "serverless" : "pod"}</td><td class="num">${t.disk} GB</td><td>${t.ports.join(", ")}</td><td>${t.registry ?? ""}</td></tr>`,
  );
  return html`<p class="summary" data-count="${list.length}">${list.length} templates.</p>${table(
    ["Name", "Id", "Image", "For", "Disk", "Ports", "Registry"],
    rows,
    "No templates.",
  )}`;
}

export function registriesPage(src: AccountSource): Raw {
  const list = src.registries();
  const rows = list.map((r) => html`<tr data-registry-id="${r.id}"><td>${r.name}</td><td>${jsonLink("registries", r.id)}</td></tr>`);
  return html`<p class="summary" data-count="${list.length}">${list.length} registry credentials. The emulator checks a
credential's username and password when it is made and keeps neither, so neither can be shown.</p>${table(
    ["Name", "Id"],
    rows,
    "No registry credentials.",
  )}`;
}

/** The JSON the API answers for one item, or undefined. */
export function itemJson(src: AccountSource, kind: string, id: string): unknown {
  switch (kind) {
    case "pods":
      return src.pods().find((p) => p.id === id);
    case "endpoints":
      return src.endpoints().find((e) => e.id === id);
    case "volumes":
      return src.volumes().find((v) => v.id === id);
    case "templates":
      return src.templates().find((t) => t.id === id);
    case "registries":
      return src.registries().find((r) => r.id === id);
    default:
      return undefined;
  }
}

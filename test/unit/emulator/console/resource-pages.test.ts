// The console's resource pages (docs/emulator.md, "The console"): each item with its id linking
// to its JSON; TERMINATED pods on request; outside-event buttons on the signed-in account's rows
// only; an endpoint's cost range, version, rollout and newest releases; no credential shown.
import type { AccountSource } from "../../../../src/emulator/console/source";
import {
  duration,
  endpointCostRange,
  endpointsPage,
  itemJson,
  podsPage,
  registriesPage,
  templatesPage,
  volumesPage,
} from "../../../../src/emulator/console/resource-pages";
import type { PodView } from "../../../../src/emulator/pods/types";
import type { EndpointView } from "../../../../src/emulator/serverless/service";
import type { ReleasesView } from "../../../../src/emulator/serverless/rest/endpoints";

const pod = (id: string, status: string, over: object = {}) =>
  ({
    id,
    name: `name-${id}`,
    status,
    gpu: { id: "NVIDIA GeForce RTX 4090", count: 2 },
    dataCenterId: "US-TX-3",
    cost: 1.38,
    runtime: { uptime: 3725 },
    mounts: {},
    locked: false,
    ...over,
  }) as unknown as PodView;

const endpoint = (over: object = {}) =>
  ({ id: "e1", name: "gen", gpuIds: "ADA_24,AMPERE_80", gpuCount: 2, workersMin: 1, workersMax: 3, pods: [], ...over }) as unknown as EndpointView;

const releases = (n: number, inProgress = false): ReleasesView => ({
  endpointVersion: n,
  rollout: { inProgress, workersOnLatest: 1, workersTotal: 2, percentOnLatest: 50 } as ReleasesView["rollout"],
  releases: Array.from({ length: n }, (_, i) => ({
    id: `r${n - i}`,
    version: n - i,
    source: "MANUAL" as const,
    buildId: null,
    createdByUserId: null,
    workerCount: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    diff: n - i === 1 ? [] : [{ field: "workers.max", old: 2, new: 3 }],
  })) as ReleasesView["releases"],
});

function account(over: Partial<AccountSource> = {}): AccountSource {
  return {
    name: "default",
    pods: () => [],
    endpoints: () => [],
    endpointJobs: () => ({
      health: { jobs: { inQueue: 0, inProgress: 0, completed: 0, failed: 0, retried: 0 }, workers: { initializing: 0, idle: 0, running: 0, unhealthy: 0 } },
      recent: [],
    }) as unknown as ReturnType<AccountSource["endpointJobs"]>,
    endpointReleases: () => releases(1),
    volumes: () => [],
    templates: () => [],
    registries: () => [],
    segments: () => [],
    now: () => 0,
    ...over,
  };
}

const ids = (page: string, attr: string) => [...page.matchAll(new RegExp(`${attr}="([^"]+)"`, "g"))].map((m) => m[1]);

test.each([
  [0, "0 s"],
  [59.9, "59 s"],
  [200, "3 min 20 s"],
  [3600, "1 h 0 min"],
  [7500, "2 h 5 min"],
])("%d emulated seconds read %s", (s, text) => {
  expect(duration(s)).toBe(text);
});

test("an endpoint's cost range: workersMin on the cheapest GPU of its tiers to workersMax on the dearest, gpuCount a worker", () => {
  // ADA_24: 0.69; AMPERE_80: 1.64 and 1.89
  const range = endpointCostRange(endpoint());
  expect(range.min).toBeCloseTo(1 * 2 * 0.69, 9);
  expect(range.max).toBeCloseTo(3 * 2 * 1.89, 9);
  expect(endpointCostRange(endpoint({ gpuIds: "HOPPER_141" }))).toEqual({ min: 0, max: 0 });
});

test("TERMINATED pods only on request; the toggle counts them", () => {
  const src = account({ pods: () => [pod("p1", "RUNNING"), pod("p2", "TERMINATED"), pod("p3", "EXITED")] });
  const hidden = podsPage(src, false).html;
  expect(ids(hidden, "data-pod-id")).toEqual(["p1", "p3"]);
  expect(hidden).toContain('<a href="/console/pods?terminated=1">show 1 TERMINATED</a>');
  expect(ids(podsPage(src, true).html, "data-pod-id")).toEqual(["p1", "p2", "p3"]);
});

test("a pod's row: compute, cost, uptime, mounts, lock; stop and terminate where they apply, on the own account only", () => {
  const src = account({
    pods: () => [
      pod("run", "RUNNING", { locked: true, mounts: { network: [{ volumeId: "v1", path: "/data" }] } }),
      pod("cpu", "EXITED", { gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 4, memory: 8 }, runtime: null, mounts: { persistent: { size: 20, path: "/w" } } }),
      pod("gone", "TERMINATED"),
    ],
  });
  const rows = podsPage(src, true).html.split("<tr data-pod-id=").slice(1);
  expect(rows[0]).toContain("<td>2 × NVIDIA GeForce RTX 4090</td><td>US-TX-3</td><td class=\"num\">$1.380</td>");
  expect(rows[0]).toContain('<td class="num">1 h 2 min</td><td>v1 at /data</td><td>locked</td>');
  expect(ids(rows[0], "data-event")).toEqual(["stopPod", "terminatePod"]);
  expect(rows[1]).toContain("<td>4 vCPU cpu3c (8 GB)</td>");
  expect(rows[1]).toContain('<td class="num">—</td><td>20 GB at /w</td>');
  expect(ids(rows[1], "data-event")).toEqual(["terminatePod"]);
  expect(ids(rows[2], "data-event")).toEqual([]);
  expect(ids(podsPage(src, true, false).html, "data-event")).toEqual([]);
});

test("what an item holds is escaped", () => {
  const page = podsPage(account({ pods: () => [pod("p1", "RUNNING", { name: "<img src=x onerror=alert(1)>" })] }), false).html;
  expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;");
  expect(page).not.toContain("<img");
});

test("the endpoints page: version, rollout, workers by status, cost range, and each endpoint's newest 10 releases", () => {
  const e = endpoint({ pods: [{ desiredStatus: "RUNNING" }, { desiredStatus: "RUNNING" }, { desiredStatus: "EXITED" }] });
  const page = endpointsPage(account({ endpoints: () => [e], endpointReleases: () => releases(12, true) })).html;
  expect(page).toContain('data-version="12" data-rollout="in-progress"');
  expect(page).toContain("rolling out: 1 of 2 workers on the latest (50%)");
  expect(page).toContain("2 running, 0 starting, 1 draining");
  expect(page).toContain('<td class="num">$1.380 – $11.340</td>');
  expect(ids(page, "data-release-version")).toEqual(["12", "11", "10", "9", "8", "7", "6", "5", "4", "3"]);
  expect(page).toContain("(the newest 10 of 12; all in listEndpointReleases)");
  expect(page).toContain("<code>workers.max</code>: 2 → 3");
  expect(ids(page, "data-event")).toEqual(["deleteEndpoint"]);
  expect(ids(endpointsPage(account({ endpoints: () => [e] }), false).html, "data-event")).toEqual([]);
});

test("an endpoint's spend so far is its workers' segments up to now, no other endpoint's", () => {
  const H = 3_600_000;
  const segments = [
    { resource: "serverless", id: "e1-w1", component: "serverlessGpu", rate: 1.38, from: 0, to: H },
    { resource: "serverless", id: "e1-w2", component: "serverlessGpu", rate: 1.38, from: H, to: null },
    { resource: "serverless", id: "e10-w1", component: "serverlessGpu", rate: 100, from: 0, to: null },
  ] as ReturnType<AccountSource["segments"]>;
  const page = endpointsPage(account({ endpoints: () => [endpoint()], segments: () => segments, now: () => 1.5 * H })).html;
  expect(page).toContain('<span data-figure="spent">$2.070000</span>');
});

test("volumes with their cost per hour; templates; registry credentials by id and name only", () => {
  const volumes = volumesPage(account({ volumes: () => [{ id: "v1", name: "data", dataCenter: "EU-RO-1", size: 720, type: "STANDARD" }] as never })).html;
  expect(volumes).toContain('<td class="num">720 GB</td><td>STANDARD</td><td class="num">$0.0700</td>');
  const templates = templatesPage(
    account({ templates: () => [{ id: "t1", name: "w", image: "img:1", serverless: true, disk: 20, ports: ["8888/http", "22/tcp"], registry: null }] as never }),
  ).html;
  expect(templates).toContain("<td>img:1</td>\n<td>serverless</td><td class=\"num\">20 GB</td><td>8888/http, 22/tcp</td><td></td>");
  const registries = registriesPage(account({ registries: () => [{ id: "r1", name: "hub", username: "u", password: "p" }] as never })).html;
  expect(ids(registries, "data-registry-id")).toEqual(["r1"]);
  expect(registries).not.toMatch(/<td>u<\/td>|<td>p<\/td>/);
  expect(volumesPage(account()).html).toContain("No network volumes.");
});

test("an item's JSON is found by kind and id; an unknown kind or id is none", () => {
  const p = pod("p1", "RUNNING");
  const src = account({ pods: () => [p], registries: () => [{ id: "r1", name: "hub" }] as never });
  expect(itemJson(src, "pods", "p1")).toBe(p);
  expect(itemJson(src, "registries", "r1")).toEqual({ id: "r1", name: "hub" });
  expect(itemJson(src, "pods", "p2")).toBeUndefined();
  expect(itemJson(src, "secrets", "p1")).toBeUndefined();
});

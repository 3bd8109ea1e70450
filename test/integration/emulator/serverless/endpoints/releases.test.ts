// Releases and rollouts over real HTTP (docs/emulator.md, "Releases and rollouts"): versions and
// diffs, which changes roll, stale workers replaced with a bounded surge, jobs served through a
// rollout, a rollout held by an image that cannot start. The clock moves only when a test moves
// it (emu.advanceClock), so a rollout of several worker start-ups takes milliseconds.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Emulator } from "../../../../../src/emulator";
import { createRegistry, createServerlessTemplate } from "../../../../helpers/emulator-fixtures";
import { client, FULL, start } from "../../../../helpers/emulator-rest";

const START = Date.UTC(2026, 5, 1, 10, 0, 0);
/** Emulated (and clock) ms a worker starts in. */
const STARTING = 1000;

let emu: Emulator;
const api = client(() => emu);

beforeAll(async () => {
  emu = await start({ clock: { now: () => START }, timings: { provisioningMs: 20, startingMs: STARTING, drainMs: 500, restartDelayMs: 20 } });
});

afterAll(async () => {
  await emu?.close();
});

afterEach(() => emu.setFaults({}));

async function endpoint(fields: Record<string, unknown> = {}): Promise<any> {
  const r = await api.post("/v2/serverless", {
    name: "roll",
    image: "worker:1",
    env: { TOKEN: "s3cret", MODEL: "m1" },
    gpu: { pools: ["ADA_24"], count: 1 },
    workers: { min: 0, max: 3 },
    scaling: { type: "REQUEST_COUNT", value: 1, idleTimeout: 600 },
    ...fields,
  });
  expect(r.status).toBe(201);
  return r.body;
}

const releases = async (id: string) => {
  const r = await api.get(`/v2/serverless/${id}/releases`);
  expect(r.status).toBe(200);
  return r.body;
};
const workers = async (id: string) => {
  const r = await api.get(`/v2/serverless/${id}/workers`);
  expect(r.status).toBe(200);
  return r.body;
};
const patch = async (id: string, body: unknown) => {
  const r = await api.patch(`/v2/serverless/${id}`, body);
  expect(r.status).toBe(200);
  return r.body;
};
const status = async (id: string, job: string) => (await api.get(`/v2/${id}/status/${job}`)).body;

async function graphql(query: string): Promise<any> {
  const r = await api.post("/graphql", { query });
  expect(r.body.errors).toBeUndefined();
  return r.body.data;
}

/** Workers by state: `v<version>:<status>[:stale]`, sorted, for a compact picture of a rollout. */
const picture = (w: any) => w.workers.map((x: any) => `v${x.version}:${x.status}${x.isStale ? ":stale" : ""}`).sort();

describe("versions and releases", () => {
  test("an endpoint starts at version 1 with one MANUAL release and no diff; its workers run version 1 and its image", async () => {
    const ep = await endpoint({ workers: { min: 1, max: 2 } });
    const r = await releases(ep.id);
    expect(r).toEqual({
      endpointVersion: 1,
      rollout: { inProgress: true, workersOnLatest: 0, workersTotal: 1, percentOnLatest: 0 },
      releases: [{ id: expect.any(String), version: 1, source: "MANUAL", buildId: null, createdByUserId: null, workerCount: 1, createdAt: new Date(emu.now()).toISOString(), diff: [] }],
    });
    emu.advanceClock(STARTING);
    const w = await workers(ep.id);
    expect(w.endpointVersion).toBe(1);
    expect(w.workers).toEqual([expect.objectContaining({ status: "IDLE", isStale: false, version: 1, image: "worker:1" })]);
    expect((await releases(ep.id)).rollout).toEqual({ inProgress: false, workersOnLatest: 1, workersTotal: 1, percentOnLatest: 100 });
  });

  test("each save that changes a field is a release, its diff in REST's names; a save that changes nothing is none", async () => {
    const ep = await endpoint();
    await patch(ep.id, { workers: { max: 5 }, scaling: { value: 2 }, timeout: 60000, name: "renamed" });
    await patch(ep.id, { workers: { max: 5 }, name: "renamed" }); // nothing changes
    await patch(ep.id, { gpu: { pools: ["ADA_24", "AMPERE_48"], count: 2 }, flashboot: "FLASHBOOT", dataCenterIds: ["US-TX-3"] });
    const r = await releases(ep.id);
    expect(r.endpointVersion).toBe(3);
    expect(r.releases.map((x: any) => x.version)).toEqual([3, 2, 1]);
    expect(new Set(r.releases.map((x: any) => x.id)).size).toBe(3);
    expect(r.releases[1].diff).toEqual([
      { field: "workers.max", old: 3, new: 5 },
      { field: "scaling.value", old: 1, new: 2 },
      { field: "timeout", old: 300000, new: 60000 },
      { field: "name", old: "roll", new: "renamed" },
    ]);
    expect(r.releases[0].diff).toEqual([
      { field: "gpu.pools", old: ["ADA_24"], new: ["ADA_24", "AMPERE_48"] },
      { field: "gpu.count", old: 1, new: 2 },
      { field: "flashboot", old: "OFF", new: "FLASHBOOT" },
      { field: "dataCenterIds", old: [], new: ["US-TX-3"] },
    ]);
  });

  test("a container field of a REST update is one release of the endpoint, env as sorted names only; the template's other endpoints release it too", async () => {
    const ep = await endpoint();
    // A GraphQL endpoint bound to the REST endpoint's template: the template is shared.
    const { templateId } = (await graphql(`{ myself { endpoints { id templateId } } }`)).myself.endpoints.find((e: any) => e.id === ep.id);
    const other = (await graphql(`mutation { saveEndpoint(input: { name: "other", gpuIds: "AMPERE_16", templateId: "${templateId}" }) { id } }`)).saveEndpoint;
    await patch(ep.id, { image: "worker:2", env: { TOKEN: "n3w", ADDED: "x", MODEL: "m1" }, workers: { max: 4 } });
    const mine = (await releases(ep.id)).releases[0];
    expect(mine).toMatchObject({ version: 2 });
    expect(mine.diff).toEqual([
      { field: "workers.max", old: 3, new: 4 },
      { field: "template.image", old: "worker:1", new: "worker:2" },
      { field: "template.env", old: ["MODEL", "TOKEN"], new: ["ADDED", "MODEL", "TOKEN"] },
    ]);
    expect(JSON.stringify(mine)).not.toMatch(/s3cret|n3w/);
    const theirs = await releases(other.id);
    expect(theirs.endpointVersion).toBe(2);
    expect(theirs.releases[0].diff).toEqual([
      { field: "template.image", old: "worker:1", new: "worker:2" },
      { field: "template.env", old: ["MODEL", "TOKEN"], new: ["ADDED", "MODEL", "TOKEN"] },
    ]);
  });

  test("PATCH /v2/templates/{id} releases on every endpoint bound to it; a change a release does not name (the name) releases nothing", async () => {
    const tpl = await createServerlessTemplate(emu.url, FULL, { image: "shared:1", ports: ["8000/http"], env: { B: "2", A: "1" } });
    const save = (name: string) => graphql(`mutation { saveEndpoint(input: { name: "${name}", gpuIds: "ADA_24", templateId: "${tpl}" }) { id } }`);
    const a = (await save("a")).saveEndpoint.id;
    const b = (await save("b")).saveEndpoint.id;
    expect((await api.patch(`/v2/templates/${tpl}`, { name: "renamed" })).status).toBe(200);
    expect((await releases(a)).endpointVersion).toBe(1);
    expect((await api.patch(`/v2/templates/${tpl}`, { image: "shared:2", args: "--fast", disk: 30, ports: ["8001/http"], env: { A: "1" } })).status).toBe(200);
    for (const id of [a, b]) {
      const r = await releases(id);
      expect(r.endpointVersion).toBe(2);
      expect(r.releases[0].diff).toEqual([
        { field: "template.image", old: "shared:1", new: "shared:2" },
        { field: "template.args", old: "", new: "--fast" },
        { field: "template.disk", old: 20, new: 30 },
        { field: "template.ports", old: ["8000/http"], new: ["8001/http"] },
        { field: "template.env", old: ["A", "B"], new: ["A"] },
      ]);
    }
  });

  test("a new value of an env variable alone is a release that rolls, naming the same variables on both sides and no value", async () => {
    const tpl = await createServerlessTemplate(emu.url, FULL, { image: "env:1", env: { TOKEN: "old-t0ken", MODEL: "a" } });
    const { id } = (await graphql(`mutation { saveEndpoint(input: { name: "env", gpuIds: "ADA_24", templateId: "${tpl}", workersMin: 1, workersMax: 1 }) { id } }`)).saveEndpoint;
    emu.advanceClock(STARTING);
    // The same env again, keys in another order: nothing changed, no release.
    expect((await api.patch(`/v2/templates/${tpl}`, { env: { MODEL: "a", TOKEN: "old-t0ken" } })).status).toBe(200);
    expect((await releases(id)).endpointVersion).toBe(1);
    expect((await api.patch(`/v2/templates/${tpl}`, { env: { MODEL: "a", TOKEN: "new-t0ken" } })).status).toBe(200);
    const after = await releases(id);
    expect(after.endpointVersion).toBe(2);
    expect(after.releases[0].diff).toEqual([{ field: "template.env", old: ["MODEL", "TOKEN"], new: ["MODEL", "TOKEN"] }]);
    expect(JSON.stringify(after)).not.toMatch(/t0ken/);
    expect(picture(await workers(id))).toEqual(["v1:IDLE:stale", "v2:INITIALIZING"]);
  });

  test("an endpoint made over GraphQL releases its saves, read over REST (gpu.pools, locations, template.id)", async () => {
    const t1 = await createServerlessTemplate(emu.url, FULL, { image: "g:1" });
    const t2 = await createServerlessTemplate(emu.url, FULL, { image: "g:2" });
    const { id } = (await graphql(`mutation { saveEndpoint(input: { name: "gql", gpuIds: "ADA_24", templateId: "${t1}", workersMin: 1, workersMax: 1 }) { id } }`)).saveEndpoint;
    emu.advanceClock(STARTING);
    // The same values again: no release.
    await graphql(`mutation { saveEndpoint(input: { id: "${id}", name: "gql", gpuIds: "ADA_24", templateId: "${t1}" }) { id } }`);
    expect((await releases(id)).endpointVersion).toBe(1);
    await graphql(`mutation { saveEndpoint(input: { id: "${id}", name: "gql", gpuIds: "AMPERE_48", templateId: "${t2}", locations: "US" }) { id } }`);
    const r = await releases(id);
    expect(r.releases[0].diff).toEqual([
      { field: "gpu.pools", old: ["ADA_24"], new: ["AMPERE_48"] },
      { field: "locations", old: null, new: "US" },
      { field: "template.id", old: t1, new: t2 },
    ]);
    // It rolls: the worker on version 1 is stale and one on version 2 (the new template's image) starts.
    const w = await workers(id);
    expect(w.workers.map((x: any) => [x.version, x.image, x.isStale, x.status])).toEqual([
      [1, "g:1", true, "IDLE"],
      [2, "g:2", false, "INITIALIZING"],
    ]);
    const pods = (await graphql(`{ myself { endpoints { id pods { id desiredStatus } } } }`)).myself.endpoints.find((e: any) => e.id === id).pods;
    expect(pods.map((p: any) => p.id)).toEqual(w.workers.map((x: any) => x.id));
  });

  test("releases are newest first and at most 50", async () => {
    const ep = await endpoint();
    for (let i = 0; i < 55; i++) await patch(ep.id, { scaling: { idleTimeout: 10 + i } });
    const r = await releases(ep.id);
    expect(r.endpointVersion).toBe(56);
    expect(r.releases).toHaveLength(50);
    expect(r.releases[0].version).toBe(56);
    expect(r.releases[49].version).toBe(7);
  });
});

describe("what rolls", () => {
  test("name, workers.*, scaling.* and timeout take effect at once: the workers move to the new version where they stand", async () => {
    const ep = await endpoint({ workers: { min: 2, max: 3 } });
    emu.advanceClock(STARTING);
    const before = await workers(ep.id);
    await patch(ep.id, { name: "n2", workers: { max: 4 }, scaling: { type: "QUEUE_DELAY", value: 3, idleTimeout: 30 }, timeout: 1000 });
    const after = await workers(ep.id);
    expect(after.endpointVersion).toBe(2);
    expect(after.workers.map((w: any) => [w.id, w.version, w.isStale, w.status])).toEqual(before.workers.map((w: any) => [w.id, 2, false, "IDLE"]));
    const r = await releases(ep.id);
    expect(r.rollout).toEqual({ inProgress: false, workersOnLatest: 2, workersTotal: 2, percentOnLatest: 100 });
    expect(r.releases.map((x: any) => x.workerCount)).toEqual([2, 0]);
  });

  test.each([
    ["template.image", { image: "worker:9" }],
    ["template.env", { env: { OTHER: "1" } }],
    ["template.disk", { disk: 40 }],
    ["template.args", { args: "--serve" }],
    ["template.ports", { ports: ["8000/http"] }],
    ["gpu.pools", { gpu: { pools: ["AMPERE_48"] } }],
    ["gpu.count", { gpu: { pools: ["ADA_24"], count: 2 } }],
    ["flashboot", { flashboot: "FLASHBOOT" }],
    ["dataCenterIds", { dataCenterIds: ["EU-RO-1"] }],
  ])("%s rolls the workers", async (_field, change) => {
    const ep = await endpoint({ workers: { min: 1, max: 1 } });
    emu.advanceClock(STARTING);
    await patch(ep.id, change);
    expect(picture(await workers(ep.id))).toEqual(["v1:IDLE:stale", "v2:INITIALIZING"]);
    expect((await releases(ep.id)).rollout).toEqual({ inProgress: true, workersOnLatest: 0, workersTotal: 2, percentOnLatest: 0 });
  });

  test("template.registry rolls the workers", async () => {
    const registry = await createRegistry(emu.url, FULL);
    const ep = await endpoint({ workers: { min: 1, max: 1 } });
    emu.advanceClock(STARTING);
    await patch(ep.id, { registry });
    expect((await releases(ep.id)).releases[0].diff).toEqual([{ field: "template.registry", old: null, new: registry }]);
    expect(picture(await workers(ep.id))).toEqual(["v1:IDLE:stale", "v2:INITIALIZING"]);
  });

  test("locations (GraphQL's own) and template.id each roll the workers", async () => {
    const t1 = await createServerlessTemplate(emu.url, FULL, { image: "l:1" });
    const t2 = await createServerlessTemplate(emu.url, FULL, { image: "l:1" });
    const save = (more: string) => graphql(`mutation { saveEndpoint(input: { name: "loc", gpuIds: "ADA_24", workersMin: 1, workersMax: 1, ${more} }) { id } }`);
    const { id } = (await save(`templateId: "${t1}"`)).saveEndpoint;
    emu.advanceClock(STARTING);
    await save(`id: "${id}", templateId: "${t1}", locations: "US"`);
    expect((await releases(id)).releases[0].diff).toEqual([{ field: "locations", old: null, new: "US" }]);
    expect(picture(await workers(id))).toEqual(["v1:IDLE:stale", "v2:INITIALIZING"]);
    emu.advanceClock(STARTING);
    // Another template with the same image still rolls: the release names template.id.
    await save(`id: "${id}", templateId: "${t2}", locations: "US"`);
    expect((await releases(id)).releases[0].diff).toEqual([{ field: "template.id", old: t1, new: t2 }]);
    expect(picture(await workers(id))).toEqual(["v2:IDLE:stale", "v3:INITIALIZING"]);
  });

  test("a network volume rolls the workers", async () => {
    const vol = await api.createVolume("US-TX-3");
    const ep = await endpoint({ workers: { min: 1, max: 1 } });
    emu.advanceClock(STARTING);
    await patch(ep.id, { networkVolumes: [vol.id] });
    expect((await releases(ep.id)).releases[0].diff).toEqual([{ field: "networkVolumes", old: [], new: [vol.id] }]);
    expect(picture(await workers(ep.id))).toEqual(["v1:IDLE:stale", "v2:INITIALIZING"]);
  });

  test("an endpoint with no worker finishes a rollout at once", async () => {
    const ep = await endpoint();
    await patch(ep.id, { image: "worker:2" });
    expect(await releases(ep.id)).toMatchObject({ endpointVersion: 2, rollout: { inProgress: false, workersOnLatest: 0, workersTotal: 0, percentOnLatest: 100 } });
    // The first worker a job wakes runs the latest version.
    const run = await api.post(`/v2/${ep.id}/run`, { input: {} });
    expect(run.status).toBe(200);
    expect((await workers(ep.id)).workers).toEqual([expect.objectContaining({ version: 2, image: "worker:2", isStale: false })]);
  });
});

describe("rolling", () => {
  test("four workers: one replacement starts at a time (past workers.max), each ready one drains a stale worker, until every worker runs the new image", async () => {
    const ep = await endpoint({ workers: { min: 4, max: 4 } });
    emu.advanceClock(STARTING);
    const originals = (await workers(ep.id)).workers.map((w: any) => w.id);
    await patch(ep.id, { image: "worker:2" });
    const seen: string[][] = [];
    const progress: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      const w = await workers(ep.id);
      seen.push(picture(w));
      const r = await releases(ep.id);
      progress.push(r.rollout);
      const starting = w.workers.filter((x: any) => x.status === "INITIALIZING").length;
      expect(starting).toBeLessThanOrEqual(Math.max(1, Math.ceil(w.summary.total / 4)));
      if (!r.rollout.inProgress) break;
      emu.advanceClock(STARTING);
    }
    expect(seen).toEqual([
      ["v1:IDLE:stale", "v1:IDLE:stale", "v1:IDLE:stale", "v1:IDLE:stale", "v2:INITIALIZING"],
      ["v1:IDLE:stale", "v1:IDLE:stale", "v1:IDLE:stale", "v2:IDLE", "v2:INITIALIZING"],
      ["v1:IDLE:stale", "v1:IDLE:stale", "v2:IDLE", "v2:IDLE", "v2:INITIALIZING"],
      ["v1:IDLE:stale", "v2:IDLE", "v2:IDLE", "v2:IDLE", "v2:INITIALIZING"],
      ["v2:IDLE", "v2:IDLE", "v2:IDLE", "v2:IDLE"],
    ]);
    expect(progress).toEqual([
      { inProgress: true, workersOnLatest: 0, workersTotal: 5, percentOnLatest: 0 },
      { inProgress: true, workersOnLatest: 1, workersTotal: 5, percentOnLatest: 20 },
      { inProgress: true, workersOnLatest: 2, workersTotal: 5, percentOnLatest: 40 },
      { inProgress: true, workersOnLatest: 3, workersTotal: 5, percentOnLatest: 60 },
      { inProgress: false, workersOnLatest: 4, workersTotal: 4, percentOnLatest: 100 },
    ]);
    const done = await workers(ep.id);
    expect(done.workers.every((w: any) => w.image === "worker:2" && !originals.includes(w.id))).toBe(true);
    expect((await releases(ep.id)).releases.map((x: any) => x.workerCount)).toEqual([4, 0]);
  });

  test("eight workers: two replacements start at once (max(1, ceil(8 / 4)))", async () => {
    const ep = await endpoint({ workers: { min: 8, max: 8 } });
    emu.advanceClock(STARTING);
    await patch(ep.id, { gpu: { pools: ["AMPERE_48"] } });
    const w = await workers(ep.id);
    expect(w.summary).toMatchObject({ idle: 8, initializing: 2, total: 10 });
    emu.advanceClock(STARTING);
    expect((await workers(ep.id)).summary).toMatchObject({ idle: 8, initializing: 2, total: 10 });
    emu.advanceClock(3 * STARTING);
    expect(picture(await workers(ep.id))).toEqual(Array(8).fill("v2:IDLE"));
  });

  test("a stale worker that holds a job finishes it before it drains", async () => {
    const ep = await endpoint({ workers: { min: 1, max: 1 } });
    emu.advanceClock(STARTING);
    const job = (await api.post(`/v2/${ep.id}/run`, { input: { sleep_ms: 5000 } })).body.id;
    const stale = (await status(ep.id, job)).workerId;
    await patch(ep.id, { image: "worker:2" });
    emu.advanceClock(STARTING);
    // The replacement is ready; the stale worker keeps its job, listed as RUNNING.
    const mid = await workers(ep.id);
    expect(mid.workers.map((w: any) => [w.id === stale, w.version, w.status, w.isStale])).toEqual([
      [true, 1, "RUNNING", true],
      [false, 2, "IDLE", false],
    ]);
    expect((await releases(ep.id)).rollout.inProgress).toBe(true);
    emu.advanceClock(4000);
    expect(await status(ep.id, job)).toMatchObject({ status: "COMPLETED", workerId: stale, executionTime: 5000 });
    expect((await api.get(`/v2/${ep.id}/status-sync/${job}`)).body).toMatchObject({ status: "COMPLETED", workerId: stale });
    expect(picture(await workers(ep.id))).toEqual(["v2:IDLE"]);
    expect((await releases(ep.id)).rollout).toEqual({ inProgress: false, workersOnLatest: 1, workersTotal: 1, percentOnLatest: 100 });
  });

  test("a release that rolls during a rollout supersedes it: the earlier one's replacement still starting leaves", async () => {
    const ep = await endpoint({ workers: { min: 2, max: 2 } });
    emu.advanceClock(STARTING);
    await patch(ep.id, { image: "worker:2" });
    emu.advanceClock(STARTING / 2);
    await patch(ep.id, { image: "worker:3" });
    const w = await workers(ep.id);
    expect(w.workers.map((x: any) => [x.version, x.image, x.status])).toEqual([
      [1, "worker:1", "IDLE"],
      [1, "worker:1", "IDLE"],
      [3, "worker:3", "INITIALIZING"],
    ]);
    emu.advanceClock(2 * STARTING);
    expect((await workers(ep.id)).workers.map((x: any) => [x.version, x.image, x.status])).toEqual([
      [3, "worker:3", "IDLE"],
      [3, "worker:3", "IDLE"],
    ]);
    const r = await releases(ep.id);
    expect(r.releases.map((x: any) => [x.version, x.workerCount])).toEqual([[3, 2], [2, 0], [1, 0]]);
  });
});

describe("jobs through a rollout", () => {
  test("jobs sent before, during and after a rollout: each served once, by a stale worker only while no new one is ready, each naming its worker", async () => {
    const ep = await endpoint({ workers: { min: 2, max: 2 } });
    emu.advanceClock(STARTING);
    const send = async (n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) ids.push((await api.post(`/v2/${ep.id}/run`, { input: { sleep_ms: 300, n: i } })).body.id);
      return ids;
    };
    const versions = new Map<string, number>();
    const remember = async () => {
      for (const w of (await workers(ep.id)).workers) versions.set(w.id, w.version);
    };
    await remember();
    const before = await send(3);
    await patch(ep.id, { image: "worker:2" });
    const during = await send(3); // no worker of version 2 is ready yet: the stale ones serve
    await remember();
    emu.advanceClock(STARTING);
    await remember();
    const afterFirst = await send(4); // a version 2 worker is ready: new jobs go to version 2
    for (let i = 0; i < 10; i++) {
      await remember();
      emu.advanceClock(300);
    }
    await remember();
    const all = [...before, ...during, ...afterFirst];
    const answers = await Promise.all(all.map((j) => status(ep.id, j)));
    expect(answers.map((a) => a.status)).toEqual(all.map(() => "COMPLETED"));
    expect(answers.every((a) => typeof a.workerId === "string" && versions.has(a.workerId))).toBe(true);
    expect(answers.slice(0, 6).map((a) => versions.get(a.workerId))).toEqual([1, 1, 1, 1, 1, 1]);
    expect(answers.slice(6).map((a) => versions.get(a.workerId))).toEqual([2, 2, 2, 2]);
    // Ran once: the test worker held each job its 300 ms, never restarted elsewhere.
    expect(answers.every((a) => a.executionTime === 300)).toBe(true);
    const health = (await api.get(`/v2/${ep.id}/health`)).body;
    expect(health.jobs).toMatchObject({ completed: 10, failed: 0, inQueue: 0, inProgress: 0 });
    expect(picture(await workers(ep.id))).toEqual(["v2:IDLE", "v2:IDLE"]);
  });

  test("a handler sees each job once through a rollout (none lost, none run twice)", async () => {
    const calls: string[] = [];
    const own = await start({
      clock: { now: () => START },
      timings: { provisioningMs: 20, startingMs: STARTING, drainMs: 500, restartDelayMs: 20 },
      handler: (job) => {
        calls.push(job.id);
        if ((job.input.openai_input as any)?.prompt === "fail") throw new Error("asked to");
        return { echo: job.input };
      },
    });
    const call = client(() => own);
    try {
      const made = await call.post("/v2/serverless", { name: "h", image: "h:1", gpu: { pools: ["ADA_24"] }, workers: { min: 2, max: 2 } });
      const id = made.body.id;
      own.advanceClock(STARTING);
      const jobs: string[] = [];
      for (let round = 0; round < 4; round++) {
        if (round === 1) expect((await call.patch(`/v2/serverless/${id}`, { image: "h:2" })).status).toBe(200);
        for (let i = 0; i < 5; i++) jobs.push((await call.post(`/v2/${id}/run`, { input: { round, i } })).body.id);
        own.advanceClock(STARTING / 2);
        await new Promise((r) => setImmediate(r)); // the handler's answers settle
      }
      own.advanceClock(2 * STARTING);
      await new Promise((r) => setImmediate(r));
      const answers = await Promise.all(jobs.map(async (j) => (await call.get(`/v2/${id}/status/${j}`)).body));
      expect(answers.map((a) => a.status)).toEqual(jobs.map(() => "COMPLETED"));
      expect([...calls].sort()).toEqual([...jobs].sort());
      expect(answers.every((a) => typeof a.workerId === "string")).toBe(true);
      expect((await call.get(`/v2/serverless/${id}/releases`)).body.rollout).toMatchObject({ inProgress: false });
      // An OpenAI completion is a job too: one that fails names the job and the worker it ran on.
      const failed = await call.post(`/v2/${id}/openai/v1/completions`, { prompt: "fail" });
      const latest = (await call.get(`/v2/serverless/${id}/workers`)).body.workers.map((w: any) => w.id);
      expect(failed.status).toBe(500);
      expect(failed.body.detail).toMatch(new RegExp(`^job \\S+ ended FAILED on worker (${latest.join("|")}): asked to$`));
    } finally {
      await own.close();
    }
  });
});

describe("a rollout whose image cannot start", () => {
  test("the new worker is UNHEALTHY and replaces no one, the stale workers keep serving, and a later save rolls again", async () => {
    const ep = await endpoint({ workers: { min: 1, max: 1 } });
    emu.advanceClock(STARTING);
    emu.setFaults({ errorImages: [":broken$"] });
    await patch(ep.id, { image: "worker:broken" });
    emu.advanceClock(5 * STARTING);
    const held = await workers(ep.id);
    expect(held.workers.map((w: any) => [w.version, w.image, w.status, w.isStale])).toEqual([
      [1, "worker:1", "IDLE", true],
      [2, "worker:broken", "UNHEALTHY", false],
    ]);
    expect(held.summary).toEqual({ running: 0, idle: 1, initializing: 0, throttled: 0, unhealthy: 1, total: 2 });
    expect(held.workers[1]).toMatchObject({ uptimeSeconds: null, startedAt: null });
    expect((await releases(ep.id)).rollout).toEqual({ inProgress: true, workersOnLatest: 0, workersTotal: 2, percentOnLatest: 0 });
    expect((await api.get(`/v2/${ep.id}/health`)).body.workers).toMatchObject({ unhealthy: 1, idle: 1, ready: 1 });
    const pods = (await graphql(`{ myself { endpoints { id pods { desiredStatus } } } }`)).myself.endpoints.find((e: any) => e.id === ep.id).pods;
    expect(pods.map((p: any) => p.desiredStatus)).toEqual(["RUNNING", "STARTING"]);
    // The stale worker serves.
    const run = await api.post(`/v2/${ep.id}/runsync`, { input: { ok: 1 } });
    expect(run.body).toMatchObject({ status: "COMPLETED", output: { ok: 1 }, workerId: held.workers[0].id });
    // The image set back: a new release that rolls; the unhealthy worker goes, a good one replaces the stale one.
    await patch(ep.id, { image: "worker:1" });
    expect((await releases(ep.id)).releases[0]).toMatchObject({ version: 3, diff: [{ field: "template.image", old: "worker:broken", new: "worker:1" }] });
    emu.advanceClock(STARTING);
    const w = await workers(ep.id);
    expect(w.workers.map((x: any) => [x.version, x.image, x.status, x.isStale])).toEqual([[3, "worker:1", "IDLE", false]]);
    expect((await releases(ep.id)).rollout).toEqual({ inProgress: false, workersOnLatest: 1, workersTotal: 1, percentOnLatest: 100 });
  });
});

describe("billing and the state file", () => {
  test("stale and surge workers bill like any other", async () => {
    const MINUTE = 60_000;
    const own = await start({ clock: { now: () => START }, timings: { provisioningMs: 20, startingMs: MINUTE, drainMs: 500, restartDelayMs: 20 } });
    const call = client(() => own);
    const billed = async (id: string) => (await call.get(`/v2/billing/serverless?serverlessId=${id}&bucketSize=year`)).body.records[0].gpuAmount;
    try {
      const id = (await call.post("/v2/serverless", { name: "b", image: "b:1", gpu: { pools: ["ADA_24"] }, workers: { min: 2, max: 2 } })).body.id;
      own.advanceClock(MINUTE);
      await call.patch(`/v2/serverless/${id}`, { image: "b:2" });
      own.advanceClock(3 * MINUTE);
      expect(picture((await call.get(`/v2/serverless/${id}/workers`)).body)).toEqual(["v2:IDLE", "v2:IDLE"]);
      // Minutes 0-4: the two first workers until each was replaced (2 and 3 min), the two
      // replacements from their start (1 and 2 min in): 2 + 3 + 3 + 2 = 10 worker-minutes of
      // ADA_24 at 0.69 USD/h, the surge's 2 minutes included.
      expect(await billed(id)).toBeCloseTo((10 * 0.69) / 60, 6);
    } finally {
      await own.close();
    }
  });

  test("versions, releases and the workers' versions and images survive a restart; a state file without them still loads", async () => {
    const dir = fs.mkdtempSync(join(tmpdir(), "cp-releases-"));
    const file = join(dir, "state.json");
    try {
      const first = await start({ stateFile: file, clock: { now: () => START } });
      const one = client(() => first);
      const made = (await one.post("/v2/serverless", { name: "s", image: "s:1", gpu: { pools: ["ADA_24"] }, workers: { min: 1, max: 1 } })).body;
      first.advanceClock(100);
      await one.patch(`/v2/serverless/${made.id}`, { image: "s:2" });
      const rel = (await one.get(`/v2/serverless/${made.id}/releases`)).body;
      const wk = (await one.get(`/v2/serverless/${made.id}/workers`)).body;
      await first.close();

      const second = await start({ stateFile: file, clock: { now: () => START } }); // the file keeps the move of 100 ms
      const two = client(() => second);
      try {
        expect((await two.get(`/v2/serverless/${made.id}/releases`)).body).toEqual(rel);
        expect((await two.get(`/v2/serverless/${made.id}/workers`)).body).toEqual(wk);
      } finally {
        await second.close();
      }

      // The same file as an older emulator wrote it: no versions, releases or images.
      const saved = JSON.parse(fs.readFileSync(file, "utf8"));
      for (const ep of saved.serverless.endpoints) {
        delete ep.version;
        delete ep.releases;
        delete ep.image;
        for (const w of ep.workers) for (const k of ["version", "image", "replacing", "retiring", "cannotStart"]) delete w[k];
      }
      fs.writeFileSync(file, JSON.stringify(saved));
      const third = await start({ stateFile: file, clock: { now: () => START } });
      const three = client(() => third);
      try {
        const r = (await three.get(`/v2/serverless/${made.id}/releases`)).body;
        expect(r).toMatchObject({ endpointVersion: 1, releases: [{ version: 1, diff: [], workerCount: 2 }] });
        const w = (await three.get(`/v2/serverless/${made.id}/workers`)).body;
        expect(w.workers.map((x: any) => [x.version, x.image, x.isStale])).toEqual([
          [1, "s:2", false],
          [1, "s:2", false],
        ]);
      } finally {
        await third.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The endpoint store driven in-process (docs/emulator.md, "Releases and rollouts" and the
// serverless rules): a save creates or modifies and refuses with the platform's codes; a create
// takes an id only when accepted; workers are started to workersMin and the newest surplus goes
// first; FlashBoot starts a worker in a tenth of the time; a delete needs 0/0 workers, an
// outside removal does not; what GraphQL's pods shows at a moment; the state file's copy.
import type { GraphQLError } from "graphql";
import { EndpointStore, FLASHBOOT_SPEEDUP, workerState, type WorkerRecord } from "../../../../../src/emulator/serverless/endpoints/store";

const T = 1_000_000;
const BASE = { name: "gen", gpuIds: "ADA_24", templateId: "t1" };

function store() {
  let r = 0;
  const s = new EndpointStore({ startingMs: 3000, drainMs: 1000 }, () => (r = (r + 0.37) % 1));
  const events: string[] = [];
  s.hooks = {
    onWorker: (ep, w, event, at) => void events.push(`${event} ${w.id} @${at - T}`),
    imageOf: (id) => `img-of-${id}`,
    failsToStart: (image) => image.includes("broken"),
  };
  return { s, events };
}

function refusal(f: () => unknown): { code: unknown; message: string } {
  try {
    f();
  } catch (e) {
    return { code: (e as GraphQLError).extensions.code, message: (e as GraphQLError).message };
  }
  throw new Error("not refused");
}

test("a create takes the defaults, an id of its counter and a random tail, version 1 with one release, and its template's image", () => {
  const { s } = store();
  const ep = s.save({ ...BASE }, T);
  expect(ep).toMatchObject({ type: "QB", idleTimeout: 5, scalerType: "QUEUE_DELAY", scalerValue: 4, workersMin: 0, workersMax: 3, gpuCount: 1, executionTimeoutMs: 300000 });
  expect(ep.id).toMatch(/^0001[0-9a-z]{10}$/);
  expect(ep.version).toBe(1);
  expect(ep.releases.map((r) => [r.version, r.diff])).toEqual([[1, []]]);
  expect(ep.image).toBe("img-of-t1");
  expect(s.get(ep.id)).toBe(ep);
});

test("a refused create takes no id: the next accepted one has the first", () => {
  const { s } = store();
  expect(refusal(() => s.save({ ...BASE, workersMin: 4, workersMax: 2 }, T))).toEqual({
    code: "BAD_USER_INPUT",
    message: "input.workersMin (4) must not exceed workersMax (2)",
  });
  expect(s.list()).toEqual([]);
  expect(s.save({ ...BASE }, T).id).toMatch(/^0001/);
});

test("a modify of an unknown id is NOT_FOUND; its type is fixed at creation", () => {
  const { s } = store();
  expect(refusal(() => s.save({ ...BASE, id: "nope" }, T))).toEqual({ code: "NOT_FOUND", message: 'endpoint "nope" not found' });
  const ep = s.save({ ...BASE }, T);
  expect(refusal(() => s.save({ ...BASE, id: ep.id, type: "LB" }, T))).toEqual({
    code: "BAD_USER_INPUT",
    message: "input.type is fixed at creation (this endpoint is QB); create a new endpoint for LB",
  });
  expect(s.save({ ...BASE, id: ep.id, type: "QB" }, T).type).toBe("QB");
});

test('"" for locations or networkVolumeId means none', () => {
  const { s } = store();
  expect(s.save({ ...BASE, locations: "", networkVolumeId: "" }, T)).toMatchObject({ locations: null, networkVolumeId: null });
});

test("a modify keeps what it leaves out; with resetLeftOut it puts it back to its default", () => {
  const { s } = store();
  const ep = s.save({ ...BASE, idleTimeout: 60, workersMax: 5 }, T);
  expect(s.save({ ...BASE, id: ep.id }, T)).toMatchObject({ idleTimeout: 60, workersMax: 5 });
  expect(s.save({ ...BASE, id: ep.id }, T, undefined, { resetLeftOut: true })).toMatchObject({ idleTimeout: 5, workersMax: 3, type: "QB" });
});

test("reference rules run last, on the endpoint as it would be", () => {
  const { s } = store();
  const seen: string[] = [];
  const refused = refusal(() => s.save({ ...BASE, networkVolumeId: "v9" }, T, (next) => (seen.push(String(next.networkVolumeId)), ["input.networkVolumeId: no such volume"])));
  expect(refused).toEqual({ code: "BAD_USER_INPUT", message: "input.networkVolumeId: no such volume" });
  expect(seen).toEqual(["v9"]);
});

test("a save that changes a field is a release, newest first; one that changes nothing is none", () => {
  const { s } = store();
  const ep = s.save({ ...BASE }, T);
  s.save({ ...BASE, id: ep.id }, T + 1);
  expect(ep.version).toBe(1);
  const after = s.save({ ...BASE, id: ep.id, workersMax: 4 }, T + 2);
  expect(after.version).toBe(2);
  expect(after.releases.map((r) => [r.version, r.createdAt - T])).toEqual([
    [2, 2],
    [1, 0],
  ]);
  expect(after.releases[0].diff).toEqual([{ field: "workers.max", old: 3, new: 4 }]);
});

test("workersMin workers start at once, each told to billing; a change that does not roll moves them to the new version", () => {
  const { s, events } = store();
  const ep = s.save({ ...BASE, workersMin: 2 }, T);
  expect(ep.workers.map((w) => [w.id, w.version, w.image, w.readyAt! - T])).toEqual([
    [`${ep.id}-w1`, 1, "img-of-t1", 3000],
    [`${ep.id}-w2`, 1, "img-of-t1", 3000],
  ]);
  expect(events).toEqual([`start ${ep.id}-w1 @0`, `start ${ep.id}-w2 @0`]);
  s.save({ ...BASE, id: ep.id, workersMin: 2, name: "renamed" }, T + 10);
  expect(ep.workers.map((w) => w.version)).toEqual([2, 2]);
  s.save({ ...BASE, id: ep.id, workersMin: 2, name: "renamed", gpuIds: "AMPERE_80" }, T + 20);
  expect(s.get(ep.id)!.version).toBe(3);
  expect(s.get(ep.id)!.workers.filter((w) => w.drainingSince === null).map((w) => w.version)).toEqual([2, 2]);
});

test("a scale-down drains the surplus without a job first, newest first; one holding a job stays while workersMax allows", () => {
  const { s, events } = store();
  const ep = s.save({ ...BASE, workersMin: 3, workersMax: 3 }, T);
  const [, w2] = ep.workers;
  w2.jobId = "job-1";
  events.length = 0;
  const after = s.save({ ...BASE, id: ep.id, workersMin: 0, workersMax: 3 }, T + 100);
  expect(events).toEqual([`leave ${ep.id}-w3 @100`, `leave ${ep.id}-w1 @100`]);
  expect(after.workers.filter((w) => w.drainingSince === null).map((w) => w.id)).toEqual([w2.id]);
  s.save({ ...BASE, id: ep.id, workersMin: 0, workersMax: 0 }, T + 200);
  expect(events.at(-1)).toBe(`leave ${ep.id}-w2 @200`);
});

test("FlashBoot starts a worker in a tenth of the starting time", () => {
  const { s } = store();
  expect(FLASHBOOT_SPEEDUP).toBe(10);
  const ep = s.save({ ...BASE, flashBootType: "FLASHBOOT", workersMin: 1 }, T);
  expect(s.startMs(ep)).toBe(300);
  expect(ep.workers[0].readyAt! - T).toBe(300);
});

test("what GraphQL's pods shows: STARTING until ready (and for good when the image cannot start), RUNNING, then EXITED while it drains, then gone", () => {
  const { s } = store();
  const ep = s.save({ ...BASE, workersMin: 1 }, T);
  expect(s.workersAt(ep, T + 2999)).toEqual([{ id: `${ep.id}-w1`, desiredStatus: "STARTING" }]);
  expect(s.workersAt(ep, T + 3000)).toEqual([{ id: `${ep.id}-w1`, desiredStatus: "RUNNING" }]);
  s.save({ ...BASE, id: ep.id, workersMin: 0 }, T + 5000);
  expect(s.workersAt(ep, T + 5999)).toEqual([{ id: `${ep.id}-w1`, desiredStatus: "EXITED" }]);
  expect(s.workersAt(ep, T + 6000)).toEqual([]);
  const broken = store();
  broken.s.hooks.imageOf = () => "img:broken";
  const b = broken.s.save({ ...BASE, workersMin: 1 }, T);
  expect(b.workers[0].cannotStart).toBe(true);
  expect(broken.s.workersAt(b, T + 60_000)).toEqual([{ id: `${b.id}-w1`, desiredStatus: "STARTING" }]);
  expect(broken.s.listed(b, T + 60_000).map((l) => l.state)).toEqual(["UNHEALTHY"]);
});

test("a worker's state: INITIALIZING before it is ready, then UNHEALTHY if it cannot start, RUNNING with a job, else IDLE", () => {
  const w = { id: "w", createdAt: 0, drainingSince: null } as WorkerRecord;
  expect(workerState(w, 10, 9)).toBe("INITIALIZING");
  expect(workerState(w, 10, 10)).toBe("IDLE");
  expect(workerState({ ...w, jobId: "j" }, 10, 10)).toBe("RUNNING");
  expect(workerState({ ...w, cannotStart: true, jobId: "j" }, 10, 10)).toBe("UNHEALTHY");
});

test("a delete needs workersMin and workersMax at 0; an unknown id is NOT_FOUND", () => {
  const { s } = store();
  const ep = s.save({ ...BASE, workersMax: 1 }, T);
  expect(refusal(() => s.delete(ep.id))).toEqual({
    code: "FAILED_PRECONDITION",
    message: `endpoint "${ep.id}" has workersMin=0 and workersMax=1; set both to 0 with saveEndpoint before deleting it`,
  });
  s.save({ ...BASE, id: ep.id, workersMax: 0 }, T);
  s.delete(ep.id);
  expect(s.get(ep.id)).toBeUndefined();
  expect(refusal(() => s.delete(ep.id)).code).toBe("NOT_FOUND");
});

test("an outside removal takes the endpoint whatever its workers, and they stop billing", () => {
  const { s, events } = store();
  const ep = s.save({ ...BASE, workersMin: 1 }, T);
  expect(s.remove(ep.id, T + 50)).toBe(true);
  expect(events.at(-1)).toBe(`leave ${ep.id}-w1 @50`);
  expect(s.remove(ep.id, T + 60)).toBe(false);
});

test("a template change releases every endpoint bound to it but the one named, and gives them its image", () => {
  const { s } = store();
  const a = s.save({ ...BASE }, T);
  const b = s.save({ ...BASE }, T);
  const other = s.save({ ...BASE, templateId: "t2" }, T);
  s.templateChanged("t1", { image: "img:2", diff: [{ field: "template.image", old: "img-of-t1", new: "img:2" }] }, T + 1, b.id);
  expect([a.version, a.image, b.version, b.image, other.version]).toEqual([2, "img:2", 1, "img-of-t1", 1]);
  s.templateChanged("t1", { image: "img:3", diff: [] }, T + 2);
  expect(a.version).toBe(2);
});

test("the state file's copy drops held jobs; a file written before releases takes the template's image for the endpoint and its workers", () => {
  const { s } = store();
  const ep = s.save({ ...BASE, workersMin: 1 }, T);
  ep.workers[0].jobId = "job-1";
  const saved = JSON.parse(JSON.stringify(s.toJSON()));
  expect(saved.endpoints[0].workers[0]).not.toHaveProperty("jobId");
  expect(ep.workers[0].jobId).toBe("job-1");
  const old = structuredClone(saved);
  delete old.endpoints[0].image;
  delete old.endpoints[0].workers[0].version;
  delete old.endpoints[0].workers[0].image;
  const again = store().s;
  again.load(old, (id) => `restored-${id}`);
  const loaded = again.get(ep.id)!;
  expect([loaded.image, loaded.workers[0].image, loaded.workers[0].version]).toEqual(["restored-t1", "restored-t1", 1]);
  expect([again.idCounter, again.workerCounter]).toEqual([1, 1]);
});

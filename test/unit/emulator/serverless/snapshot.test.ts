// The serverless part of the state file, checked on restore (docs/emulator.md, "Options":
// --state-file, and "Releases and rollouts"): fields added since the first state files take the
// platform's defaults, so an older file keeps loading; what cannot be served is refused.
import { ENDPOINT_DEFAULTS } from "../../../../src/emulator/serverless/endpoints/rules";
import { snapshotSchema } from "../../../../src/emulator/serverless/snapshot";

// What an endpoint of the first state files held: the defaults of its day, before gpuCount and executionTimeoutMs.
const { gpuCount: _gpuCount, executionTimeoutMs: _timeout, ...FIRST_DEFAULTS } = ENDPOINT_DEFAULTS;

const endpoint = (over: Record<string, unknown> = {}) => ({
  id: "e1",
  name: "gen",
  gpuIds: "ADA_24",
  templateId: "t1",
  ...FIRST_DEFAULTS,
  createdAt: 1000,
  workers: [{ id: "e1-w1", createdAt: 1000, drainingSince: null }],
  ...over,
});

const file = (endpoints: unknown[]) => ({ version: 1, idCounter: 1, workerCounter: 1, runCounter: 0, serverlessDiscount: null, endpoints });

test("an endpoint of the first state files takes the defaults: one GPU, 300000 ms, no data centers, version 1 with its one release", () => {
  const [e] = snapshotSchema.parse(file([endpoint()])).endpoints;
  expect(e).toMatchObject({ gpuCount: 1, executionTimeoutMs: 300000, dataCenterIds: [], version: 1 });
  expect(e.releases).toEqual([{ id: "rel-e1-v1", version: 1, createdAt: 1000, diff: [] }]);
});

test("what a later file holds is kept as it is", () => {
  const releases = [{ id: "rel-e1-v2", version: 2, createdAt: 2000, diff: [{ field: "workers.max", old: 2, new: 3 }] }];
  const [e] = snapshotSchema.parse(file([endpoint({ gpuCount: 2, executionTimeoutMs: 0, dataCenterIds: ["EU-RO-1"], version: 2, releases })])).endpoints;
  expect(e).toMatchObject({ gpuCount: 2, executionTimeoutMs: 0, dataCenterIds: ["EU-RO-1"], version: 2, releases });
});

test("a release's change written without its old or new side reads null there, as the releases read answers it", () => {
  const releases = [{ id: "rel-e1-v2", version: 2, createdAt: 2000, diff: [{ field: "networkVolumes", new: ["v1"] }, { field: "locations", old: "EU" }] }];
  const [e] = snapshotSchema.parse(file([endpoint({ version: 2, releases })])).endpoints;
  expect(e.releases[0].diff).toEqual([
    { field: "networkVolumes", old: null, new: ["v1"] },
    { field: "locations", old: "EU", new: null },
  ]);
});

test('"" meant none before it was stored as null: locations and networkVolumeId read null', () => {
  const [e] = snapshotSchema.parse(file([endpoint({ locations: "", networkVolumeId: "" })])).endpoints;
  expect([e.locations, e.networkVolumeId]).toEqual([null, null]);
});

test.each([
  ["an endpoint id twice", file([endpoint(), endpoint()]), "endpoint ids repeat"],
  ["a type no endpoint has", file([endpoint({ type: "XX" })]), "type"],
  ["workersMax past 100", file([endpoint({ workersMax: 101 })]), "workersMax"],
  ["gpuCount 0", file([endpoint({ gpuCount: 0 })]), "gpuCount"],
  ["more than 50 releases", file([endpoint({ releases: Array.from({ length: 51 }, (_, i) => ({ id: `r${i}`, version: i + 1, createdAt: 1, diff: [] })) })]), "releases"],
  ["another version of the part", { ...file([]), version: 2 }, "version"],
  ["a negative counter", { ...file([]), idCounter: -1 }, "idCounter"],
])("%s is refused, naming it", (_what, saved, named) => {
  const r = snapshotSchema.safeParse(saved);
  expect(r.success).toBe(false);
  expect(JSON.stringify(r.error!.issues)).toContain(named);
});

test("an account's discount is kept", () => {
  const discount = { discountFactor: 0.9, type: "VOLUME", expirationDate: null };
  expect(snapshotSchema.parse({ ...file([]), serverlessDiscount: discount }).serverlessDiscount).toEqual(discount);
});

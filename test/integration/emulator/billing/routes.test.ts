// Billing (the contract's billing paths):
// computed from what ran. A manual clock steps through hours without sleeping.
import type { Emulator } from "../../../../src/emulator";
import { client, RTX4090, start } from "../../../helpers/emulator-rest";

const T0 = Date.UTC(2026, 5, 1, 0, 0, 0); // a Monday, midnight UTC
const H = 3_600_000;
let now = T0;
let emu: Emulator;
const api = client(() => emu);

beforeAll(async () => {
  emu = await start({ clock: { now: () => now } });
});

afterAll(async () => {
  await emu?.close();
});

const DAY = "startTime=2026-06-01T00:00:00Z&endTime=2026-06-02T00:00:00Z";

describe("a pod bills its cost while it is not EXITED or TERMINATED", () => {
  let podId: string;
  let volId: string;

  beforeAll(async () => {
    now = T0;
    const pod = await api.createPod({ gpu: { id: RTX4090 } });
    podId = pod.id;
    volId = (await api.post("/v2/network-volumes", { name: "v", size: 72, dataCenter: "EU-RO-1" })).body.id;
    now = T0 + 2 * H;
    expect((await api.post(`/v2/pods/${podId}/action`, { action: "stop" })).status).toBe(200);
    now = T0 + 3 * H;
    expect((await api.post(`/v2/pods/${podId}/action`, { action: "start" })).status).toBe(200);
    now = T0 + 4 * H;
    expect((await api.del(`/v2/pods/${podId}`)).status).toBe(204);
    expect((await api.del(`/v2/network-volumes/${volId}`)).status).toBe(204);
    expect((await api.post("/v2/sdxl-turbo/runsync", { input: { prompt: "x", width: 8, height: 8 } })).status).toBe(200);
    now = T0 + 10 * H;
  });

  test("/v2/billing/pods by hour: one record per pod per hour it ran; EXITED hour 2 is not billed", async () => {
    const r = await api.get(`/v2/billing/pods?${DAY}&bucketSize=hour`);
    expect(r.status).toBe(200);
    expect(r.body.records).toEqual(
      [0, 1, 3].map((h) => ({
        startTime: new Date(T0 + h * H).toISOString().replace(".000Z", "Z"),
        endTime: new Date(T0 + (h + 1) * H).toISOString().replace(".000Z", "Z"),
        totalAmount: 0.69,
        gpuAmount: 0.69,
        cpuAmount: 0,
        diskAmount: 0,
        podId,
      })),
    );
    expect(r.body.metadata).toEqual({
      query: { startTime: "2026-06-01T00:00:00Z", endTime: "2026-06-02T00:00:00Z", bucketSize: "hour", podId: null },
      recordCount: 3,
      uniquePodCount: 1,
      totals: { totalAmount: 2.07, gpuAmount: 2.07, cpuAmount: 0, diskAmount: 0 },
    });
  });

  test("the podId filter narrows; an unknown id has no records", async () => {
    expect((await api.get(`/v2/billing/pods?${DAY}&podId=${podId}`)).body.records).toHaveLength(1);
    const none = await api.get(`/v2/billing/pods?${DAY}&podId=p-none`);
    expect(none.body.records).toEqual([]);
    expect(none.body.metadata.query.podId).toBe("p-none");
  });

  test("volumes bill storage by tier; endpoints bill hosted-model calls; /v2/billing sums them", async () => {
    const v = await api.get(`/v2/billing/networkvolumes?${DAY}&networkVolumeId=${volId}`);
    // 72 GB STANDARD at 0.07 per GB-month (720 h) for 4 h.
    expect(v.body.records).toEqual([
      expect.objectContaining({ networkVolumeId: volId, standardAmount: 0.028, highPerformanceAmount: 0, totalAmount: 0.028 }),
    ]);
    expect(v.body.metadata.uniqueNetworkVolumeCount).toBe(1);
    const e = await api.get(`/v2/billing/endpoints?${DAY}`);
    expect(e.body.records).toEqual([{ startTime: "2026-06-01T00:00:00Z", endTime: "2026-06-02T00:00:00Z", totalAmount: 0.002 }]);
    const all = await api.get(`/v2/billing?${DAY}`);
    expect(all.body.records).toHaveLength(1);
    expect(all.body.records[0]).toMatchObject({
      totalAmount: 2.1,
      podGpuAmount: 2.07,
      storageStandardAmount: 0.028,
      endpointAmount: 0.002,
      clusterGpuAmount: 0,
    });
    expect(all.body.metadata).toMatchObject({ recordCount: 1, totals: { totalAmount: 2.1 } });
  });

  test("windows snap to buckets: startTime down, endTime up; lastN ends with the current bucket", async () => {
    const r = await api.get("/v2/billing?startTime=2026-06-01T05:30:00Z&endTime=2026-06-01T06:10:00Z&bucketSize=hour");
    expect(r.body.metadata.query).toEqual({ startTime: "2026-06-01T05:00:00Z", endTime: "2026-06-01T07:00:00Z", bucketSize: "hour" });
    expect(r.body.records).toHaveLength(2);
    const last = await api.get("/v2/billing?lastN=3&bucketSize=week");
    expect(last.body.metadata.query).toEqual({ startTime: "2026-05-18T00:00:00Z", endTime: "2026-06-08T00:00:00Z", bucketSize: "week" });
    const month = await api.get("/v2/billing?lastN=1&bucketSize=month");
    expect(month.body.records[0]).toMatchObject({ startTime: "2026-06-01T00:00:00Z", endTime: "2026-07-01T00:00:00Z", totalAmount: 2.1 });
  });

  test("bad query values -> 422 naming each; lastN with a time range -> 400", async () => {
    const r = await api.get("/v2/billing/pods?bucketSize=minute&startTime=yesterday&lastN=0");
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([
      "query.bucketSize: value must be one of 'hour', 'day', 'week', 'month', 'year', but got 'minute'",
      "query.startTime: 'yesterday' is not an RFC 3339 date-time",
      "query.lastN: must be an integer >= 1, but got '0'",
    ]);
    const both = await api.get("/v2/billing?lastN=2&startTime=2026-06-01T00:00:00Z");
    expect(both.status).toBe(400);
    expect(both.body.detail).toMatch(/lastN is mutually exclusive/);
    expect((await api.get("/v2/billing?startTime=2026-06-02T00:00:00Z&endTime=2026-06-01T00:00:00Z")).status).toBe(400);
  });

  test("a running pod bills up to now, at its cloud's price", async () => {
    now = T0 + 10 * H;
    const pod = await api.createPod({ gpu: { id: RTX4090 }, cloud: "COMMUNITY" });
    now = T0 + 10.5 * H;
    const r = await api.get(`/v2/billing/pods?${DAY}&podId=${pod.id}`);
    expect(r.body.metadata.totals.gpuAmount).toBeCloseTo(pod.cost / 2, 6);
  });
});

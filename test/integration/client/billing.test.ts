// Billing (billing.ts) against a scripted loopback server: each route's path and query string,
// the windows the contract forbids refused before sending, and the records checked on the way in.
import { RequestValidationError } from "../../../src/client";
import { type Handler, loopbackClients, type SeenRequest } from "../../helpers/loopback";

const { setup } = loopbackClients("cp_test_loopback_key_0013");

const query = (r: SeenRequest) => Object.fromEntries(new URL(r.url, "http://x").searchParams);

describe("billing", () => {
  const range = { startTime: "2026-06-01T00:00:00Z", endTime: "2026-06-02T00:00:00Z" };
  const echo = { ...range, bucketSize: "day" };
  const zeros = (...names: string[]) => Object.fromEntries(names.map((n) => [n, 0]));
  const podAmounts = zeros("totalAmount", "gpuAmount", "cpuAmount", "diskAmount");
  const volumeAmounts = zeros("totalAmount", "standardAmount", "highPerformanceAmount");
  const allAmounts = zeros(
    "totalAmount", "podGpuAmount", "podCpuAmount", "podDiskAmount", "serverlessGpuAmount", "serverlessCpuAmount",
    "serverlessDiskAmount", "serverlessFeeAmount", "storageStandardAmount", "storageHighPerformanceAmount",
    "endpointAmount", "clusterGpuAmount", "clusterDiskAmount", "clusterNetworkingAmount",
  );
  const answers: Record<string, unknown> = {
    "/v2/billing": { records: [{ ...range, ...allAmounts, totalAmount: 1.5 }], metadata: { query: echo, recordCount: 1, totals: allAmounts } },
    "/v2/billing/pods": {
      records: [{ ...range, ...podAmounts, podId: "pod-1", gpuAmount: 2.5, totalAmount: 2.5 }],
      metadata: { query: { ...echo, podId: "pod-1" }, recordCount: 1, uniquePodCount: 1, totals: podAmounts },
    },
    "/v2/billing/networkvolumes": {
      records: [{ ...range, ...volumeAmounts, networkVolumeId: "vol-1" }],
      metadata: { query: { ...echo, networkVolumeId: null }, recordCount: 1, uniqueNetworkVolumeCount: 1, totals: volumeAmounts },
    },
    "/v2/billing/endpoints": { records: [], metadata: { query: echo, recordCount: 0, totals: { totalAmount: 0 } } },
  };
  const handler: Handler = (r) => ({ status: 200, body: answers[r.path] });

  test("each route GETs its path with the window, bucket size and filter in the query string", async () => {
    const { srv, cp } = await setup(handler);
    const summary = await cp.billing.summary({ lastN: 7, bucketSize: "day" });
    expect(summary.records[0].totalAmount).toBe(1.5);
    const pods = await cp.billing.pods({ startTime: new Date(range.startTime), endTime: range.endTime, bucketSize: "hour", podId: "pod 1" });
    expect(pods.records[0]).toMatchObject({ podId: "pod-1", gpuAmount: 2.5 });
    const volumes = await cp.billing.networkVolumes({ networkVolumeId: "vol-1" });
    expect(volumes.metadata.uniqueNetworkVolumeCount).toBe(1);
    const endpoints = await cp.billing.endpoints();
    expect(endpoints.metadata.totals.totalAmount).toBe(0);

    expect(srv.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v2/billing",
      "GET /v2/billing/pods",
      "GET /v2/billing/networkvolumes",
      "GET /v2/billing/endpoints",
    ]);
    expect(srv.seen.map(query)).toEqual([
      { lastN: "7", bucketSize: "day" },
      { startTime: "2026-06-01T00:00:00.000Z", endTime: range.endTime, bucketSize: "hour", podId: "pod 1" },
      { networkVolumeId: "vol-1" },
      {},
    ]);
    expect(srv.seen[1].url).toContain("podId=pod+1");
    expect(srv.seen[3].url).toBe("/v2/billing/endpoints");
    expect(srv.seen.every((r) => r.body === "")).toBe(true);
  });

  test("a window the contract forbids fails before anything is sent, naming the rule", async () => {
    const { srv, cp } = await setup(handler);
    const cases: [() => Promise<unknown>, string][] = [
      [() => cp.billing.summary({ lastN: 3, startTime: range.startTime }), "lastN cannot be combined with startTime or endTime"],
      [() => cp.billing.pods({ lastN: 0 }), "lastN must be >= 1"],
      [() => cp.billing.pods({ startTime: "yesterday" }), "startTime is invalid"],
      [() => cp.billing.pods({ startTime: new Date(Number.NaN) }), "startTime is invalid"],
      [() => cp.billing.networkVolumes({ startTime: range.endTime, endTime: range.startTime }), "endTime must be after startTime"],
      [() => cp.billing.endpoints({ bucketSize: "minute" as never }), "bucketSize must be one of"],
      [() => cp.billing.summary({ podId: "p" } as never), "podId is not an allowed property"],
    ];
    for (const [call, message] of cases) {
      const err = await call().then(() => new Error("expected a rejection"), (e: Error) => e);
      expect(err).toBeInstanceOf(RequestValidationError);
      expect(err.message).toContain(message);
    }
    expect(srv.seen).toHaveLength(0);
  });

  test("a record that breaks the contract is a ResponseValidationError naming the field", async () => {
    const { cp } = await setup(() => ({ status: 200, body: { records: [{ ...range, totalAmount: "1" }], metadata: {} } }));
    const err = await cp.billing.endpoints().catch((e) => e);
    expect(err.name).toBe("ResponseValidationError");
    expect(err.message).toContain("records[0].totalAmount is invalid");
    expect(err.message).toContain("metadata.query is required");
  });

  test("billing reads are retried like any GET", async () => {
    const { srv, cp } = await setup((r, i) => (i === 0 ? { status: 503, body: { title: "x", status: 503, detail: "down" } } : handler(r, i)));
    await expect(cp.billing.pods()).resolves.toMatchObject({ metadata: { uniquePodCount: 1 } });
    expect(srv.count("GET", "/v2/billing/pods")).toBe(2);
  });
});

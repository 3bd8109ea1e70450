// REST group Billing: listBilling, listPodBilling, listNetworkVolumeBilling,
// listServerlessBilling (the account's endpoints' workers) and listEndpointBilling (hosted-model
// calls), from what the meter recorded.

import { bucketize, query, range, resolveWindow, round, sum, totals } from "./queries";
import { type Group, ok } from "../core/http/types";
import type { Meter } from "../core/meter";

const ZERO_AGGREGATE = {
  serverlessCpuAmount: 0,
  serverlessDiskAmount: 0,
  serverlessFeeAmount: 0,
  clusterGpuAmount: 0,
  clusterDiskAmount: 0,
  clusterNetworkingAmount: 0,
};

export function billingRoutes(meter: Meter, now: () => number): Group {
  return {
    routes: [
      {
        method: "GET",
        path: "/v2/billing",
        op: "listBilling",
        run: ({ query: q }) => {
          const t = now();
          const w = resolveWindow(q, t);
          const records = bucketize(meter, w, t, () => true).map((b) => {
            const all = [...b.byId.values()];
            const podGpuAmount = sum(all, "podGpu");
            const podCpuAmount = sum(all, "podCpu");
            const storageStandardAmount = sum(all, "storageStandard");
            const storageHighPerformanceAmount = sum(all, "storageHighPerformance");
            const endpointAmount = sum(all, "endpoint");
            const serverlessGpuAmount = sum(all, "serverlessGpu");
            return {
              ...range(b),
              totalAmount: round(podGpuAmount + podCpuAmount + storageStandardAmount + storageHighPerformanceAmount + endpointAmount + serverlessGpuAmount),
              podGpuAmount,
              podCpuAmount,
              podDiskAmount: 0,
              serverlessGpuAmount,
              ...ZERO_AGGREGATE,
              storageStandardAmount,
              storageHighPerformanceAmount,
              endpointAmount,
            };
          });
          const keys = Object.keys(records[0] ?? {}).filter((k) => k.endsWith("Amount")) as "totalAmount"[];
          return ok(200, { records, metadata: { query: query(w), recordCount: records.length, totals: totals(records, keys) } });
        },
      },
      {
        method: "GET",
        path: "/v2/billing/pods",
        op: "listPodBilling",
        run: ({ query: q }) => {
          const t = now();
          const w = resolveWindow(q, t);
          const podId = q.get("podId");
          const buckets = bucketize(meter, w, t, (s) => s.resource === "pod" && (podId === null || s.id === podId));
          const records = buckets.flatMap((b) =>
            [...b.byId].map(([id, a]) => {
              const gpuAmount = sum([a], "podGpu");
              const cpuAmount = sum([a], "podCpu");
              return { ...range(b), totalAmount: round(gpuAmount + cpuAmount), gpuAmount, cpuAmount, diskAmount: 0, podId: id };
            }),
          );
          const sums = totals(records, ["totalAmount", "gpuAmount", "cpuAmount", "diskAmount"]);
          const uniquePodCount = new Set(records.map((r) => r.podId)).size;
          return ok(200, {
            records,
            metadata: { query: query(w, { podId }), recordCount: records.length, uniquePodCount, totals: sums },
          });
        },
      },
      {
        method: "GET",
        path: "/v2/billing/networkvolumes",
        op: "listNetworkVolumeBilling",
        run: ({ query: q }) => {
          const t = now();
          const w = resolveWindow(q, t);
          const volumeId = q.get("networkVolumeId");
          const buckets = bucketize(
            meter,
            w,
            t,
            (s) => s.resource === "networkVolume" && (volumeId === null || s.id === volumeId),
          );
          const records = buckets.flatMap((b) =>
            [...b.byId].map(([id, a]) => {
              const standardAmount = sum([a], "storageStandard");
              const highPerformanceAmount = sum([a], "storageHighPerformance");
              return {
                ...range(b),
                totalAmount: round(standardAmount + highPerformanceAmount),
                standardAmount,
                highPerformanceAmount,
                networkVolumeId: id,
              };
            }),
          );
          const sums = totals(records, ["totalAmount", "standardAmount", "highPerformanceAmount"]);
          const uniqueNetworkVolumeCount = new Set(records.map((r) => r.networkVolumeId)).size;
          return ok(200, {
            records,
            metadata: {
              query: query(w, { networkVolumeId: volumeId }),
              recordCount: records.length,
              uniqueNetworkVolumeCount,
              totals: sums,
            },
          });
        },
      },
      {
        method: "GET",
        path: "/v2/billing/serverless",
        op: "listServerlessBilling",
        run: ({ query: q }) => {
          const t = now();
          const w = resolveWindow(q, t);
          const serverlessId = q.get("serverlessId");
          // Segments are per worker (`<endpoint id>-w<n>`); records are per endpoint.
          const endpointOf = (workerId: string) => workerId.slice(0, workerId.lastIndexOf("-w"));
          const buckets = bucketize(meter, w, t, (s) => s.resource === "serverless" && (serverlessId === null || endpointOf(s.id) === serverlessId));
          const records = buckets.flatMap((b) => {
            const byEndpoint = new Map<string, number>();
            for (const [id, a] of b.byId) byEndpoint.set(endpointOf(id), (byEndpoint.get(endpointOf(id)) ?? 0) + (a.serverlessGpu ?? 0));
            return [...byEndpoint].map(([id, usd]) => {
              const gpuAmount = round(usd);
              return { ...range(b), serverlessId: id, totalAmount: gpuAmount, gpuAmount, cpuAmount: 0, diskAmount: 0, feeAmount: 0 };
            });
          });
          const sums = totals(records, ["totalAmount", "gpuAmount", "cpuAmount", "diskAmount", "feeAmount"]);
          const uniqueServerlessCount = new Set(records.map((r) => r.serverlessId)).size;
          return ok(200, {
            records,
            metadata: { query: query(w, { serverlessId }), recordCount: records.length, uniqueServerlessCount, totals: sums },
          });
        },
      },
      {
        method: "GET",
        path: "/v2/billing/endpoints",
        op: "listEndpointBilling",
        run: ({ query: q }) => {
          const t = now();
          const w = resolveWindow(q, t);
          const records = bucketize(meter, w, t, (s) => s.resource === "endpoint").map((b) => ({
            ...range(b),
            totalAmount: sum([...b.byId.values()], "endpoint"),
          }));
          const sums = totals(records, ["totalAmount"]);
          return ok(200, { records, metadata: { query: query(w), recordCount: records.length, totals: sums } });
        },
      },
    ],
    state: [meter.statePart()],
  };
}

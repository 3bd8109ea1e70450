// The platform's Pod object from a stored record (docs/emulator.md, "Prices and billing" and
// "Limits"): cost from the catalog, 0 while EXITED or TERMINATED; runtime figures only while
// RUNNING, repeatable for one pod; a stored count past any type's maxCount renders without
// allocating by it, and a date no Date holds reads as the epoch.
import { computePrice, podCost, podView } from "../../../../src/emulator/pods/view";
import { POD_ID_ENV, type PodRecord, type PodStatus } from "../../../../src/emulator/pods/types";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");

const record = (over: Partial<PodRecord> = {}): PodRecord => ({
  id: "p0001abcdefgh",
  name: "trainer",
  image: "img:1",
  args: "",
  disk: 20,
  ports: ["8888/http", "22/tcp"],
  env: { A: "1" },
  registry: null,
  gpu: { id: "NVIDIA GeForce RTX 4090", count: 2 },
  mounts: {},
  cloud: "SECURE",
  dataCenterId: "US-TX-3",
  locked: false,
  globalNetworkingWanted: false,
  createdAt: T0,
  startedAt: T0 + 1000,
  status: "RUNNING",
  statusAt: T0 + 1000,
  failOnStart: false,
  publicIp: "203.0.113.7",
  publicPorts: [40001],
  ...over,
});

test("a pod costs its compute's catalog price for its cloud", () => {
  expect(computePrice(record())).toBe(1.38);
  expect(computePrice(record({ cloud: "COMMUNITY" }))).toBe(1.104);
  expect(computePrice(record({ gpu: undefined, cpu: { id: "cpu3g", vcpuCount: 8 } }))).toBe(0.24);
});

test.each<[PodStatus, number]>([
  ["PROVISIONING", 1.38],
  ["STARTING", 1.38],
  ["RUNNING", 1.38],
  ["ERROR", 1.38],
  ["EXITED", 0],
  ["TERMINATED", 0],
])("while %s it costs %d", (status, cost) => {
  expect(podCost(record({ status }))).toBe(cost);
  expect(podView(record({ status }), T0 + 5000, 1).cost).toBe(cost);
});

test("the view: the record's fields, its actions, the pod-id variable added, dates as ISO", () => {
  const v = podView(record(), T0 + 61_000, 1);
  expect(v).toMatchObject({
    id: "p0001abcdefgh",
    status: "RUNNING",
    actions: ["stop", "restart", "terminate"],
    env: { A: "1", [POD_ID_ENV]: "p0001abcdefgh" },
    template: null,
    gpu: { id: "NVIDIA GeForce RTX 4090", count: 2 },
    globalNetworking: { enabled: false },
    createdAt: "2026-01-01T00:00:00.000Z",
    startedAt: "2026-01-01T00:00:01.000Z",
  });
  expect(v.runtime?.uptime).toBe(60);
  expect(v.runtime?.ports).toEqual([
    { private: 8888, public: 40001, type: "http", ip: "203.0.113.7" },
    { private: 22, public: null, type: "tcp", ip: "203.0.113.7" },
  ]);
});

test("uptime is emulated seconds: the time scale multiplies it", () => {
  expect(podView(record(), T0 + 11_000, 10).runtime?.uptime).toBe(100);
});

test("runtime only while RUNNING; the figures repeat for the same pod at the same uptime", () => {
  expect(podView(record({ status: "STARTING" }), T0 + 5000, 1).runtime).toBeNull();
  const a = podView(record(), T0 + 5000, 1).runtime!;
  expect(podView(record(), T0 + 5000, 1).runtime).toEqual(a);
  expect(a.gpus).toHaveLength(2);
  for (const g of a.gpus) for (const u of [g.util, g.memoryUtil]) expect(u).toBeGreaterThanOrEqual(0);
  for (const g of a.gpus) for (const u of [g.util, g.memoryUtil]) expect(u).toBeLessThanOrEqual(100);
});

test("a stored gpu.count past every type's maxCount lists at most 8 runtime entries", () => {
  const v = podView(record({ gpu: { id: "NVIDIA GeForce RTX 4090", count: 4_294_967_296 } }), T0 + 5000, 1);
  expect(v.gpu?.count).toBe(4_294_967_296);
  expect(v.runtime?.gpus).toHaveLength(8);
});

test("a date no Date can hold reads as the epoch instead of throwing", () => {
  const v = podView(record({ createdAt: 1e20, startedAt: null }), T0, 1);
  expect(v.createdAt).toBe("1970-01-01T00:00:00.000Z");
  expect(v.startedAt).toBeNull();
});

test("a CPU pod carries its memory from its flavor; the global network its address and internal name", () => {
  const v = podView(record({ gpu: undefined, cpu: { id: "cpu3m", vcpuCount: 4 }, globalIp: "10.1.2.3" }), T0 + 5000, 1);
  expect(v.cpu).toEqual({ id: "cpu3m", vcpuCount: 4, memory: 32 });
  expect(v.gpu).toBeUndefined();
  expect(v.runtime?.gpus).toEqual([]);
  expect(v.globalNetworking).toEqual({ enabled: true, ip: "10.1.2.3", internalDns: "p0001abcdefgh.computeplatform.internal" });
});

test("the view is a copy: changing its mounts, ports or env leaves the record", () => {
  const r = record({ mounts: { persistent: { size: 20, path: "/w" } } });
  const v = podView(r, T0, 1);
  v.mounts.persistent!.size = 99;
  v.ports.push("1/tcp");
  v.env.B = "2";
  expect(r.mounts.persistent!.size).toBe(20);
  expect(r.ports).toHaveLength(2);
  expect(r.env).toEqual({ A: "1" });
});

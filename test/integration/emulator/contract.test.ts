// Every REST path the emulator serves, each at least once and with error answers, checked
// against the public contract (the copy in contract/) by test/helpers/contract.ts.
// Where the platform answers differently from its contract, an override says why.
import type { Emulator } from "../../../src/emulator";
import { type Override, operationOf, violations } from "../../helpers/contract";
import { createServerlessTemplate } from "../../helpers/emulator-fixtures";
import { client, FULL, READ_ONLY, RTX4090, start } from "../../helpers/emulator-rest";

/** Where the platform answers differently from its contract. */
export const OVERRIDES: Override[] = [];

/** The contract operations this emulator serves (the report lists the rest with reasons). */
const SERVED = [
  "listPods", "createPod", "getPod", "updatePod", "deletePod", "podAction",
  "listTemplates", "createTemplate", "getTemplate", "updateTemplate", "deleteTemplate",
  "listNetworkVolumes", "createNetworkVolume", "getNetworkVolume", "updateNetworkVolume", "deleteNetworkVolume",
  "listRegistries", "createRegistry", "getRegistry", "deleteRegistry",
  "listGpuTypes", "getGpuType", "listCpuTypes", "getCpuType", "listDataCenters", "getDataCenter",
  "listBilling", "listPodBilling", "listNetworkVolumeBilling", "listEndpointBilling",
];

let emu: Emulator;
const api = client(() => emu);

beforeAll(async () => {
  emu = await start({ recordExchanges: 10_000, quotas: { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 } });
});

afterAll(async () => {
  await emu?.close();
});

test("every served operation, answers and errors alike, fits the contract", async () => {
  // Templates and registries first: pods and endpoints name them.
  const reg = (await api.post("/v2/registries", { name: "r", username: "robot", password: "pw-1" })).body;
  await api.post("/v2/registries", { name: "" });
  await api.get("/v2/registries");
  await api.get(`/v2/registries/${reg.id}`);
  await api.get("/v2/registries/reg-none");
  const tpl = (await api.post("/v2/templates", { name: "t", image: "i:1", registry: reg.id, ports: ["80/http"], env: { A: "1" } })).body;
  await api.post("/v2/templates", { name: "t", image: "i:1", bogus: 1 });
  await api.post("/v2/templates", { name: "t", image: "i:1", registry: "reg-none" });
  await api.get("/v2/templates");
  await api.get(`/v2/templates/${tpl.id}`);
  await api.patch(`/v2/templates/${tpl.id}`, { name: "t2", mounts: { persistent: { size: 20, path: "/w" } } });
  await api.patch(`/v2/templates/${tpl.id}`, { category: "TPU" });
  await api.get("/v2/templates/tpl-none");
  const sl = await createServerlessTemplate(emu.url, FULL);

  const vol = (await api.post("/v2/network-volumes", { name: "v", size: 10, dataCenter: "US-TX-3" })).body;
  await api.post("/v2/network-volumes", { name: "v", size: 10, dataCenter: "US-TX-3", type: "HIGH_PERFORMANCE" });
  await api.post("/v2/network-volumes", { name: "v", size: 10, dataCenter: "MARS-1" });
  await api.post("/v2/network-volumes", { name: "v", size: 1, dataCenter: "US-TX-3" });
  await api.get("/v2/network-volumes");
  await api.get(`/v2/network-volumes/${vol.id}`);
  await api.get("/v2/network-volumes/nv-none");
  await api.get("/v2/catalog/gpus?include=AVAILABILITY&cloud=COMMUNITY&count=2");
  await api.get("/v2/catalog/gpus?count=2");
  await api.get("/v2/catalog/cpus?include=AVAILABILITY&vcpuCount=4");
  await api.get("/v2/catalog/datacenters?include=GPU_AVAILABILITY,CPU_AVAILABILITY&regions=EUROPE&globalNetwork=true");
  await api.get("/v2/catalog/datacenters?regions=MARS");
  await api.get("/v2/catalog/datacenters/EU-RO-1?include=GPU_AVAILABILITY");
  await api.patch(`/v2/network-volumes/${vol.id}`, { size: 20 });
  await api.patch(`/v2/network-volumes/${vol.id}`, { size: 10 });
  await api.patch(`/v2/network-volumes/${vol.id}`, {});

  const pod = await api.createPod({ gpu: { id: RTX4090 }, registry: reg.id, ports: ["8888/http"], mounts: { network: [{ volumeId: vol.id, path: "/d" }] } });
  const cpu = await api.createPod({ cpu: { id: "cpu3c", vcpuCount: 4 }, env: { A: "1" } });
  await api.createPod({ gpu: { id: RTX4090 }, mounts: { persistent: { size: 20, path: "/w" } }, globalNetworking: true, dataCenterIds: ["US-TX-3"] });
  await api.post("/v2/pods", { name: "p", image: "i", gpu: { id: RTX4090 }, cpu: { id: "cpu3c", vcpuCount: 2 } });
  await api.post("/v2/pods", { name: "p", image: "i", gpu: { id: RTX4090 }, bogus: 1 });
  await api.get("/v2/pods");
  await api.get(`/v2/pods/${pod.id}`);
  await api.waitFor(pod.id, "RUNNING");
  await api.patch(`/v2/pods/${pod.id}`, { name: "renamed", locked: true });
  await api.patch(`/v2/pods/${pod.id}`, { mounts: { network: [] } });
  await api.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
  await api.patch(`/v2/pods/${pod.id}`, { locked: false });
  await api.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
  await api.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
  await api.post(`/v2/pods/${pod.id}/action`, { action: "jump" });
  await api.post(`/v2/pods/${pod.id}/action`, { action: "start" });
  await api.del(`/v2/registries/${reg.id}`); // in use -> 409
  await api.del(`/v2/network-volumes/${vol.id}`); // in use -> 409
  await api.post(`/v2/pods/${cpu.id}/action`, { action: "terminate" });
  await api.del(`/v2/pods/${pod.id}`);
  await api.get(`/v2/pods/${pod.id}`);
  await api.get("/v2/pods/p-none");
  await api.del("/v2/pods/p-none");

  const gpus = (await api.get("/v2/catalog/gpus")).body.gpus;
  await api.get(`/v2/catalog/gpus/${encodeURIComponent(gpus[0].id)}`);
  await api.get("/v2/catalog/gpus/no-such-gpu");
  await api.get("/v2/catalog/cpus");
  await api.get("/v2/catalog/cpus/cpu3c");
  await api.get("/v2/catalog/cpus/none");
  await api.get("/v2/catalog/datacenters");
  await api.get("/v2/catalog/datacenters/US-TX-3");
  await api.get("/v2/catalog/datacenters/MARS-1");

  await api.post("/v2/sdxl-turbo/runsync", { input: { prompt: "x", width: 8, height: 8 } });
  await api.get("/v2/billing");
  await api.get("/v2/billing?bucketSize=hour&lastN=3");
  await api.get("/v2/billing?bucketSize=minute");
  await api.get("/v2/billing/pods");
  await api.get(`/v2/billing/pods?podId=${pod.id}&bucketSize=week&lastN=2`);
  await api.get("/v2/billing/networkvolumes");
  await api.get(`/v2/billing/networkvolumes?networkVolumeId=${vol.id}`);
  await api.get("/v2/billing/endpoints?lastN=1&startTime=2026-01-01T00:00:00Z");

  await api.del(`/v2/templates/${tpl.id}`); // uses reg: deletes fine
  await api.del(`/v2/templates/${sl}`);
  await api.del(`/v2/registries/${reg.id}`);
  await api.del(`/v2/network-volumes/${vol.id}`);
  await api.del("/v2/templates/tpl-none");
  await api.del("/v2/registries/reg-none");
  await api.del("/v2/network-volumes/nv-none");
  // Auth, scope and method errors.
  await api.get("/v2/pods", { key: null });
  await api.get("/v2/templates", { key: "cp_wrong" });
  await api.post("/v2/templates", { name: "t", image: "i" }, { key: READ_ONLY });
  await api.patch(`/v2/registries/${reg.id}`, { name: "x" });
  await api.get("/v2/nothing-here");

  const exchanges = emu.exchanges();
  const problems = exchanges.flatMap((x) => violations(x, OVERRIDES));
  expect(problems).toEqual([]);

  const covered = new Set(exchanges.map((x) => operationOf(x.method, x.path)?.operationId));
  expect(SERVED.filter((op) => !covered.has(op))).toEqual([]);
  // Each served operation was seen answering an error too, except lists that take no input.
  const failed = new Set(exchanges.filter((x) => x.status >= 400).map((x) => operationOf(x.method, x.path)?.operationId));
  const noErrorPossible = ["listPods", "listTemplates", "listNetworkVolumes", "listRegistries", "listGpuTypes", "listCpuTypes", "listDataCenters", "listPodBilling", "listNetworkVolumeBilling"];
  expect(SERVED.filter((op) => !failed.has(op) && !noErrorPossible.includes(op))).toEqual([]);
  // Credentials never reach the record.
  expect(JSON.stringify(exchanges)).not.toMatch(/pw-1|robot"/);
});

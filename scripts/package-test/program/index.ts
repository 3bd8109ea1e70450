// A user's Pulumi program, as `npm run test:package` runs it from a fresh project that installed
// pulumi-computeplatform from its packed tarball: every resource and every catalog function.
// The same file is compiled once as CommonJS and once as an ES module. The examples in docs/
// are excerpts of it, so each one has run through Pulumi's plugin against the emulator.
import * as pulumi from "@pulumi/pulumi";
import {
  getBilling,
  getCpuFlavor,
  getCpuFlavors,
  getDataCenter,
  getDataCenters,
  getGpuType,
  getGpuTypes,
  NetworkVolume,
  Pod,
  RegistryCredential,
  runSyncSmokeTest,
  ServerlessEndpoint,
  Template,
  validVcpuCounts,
} from "pulumi-computeplatform";

const config = new pulumi.Config("app");

// The catalog: plain async functions; pulumi.output() makes their answers inputs.
// (The records are open objects, so read fields with .apply rather than by lifting.)
const dataCenter = pulumi.output(getDataCenter("EU-RO-1")).apply((dc) => dc.id);
const cheapestGpu = pulumi
  .output(getGpuTypes({ manufacturer: "NVIDIA", minMemoryGb: 24 }))
  .apply((gpus) => [...gpus].sort((a, b) => a.price.secure - b.price.secure)[0].id);
const flavor = pulumi.output(getCpuFlavor("cpu3c"));
const vcpuCount = flavor.apply((f) => validVcpuCounts(f)[0]);
const a6000 = pulumi.output(getGpuType("NVIDIA RTX A6000"));
const flavorIds = pulumi.output(getCpuFlavors()).apply((all) => all.map((f) => f.id));
const globalDataCenters = pulumi.output(getDataCenters({ globalNetwork: true })).apply((all) => all.map((dc) => dc.id));

const registry = new RegistryCredential("ghcr", {
  username: config.require("registryUser"),
  password: config.requireSecret("registryToken"),
});

const volume = new NetworkVolume("data", {
  size: 20,
  dataCenter,
  type: "STANDARD",
});

const trainer = new Pod("trainer", {
  image: config.get("image") ?? "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
  gpu: { id: cheapestGpu, count: 1 },
  ports: ["8888/http", "22/tcp"],
  env: { JUPYTER_PORT: "8888" },
  mounts: { network: [{ volumeId: volume.id, path: "/workspace" }] },
});

const app = new Pod("app", {
  image: "ghcr.io/acme/private-app:1.0",
  cpu: { id: flavor.apply((f) => f.id), vcpuCount },
  ports: ["8080/http"],
  registry: registry.id,
});

// A pod made in the console, taken under management: the first up PATCHes what differs.
const notebook = new Pod("notebook", {
  name: "legacy-notebook",
  image: "jupyter/base-notebook:2024-12",
  gpu: { id: "NVIDIA RTX A6000" },
  adopt: config.require("notebookPodId"),
});

// GPU types in order of preference: create moves on only when the platform has no capacity.
const fallback = new Pod("fallback", {
  image: "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
  gpu: { id: ["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA L40S"], count: 1 },
  dataCenterIds: ["EU-RO-1", "US-TX-3"],
  maxHourlyCost: 2.5, // optional: a GPU type dearer than $2.50/h is not tried
});

const worker = new Template("worker", {
  image: config.get("workerImage") ?? "ghcr.io/acme/worker:1.0",
  serverless: true,
  registry: registry.id,
  env: { MAX_MODEL_LEN: "4096" },
});

const api = new ServerlessEndpoint("api", {
  templateId: worker.id,
  gpuIds: "ADA_24,AMPERE_48",
  workersMin: 0,
  workersMax: config.getNumber("workersMax") ?? 2,
  idleTimeout: 5,
});

// One job on the stack's own endpoint once it is up: its first worker starts for it (workersMin 0).
const smoke = runSyncSmokeTest({
  endpointId: api.id,
  input: { prompt: "Say hello" },
});

const podSpend = pulumi.output(getBilling({ of: "pods", lastN: 1, bucketSize: "day" }));

export const trainerId = trainer.id;
export const trainerGpu = trainer.gpu;
export const fallbackGpu = fallback.gpu;
export const fallbackHourlyCost = fallback.hourlyCost;
export const appStatus = app.status;
export const notebookImage = notebook.image;
export const volumeId = volume.id;
export const endpointId = api.id;
export const endpointUrls = api.requestUrls;
export const smokeStatus = smoke.status;
export const smokeOutput = smoke.output;
export const spentOnPodsToday = podSpend.apply((b) => b.metadata.totals.totalAmount);
export const a6000Price = a6000.apply((g) => g.price.secure);
export const cpuFlavors = flavorIds;
export const dataCentersWithGlobalNetworking = globalDataCenters;

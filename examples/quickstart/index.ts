// Quickstart: a GPU pod with a network volume mounted, a Serverless endpoint on its own
// serverless template, and one runsync smoke job on that endpoint during `pulumi up` when what it
// tests changed (never during `pulumi preview`, never for an unchanged stack). Nothing to click together in a console first: the stack makes it all.
//
//   pulumi config set computeplatform:apiUrl http://127.0.0.1:8787
//   pulumi config set computeplatform:apiKey --secret <key>
//   pulumi up
import * as pulumi from "@pulumi/pulumi";
import { getBilling, NetworkVolume, Pod, runSyncSmokeTest, ServerlessEndpoint, Template } from "pulumi-computeplatform";

const config = new pulumi.Config("quickstart");
/** The volume's data center; the pod follows the volume there. */
const dataCenter = config.get("dataCenter") ?? "US-TX-3";
/** Changing the GPU type replaces the pod (compute is fixed at creation). */
const gpuType = config.get("gpuType") ?? "NVIDIA GeForce RTX 4090";
/** Changing the image updates the pod in place (the container restarts). */
const image = config.get("image") ?? "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime";
/** The endpoint workers' image; a new one updates the template in place. */
const workerImage = config.get("workerImage") ?? "runpod/worker-v1-vllm:v2.4.0";

const volume = new NetworkVolume("data", { size: 50, dataCenter });

const trainer = new Pod("trainer", {
  image,
  gpu: { id: gpuType, count: 1 },
  ports: ["8888/http", "22/tcp"],
  env: { JUPYTER_PORT: "8888" },
  // The stack's own volume: the pod depends on it and, with no dataCenterIds, runs beside it.
  mounts: { network: [{ volumeId: volume.id, path: "/workspace" }] },
});

// What the endpoint's workers run. `serverless: true` is what an endpoint's template must be;
// the endpoint depends on it, so it is made first and deleted last.
const worker = new Template("worker", {
  image: workerImage,
  serverless: true,
  disk: 20,
  env: { MAX_MODEL_LEN: "4096" },
});

const api = new ServerlessEndpoint("api", {
  gpuIds: "ADA_24",
  templateId: worker.id,
  workersMin: 1,
  workersMax: config.getNumber("workersMax") ?? 3,
  idleTimeout: 5,
});

// One job on the stack's own endpoint once it is up (its id is known only then), sent again only
// when the endpoint's release or the prompt changes; preview sends nothing.
const smoke = runSyncSmokeTest({
  endpoint: api,
  input: { prompt: config.get("smokePrompt") ?? "Say hello from the quickstart", max_tokens: 16 },
});

export const volumeId = volume.id;
export const podId = trainer.id;
export const podStatus = trainer.status;
export const podDataCenter = trainer.dataCenterId;
export const templateId = worker.id;
export const endpointId = api.id;
/** Where a client sends the endpoint's jobs (`run`, `runSync`). */
export const endpointUrls = api.requestUrls;
export const smokeStatus = smoke.status;
export const smokeOutput = smoke.output;

// What the stack cost over the last day, from the platform's billing (during `pulumi up`; a
// preview sends nothing). Pods are billed one by one; serverless endpoints only account-wide.
export const lastDaySpend = pulumi.all([trainer.id, api.id]).apply(async ([trainerId]) => {
  if (pulumi.runtime.isDryRun()) return undefined;
  const day = { bucketSize: "day", lastN: 1 } as const;
  const [pods, account] = await Promise.all([getBilling({ of: "pods", podId: trainerId, ...day }), getBilling(day)]);
  const usd = (n: number) => Math.round(n * 100) / 100;
  return {
    "pod trainer": usd(pods.metadata.totals.totalAmount),
    "serverless endpoints (the account's)": usd(account.metadata.totals.serverlessGpuAmount + account.metadata.totals.serverlessCpuAmount),
  };
});

// What the stack costs per hour at the catalog's prices (the cost lines of a preview add these up).
export const podHourlyCost = trainer.hourlyCost;
export const endpointHourlyCost = api.hourlyCost;

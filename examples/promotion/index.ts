// One program, one stack per environment: `dev` and `prod` differ only in their stack files
// (Pulumi.dev.yaml, Pulumi.prod.yaml). Promote by reviewing `pulumi preview --stack prod`,
// then `pulumi up --stack prod`.
import * as pulumi from "@pulumi/pulumi";
import { NetworkVolume, Pod, runSyncSmokeTest, ServerlessEndpoint, Template } from "pulumi-computeplatform";
import { parsePromotionConfig, POD_GPU_FOR_TIER, PromotionConfigError } from "./config";

const config = new pulumi.Config("promotion");

function readConfig() {
  try {
    return parsePromotionConfig((key) => config.get(key));
  } catch (e) {
    // A RunError is printed without a stack trace: the message is all the user needs.
    if (e instanceof PromotionConfigError) {
      throw new pulumi.RunError(`stack ${pulumi.getStack()}: ${e.message}`);
    }
    throw e;
  }
}

const settings = readConfig();
const stack = pulumi.getStack();

// The batch pod's data lives on a network volume, which outlives the pod. Its replacement (a new
// data center, say) would be a new, empty volume: prod protects it (`promotion:protectData`), so
// the engine refuses any change that would delete it, and `pulumi destroy` stops at it.
const data = new NetworkVolume("data", { size: 50, dataCenter: settings.dataCenter }, { protect: settings.protectData });

// The batch pod runs the release's image on the tier's GPU type, its data on the volume. A new
// tag restarts it in place; a different GPU type replaces it, and the volume's data stays.
const batch = new Pod("batch", {
  image: `ghcr.io/acme/inference:${settings.imageTag}`,
  gpu: { id: POD_GPU_FOR_TIER[settings.gpuTier], count: 1 },
  env: { RELEASE: settings.imageTag, STACK: stack },
  ports: ["8000/http"],
  mounts: { network: [{ volumeId: data.id, path: "/workspace" }] },
});

// The workers' template, one per stack: a new tag updates it in place (PATCH), which makes a
// new release of the endpoint bound to it: its preview shows the endpoint rolling (`template`),
// and `up` returns once every worker runs the new image.
const worker = new Template("inference-worker", {
  image: `ghcr.io/acme/inference-worker:${settings.imageTag}`,
  serverless: true,
  env: { RELEASE: settings.imageTag, STACK: stack },
});

// Every field here changes in place: tier, workers and regions are endpoint settings.
const inference = new ServerlessEndpoint("inference", {
  gpuIds: settings.gpuTier,
  templateId: worker.id,
  workersMin: settings.workersMin,
  workersMax: settings.workersMax,
  locations: settings.locations.join(","),
  idleTimeout: 5,
});

// The stack's smoke job, once the endpoint's up is over (its rollout included): it fails when a
// worker of an older release answered it, and says which release did. It runs again only when
// the endpoint's release or its input changes: an unchanged stack sends no paid job.
const smoke = runSyncSmokeTest({ endpoint: inference, input: { prompt: `smoke test of ${settings.imageTag}` } });

export const release = settings.imageTag;
export const dataVolumeId = data.id;
export const batchPodId = batch.id;
export const batchGpu = batch.gpu;
export const templateId = worker.id;
export const endpointId = inference.id;
export const endpointGpu = inference.gpuIds;
export const endpointVersion = inference.version; // the platform's release of the endpoint
export const smokeStatus = smoke.status;
export const smokeOutput = smoke.output;
export const smokeRelease = smoke.release; // the endpoint version whose worker answered: endpointVersion

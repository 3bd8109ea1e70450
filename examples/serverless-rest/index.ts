// A serverless endpoint managed entirely over REST v2 (`/v2/serverless`), the interface that
// replaces GraphQL in early 2027: its container is inline and its own (the platform keeps it in
// a template bound to this endpoint alone), placement is by data center, and `up` returns once
// `workersMin` workers are IDLE or RUNNING in its workers list.
import * as pulumi from "@pulumi/pulumi";
import { ServerlessEndpoint } from "pulumi-computeplatform";

const config = new pulumi.Config("serverless-rest");

const restApi = new ServerlessEndpoint("rest-api", {
  api: "rest",
  container: { image: "runpod/worker-sdxl:1.0", env: { MODEL: "sdxl-turbo" }, ports: ["8000/http"] },
  gpuIds: "ADA_24,AMPERE_24",
  workersMin: 0,
  workersMax: 2,
  dataCenterIds: ["US-KS-2", "EU-RO-1"],
});

// Warm workers on request: `pulumi config set serverless-rest:warmWorkers 1`.
const warm = new ServerlessEndpoint("warm-api", {
  api: "rest",
  container: { image: "runpod/worker-sdxl:1.0" },
  gpuIds: "ADA_24",
  workersMin: config.getNumber("warmWorkers") ?? 0,
  workersMax: 2,
  scalerType: "REQUEST_COUNT",
  scalerValue: 2,
});

export const endpointId = restApi.id;
export const container = restApi.container;
export const hourlyCost = warm.hourlyCost;
export const warmWorkers = warm.pods.apply((pods) => (pods ?? []).filter((p) => p.desiredStatus === "RUNNING").length);

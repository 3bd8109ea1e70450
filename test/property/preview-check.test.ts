// The generated check of preview against up (issue 14), for every kind and every property:
// see test/helpers/preview-check/runner.ts. `npm run soak:preview` walks many more pairs. Beside
// it, the budgets' walk (test/helpers/preview-check/budget.ts): drawn programs, --target, --exclude
// and transforms, and never a bill over the budget.
// The plugin loads dist/: run `npm run build` before this file alone.
import type { ComputePlatform } from "../../src/client";
import { describeBudgetWalk } from "../helpers/preview-check/budget";
import { networkVolumeModel } from "../helpers/preview-check/network-volume";
import { podModel } from "../helpers/preview-check/pod";
import { registryCredentialModel } from "../helpers/preview-check/registry-credential";
import { serverlessEndpointModel } from "../helpers/preview-check/serverless-endpoint";
import { serverlessEndpointRestModel } from "../helpers/preview-check/serverless-endpoint-rest";
import { describePreviewCheck } from "../helpers/preview-check/runner";
import { templateModel } from "../helpers/preview-check/template";

/** Two registry credentials, for pods and templates to name. */
async function registries(client: ComputePlatform) {
  const made = await Promise.all([1, 2].map((n) => client.registries.create({ name: `fixture-${n}`, username: "u", password: "p" })));
  return made.map((r) => r.id);
}

/** Two registry credentials and two network volumes (in data centers with global networking) for pods to use. */
async function podFixtures(client: ComputePlatform) {
  const volumes = await Promise.all(["US-TX-3", "EU-RO-1"].map((dc) => client.networkVolumes.create({ name: `fixture-${dc}`, size: 20, dataCenter: dc })));
  return { registries: await registries(client), volumes: volumes.map((v) => v.id) };
}

/** Two serverless templates and a network volume for endpoints to name. */
async function endpointFixtures(client: ComputePlatform) {
  const templates = await Promise.all([1, 2].map((n) => client.templates.create({ name: `worker-${n}`, image: `worker:${n}`, serverless: true })));
  const volume = await client.networkVolumes.create({ name: "fixture-endpoint", size: 20, dataCenter: "US-TX-3" });
  return { templates: templates.map((t) => t.id), volumes: [volume.id] };
}

describePreviewCheck([
  { model: networkVolumeModel },
  { model: podModel, fixtures: podFixtures },
  { model: templateModel, fixtures: async (client) => ({ registries: await registries(client) }) },
  { model: registryCredentialModel },
  { model: serverlessEndpointModel, fixtures: endpointFixtures },
  { model: serverlessEndpointRestModel, fixtures: endpointFixtures },
]);

describeBudgetWalk();

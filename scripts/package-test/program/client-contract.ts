// The client docs' contract example, run by `npm run test:package` from the installed package
// against the emulator (the environment points it there), then cleaned up.
import { ComputePlatform } from "pulumi-computeplatform/client";

const cp = new ComputePlatform();

async function main() {
  const gpu = await cp.catalog.gpu("NVIDIA GeForce RTX 4090"); // { memory, pool, price: { secure, community }, ... }
  const eu = await cp.catalog.dataCenters({ regions: ["EUROPE"], globalNetwork: true });
  const registry = await cp.registries.create({ name: "ghcr", username: "bot", password: process.env.GHCR_TOKEN! });
  const template = await cp.templates.create({ name: "worker", image: "ghcr.io/me/worker:1", serverless: true, registry: registry.id });
  await cp.templates.update(template.id, { env: { LOG_LEVEL: "debug" } });
  const spend = await cp.billing.pods({ lastN: 7, bucketSize: "day" }); // { records: [{ podId, totalAmount, ... }], metadata }
  const pods = await cp.pods.list();
  for (const odd of pods.unreadable) console.warn(`pod ${odd.id ?? `#${odd.index}`} cannot be read:`, odd.issues);
  const updated = await cp.templates.get(template.id);
  const ep = await cp.serverless.create({
    name: "sdxl",
    image: "ghcr.io/me/sdxl-worker:1",
    gpu: { pools: ["ADA_24", "AMPERE_24"] },
    workers: { min: 0, max: 3 },
  });
  await cp.serverless.update(ep.id, { env: { LOG_LEVEL: "debug" } }); // only env changes
  const { summary } = await cp.serverless.workers(ep.id); // { idle, initializing, running, ... }
  await cp.serverless.update(ep.id, { workers: { min: 0, max: 0 } }); // delete is refused (409) before this
  await cp.serverless.delete(ep.id);
  console.log(gpu.id, gpu.price.secure, eu.map((dc) => dc.id).join(","), updated.env.LOG_LEVEL, spend.records.length, summary.total);
  await cp.templates.delete(template.id);
  await cp.registries.delete(registry.id);
}

main();

// The README's client example, run by `npm run test:package` from the installed package
// against the emulator (the environment points it there).
import { ComputePlatform, NotFoundError } from "pulumi-computeplatform/client";

// apiKey, apiUrl and serverlessUrl default to COMPUTEPLATFORM_API_KEY, _API_URL, _SERVERLESS_URL.
const cp = new ComputePlatform();

async function main() {
  const volume = await cp.networkVolumes.create({ name: "scratch", size: 10, dataCenter: "EU-RO-1" });
  const pod = await cp.pods.create({
    name: "notebook",
    image: "jupyter/base-notebook:latest",
    cpu: { id: "cpu3c", vcpuCount: 2 },
    mounts: { network: [{ volumeId: volume.id, path: "/home/jovyan/work" }] },
  });
  console.log(pod.id, pod.status, pod.dataCenterId, `${pod.cpu?.memory} GB`);

  const answer = await cp.models.runSync("sdxl-turbo", { prompt: "a lighthouse", width: 64, height: 64 });
  console.log(answer.status, answer.output.image_url);

  await cp.pods.delete(pod.id);
  await cp.networkVolumes.delete(volume.id);
  try {
    await cp.pods.get(pod.id.replace(/.$/, "x"));
  } catch (e) {
    if (e instanceof NotFoundError) console.log(e.status, e.message);
  }
}

main();

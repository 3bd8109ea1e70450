// The client docs' hosted-model example (a job, followed to its end), run by `npm run test:package`
// from the installed package against the emulator (the environment points it there).
import { ComputePlatform } from "pulumi-computeplatform/client";

const cp = new ComputePlatform();

async function main() {
  // wait: how long the platform holds each call (1000..300000 ms, its default 90000);
  // deadlineMs: how long runSync may take in all (default 600000, 10 minutes).
  const done = await cp.models.runSync("sdxl-turbo", { prompt: "a lighthouse" }, { wait: 30000, deadlineMs: 120000 });
  console.log(done.status, done.output.image_url, done.delayTime, done.executionTime); // ms queued and run

  const job = await cp.models.run("sdxl-turbo", { prompt: "a lighthouse" }); // { id, status: "IN_QUEUE" }
  const now = await cp.models.status("sdxl-turbo", job.id);                    // its current answer
  const end = await cp.models.status("sdxl-turbo", job.id, { wait: 60000 });   // held up to 60 s
  if (end.status === "COMPLETED") console.log(end.output.image_url);           // FAILED is an answer here, not an error
  console.log(job.status, now.status);
}

main();

// `npm run bench:jobs`: the emulator's job scheduling. 1,000 runsync jobs on one endpoint of the
// account with the echo test worker (queue, worker assignment, answer), beside 1,000 plain
// runsync calls of a hosted model (no queue, no worker): jobs per second, and the overhead per
// job of the endpoint's scheduling over the hosted call. Sequential (one call at a time) and 16
// at once, on one keep-alive connection pool. Then 1,000 calls held on queued jobs: the CPU they
// cost while they only wait. Nothing asserts a time; the machine may be shared.
import * as http from "node:http";
import { startEmulator } from "../src/emulator";

const N = Number(/^--n=(\d+)$/.exec(process.argv.slice(2).find((a) => a.startsWith("--n=")) ?? "")?.[1] ?? 1000);
const KEY = "cp_bench_jobs_0123456789";

async function main(): Promise<void> {
  const emu = await startEmulator({
    port: 0,
    keys: [{ key: KEY, scopes: ["read", "write"], quotas: { minute: 10_000_000, hour: 10_000_000, day: 10_000_000 } }],
    timings: { startingMs: 0 },
    requestLogSize: 100,
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const { hostname, port } = new URL(emu.url);
  const post = (path: string, body: unknown) =>
    new Promise<any>((resolve, reject) => {
      const data = JSON.stringify(body);
      const req = http.request(
        { host: hostname, port, path, method: "POST", agent, headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "content-length": Buffer.byteLength(data) } },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c) => (text += c));
          res.on("end", () => (res.statusCode === 200 || res.statusCode === 201 ? resolve(JSON.parse(text)) : reject(new Error(`${path} -> ${res.statusCode}: ${text}`))));
        },
      );
      req.on("error", reject);
      req.end(data);
    });
  try {
    const ep = await post("/v2/serverless", { name: "bench", image: "worker:1", gpu: { pools: ["ADA_24"] }, workers: { min: 16, max: 16 } });
    const endpointJob = (i: number) => post(`/v2/${ep.id}/runsync`, { input: { i } });
    const hostedCall = (i: number) => post("/v2/sdxl-turbo/runsync", { input: { prompt: `p${i}`, width: 8, height: 8 } });
    const rows: string[][] = [];
    for (const concurrency of [1, 16]) {
      const measure = async (call: (i: number) => Promise<any>) => {
        // A warm-up the size of the pool, then the measured run.
        await Promise.all(Array.from({ length: concurrency }, (_, i) => call(-1 - i)));
        let next = 0;
        let done = 0;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next < N) {
              const i = next++;
              const a = await call(i);
              if (a.status !== "COMPLETED") throw new Error(`job ${i}: ${JSON.stringify(a)}`);
              done++;
            }
          }),
        );
        return { ms: performance.now() - started, done };
      };
      const jobs = await measure(endpointJob);
      const hosted = await measure(hostedCall);
      const perJob = jobs.ms / jobs.done;
      const perHosted = hosted.ms / hosted.done;
      rows.push([
        String(concurrency),
        `${jobs.done}`,
        (jobs.done / (jobs.ms / 1000)).toFixed(0),
        perJob.toFixed(3),
        (hosted.done / (hosted.ms / 1000)).toFixed(0),
        perHosted.toFixed(3),
        ((perJob - perHosted) * concurrency).toFixed(3),
      ]);
    }
    const head = ["at once", "jobs", "endpoint jobs/s", "ms per job (wall/n)", "hosted calls/s", "ms per hosted call", "scheduling overhead ms per job"];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i])).join("  ");
    console.log(`Jobs on one endpoint (echo test worker, 16 started workers) beside a hosted model's runsync, ${N} each`);
    console.log(line(head));
    for (const r of rows) console.log(line(r));
    console.log("Overhead per job: (wall per endpoint job - wall per hosted call) x calls at once, the extra time each job holds a connection.");
    await heldWaits(emu.url);
  } finally {
    agent.destroy();
    await emu.close();
  }
}

/**
 * 1,000 runsync calls held on an endpoint with no worker (their jobs stay queued): the CPU the
 * process spends while they only wait, over a 5 s window, then a purge that ends them all.
 */
async function heldWaits(url: string): Promise<void> {
  const HELD = 1000;
  const WINDOW_MS = 5000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: HELD + 10 });
  const { hostname, port } = new URL(url);
  const request = (method: string, path: string, body?: unknown) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const data = body === undefined ? "" : JSON.stringify(body);
      const req = http.request(
        { host: hostname, port, path, method, agent, headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "content-length": Buffer.byteLength(data) } },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
        },
      );
      req.on("error", reject);
      req.end(data);
    });
  try {
    const ep = (await request("POST", "/v2/serverless", { name: "held", image: "worker:1", gpu: { pools: ["ADA_24"] }, workers: { min: 0, max: 0 } })).body;
    const held = Array.from({ length: HELD }, (_, i) => request("POST", `/v2/${ep.id}/runsync?wait=60000`, { input: { i } }));
    for (let i = 0; i < 600; i++) {
      if ((await request("GET", `/v2/${ep.id}/health`)).body.jobs.inQueue >= HELD) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const cpu = process.cpuUsage(cpu0);
    const wall = performance.now() - t0;
    const purged = (await request("POST", `/v2/${ep.id}/purge-queue`)).body;
    const answers = await Promise.all(held);
    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    console.log(
      `Held waits: ${HELD} runsync calls waiting on queued jobs for ${(wall / 1000).toFixed(1)} s: CPU ${cpuMs.toFixed(0)} ms (${((100 * cpuMs) / wall).toFixed(1)}% of a core); ` +
        `after a purge of ${purged.removed}: ${[...byStatus].map(([s, n]) => `${n} x ${s}`).join(", ")}`,
    );
  } finally {
    agent.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

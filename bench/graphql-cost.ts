// `npm run bench:graphql-cost`: the GraphQL cost limit (src/emulator/serverless/graphql/cost.ts)
// measured. For each shape of hostile document (aliases of `myself`, `endpoints` and `pods` through
// two fragments), the costliest one the limit admits: its cost, its answer's size and time, and the
// read latency of another client (GET /v2/pods with another key) while it runs back to back, beside
// that latency with nothing else running. Then the review's document, refused. Nothing asserts a
// time; the machine may be shared.
//
//   npm run bench:graphql-cost                         10 endpoints of 3 workers
//   npm run bench:graphql-cost -- --endpoints=100 --workers=10
import * as http from "node:http";
import { parse } from "graphql";
import { startEmulator } from "../src/emulator";
import { documentCost, endpointSchema, MAX_COST } from "../src/internal";
import { aliasBomb, mutationBatch } from "../tools/hostile/graphql";

const option = (name: string, fallback: number): number => {
  const arg = process.argv.slice(2).find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.slice(name.length + 3)) : fallback;
};

const SETUP = "cp_bench_gql_setup_0123456789";
const ATTACKER = "cp_bench_gql_reader_0123456789";
const OTHER = "cp_bench_gql_other_0123456789";
const BIG = { minute: 10_000_000, hour: 10_000_000, day: 10_000_000 };

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function main(): Promise<void> {
  const nEndpoints = option("endpoints", 10);
  const nWorkers = option("workers", 3);
  const emu = await startEmulator({
    port: 0,
    keys: [
      { key: SETUP, scopes: ["read", "write"], quotas: BIG },
      { key: ATTACKER, scopes: ["read"], quotas: BIG },
      { key: OTHER, scopes: ["read"], quotas: BIG },
    ],
    timings: { provisioningMs: 0, startingMs: 0, drainMs: 0, restartDelayMs: 0 },
    requestLogSize: 100,
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const { hostname, port } = new URL(emu.url);
  const call = (method: string, path: string, key: string, body?: unknown) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string | number> = { authorization: `Bearer ${key}` };
      if (data !== undefined) Object.assign(headers, { "content-type": "application/json", "content-length": Buffer.byteLength(data) });
      const req = http.request({ host: hostname, port, path, method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      });
      req.on("error", reject);
      req.end(data);
    });
  let gqlKey = ATTACKER;
  const gql = (query: string) => call("POST", "/graphql", gqlKey, { query });

  try {
    const tpl = await call("POST", "/v2/templates", SETUP, { name: "w", image: "worker:1", serverless: true });
    const templateId = JSON.parse(tpl.text).id as string;
    for (let i = 0; i < nEndpoints; i++) {
      const input = `{ name: "ep${i}", gpuIds: "AMPERE_16", templateId: "${templateId}", workersMin: ${nWorkers}, workersMax: ${nWorkers} }`;
      const r = await call("POST", "/graphql", SETUP, { query: `mutation { saveEndpoint(input: ${input}) { id } }` });
      if (r.status !== 200 || r.text.includes("errors")) throw new Error(`saveEndpoint -> ${r.status}: ${r.text}`);
    }
    const sizes = { endpoints: nEndpoints, workers: nWorkers * nEndpoints };
    const costOf = (doc: string) => {
      const c = documentCost(endpointSchema(), parse(doc), sizes, undefined, undefined);
      if (c instanceof Error) throw c;
      return c.cost;
    };

    const readLatencies = async (count: number) => {
      const out: number[] = [];
      for (let i = 0; i < count; i++) {
        const t0 = performance.now();
        const r = await call("GET", "/v2/pods", OTHER);
        out.push(performance.now() - t0);
        if (r.status !== 200) throw new Error(`GET /v2/pods -> ${r.status}`);
      }
      return out;
    };
    await readLatencies(20); // warm-up
    const quiet = await readLatencies(200);
    console.log(`GraphQL cost limit ${MAX_COST}; ${nEndpoints} endpoints of ${nWorkers} workers (${sizes.workers} workers)`);
    console.log(`another client's GET /v2/pods alone: p50 ${ms(percentile(quiet, 0.5))}, p99 ${ms(percentile(quiet, 0.99))}, max ${ms(Math.max(...quiet))}`);

    // Shapes: many `myself { endpoints { id } }` (view building), every field with one worker list,
    // and every field with many worker lists.
    const shapes: [string, (n: number) => string][] = [
      ["myself aliases, `endpoints { ...E }` with every field and 1 pods list", (n) => aliasBomb(n, 1, 1)],
      ["1 myself, endpoints aliases, every field and 1 pods list", (n) => aliasBomb(1, n, 1)],
      ["1 myself, 1 endpoints, every field and pods aliases", (n) => aliasBomb(1, 1, n)],
      ["myself aliases each `endpoints { id }`", (n) => `{ ${Array.from({ length: n }, (_, i) => `m${i}: myself { endpoints { id } }`).join(" ")} }`],
      ["aliased mutations (deleteEndpoint of a missing id; a write key)", mutationBatch],
    ];
    for (const [name, make] of shapes) {
      gqlKey = make === mutationBatch ? SETUP : ATTACKER;
      // The largest n the emulator admits (its answer, not our count, decides).
      let lo = 1;
      let hi = 1;
      while ((await gql(make(hi))).status === 200) {
        lo = hi;
        hi *= 2;
        if (hi > 1 << 16) break;
      }
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if ((await gql(make(mid))).status === 200) lo = mid;
        else hi = mid;
      }
      const doc = make(lo);
      const times: number[] = [];
      let bytes = 0;
      // CPU time of this process (the emulator and the bench's client) per document: what the
      // document blocks the event loop for on a machine nothing else loads.
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        const r = await gql(doc);
        times.push(performance.now() - t0);
        bytes = r.text.length;
      }
      const cpu = process.cpuUsage(cpu0);
      const cpuMs = (cpu.user + cpu.system) / 1000 / 10;
      // The other client reads while the document runs back to back.
      let running = true;
      const attack = (async () => {
        let sent = 0;
        while (running && sent < 2000) {
          await gql(doc);
          sent++;
        }
        return sent;
      })();
      const during = await readLatencies(100);
      running = false;
      const sent = await attack;
      const refused = await gql(make(lo + 1));
      console.log(`\n${name}`);
      console.log(`  costliest admitted: n=${lo}, cost ${costOf(doc)}, ${doc.length} bytes, answer ${(bytes / 1024).toFixed(0)} KiB, ` +
        `time p50 ${ms(percentile(times, 0.5))}, max ${ms(Math.max(...times))}, CPU ${ms(cpuMs)}; n=${lo + 1} -> ${refused.status}`);
      console.log(`  another client's read while it runs (${sent} sent): p50 ${ms(percentile(during, 0.5))}, p99 ${ms(percentile(during, 0.99))}, max ${ms(Math.max(...during))}`);
    }

    const review = aliasBomb(16, 8, 6);
    const t0 = performance.now();
    const r = await gql(review);
    console.log(`\nthe review's kind of document (${(review.length / 1024).toFixed(1)} KB, 16 x 8 x 6 aliases): ${r.status} in ${ms(performance.now() - t0)}: ${r.text.slice(0, 200)}`);
  } finally {
    await emu.close();
    agent.destroy();
  }
}

main().then(undefined, (err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

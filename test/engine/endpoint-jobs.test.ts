// A stack's own endpoint takes jobs from the platform's own clients: the endpoint is made by
// Pulumi's dynamic-provider plugin (a Template and a ServerlessEndpoint over GraphQL, as the
// quickstart makes them), then `runpod-sdk` (in a child process, as a user's script runs it)
// sends run, status, runSync, stream, cancel, purgeQueue and health to the addresses the
// endpoint's `requestUrls` output gives, and `@runpod/ai-sdk-provider` with `ai` gets a plain and
// a streamed chat completion from its OpenAI-compatible routes. The plugin loads dist/: run
// `npm run build` before this file alone.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { createRunpod } from "@runpod/ai-sdk-provider";
import { generateText, streamText } from "ai";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { Template } from "../../src/resources/template";
import { captureProgram, EngineStack, PROJECT, SECRET_KEYS } from "../../tools/engine";
import { resolvingIds } from "../../tools/engine/examples";
import { type EngineRig, startEngineRig } from "../../tools/engine/rig";
import { resourcesOf } from "../helpers/ledger";

const KEY = "cp_sentinel_endpoint_jobs_5e2a91";
const REPO = join(__dirname, "../..");

let r: EngineRig;
let stack: EngineStack;
let endpointId: string;
let urls: { run: string; runSync: string };

beforeAll(async () => {
  // 100 emulated ms per real ms: a job's sleep_ms 30000 lasts 300 real ms.
  r = await startEngineRig(KEY, { timeScale: 100 });
  stack = new EngineStack(r.plugin, { project: PROJECT, stack: "jobs" });
  const regs = await captureProgram(
    () => {
      const worker = new Template("worker", { image: "runpod/worker-v1-vllm:v2.4.0", serverless: true });
      new ServerlessEndpoint("api", { gpuIds: "ADA_24", templateId: worker.id, workersMin: 1, workersMax: 2, idleTimeout: 5 });
    },
    { project: PROJECT, stack: "jobs", config: r.config, secretKeys: SECRET_KEYS },
  );
  // The endpoint's templateId is the Template's placeholder id under mocks: the engine hands it the real one.
  const up = await stack.up(resolvingIds(stack, regs, { preview: false }));
  expect(up.error).toBeUndefined();
  const api = resourcesOf(stack).find((x) => x.type.endsWith(":ServerlessEndpoint"))!;
  endpointId = api.id;
  urls = api.outputs.requestUrls as typeof urls;
}, 120_000);

afterAll(async () => {
  if (stack) expect((await stack.destroy()).error).toBeUndefined();
  await r?.close();
});

/** Runs an ES module script with runpod-sdk's `endpoint` for the stack's endpoint in scope; its last line of output, parsed. */
function withSdk(script: string): Promise<any> {
  // The SDK takes the address that comes before `/{endpointId}/run`: the one the endpoint's `run` URL gives.
  const base = urls.run.slice(0, -`/${endpointId}/run`.length);
  const preamble = `
    import runpodSdk from "runpod-sdk";
    const endpoint = runpodSdk(process.env.KEY, { baseUrl: process.env.BASE }).endpoint(process.env.ENDPOINT);
  `;
  return new Promise((resolve, reject) => {
    const env = { ...process.env, KEY, BASE: base, ENDPOINT: endpointId };
    execFile(process.execPath, ["--input-type=module", "-e", preamble + script], { cwd: REPO, env, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stdout}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split("\n").at(-1)!));
    });
  });
}

test("the endpoint's requestUrls are its job routes on the serverless address", () => {
  expect(urls).toEqual({ run: `${r.emu.url}/v2/${endpointId}/run`, runSync: `${r.emu.url}/v2/${endpointId}/runsync` });
});

test("runpod-sdk drives every job call against the stack's endpoint", async () => {
  const before = r.emu.counts();
  const out = await withSdk(`
    const sync = await endpoint.runSync({ input: { sleep_ms: 30000, word: "hi" } }, 5000);
    const job = await endpoint.run({ input: { stream: ["a", "b", "c"], sleep_ms: 3000 } });
    const first = await endpoint.status(job.id);
    const chunks = [];
    for await (const c of endpoint.stream(job.id)) chunks.push(c.output);
    const done = await endpoint.status(job.id);
    const long = await endpoint.run({ input: { sleep_ms: 100000000 } });
    const queued = [await endpoint.run({ input: {} }), await endpoint.run({ input: {} })];
    const purged = await endpoint.purgeQueue();
    const cancelled = await endpoint.cancel(long.id);
    const health = await endpoint.health();
    console.log(JSON.stringify({ sync, job, first, chunks, done, queued, purged, cancelled, health }));`);
  // runSync held 5 s (50 real ms) of a 30 s job, then followed it: one submission.
  expect(out.sync).toMatchObject({ status: "COMPLETED", output: { sleep_ms: 30000, word: "hi" }, executionTime: 30000 });
  expect(out.job).toEqual({ id: expect.any(String), status: "IN_QUEUE" });
  expect(["IN_QUEUE", "IN_PROGRESS", "COMPLETED"]).toContain(out.first.status);
  expect(out.chunks).toEqual(["a", "b", "c"]);
  expect(out.done).toMatchObject({ status: "COMPLETED", output: ["a", "b", "c"] });
  // The long job holds a worker: the two after it wait for the second worker (they may already run).
  expect(out.purged).toMatchObject({ status: "completed", removed: expect.any(Number) });
  expect(out.cancelled).toEqual({ id: expect.any(String), status: "CANCELLED" });
  expect(out.health).toMatchObject({ jobs: { completed: expect.any(Number), inQueue: 0 }, workers: { initializing: expect.any(Number) } });
  const after = r.emu.counts();
  expect((after.runSync ?? 0) - (before.runSync ?? 0)).toBe(1);
  expect((after.run ?? 0) - (before.run ?? 0)).toBe(4);
  expect((after.purgeQueue ?? 0) - (before.purgeQueue ?? 0)).toBe(1);
});

test("@runpod/ai-sdk-provider with ai: a plain and a streamed chat completion from the endpoint's OpenAI-compatible routes", async () => {
  const runpod = createRunpod({ apiKey: KEY, baseURL: `${urls.run.slice(0, -"/run".length)}/openai/v1` });
  const before = r.emu.counts();
  const plain = await generateText({ model: runpod(endpointId), messages: [{ role: "user", content: "hello from the stack" }] });
  // The test worker answers with the last user message.
  expect(plain.text).toBe("hello from the stack");
  expect(plain.finishReason).toBe("stop");
  const streamed = streamText({ model: runpod(endpointId), prompt: "one two three" });
  const parts: string[] = [];
  for await (const part of streamed.textStream) parts.push(part);
  expect(parts.join("")).toBe("one two three");
  expect(parts.length).toBeGreaterThan(1);
  expect(await streamed.finishReason).toBe("stop");
  // Each completion was a job of the endpoint.
  const after = r.emu.counts();
  expect((after.openaiChatCompletions ?? 0) - (before.openaiChatCompletions ?? 0)).toBe(2);
});

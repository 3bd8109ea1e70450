/**
 * runSyncSmokeTest's provider against the emulator over HTTP: a hosted model, and an endpoint of
 * the same stack (made by the ServerlessEndpoint provider, over GraphQL and over REST) whose own
 * worker answers. Its create and update each send one job; its diff, read and delete none
 * (test/examples/examples-lifecycle.test.ts runs it through Pulumi's plugin).
 */
import * as pulumi from "@pulumi/pulumi";
import { ComputePlatform, systemClock } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { ServerlessEndpointProvider } from "../../../../src/resources/serverless-endpoint";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";
import { runSyncSmokeTest, smokeCall } from "../../../../src/resources/serverless-endpoint/smoke";
import { SmokeTestProvider } from "../../../../src/resources/serverless-endpoint/smoke-provider";

let emu: Emulator;
let client: ComputePlatform;

/** The smoke test's provider on `on`, its lines kept; create's outputs as the result. */
function smokeProvider(on: () => ComputePlatform, lines: string[] = []) {
  return new SmokeTestProvider({ client: on, clock: { ...systemClock, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) }, print: (l) => lines.push(l) });
}
async function settle(on: () => ComputePlatform, inputs: Record<string, unknown>) {
  const p = smokeProvider(on);
  const checked = await p.check({}, inputs);
  expect(checked.failures).toEqual([]);
  const made = await p.create(checked.inputs!);
  return { ...made.outs, id: made.outs.jobId };
}

beforeAll(async () => {
  // Workers start in 30 ms instead of the platform's 3 s: each smoke job here waits for its endpoint's first worker.
  emu = await startEmulator({ port: 0, timings: { provisioningMs: 20, startingMs: 30, drainMs: 30, restartDelayMs: 20 } });
  client = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, serverlessUrl: emu.url, pacing: false, maxRetries: 0 });
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

const input = { prompt: 'a "quoted" lighthouse', width: 16, height: 8 };

test("up calls the model once and returns the image URL", async () => {
  const before = emu.counts().runSync ?? 0;
  const result = await settle(() => client, { endpointId: "sdxl-turbo", input });
  const url = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//);
  // A hosted model lists no workers: which release served it is not known.
  expect(result).toMatchObject({ id: expect.any(String), status: "COMPLETED", output: { image_url: url }, imageUrl: url, release: null });
  expect(emu.counts().runSync).toBe(before + 1);
  // The URL points at a real image.
  const image = await fetch((result as any).imageUrl);
  expect(image.status).toBe(200);
});

test("an unchanged subject sends nothing and keeps the answer; a changed input sends one job, saying when and why", async () => {
  const lines: string[] = [];
  const p = smokeProvider(() => client, lines);
  const made = await p.create({ endpointId: "sdxl-turbo", input, __logicalName: "smoke" });
  const before = emu.counts().runSync ?? 0;
  expect(made.outs).toMatchObject({ reason: "first run", ranAt: "2026-01-02T03:04:05.000Z", status: "COMPLETED" });
  // A longer timeout is how it runs, not what it tests.
  expect(await p.diff(made.id, made.outs, { endpointId: "sdxl-turbo", input, timeoutMs: 5000, __logicalName: "smoke" })).toEqual({ changes: false, replaces: [] });
  expect(await p.read(made.id, made.outs)).toEqual({ id: made.id, props: made.outs });
  await p.delete();
  expect(emu.counts().runSync ?? 0).toBe(before);
  const changed = { endpointId: "sdxl-turbo", input: { ...input, prompt: "another" }, triggers: ["weekly"], __logicalName: "smoke" };
  expect(await p.diff(made.id, made.outs, changed)).toEqual({ changes: true, replaces: [] });
  const updated = await p.update(made.id, made.outs, changed);
  expect(emu.counts().runSync).toBe(before + 1);
  expect(updated.outs).toMatchObject({ reason: "the job's input changed; a trigger changed", status: "COMPLETED" });
  expect(updated.outs!.jobId).not.toBe(made.outs.jobId);
  expect(lines).toEqual([
    expect.stringMatching(/^smoke test "smoke": ran job \S+ on sdxl-turbo at 2026-01-02T03:04:05.000Z \(first run\): COMPLETED$/),
    `smoke test "smoke": no job (nothing it tests changed); keeps the answer of job ${made.outs.jobId}, run at 2026-01-02T03:04:05.000Z`,
    'smoke test "smoke": runs one paid job on sdxl-turbo (the job\'s input changed; a trigger changed)',
    expect.stringMatching(/^smoke test "smoke": ran job \S+ on sdxl-turbo at .*\(the job's input changed; a trigger changed\): COMPLETED$/),
  ]);
});

test("check refuses what cannot be sent, naming the field, before any request", async () => {
  const p = smokeProvider(() => client);
  const checked = await p.check({}, { endpointId: "", input: "hi", timeoutMs: 10 });
  expect(checked.failures).toEqual([
    { property: "endpointId", reason: expect.stringContaining("non-empty string") },
    { property: "input", reason: expect.stringContaining("must be an object") },
    { property: "timeoutMs", reason: expect.stringContaining("at least 1000") },
  ]);
});

test("a failing call rejects with the platform's error, which fails the apply and so the deployment", async () => {
  // Tested below the Output: a rejected apply also rejects promises inside Pulumi's Output
  // that only Pulumi's own program runner listens to.
  await expect(smokeCall(client, "no-such-model", input)).rejects.toThrow(/no hosted model "no-such-model".*404/);
});

describe("a cold endpoint: the job outlasts the call's hold", () => {
  let cold: Emulator;
  let coldClient: ComputePlatform;
  beforeAll(async () => {
    // 100 times faster: a 120 s cold job lasts 1.2 real s, the platform's default 90 s hold 0.9.
    cold = await startEmulator({ port: 0, timeScale: 100, faults: { modelJobMs: 120_000 } });
    coldClient = new ComputePlatform({ apiKey: cold.apiKey, apiUrl: cold.url, serverlessUrl: cold.url, pacing: false, maxRetries: 0 });
  });
  afterAll(async () => {
    await coldClient?.close();
    await cold?.close();
  });

  test("up waits for it through status-sync within timeoutMs: COMPLETED, one paid submission", async () => {
    const result = await settle(() => coldClient, { endpointId: "sdxl-turbo", input, timeoutMs: 300_000 });
    expect(result).toMatchObject({ status: "COMPLETED", imageUrl: expect.stringMatching(/\.png$/) });
    expect(cold.counts().runSync).toBe(1);
    expect(cold.counts().statusSync).toBeGreaterThanOrEqual(1);
  });

  test("past timeoutMs the deployment fails naming the job, which runs on; nothing sent again", async () => {
    const before = cold.counts().runSync ?? 0;
    const err = await smokeCall(coldClient, "sdxl-turbo", input, 1000).catch((e) => e);
    expect(err.message).toMatch(/smoke test of endpoint sdxl-turbo failed: job \S+ was still IN_PROGRESS after \d+ ms \(the smoke test's timeoutMs\).*runs on.*not sent again/s);
    expect(cold.counts().runSync).toBe(before + 1);
  });
});

describe("an endpoint of the same stack", () => {
  const make = async (api: "graphql" | "rest") => {
    const p = new ServerlessEndpointProvider({ client: () => client, pollIntervalMs: 5, maxPollIntervalMs: 20 });
    const common = { gpuIds: "ADA_24", workersMin: 0, workersMax: 1, waitForWorkers: false };
    const args =
      api === "rest"
        ? { ...common, api, container: { image: "worker:1" } }
        : { ...common, templateId: await createServerlessTemplate(emu.url, emu.apiKey) };
    const checked = await p.check({}, { name: `smoke-${api}`, ...args });
    expect(checked.failures ?? []).toEqual([]);
    return { p, made: await p.create(checked.inputs!) };
  };

  test.each(["graphql", "rest"] as const)("over %s: its requestUrls are its job routes, and the smoke job is answered by its own worker", async (api) => {
    const { p, made } = await make(api);
    const id = made.id;
    expect(made.outs!.requestUrls).toEqual({ run: `${emu.url}/v2/${id}/run`, runSync: `${emu.url}/v2/${id}/runsync` });
    const before = emu.counts().runSync ?? 0;
    const result = await settle(() => client, { endpointId: id, input: { prompt: "hello", sleep_ms: 50 } });
    // The emulator's test worker echoes the job's input; the first worker started on demand.
    expect(result).toMatchObject({ id: expect.any(String), status: "COMPLETED", output: { prompt: "hello", sleep_ms: 50 }, imageUrl: null });
    expect(emu.counts().runSync).toBe(before + 1);
    // The same address a client of the platform posts to.
    const posted = await fetch(made.outs!.requestUrls!.runSync!, {
      method: "POST",
      headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ input: { n: 1 } }),
    });
    expect(await posted.json()).toMatchObject({ status: "COMPLETED", output: { n: 1 } });
    await p.delete(id, made.outs!);
  });

  test("a job its worker fails fails the smoke test, naming the endpoint, the job and the worker's error", async () => {
    const { p, made } = await make("graphql");
    await expect(smokeCall(client, made.id, { fail: "model weights missing" })).rejects.toThrow(
      new RegExp(`smoke test of endpoint ${made.id} failed: job \\S+ ended FAILED: model weights missing`),
    );
    await p.delete(made.id, made.outs!);
  });
});

describe("runSyncSmokeTest's result keeps the input's secret mark (issue 49)", () => {
  const registered: { type: string; name: string }[] = [];
  beforeAll(async () => {
    await pulumi.runtime.setMocks(
      {
        newResource: (a) => {
          registered.push({ type: a.type, name: a.name });
          return { id: `${a.name}-id`, state: { ...a.inputs, jobId: "job-1", status: "COMPLETED", output: { echo: 1 }, imageUrl: null, workerId: null, release: null } };
        },
        call: (a) => a.inputs,
      },
      "smoke",
      "dev",
      false,
    );
  });

  test("a secret input makes every field of the result secret; a plain one leaves it plain", async () => {
    const secretOne = runSyncSmokeTest({ name: "secret-smoke", endpointId: "ep1", input: pulumi.secret({ token: "s3cr3t" }) });
    const plainOne = runSyncSmokeTest({ name: "plain-smoke", endpointId: "ep1", input: { prompt: "hi" } });
    expect(await pulumi.isSecret(secretOne)).toBe(true);
    expect(await pulumi.isSecret(secretOne.output)).toBe(true);
    expect(await pulumi.isSecret(plainOne)).toBe(false);
    expect(await (plainOne as any).promise()).toEqual({ id: "job-1", status: "COMPLETED", output: { echo: 1 }, imageUrl: null, workerId: null, release: null });
    expect(registered.map((r) => `${r.type} ${r.name}`).sort()).toEqual(["pulumi-nodejs:dynamic/computeplatform:SmokeTest plain-smoke", "pulumi-nodejs:dynamic/computeplatform:SmokeTest secret-smoke"]);
  });

  test("neither endpoint nor endpointId: a clear error naming both", async () => {
    expect(() => runSyncSmokeTest({ input: {} })).toThrow(/give endpoint .* or endpointId/);
  });
});

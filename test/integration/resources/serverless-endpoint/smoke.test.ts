/**
 * runSyncSmokeTest against the emulator over HTTP: a hosted model, and an endpoint of the same
 * stack (made by the ServerlessEndpoint provider, over GraphQL and over REST) whose own worker
 * answers. It calls runsync during `up` and never during `preview`.
 */
import * as pulumi from "@pulumi/pulumi";
import { ComputePlatform } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { runSyncSmokeTest, ServerlessEndpointProvider } from "../../../../src/resources/serverless-endpoint";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";
import { smokeCall } from "../../../../src/resources/serverless-endpoint/smoke";

let emu: Emulator;
let client: ComputePlatform;

const mocks: pulumi.runtime.Mocks = {
  newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
  call: (args) => args.inputs,
};

/** The value of an output, or "unknown" when the engine would show it as such. */
async function settle<T>(out: pulumi.Output<T>): Promise<T | "unknown"> {
  if (!(await (out as any).isKnown)) return "unknown";
  return (out as any).promise();
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

test("preview sends nothing and leaves the result unknown", async () => {
  await pulumi.runtime.setMocks(mocks, "smoke", "dev", true);
  const out = runSyncSmokeTest({ endpointId: "sdxl-turbo", input, client });
  expect(await settle(out)).toBe("unknown");
  expect(emu.counts().runSync ?? 0).toBe(0);
});

test("up calls the model once and returns the image URL", async () => {
  await pulumi.runtime.setMocks(mocks, "smoke", "dev", false);
  const before = emu.counts().runSync ?? 0;
  const result = await settle(runSyncSmokeTest({ endpointId: pulumi.output("sdxl-turbo"), input, client }));
  const url = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//);
  // A hosted model lists no workers: which release served it is not known.
  expect(result).toMatchObject({ id: expect.any(String), status: "COMPLETED", output: { image_url: url }, imageUrl: url, release: null });
  expect(emu.counts().runSync).toBe(before + 1);
  // The URL points at a real image.
  const image = await fetch((result as any).imageUrl);
  expect(image.status).toBe(200);
});

test("without a client it uses stack config, key as a secret, and the result is not secret", async () => {
  await pulumi.runtime.setMocks(mocks, "smoke", "dev", false);
  pulumi.runtime.setAllConfig(
    { "computeplatform:apiKey": emu.apiKey, "computeplatform:apiUrl": emu.url, "computeplatform:serverlessUrl": emu.url },
    ["computeplatform:apiKey"],
  );
  const out = runSyncSmokeTest({ endpointId: "flux-schnell", input });
  expect(await settle(out)).toMatchObject({ status: "COMPLETED" });
  expect(await pulumi.isSecret(out)).toBe(false);
  expect(JSON.stringify(await settle(out))).not.toContain(emu.apiKey);
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
    await pulumi.runtime.setMocks(mocks, "smoke", "dev", false);
    const result = await settle(runSyncSmokeTest({ endpointId: "sdxl-turbo", input, client: coldClient, timeoutMs: 300_000 }));
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
    await pulumi.runtime.setMocks(mocks, "smoke", "dev", false);
    const { p, made } = await make(api);
    const id = made.id;
    expect(made.outs!.requestUrls).toEqual({ run: `${emu.url}/v2/${id}/run`, runSync: `${emu.url}/v2/${id}/runsync` });
    const before = emu.counts().runSync ?? 0;
    const result = await settle(runSyncSmokeTest({ endpointId: pulumi.output(id), input: { prompt: "hello", sleep_ms: 50 }, client }));
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

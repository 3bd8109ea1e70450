/**
 * runSyncSmokeTest (smoke.ts) against the emulator over HTTP: a hosted model's cold job followed
 * through status-sync, an endpoint of the same stack (made by the ServerlessEndpoint provider,
 * over GraphQL and over REST) whose own worker answers, and the result's secret mark. Its
 * provider's create, update, diff, read and delete are smoke-provider.test.ts's
 * (test/examples/examples-lifecycle.test.ts runs it through Pulumi's plugin).
 */
import * as pulumi from "@pulumi/pulumi";
import { ComputePlatform } from "../../../../src/client";
import { type Emulator, startEmulator } from "../../../../src/emulator";
import { ServerlessEndpointProvider } from "../../../../src/resources/serverless-endpoint";
import { createServerlessTemplate } from "../../../helpers/emulator-fixtures";
import { settleSmokeTest as settle, SMOKE_INPUT, startSmokeEmulator } from "../../../helpers/smoke";
import { runSyncSmokeTest, smokeCall } from "../../../../src/resources/serverless-endpoint/smoke";

let emu: Emulator;
let client: ComputePlatform;

beforeAll(async () => {
  ({ emu, client } = await startSmokeEmulator());
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

const input = SMOKE_INPUT;

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

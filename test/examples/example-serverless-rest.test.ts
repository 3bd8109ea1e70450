// examples/serverless-rest as a user's repo runs it: it type-checks against the built package
// imported by name; under mocks it registers two REST-managed endpoints and preview sends
// nothing; through Pulumi's own plugin against the emulator, up makes both over /v2/serverless
// (no GraphQL call), a config change raises the warm workers in place, destroy leaves nothing.
import { execFile } from "node:child_process";
import * as path from "node:path";
import { type Emulator, startEmulator } from "../../src/emulator";
import { captureExample, exampleDir, projectName, ROOT } from "../../tools/engine/examples";
import { EngineStack, reveal } from "../../tools/engine";
import { resourcesOf, resourceSteps } from "../helpers/ledger";
import { startPlugin } from "../../tools/engine/rig";

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, timings: { provisioningMs: 10, startingMs: 30, drainMs: 30 } });
});

afterAll(async () => {
  await emu?.close();
});

const config = (more: Record<string, string> = {}, apiUrl = emu.url, apiKey = emu.apiKey) => ({
  "computeplatform:apiUrl": apiUrl,
  "computeplatform:apiKey": apiKey,
  ...more,
});

test("type-checks with its own tsconfig against the built package", async () => {
  const tsc = path.join(ROOT, "node_modules/typescript-native/bin/tsc");
  const out = await new Promise<{ code: number; text: string }>((resolve) =>
    execFile(process.execPath, [tsc, "-p", path.join(exampleDir("serverless-rest"), "tsconfig.json"), "--noEmit"], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, text: `${stdout}${stderr}` }),
    ),
  );
  expect(out).toEqual({ code: 0, text: "" });
});

test("up over REST v2, warm workers raised in place, destroy; no GraphQL call", async () => {
  // Preview under mocks: nothing listens at this address, so a request would fail the program.
  const previewRegs = await captureExample("serverless-rest", { stack: "dev", config: config({}, "http://127.0.0.1:9", "cp_examples_unused_key"), preview: true });
  expect(previewRegs.filter((r) => r.type.endsWith(":ServerlessEndpoint")).map((r) => [r.name, r.inputs.api])).toEqual([
    ["rest-api", "rest"],
    ["warm-api", "rest"],
  ]);

  const project = projectName("serverless-rest");
  const plugin = await startPlugin(config(), { cwd: exampleDir("serverless-rest"), project, env: { COMPUTEPLATFORM_POLL_INTERVAL_MS: "20" } });
  try {
    const stack = new EngineStack(plugin, { project, stack: "dev" });
    const up = await stack.up(await captureExample("serverless-rest", { stack: "dev", config: config() }));
    expect(up.error).toBeUndefined();
    expect(resourcesOf(stack).map((r) => [r.outputs.name, r.outputs.api, r.outputs.workersMin])).toEqual([
      [expect.stringMatching(/^rest-api-/), "rest", 0],
      [expect.stringMatching(/^warm-api-/), "rest", 0],
    ]);
    expect(reveal(resourcesOf(stack)[0]!.outputs.container)).toMatchObject({ image: "runpod/worker-sdxl:1.0", env: { MODEL: "sdxl-turbo" } });

    const warm = await stack.up(await captureExample("serverless-rest", { stack: "dev", config: config({ "serverless-rest:warmWorkers": "1" }) }));
    expect(warm.error).toBeUndefined();
    expect(resourceSteps(warm).map((s) => [s.urn.split("::").at(-1), s.op])).toEqual([
      ["rest-api", "same"],
      ["warm-api", "update"],
    ]);
    expect(resourcesOf(stack)[1]!.outputs.pods).toEqual([{ desiredStatus: "RUNNING" }]);

    expect((await stack.destroy()).error).toBeUndefined();
    expect(emu.state().endpoints).toEqual([]);
    expect(emu.requestLog().filter((e) => e.path === "/graphql")).toEqual([]);
  } finally {
    await plugin.stop();
  }
});

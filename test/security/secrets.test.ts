/**
 * The API key appears nowhere but in the request that carries it. After lifecycles with failed
 * operations and retries (faults on, a pod that ends in ERROR, no capacity) and with a wrong
 * key, a distinctive sentinel key is searched for in every error (message, stack, JSON,
 * inspection, causes), the emulator's request log, the client's debug log and the client
 * object, and, through the plugin, in state, the transcript and the errors. The full plugin
 * lifecycle (state with `__provider`, programs, stdout, stderr, engine log calls) is scanned by
 * test/faults/engine-run.test.ts, whose faulted run serves both.
 * The plugin loads the package from dist/: run `npm run build` first (`npm test` does).
 */
import { inspect } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import type { Emulator } from "../../src/emulator";
import { Pod } from "../../src/resources/pod";
import { RegistryCredential } from "../../src/resources/registry-credential";
import { ServerlessEndpoint } from "../../src/resources/serverless-endpoint";
import { captureProgram, EngineStack, isSecret } from "../../tools/engine";
import { emptyFigures, errorSurfaces, placesWith, PROFILES, PROJECT, runLifecycle, SENTINEL_KEY, stackConfig, startPlugin, startRig, startSentinelEmulator } from "../../tools/faults";

const WRONG_KEY = "cp_sentinel_wrong_4d1f0a_e41b";
let scansPassed = 0;
afterAll(() => console.log(`secret scans: ${scansPassed} places scanned, the key found in none`));

function expectNowhere(secret: string, places: Record<string, string>): void {
  // The scan finds the key where it is: a redaction that works is what makes the list empty.
  expect(placesWith(secret, { ...places, control: `Authorization: Bearer ${secret}` })).toEqual(["control"]);
  scansPassed += Object.keys(places).length;
}

test("in-process lifecycles under faults: the key is in no error, log line, request log entry or client dump", async () => {
  const lines: string[] = [];
  const rig = await startRig({ faults: { seed: 3 }, maxRetries: 1, logger: { debug: (l) => lines.push(l) } });
  const fig = emptyFigures();
  try {
    for (const name of ["mixed", "pod ends in ERROR", "no capacity"]) {
      await runLifecycle(rig, PROFILES.find((p) => p.name === name)!, `sec-${fig.lifecycles}`, true, fig);
    }
    expect(fig.orphans).toEqual([]);
    // Failed operations and retries really happened, so the scan covers their errors and log
    // lines: the ERROR pod and the refused capacity fail one operation each, whatever the timing.
    expect(fig.errors.length).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => /retry/.test(l))).toBe(true);
    expectNowhere(SENTINEL_KEY, {
      "client debug log": lines.join("\n"),
      "request log": JSON.stringify(rig.emu.requestLog()),
      "client (inspect)": inspect(rig.client, { depth: 10, showHidden: true }),
      "client (JSON)": JSON.stringify(rig.client) ?? "",
      ...Object.fromEntries(fig.errors.map((e, i) => [`error ${i}`, errorSurfaces(e).join("\n")])),
    });
  } finally {
    await rig.close();
  }
});

describe("through Pulumi's plugin", () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startSentinelEmulator();
  });
  afterAll(() => emu?.close());

  async function plugin(key: string) {
    return { p: await startPlugin(emu, key), config: stackConfig(emu, key) };
  }

  const program = (config: Record<string, string>, image: string) =>
    captureProgram(
      () => {
        new Pod("worker", { name: "sec-worker", image, gpu: { id: "NVIDIA L40S" } });
        new ServerlessEndpoint("api", { gpuIds: "AMPERE_24", templateId: "tpl-sec", workersMin: 0, workersMax: 1 });
      },
      { project: PROJECT, stack: "dev", config, secretKeys: ["computeplatform:apiKey"] },
    );

  // The full lifecycle through the plugin, with failures and retries, is scanned by
  // test/faults/engine-run.test.ts (one run serves the fault audit and the scan).
  test("a wrong key: every operation fails with a 401 that names the setting, and the wrong key is shown nowhere", async () => {
    const { p, config } = await plugin(WRONG_KEY);
    try {
      const stack = new EngineStack(p, { project: PROJECT, stack: "dev" });
      const regs = await program(config, "img/app:1");
      const before = emu.requestLog().length;
      const up = await stack.up(regs);
      expect(up.error?.message).toMatch(/401|invalid API key/);
      expect(up.error?.message).toMatch(/computeplatform:apiKey|COMPUTEPLATFORM_API_KEY/);
      // Not retried: one request, and nothing was made.
      expect(emu.requestLog().slice(before).map((e) => e.status)).toEqual([401]);
      expect(stack.resources.size).toBe(0);
      expectNowhere(WRONG_KEY, {
        state: stack.stateText(),
        transcript: p.transcript(),
        error: errorSurfaces(up.error).join("\n"),
        "request log": JSON.stringify(emu.requestLog()),
      });
    } finally {
      await p.stop();
    }
  });

  test("a registry credential: made, refused on a wrong key; neither key nor password in state, output, request log or error", async () => {
    const password = "sentinel-registry-pw-2c7e91f0";
    const credential = (config: Record<string, string>) =>
      captureProgram(
        () => {
          new RegistryCredential("private", { username: "robot", password: pulumi.secret(password), deleteWaitSeconds: 0 });
        },
        { project: PROJECT, stack: "dev", config, secretKeys: ["computeplatform:apiKey"] },
      );
    const places: Record<string, string> = {};
    for (const [label, key] of [["wrong", WRONG_KEY], ["right", SENTINEL_KEY]] as const) {
      const { p, config } = await plugin(key);
      try {
        const stack = new EngineStack(p, { project: PROJECT, stack: "dev" });
        const up = await stack.up(await credential(config));
        if (label === "wrong") expect(up.error?.message).toMatch(/401|invalid API key/);
        else expect(up.error).toBeUndefined();
        expect(stack.resources.size).toBe(label === "wrong" ? 0 : 1);
        // State as Pulumi writes it: secret-marked values are encrypted there.
        places[`${label}: state`] = JSON.stringify([...stack.resources.values()], (_k, v) => (isSecret(v) ? "[secret]" : v));
        const down = await stack.destroy();
        expect(down.error).toBeUndefined();
        places[`${label}: transcript`] = p.transcript();
        places[`${label}: error`] = errorSurfaces(up.error).join("\n");
      } finally {
        await p.stop();
      }
    }
    places["request log"] = JSON.stringify(emu.requestLog());
    places["emulator state"] = JSON.stringify(emu.state());
    expectNowhere(SENTINEL_KEY, places);
    expectNowhere(WRONG_KEY, places);
    expect(placesWith(password, { ...places, control: password })).toEqual(["control"]);
  });
});

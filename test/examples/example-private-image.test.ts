// examples/private-image as a user's repo runs it: it type-checks against the built package
// imported by name; under mocks it registers a RegistryCredential whose password is the secret
// stack value and a Pod that names it; through Pulumi's own plugin against the emulator, up
// makes both, a new token replaces the credential with the pod following in place, destroy
// leaves nothing, and the token is in no plain-text state, output or request log.
import { execFile } from "node:child_process";
import * as path from "node:path";
import { type Emulator, startEmulator } from "../../src/emulator";
import { captureExample, exampleDir, projectName, resolvingIds, ROOT } from "../../tools/engine/examples";
import { EngineStack, isSecret, type Registration, reveal } from "../../tools/engine";
import { resourceSteps } from "../helpers/ledger";
import { placesWith } from "../../tools/faults";
import { startPlugin } from "../../tools/engine/rig";

const TOKENS = ["ghp_sentinel_first_0c8e2a7f51", "ghp_sentinel_second_93b1d64e0a"];
const SECRET_KEYS = ["computeplatform:apiKey", "private-image:registryPassword"];
const byName = (regs: Registration[]) => Object.fromEntries(regs.map((r) => [r.name, r]));

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, timeScale: 1000 });
});

afterAll(async () => {
  await emu?.close();
});

const config = (token: string, apiUrl = emu.url, apiKey = emu.apiKey) => ({
  "computeplatform:apiUrl": apiUrl,
  "computeplatform:apiKey": apiKey,
  "private-image:registryUsername": "acme-robot",
  "private-image:registryPassword": token,
});

test("type-checks with its own tsconfig against the built package", async () => {
  const tsc = path.join(ROOT, "node_modules/typescript-native/bin/tsc");
  const out = await new Promise<{ code: number; text: string }>((resolve) =>
    execFile(process.execPath, [tsc, "-p", path.join(exampleDir("private-image"), "tsconfig.json"), "--noEmit"], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, text: `${stdout}${stderr}` }),
    ),
  );
  expect(out).toEqual({ code: 0, text: "" });
});

test("registers a credential with the secret token and a pod that names it; preview sends nothing", async () => {
  const regs = await captureExample("private-image", {
    stack: "dev",
    // Nothing listens here: a request during preview would fail the program.
    config: config(TOKENS[0], "http://127.0.0.1:9", "cp_examples_unused_key"),
    secretKeys: SECRET_KEYS,
    preview: true,
  });
  const { registry, app } = byName(regs);
  expect(registry.type).toBe("pulumi-nodejs:dynamic/computeplatform:RegistryCredential");
  expect(isSecret(registry.inputs.password)).toBe(true);
  expect(reveal(registry.inputs.password)).toBe(TOKENS[0]);
  expect(isSecret(registry.inputs.username)).toBe(true);
  expect(registry.options.additionalSecretOutputs).toEqual(expect.arrayContaining(["username", "password"]));
  // The credential, and the stack's cost ledger (cost/ledger.ts).
  expect([...app.options.dependencies].sort()).toEqual([expect.stringContaining("RegistryCredential::registry"), expect.stringContaining("StackCost::stack-cost")]);
  expect(JSON.stringify(app.inputs)).not.toContain(TOKENS[0]);
});

test("up, a new token (replace, the pod follows in place), destroy; the token only ever in secret state", async () => {
  const project = projectName("private-image");
  const plugin = await startPlugin(config(TOKENS[0]), { cwd: exampleDir("private-image"), project, env: { COMPUTEPLATFORM_POLL_INTERVAL_MS: "20" } });
  try {
    const stack = new EngineStack(plugin, { project, stack: "dev" });
    const run = async (token: string) =>
      stack.up(
        resolvingIds(stack, await captureExample("private-image", { stack: "dev", config: config(token), secretKeys: SECRET_KEYS }), {
          preview: false,
        }),
      );

    const up = await run(TOKENS[0]);
    expect(up.error ?? up.failures).toBeUndefined();
    const ids = () => Object.fromEntries([...stack.resources.values()].map((r) => [r.urn.split("::").at(-1), r.id]));
    const first = ids();
    expect(emu.state().pods.find((p) => p.id === first.app)).toMatchObject({ status: "RUNNING", registry: first.registry });

    const rotate = await run(TOKENS[1]);
    expect(rotate.error ?? rotate.failures).toBeUndefined();
    expect(resourceSteps(rotate).map((s) => s.op)).toEqual(["replace", "update"]);
    const second = ids();
    expect(second.app).toBe(first.app);
    expect(second.registry).not.toBe(first.registry);
    expect(emu.state().pods.find((p) => p.id === first.app)?.registry).toBe(second.registry);
    expect(emu.state().registries.map((r) => r.id)).toEqual([second.registry]);

    const plainState = JSON.stringify([...stack.resources.values()], (_k, v) => (isSecret(v) ? "[secret]" : v));
    const down = await stack.destroy();
    expect(down.error).toBeUndefined();
    expect(emu.state().registries).toEqual([]);

    for (const token of TOKENS) {
      const places = {
        state: plainState,
        "plugin output": plugin.transcript(),
        "request log": JSON.stringify(emu.requestLog()),
        "emulator state": JSON.stringify(emu.state()),
        control: `:${token}:`,
      };
      expect(placesWith(token, places)).toEqual(["control"]);
    }
  } finally {
    await plugin.stop();
  }
}, 180_000);

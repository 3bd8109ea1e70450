// `npm run console:screenshots`: the PNGs of docs/images/console-*.png, from a real run. A small
// stack goes up through Pulumi's own plugin (tools/engine) against a fresh emulator: two pods, a
// network volume, a serverless template and an endpoint running it, a registry credential.
// Then a burst of requests meets an injected 429 rate, an A100 is out of capacity in one data
// center, and one pod's host goes away; headless Chromium signs in and photographs the pages.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startEmulator } from "../src/emulator";
import { NetworkVolume } from "../src/resources/network-volume";
import { Pod } from "../src/resources/pod";
import { RegistryCredential } from "../src/resources/registry-credential";
import { ServerlessEndpoint } from "../src/resources/serverless-endpoint";
import { Template } from "../src/resources/template";
import { launchChromium, signIn } from "../tools/browser";
import { captureProgram, EngineStack, PROJECT, SECRET_KEYS } from "../tools/engine";
import { startPlugin } from "../tools/engine/rig";

const OUT = join(__dirname, "..", "docs", "images");
const KEY = `cp_emu_screenshots_${process.pid}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const emu = await startEmulator({
    port: 0,
    keys: [{ key: KEY, scopes: ["read", "write"] }],
    quotas: { minute: 100_000, hour: 1_000_000, day: 10_000_000 },
    timings: { provisioningMs: 200, startingMs: 300, drainMs: 300, restartDelayMs: 100 },
  });
  const config = { "computeplatform:apiKey": KEY, "computeplatform:apiUrl": emu.url };
  const plugin = await startPlugin(config, { env: { COMPUTEPLATFORM_POLL_INTERVAL_MS: "50" } });
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${emu.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const chrome = await launchChromium();
  try {
    await plugin.configure(config, SECRET_KEYS);
    const stack = new EngineStack(plugin, { project: PROJECT, stack: "dev" });
    const declare = (templateId?: string) => () => {
      new Pod("trainer", { name: "trainer", image: "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime", gpu: { id: "NVIDIA A100 80GB PCIe" }, ports: ["8888/http"] });
      new Pod("notebook", { name: "notebook", image: "jupyter/base-notebook:2024-12", gpu: { id: "NVIDIA GeForce RTX 4090" }, mounts: { persistent: { size: 50, path: "/workspace" } } });
      new NetworkVolume("datasets", { name: "datasets", size: 200, dataCenter: "US-TX-3" });
      new Template("worker", { name: "sdxl-worker", image: "ghcr.io/acme/sdxl-worker:1.4", serverless: true });
      new RegistryCredential("ghcr", { name: "ghcr", username: "acme-bot", password: "not-a-real-password" });
      if (templateId) new ServerlessEndpoint("api", { name: "sdxl-api", gpuIds: "ADA_24,AMPERE_48", templateId, workersMin: 1, workersMax: 3 });
    };
    const run = async (templateId?: string) => {
      const res = await stack.up(await captureProgram(declare(templateId), { project: PROJECT, stack: "dev", config, secretKeys: SECRET_KEYS }));
      if (res.error) throw res.error;
    };
    await run();
    await sleep(3000);
    const template = [...stack.resources.values()].find((r) => r.urn.includes("Template"))!;
    await run(template.id);
    await sleep(3000);

    // What the log and the faults page show: an injected 429 rate met by a burst of reads.
    await api("PATCH", "/emulator/faults", { rate429: 0.3 });
    for (let i = 0; i < 12; i++) await api("GET", "/v2/pods");
    const trainer = emu.state().pods.find((p) => p.name === "trainer")!;
    await api("PATCH", "/emulator/faults", { rate429: 0, noCapacity: [{ gpuId: "NVIDIA A100 80GB PCIe", dataCenterId: trainer.dataCenterId! }] });
    const notebook = emu.state().pods.find((p) => p.name === "notebook")!;
    await api("POST", "/emulator/events", { type: "stopPod", podId: notebook.id });
    await sleep(1500);

    mkdirSync(OUT, { recursive: true });
    const page = await (await chrome.context({ width: 1280, height: 720 })).newPage();
    await signIn(page, emu.url, KEY);
    for (const name of ["pods", "endpoints", "volumes", "money", "log", "faults"]) {
      await page.goto(`${emu.url}/console/${name}`);
      const file = join(OUT, `console-${name}.png`);
      await page.screenshot({ path: file, fullPage: name !== "log" });
      console.log(`wrote ${file}`);
    }
  } finally {
    await chrome.close();
    await plugin.stop();
    await emu.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

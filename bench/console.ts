// `npm run bench:console`: how long the console's pods page takes to load and render with N
// pods (default 300) in headless Chromium (the machine's, through playwright-core), and how long
// one live refresh of it takes. Target: the page under 1 s. Nothing here asserts a time.
//
//   npm run bench:console                   300 pods, 15 loads
//   npm run bench:console -- --n=1000 --runs=5
//
// Each load: from `page.goto` to the `load` event plus two animation frames (the table laid out
// and painted), measured in Node; beside it the browser's own navigation timing (response end,
// DOMContentLoaded, load) and the HTML size. The first load is a warm-up and not counted.
import { startEmulator } from "../src/emulator";
import { launchChromium, signIn } from "../tools/browser";

const option = (name: string, fallback: number): number => {
  const arg = process.argv.slice(2).find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.slice(name.length + 3)) : fallback;
};

const GPUS = ["NVIDIA GeForce RTX 4090", "NVIDIA RTX A6000", "NVIDIA L40S", "NVIDIA A100 80GB PCIe"];

// Functions passed to page.evaluate run in the page: each takes the page's globals from its own
// `globalThis` (the project's types are Node's, not the DOM's).
const frames = () => {
  const web = globalThis as any;
  return new Promise((r) => web.requestAnimationFrame(() => web.requestAnimationFrame(r)));
};

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const ms = (x: number) => `${x.toFixed(0)} ms`;

async function main(): Promise<void> {
  const n = option("n", 300);
  const runs = option("runs", 15);
  const key = "cp_bench_console_key_0123456789";
  const emu = await startEmulator({
    port: 0,
    keys: [{ key, scopes: ["read", "write"] }],
    quotas: { minute: 1_000_000, hour: 10_000_000, day: 100_000_000 },
    timings: { provisioningMs: 1, startingMs: 1, restartDelayMs: 1, drainMs: 1 },
  });
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  for (let i = 0; i < n; i++) {
    const body = {
      name: `bench-${String(i).padStart(4, "0")}`,
      image: "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
      gpu: { id: GPUS[i % GPUS.length], count: 1 + (i % 2) },
      ports: ["8888/http", "22/tcp"],
      mounts: i % 3 === 0 ? { persistent: { size: 50, path: "/workspace" } } : undefined,
    };
    const res = await fetch(`${emu.url}/v2/pods`, { method: "POST", headers, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`createPod ${i} -> ${res.status}: ${await res.text()}`);
  }
  const chrome = await launchChromium();
  try {
    const page = await (await chrome.context()).newPage();
    await signIn(page, emu.url, key);
    const url = `${emu.url}/console/pods`;
    const loads: number[] = [];
    const nav: { responseEnd: number; dcl: number; load: number }[] = [];
    let rows = 0;
    let bytes = 0;
    for (let i = 0; i <= runs; i++) {
      const t0 = performance.now();
      await page.goto(url, { waitUntil: "load" });
      await page.evaluate(frames);
      const took = performance.now() - t0;
      const timing = await page.evaluate(() => {
        const web = globalThis as any;
        const e = web.performance.getEntriesByType("navigation")[0];
        return { responseEnd: e.responseEnd - e.startTime, dcl: e.domContentLoadedEventEnd - e.startTime, load: e.loadEventEnd - e.startTime, size: e.transferSize };
      });
      rows = await page.locator("tr[data-pod-id]").count();
      bytes = timing.size;
      if (i === 0) continue; // warm-up
      loads.push(took);
      nav.push(timing);
    }
    if (rows !== n) throw new Error(`the pods page showed ${rows} rows, expected ${n}`);
    const refreshes: number[] = [];
    for (let i = 0; i < 10; i++) {
      refreshes.push(
        await page.evaluate(async () => {
          const web = globalThis as any;
          const t = web.performance.now();
          const res = await fetch(web.location.href, { headers: { "x-console-refresh": "1" } });
          web.document.getElementById("live").innerHTML = await res.text();
          await new Promise((r) => web.requestAnimationFrame(() => web.requestAnimationFrame(r)));
          return web.performance.now() - t;
        }),
      );
    }
    console.log(`Console pods page, ${n} pods, ${runs} loads after a warm-up (headless Chromium ${chrome.browser.version()}):`);
    console.log(`  load and render (goto -> load event + 2 frames): median ${ms(percentile(loads, 0.5))}, p90 ${ms(percentile(loads, 0.9))}, max ${ms(Math.max(...loads))}`);
    console.log(
      `  browser timing (median): response end ${ms(percentile(nav.map((x) => x.responseEnd), 0.5))}, ` +
        `DOMContentLoaded ${ms(percentile(nav.map((x) => x.dcl), 0.5))}, load ${ms(percentile(nav.map((x) => x.load), 0.5))}; HTML ${(bytes / 1024).toFixed(0)} KiB`,
    );
    console.log(`  live refresh (fetch the table, replace it, 2 frames): median ${ms(percentile(refreshes, 0.5))}, max ${ms(Math.max(...refreshes))}`);
    console.log(`  target: under 1000 ms -> ${percentile(loads, 0.9) < 1000 ? "met" : "missed"} (p90)`);
  } finally {
    await chrome.close();
    await emu.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

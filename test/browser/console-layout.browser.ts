// The console's layout in a real headless Chromium (`npm run test:console`): at 1280 px its
// navigation is one row; on a narrow screen (390 px) nothing spills the page sideways (a wide
// table scrolls inside its own box); and the browser's icon request (/favicon.ico, or the
// icon the pages name) is answered and, like page views, not written to the request log.
import { ComputePlatform } from "../../src/client";
import { type Emulator, startEmulator } from "../../src/emulator";
import { type Chromium, launchChromium, signIn } from "../../tools/browser";

const KEY = "cp_sentinel_console_layout_3d9e1a";
const PAGES = ["pods", "endpoints", "volumes", "templates", "registries", "money", "log", "faults"];

let emu: Emulator;
let chrome: Chromium;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, keys: [{ key: KEY, scopes: ["read", "write"] }], timings: { provisioningMs: 10, startingMs: 10 } });
  // Rows with long cells: ids, images, mounts.
  const cp = new ComputePlatform({ apiKey: KEY, apiUrl: emu.url, pacing: false });
  for (const n of [1, 2]) {
    await cp.pods.create({ name: `a-pod-with-a-rather-long-name-${n}`, image: "ghcr.io/an-organisation/an-image-with-a-long-name:2026.11.26-rc.1", gpu: { id: "NVIDIA GeForce RTX 4090" } });
  }
  // An endpoint mid-rollout: its releases' diffs (long images, env names) are on the endpoints page.
  const ep = await cp.serverless.create({ name: "an-endpoint-with-a-long-name", image: "ghcr.io/an-organisation/a-worker-image-with-a-long-name:2026.11.26-rc.1", env: { A_RATHER_LONG_VARIABLE_NAME: "1" }, gpu: { pools: ["ADA_24"] }, workers: { min: 1, max: 1 } });
  await cp.serverless.update(ep.id, { image: "ghcr.io/an-organisation/a-worker-image-with-a-long-name:2026.11.27-rc.2", env: { ANOTHER_RATHER_LONG_VARIABLE_NAME: "2" } });
  await cp.close();
  chrome = await launchChromium();
}, 120_000);

afterAll(async () => {
  await chrome?.close();
  await emu?.close();
});

test("at 1280 px every page's navigation is one row", async () => {
  const page = await (await chrome.context({ width: 1280, height: 800 })).newPage();
  await signIn(page, emu.url, KEY);
  for (const name of PAGES) {
    await page.goto(`${emu.url}/console/${name}`);
    const tops = await page.$$eval("header nav a", (links) => links.map((a) => Math.round(a.getBoundingClientRect().top)));
    expect({ name, rows: new Set(tops).size }).toEqual({ name, rows: 1 });
    // Every link is in view, none scrolled away.
    expect(await page.$eval("header nav", (nav) => nav.scrollWidth <= nav.clientWidth)).toBe(true);
  }
}, 120_000);

test("at 390 px no page is wider than the screen; a wide table scrolls in its own box", async () => {
  const page = await (await chrome.context({ width: 390, height: 800 })).newPage();
  await signIn(page, emu.url, KEY);
  for (const name of PAGES) {
    await page.goto(`${emu.url}/console/${name}`);
    const width = await page.evaluate("document.documentElement.scrollWidth");
    expect({ name, width }).toEqual({ name, width: 390 });
  }
  await page.goto(`${emu.url}/console/pods`);
  const box = await page.evaluate(
    "(() => { const wrap = document.querySelector('table').parentElement; return { scrolls: wrap.scrollWidth > wrap.clientWidth, overflow: getComputedStyle(wrap).overflowX }; })()",
  );
  expect(box).toEqual({ scrolls: true, overflow: "auto" });
}, 120_000);

test("the icon a browser asks for is served and, like page views, not logged", async () => {
  const page = await (await chrome.context()).newPage();
  await signIn(page, emu.url, KEY);
  const before = emu.requestLog().length;
  const icon = `${emu.url}${await page.$eval('link[rel="icon"]', (l) => l.getAttribute("href"))}`;
  for (const url of [icon, `${emu.url}/favicon.ico`]) {
    const res = await page.request.get(url);
    expect({ url, status: res.status(), type: res.headers()["content-type"] }).toEqual({ url, status: 200, type: "image/svg+xml" });
  }
  await page.goto(`${emu.url}/console/log`);
  expect(emu.requestLog().slice(before).filter((e) => /favicon|icon/.test(e.path))).toEqual([]);
}, 120_000);

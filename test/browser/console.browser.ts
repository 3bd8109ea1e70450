// The console in a real headless Chromium (the machine's, through playwright-core), against an
// emulator whose pods a stack made through Pulumi's own plugin (tools/engine). Run by
// `npm run test:console` (CI installs Chromium first), not by `npm test`.
//
// It signs in, sees the stack's pod, turns on no-capacity for that pod's GPU in its data center
// and sees the stack's next pod placed in another one (the page refreshes by itself), stops a
// pod from outside and sees it EXITED, checks that a read-only key changes nothing, and that
// no response body, header (Set-Cookie included), URL or log entry holds a key's bytes.
import type { Page, Response } from "playwright-core";
import { capturePods, EngineStack, PROJECT } from "../../tools/engine";
import { type Chromium, launchChromium, signIn } from "../../tools/browser";
import { type EngineRig, startEngineRig } from "../../tools/engine/rig";
import { startEmulator } from "../../src/emulator";

const KEY = "cp_sentinel_console_rw_6b1f0c2d9e";
const READ_ONLY = "cp_sentinel_console_ro_a47e5d13c8";
const GPU = "NVIDIA GeForce RTX 4090";

let rig: EngineRig;
let chrome: Chromium;
let stack: EngineStack;
/** Everything the browser fetched: URL, headers (Set-Cookie included) and body. */
const seen: { url: string; text: string }[] = [];
const pending: Promise<void>[] = [];

function watch(page: Page): void {
  page.on("request", (req) => seen.push({ url: req.url(), text: req.url() }));
  page.on("response", (res: Response) => {
    pending.push(
      (async () => {
        const headers = JSON.stringify(await res.allHeaders());
        let body = "";
        try {
          body = (await res.body()).toString("utf8");
        } catch {
          body = ""; // redirects have no body to read
        }
        seen.push({ url: res.url(), text: `${headers}\n${body}` });
      })(),
    );
  });
}

async function up(pods: Record<string, Record<string, unknown>>) {
  const regs = await capturePods(pods, rig.config, "console");
  const res = await stack.up(regs);
  expect(res.error).toBeUndefined();
  return res;
}

const podId = (name: string) => [...stack.resources.values()].find((r) => r.outputs.name === name)!.id;
const row = (page: Page, id: string) => page.locator(`tr[data-pod-id="${id}"]`);

beforeAll(async () => {
  rig = await startEngineRig(KEY, {
    keys: [
      { key: KEY, scopes: ["read", "write"] },
      { key: READ_ONLY, scopes: ["read"] },
    ],
  });
  stack = new EngineStack(rig.plugin, { project: PROJECT, stack: "console" });
  chrome = await launchChromium();
}, 120_000);

afterAll(async () => {
  await chrome?.close();
  await rig?.close();
});

test("a write key signs in, sees the stack's pod, sets no-capacity, sees the next pod elsewhere, stops a pod from outside", async () => {
  const first = { name: "console-first", image: "img/app:1", gpu: { id: GPU } };
  await up({ first });
  const firstId = podId("console-first");
  const firstDc = rig.emu.state().pods.find((p) => p.id === firstId)!.dataCenterId!;

  const page = await (await chrome.context()).newPage();
  watch(page);
  await signIn(page, rig.emu.url, KEY);
  await row(page, firstId).waitFor();
  expect(await row(page, firstId).getAttribute("data-status")).toBe("RUNNING");
  expect(await row(page, firstId).getAttribute("data-dc")).toBe(firstDc);
  expect(await row(page, firstId).locator("a.id").getAttribute("href")).toBe(`/console/json/pods/${firstId}`);

  await page.click('nav a[href="/console/faults"]');
  await page.selectOption('form[data-form="noCapacity"] select[name="gpuId"]', GPU);
  await page.selectOption('form[data-form="noCapacity"] select[name="dataCenterId"]', firstDc);
  await page.click('form[data-form="noCapacity"] button[type="submit"]');
  await page.locator(`li[data-no-capacity="${GPU}@${firstDc}"]`).waitFor();
  expect((await rig.client.pods.list()).length).toBe(1);

  // The pods page is open while the stack makes its next pod: it shows up without a reload.
  await page.click('nav a[href="/console/pods"]');
  await up({ first, second: { name: "console-second", image: "img/app:1", gpu: { id: GPU } } });
  const secondId = podId("console-second");
  await row(page, secondId).waitFor({ timeout: 10_000 });
  const secondDc = await row(page, secondId).getAttribute("data-dc");
  expect(secondDc).not.toBe(firstDc);
  expect(secondDc).toBe(rig.emu.state().pods.find((p) => p.id === secondId)!.dataCenterId);

  await row(page, firstId).locator("button", { hasText: "Stop (host gone)" }).click();
  await page.locator(`tr[data-pod-id="${firstId}"][data-status="EXITED"]`).waitFor({ timeout: 10_000 });
  expect(rig.emu.state().pods.find((p) => p.id === firstId)!.status).toBe("EXITED");

  const byConsole = rig.emu.requestLog().filter((e) => e.via === "console");
  expect(byConsole.map((e) => [e.op, e.status])).toEqual(
    expect.arrayContaining([
      ["consoleSignIn", 303],
      ["updateFaults", 200],
      ["outsideEvent", 200],
    ]),
  );
  await page.close();
}, 120_000);

test("a read-only key sees everything and its controls are refused with the API's 403", async () => {
  const page = await (await chrome.context()).newPage();
  watch(page);
  await signIn(page, rig.emu.url, READ_ONLY);
  const secondId = podId("console-second");
  await row(page, secondId).waitFor();
  await expect(page.locator(".who").textContent()).resolves.toMatch(/read only/);
  await row(page, secondId).locator("button", { hasText: "Terminate" }).click();
  await page.locator("#notice.error").waitFor();
  expect(await page.locator("#notice").textContent()).toContain("403: outsideEvent needs a key with the 'write' scope; this key is read-only");
  expect(rig.emu.state().pods.find((p) => p.id === secondId)!.status).toBe("RUNNING");

  const faults = async () =>
    (await fetch(`${rig.emu.url}/emulator/faults`, { headers: { authorization: `Bearer ${KEY}` } })).json() as Promise<{ noCapacity: unknown[] }>;
  const before = await faults();
  expect(before.noCapacity).toHaveLength(1);
  await page.click('nav a[href="/console/faults"]');
  await page.click("button >> text=Clear all faults");
  await page.locator("#notice.error").waitFor();
  expect(await page.locator("#notice").textContent()).toContain("403: clearFaults needs a key with the 'write' scope");
  expect(await faults()).toEqual(before);
  expect(await page.locator("li[data-no-capacity]").count()).toBe(1);

  for (const p of ["endpoints", "volumes", "templates", "registries", "log"]) {
    await page.click(`nav a[href="/console/${p}"]`);
    await page.waitForURL(`${rig.emu.url}/console/${p}`);
    expect(await page.locator("main#live p.summary").count()).toBe(1);
  }
  await page.click('nav a[href="/console/money"]');
  expect(await page.locator("svg.chart polyline.spend").count()).toBe(1);
  expect(await page.locator('[data-figure="per-hour"]').textContent()).toMatch(/^\$\d+\.\d{4}$/);
  await page.close();
}, 120_000);

test("signed in to two emulators on one host at once, each keeps its session and its controls act on it alone", async () => {
  const otherKey = "cp_sentinel_console_other_3e9a1f";
  const other = await startEmulator({ port: 0, keys: [{ key: otherKey, scopes: ["read", "write"] }] });
  try {
    const context = await chrome.context();
    const first = await context.newPage();
    await signIn(first, rig.emu.url, KEY);
    const second = await context.newPage();
    await signIn(second, other.url, otherKey);
    // Both are 127.0.0.1: the browser holds both cookies for the one host name, apart by their names.
    const port = (url: string) => new URL(url).port;
    expect((await context.cookies()).map((c) => [c.name, c.path, c.httpOnly, c.sameSite]).sort()).toEqual(
      [`cp_console_${port(rig.emu.url)}`, `cp_console_${port(other.url)}`].sort().map((n) => [n, "/console", true, "Strict"]),
    );
    await first.reload();
    expect(first.url()).toBe(`${rig.emu.url}/console/pods`);
    await second.click('nav a[href="/console/faults"]');
    await second.click("button >> text=Clear all faults");
    await second.locator("#notice.ok").waitFor();
    expect(other.requestLog().filter((e) => e.op === "clearFaults").map((e) => [e.status, e.via])).toEqual([[200, "console"]]);
    expect(rig.emu.requestLog().some((e) => e.op === "clearFaults" && e.status === 200)).toBe(false);
    await first.click('nav a[href="/console/log"]');
    await first.waitForURL(`${rig.emu.url}/console/log`);
    await context.close();
  } finally {
    await other.close();
  }
}, 120_000);

test("no response body, header, URL or log entry held a key's bytes; nothing left the emulator", async () => {
  await Promise.all(pending);
  expect(seen.length).toBeGreaterThan(20);
  for (const s of seen) {
    expect(s.url.startsWith(`${rig.emu.url}/`)).toBe(true);
    expect(s.text).not.toContain(KEY);
    expect(s.text).not.toContain(READ_ONLY);
  }
  expect(seen.some((s) => /set-cookie/i.test(s.text) && s.text.includes("HttpOnly") && s.text.includes("SameSite=Strict"))).toBe(true);
  const log = JSON.stringify(rig.emu.requestLog());
  expect(log).not.toContain(KEY);
  expect(log).not.toContain(READ_ONLY);
});

// Headless Chromium for the console's browser test, its screenshots and its benchmark: the
// machine's Chromium (Debian's package, /usr/bin/chromium, or CHROMIUM_PATH) driven through
// playwright-core, which downloads no browser. Flags keep it from reaching anything but the
// emulator; --no-sandbox because CI runs as root. Each launch gets a fresh profile
// (playwright-core passes its own temporary --user-data-dir and removes it at close).
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const FLAGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Chromium {
  browser: Browser;
  /** A fresh context (its own cookies), at a fixed viewport. */
  context(viewport?: { width: number; height: number }): Promise<BrowserContext>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Chromium> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, timeout: 60_000 });
  return {
    browser,
    context: (viewport = { width: 1280, height: 800 }) => browser.newContext({ viewport }),
    close: () => browser.close(),
  };
}

/** Signs in through the console's form; leaves the page on the pods page. */
export async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.fill("#key", key);
  await Promise.all([page.waitForURL(`${baseUrl}/console/pods`), page.click('button[type="submit"]')]);
}

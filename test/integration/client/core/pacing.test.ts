// Pacing against the emulator's own windows with requests in flight at once: the budget counts
// each request before it goes, so a burst larger than the window waits for the reset instead of
// earning 429s (reading `r=0` after the fact cannot: the burst is out before any answer says so).
import { ComputePlatform, PacingRegistry } from "../../../../src/client";
import { startEmulator } from "../../../../src/emulator";

test("12 concurrent requests with a quota of 5 a window: every one answered 200, none refused", async () => {
  // A minute of the emulator lasts one real second here.
  const emu = await startEmulator({ port: 0, quotas: { minute: 5 }, timeScale: 60 });
  const cp = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: new PacingRegistry(), env: {}, maxRetries: 0 });
  try {
    const results = await Promise.all(Array.from({ length: 12 }, () => cp.catalog.cpus()));
    expect(results).toHaveLength(12);
    const statuses = emu.requestLog().map((e) => e.status);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    expect(emu.counts().listCpus).toBe(12);
  } finally {
    await cp.close();
    await emu.close();
  }
});

test("without pacing the same burst is refused past the quota (what the budget prevents)", async () => {
  const emu = await startEmulator({ port: 0, quotas: { minute: 5 }, timeScale: 60 });
  const cp = new ComputePlatform({ apiKey: emu.apiKey, apiUrl: emu.url, pacing: false, env: {}, maxRetries: 0 });
  try {
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => cp.catalog.cpus()));
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(7);
  } finally {
    await cp.close();
    await emu.close();
  }
});

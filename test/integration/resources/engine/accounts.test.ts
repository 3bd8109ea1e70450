// Accounts as values in the providers' process (src/resources/engine/settings.ts): inside a call
// on an account (`inAccount`), `platform()` is that account's client, one per account and key,
// so each account's requests carry its key and are paced on its own quota. Over HTTP against an
// emulator holding two accounts whose keys allow 12 requests a window: 40 reads on each at once
// are all answered with no 429 on either, each account's own.
import { startEmulator, type Emulator } from "../../../../src/emulator";
import { fingerprint } from "../../../../src/emulator/core/request-log";
import { inAccount, platform, setPlatformSettings } from "../../../../src/resources/engine/settings";

const TEAM = "cp_acct_pace_team_1f3e";
const SHARED = "cp_acct_pace_shared_8a0b";
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    keys: [
      { key: TEAM, scopes: ["read", "write"], account: "team" },
      { key: SHARED, scopes: ["read", "write"], account: "shared" },
    ],
    // A window of 12 requests lasting 0.5 s: the bound is reached at once and paced through.
    quotas: { minute: 12, hour: 100_000, day: 1_000_000 },
    timeScale: 120,
  });
  setPlatformSettings({ apiKey: TEAM, apiUrl: emu.url });
});
afterAll(async () => {
  setPlatformSettings({});
  await emu?.close();
});

test("each account's client carries its own key and is paced on its own quota: no 429 on either at the bound", async () => {
  const shared = { name: "shared", apiKey: SHARED, apiUrl: emu.url };
  expect(inAccount(shared, () => platform())).toBe(inAccount(shared, () => platform()));
  expect(inAccount(shared, () => platform())).not.toBe(platform());
  const reads = (account?: typeof shared) => Array.from({ length: 40 }, () => inAccount(account, () => platform().pods.list()));
  const answers = await Promise.all([...reads(), ...reads(shared)]);
  expect(answers).toHaveLength(80);
  const log = emu.requestLog().filter((e) => e.op === "listPods");
  const by = (account: string) => log.filter((e) => e.account === account);
  expect([by("team").length, by("shared").length]).toEqual([40, 40]);
  expect([by("team").filter((e) => e.status === 429).length, by("shared").filter((e) => e.status === 429).length]).toEqual([0, 0]);
  expect(new Set(by("shared").map((e) => e.key))).toEqual(new Set([fingerprint(SHARED)]));
  expect(new Set(by("team").map((e) => e.key))).toEqual(new Set([fingerprint(TEAM)]));
}, 60_000);

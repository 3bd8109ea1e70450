// The emulator's entry (docs/emulator.md, "From a program or a test"): startEmulator refuses a
// bad option before anything starts, naming the option and the rule; generated keys. No server
// is started here: each start below is refused before it listens.
import { DEFAULT_TIMINGS, generateApiKey, startEmulator } from "../../../src/emulator";
import { start } from "../../helpers/emulator-rest";

test("startEmulator rejects bad options with the option's name", async () => {
  await expect(start({ timeScale: 0 })).rejects.toThrow(/timeScale/);
  await expect(start({ quotas: { minute: 0 } })).rejects.toThrow(/quotas\.minute/);
  await expect(start({ timings: { startingMs: -1 } })).rejects.toThrow(/timings\.startingMs/);
  await expect(start({ keys: [] })).rejects.toThrow(/keys/);
});

test("a bad account name is refused at start, naming the key", async () => {
  await expect(startEmulator({ port: 0, keys: [{ key: "k", scopes: ["read"], account: "no spaces" }] })).rejects.toThrow('keys[0].account must be 1 to 64 letters, digits');
});

test.each([
  ["timeScale Infinity", { timeScale: Number.POSITIVE_INFINITY }, "timeScale must be a positive number, got Infinity"],
  ["timeScale -2", { timeScale: -2 }, "timeScale must be a positive number, got -2"],
  ["a key's own hour quota 1.5", { keys: [{ key: "k", scopes: ["read" as const], quotas: { hour: 1.5 } }] }, "keys[0].quotas.hour must be an integer >= 1, got 1.5"],
  ["timings.drainMs NaN", { timings: { drainMs: Number.NaN } }, "timings.drainMs must be >= 0 ms, got NaN"],
  ["requestLogSize 0", { requestLogSize: 0 }, "requestLogSize must be an integer >= 1, got 0"],
  ["recordExchanges -1", { recordExchanges: -1 }, "recordExchanges must be an integer >= 0, got -1"],
  ["jobLimits.heldCalls 0", { jobLimits: { heldCalls: 0 } }, "jobLimits.heldCalls must be an integer >= 1, got 0"],
  ["an account name of 65 letters", { keys: [{ key: "k", scopes: ["read" as const], account: "a".repeat(65) }] }, "keys[0].account must be 1 to 64 letters"],
])("%s is refused: %s", async (_what, options, message) => {
  await expect(startEmulator({ port: 0, ...options })).rejects.toThrow(message);
});

test("the default timings: 2 s provisioning, 3 s starting and draining, 1 s before an update's restart", () => {
  expect(DEFAULT_TIMINGS).toEqual({ provisioningMs: 2000, startingMs: 3000, drainMs: 3000, restartDelayMs: 1000 });
});

test("a generated key is cp_emu_ and 36 hex digits, new each time", () => {
  const a = generateApiKey();
  expect(a).toMatch(/^cp_emu_[0-9a-f]{36}$/);
  expect(generateApiKey()).not.toBe(a);
});

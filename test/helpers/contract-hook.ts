// Loaded before every test file (jest `setupFilesAfterEnv`): every emulator a suite starts
// records its exchanges, and they are checked against the public contract
// (test/helpers/contract.ts) when it closes and after the suite's tests. A suite that made the
// emulator answer outside the contract, or accept a body the contract refuses, fails in an
// afterAll that names each such exchange.
import * as emulator from "../../src/emulator";
import { violations } from "./contract";

const found = new Set<string>();
const open = new Set<() => void>();
const real = emulator.startEmulator;

const patched: typeof real = async (options = {}) => {
  const emu = await real({ recordExchanges: 20_000, ...options });
  let checked = 0;
  const check = () => {
    const all = emu.exchanges();
    for (const x of all.slice(checked)) for (const v of violations(x)) found.add(v);
    checked = all.length;
  };
  open.add(check);
  const close = emu.close.bind(emu);
  emu.close = async () => {
    check();
    open.delete(check);
    await close();
  };
  return emu;
};
(emulator as { startEmulator: typeof real }).startEmulator = patched;

afterAll(() => {
  for (const check of open) check();
  const seen = [...found];
  found.clear();
  expect(seen).toEqual([]);
});

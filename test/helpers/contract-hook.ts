// Loaded before every test file (jest `setupFilesAfterEnv`): every emulator a suite starts
// records its exchanges, and they are checked against the public contract
// (test/helpers/contract.ts) when it closes and after the suite's tests. A suite that made the
// emulator answer outside the contract, or accept a body the contract refuses, fails in an
// afterAll that names each such exchange.
//
// Nothing is loaded for a suite that starts no emulator: the emulator module is wrapped when a
// suite first imports it (a module mock over the real module), and the contract's validators
// (Ajv over the whole document) are compiled when the first exchange is checked. Most unit
// suites never import either.
import type * as Emulator from "../../src/emulator";

const found = new Set<string>();
const open = new Set<() => void>();

function checked(real: typeof Emulator.startEmulator): typeof Emulator.startEmulator {
  return async (options = {}) => {
    const emu = await real({ recordExchanges: 20_000, ...options });
    let seen = 0;
    const check = () => {
      const all = emu.exchanges();
      if (all.length === seen) return;
      const { violations } = require("./contract") as typeof import("./contract");
      for (const x of all.slice(seen)) for (const v of violations(x)) found.add(v);
      seen = all.length;
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
}

jest.doMock("../../src/emulator", () => {
  const real = jest.requireActual<typeof Emulator>("../../src/emulator");
  return { ...real, startEmulator: checked(real.startEmulator) };
});

afterAll(() => {
  for (const check of open) check();
  const seen = [...found];
  found.clear();
  expect(seen).toEqual([]);
});

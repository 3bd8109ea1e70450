// Preloaded into every plugin process of stack.ts (NODE_OPTIONS --require): what the plugin's own
// work costs the requests it paces. Every 250 ms on stderr: the asks of the rate-limit budget
// (PacingRegistry.reserve) and the requests it let go, counted on the registry the providers use
// (the package's client entry, resolved from the plugin's directory as the providers resolve it),
// and how late the plugin's event loop ran its timers in total: a request the budget lets go
// leaves only when the loop gets to it (issue 50: every answer woke every waiting request, and the
// loop of a 660-resource up ran 17 s late).
"use strict";
const { PacingRegistry } = require(require.resolve("pulumi-computeplatform/client", { paths: [process.cwd()] }));

const TICK_MS = 20;
const counts = { asks: 0, granted: 0, loopLateMs: 0 };
const reserve = PacingRegistry.prototype.reserve;
PacingRegistry.prototype.reserve = function (...args) {
  const decision = reserve.apply(this, args);
  counts.asks++;
  if ("go" in decision) counts.granted++;
  return decision;
};
let last = performance.now();
const ticks = setInterval(() => {
  const now = performance.now();
  counts.loopLateMs += Math.max(0, now - last - TICK_MS);
  last = now;
}, TICK_MS);
ticks.unref();
const report = setInterval(() => process.stderr.write(`pacing-probe ${JSON.stringify(counts)}\n`), 250);
report.unref();

// Preloaded into the plugin process (NODE_OPTIONS --require) by the memory run of stack.ts:
// every 250 ms a full garbage collection, then the live heap on stderr. Resident memory alone
// cannot tell garbage the collector has not reached yet from memory that grows with the ticks.
"use strict";
const v8 = require("node:v8");
const vm = require("node:vm");

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");
const timer = setInterval(() => {
  gc();
  process.stderr.write(`heap-probe ${process.memoryUsage().heapUsed}\n`);
}, 250);
timer.unref();

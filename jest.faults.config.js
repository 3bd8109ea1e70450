// `npm run test:faults`: the fault suites (test/faults/: interrupted plugins, ambiguous creates,
// stack lifecycles under fault profiles), the load suites (test/load/: stacks through the plugin
// paced at the platform's quota, each account on its own) and the generated property checks
// (test/property/: the preview check, hostile input, resource arguments), with the project's
// jest set-up and nothing else. `npm test` leaves them out to stay within five minutes on a 2-core machine (they are a
// seventh of its work); CI runs them beside it, as it runs test:examples.
"use strict";
const project = require("./jest.config.js");

/** @type {import('jest').Config} */
module.exports = {
  ...project,
  roots: ["<rootDir>/test/faults", "<rootDir>/test/load", "<rootDir>/test/property"],
  testPathIgnorePatterns: ["/node_modules/"],
};

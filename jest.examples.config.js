// `npm run test:examples`: the suites of the example programs (test/examples/), with the
// project's jest set-up (jest.config.js) and nothing else; `npm test` leaves them out.
"use strict";
const project = require("./jest.config.js");

/** @type {import('jest').Config} */
module.exports = {
  ...project,
  roots: ["<rootDir>/test/examples"],
  testPathIgnorePatterns: ["/node_modules/"],
};

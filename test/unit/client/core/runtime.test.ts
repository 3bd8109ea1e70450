import { MIN_NODE_VERSION, requireSupportedNode, supportedNode } from "../../../../src/client/core/runtime";
import { ConfigurationError, UnsupportedRuntimeError } from "../../../../src/client";

test.each([
  ["22.19.0", true],
  ["22.19.1", true],
  ["22.20.0", true],
  ["23.0.0", true],
  ["24.11.1", true],
  ["22.18.9", false],
  ["22.15.0", false],
  ["20.20.2", false],
  ["22", false],
  ["x.y.z", false],
])("Node.js %s supported: %s", (version, ok) => {
  expect(supportedNode(version)).toBe(ok);
});

test("the minimum itself is supported", () => {
  expect(supportedNode(MIN_NODE_VERSION)).toBe(true);
});

test("an older Node.js is refused before any request, naming both versions", () => {
  const err = (() => {
    try {
      requireSupportedNode("20.20.2");
    } catch (e) {
      return e as Error;
    }
  })();
  expect(err).toBeInstanceOf(UnsupportedRuntimeError);
  // A settings problem: nothing was sent, no retry fixes it.
  expect(err).toBeInstanceOf(ConfigurationError);
  expect(err!.message).toBe(
    `the Compute Platform client needs Node.js ${MIN_NODE_VERSION} or newer, and this is Node.js 20.20.2; no request was sent. ` +
      "Run it with a newer node (the first on PATH, or the one your tool starts)",
  );
  expect(() => requireSupportedNode(MIN_NODE_VERSION)).not.toThrow();
});

import { loadHttpClient, MIN_NODE_VERSION, requireSupportedNode, supportedNode } from "../../../../src/client/core/runtime";
import { ConfigurationError, UnsupportedRuntimeError } from "../../../../src/client/core/errors";

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
  ["22.19", true],
  ["22.x.0", false],
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

test("on a supported Node.js the HTTP client loads: undici itself", () => {
  expect(loadHttpClient()).toBe(require("undici"));
});

describe("an HTTP client that does not load is refused as the runtime's, with nothing sent", () => {
  /** loadHttpClient in a fresh module registry where loading undici throws `thrown`. */
  function loadFailing(thrown: unknown): UnsupportedRuntimeError {
    jest.doMock("undici", () => {
      throw thrown;
    });
    try {
      let err: unknown;
      jest.isolateModules(() => {
        const runtime = require("../../../../src/client/core/runtime") as typeof import("../../../../src/client/core/runtime");
        const errors = require("../../../../src/client/core/errors") as typeof import("../../../../src/client/core/errors");
        try {
          runtime.loadHttpClient();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(errors.UnsupportedRuntimeError);
      });
      return err as UnsupportedRuntimeError;
    } finally {
      jest.dontMock("undici");
    }
  }

  test("an error while it loads: its message, and the error as the cause", () => {
    const thrown = new TypeError("Cannot read properties of undefined (reading 'bind')");
    const err = loadFailing(thrown);
    expect(err.message).toBe(
      `the Compute Platform client's HTTP client (undici) does not load on Node.js ${process.versions.node} ` +
        "(Cannot read properties of undefined (reading 'bind')); no request was sent",
    );
    expect(err.cause).toBe(thrown);
  });

  test("something thrown that is no Error: its text", () => {
    const err = loadFailing("no zstd");
    expect(err.message).toContain("(no zstd); no request was sent");
    expect(err.cause).toBe("no zstd");
  });
});

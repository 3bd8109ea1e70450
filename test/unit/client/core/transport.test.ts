// The transport's pure rules (transport.ts): which failures leave the server's side unknown,
// which connection failures sent nothing (and so may be retried even for a create), and what a
// connection failure's message says to fix. Its exchanges are tested over real HTTP in
// test/integration/client/core/transport.test.ts.
import { ConnectionError, makeApiError, TimeoutError } from "../../../../src/client/core/errors";
import { connectionHint, DEFAULT_URL, isAmbiguous, mayHaveReachedServer } from "../../../../src/client/core/transport";

const URL_ = "http://127.0.0.1:1/v2/pods";
const cut = (requestSent: boolean) => new ConnectionError("cut", { method: "POST", url: URL_, code: "X", requestSent });

test("the emulator's default address is the one `npx computeplatform-emulator` listens at", () => {
  expect(DEFAULT_URL).toBe("http://127.0.0.1:8787");
});

test.each([
  ["a timeout", new TimeoutError("POST", URL_, 1000), true],
  ["a 5xx", makeApiError({ status: 502, title: "", detail: "", errors: [], method: "POST", url: URL_ }), true],
  ["a connection cut after sending", cut(true), true],
  ["a connection never made", cut(false), false],
  ["a 429", makeApiError({ status: 429, title: "", detail: "", errors: [], method: "POST", url: URL_ }), false],
  ["a 400", makeApiError({ status: 400, title: "", detail: "", errors: [], method: "POST", url: URL_ }), false],
  ["not an error of the client", new Error("x"), false],
])("%s leaves the server's side unknown: %s", (_, err, ambiguous) => {
  expect(isAmbiguous(err)).toBe(ambiguous);
});

test.each([
  // Nothing reached the server: refused, no address, no route, no socket of this process's own.
  ...["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT", "EMFILE", "ENFILE", "EADDRNOTAVAIL"].map((c) => [c, false]),
  // The request may have gone: the socket was cut, or the cause is not known.
  ["ECONNRESET", true],
  ["UND_ERR_SOCKET", true],
  ["EPIPE", true],
  ["", true],
  [undefined, true],
] as [string | undefined, boolean][])("a connection failure %j may have reached the server: %s", (code, sent) => {
  expect(mayHaveReachedServer(code)).toBe(sent);
});

describe("connectionHint: how to fix a connection failure", () => {
  test("refused at the emulator's default address: start it, or point at the platform with the setting", () => {
    expect(connectionHint("ECONNREFUSED", DEFAULT_URL, "apiUrl")).toBe(
      ". Nothing listens at http://127.0.0.1:8787, the local emulator's address: start it with `npx computeplatform-emulator`, " +
        "or point at the platform with COMPUTEPLATFORM_API_URL (stack config computeplatform:apiUrl)",
    );
    expect(connectionHint("ECONNREFUSED", DEFAULT_URL, "serverlessUrl")).toBe(
      ". Nothing listens at http://127.0.0.1:8787, the local emulator's address: start it with `npx computeplatform-emulator`, " +
        "or point at the platform with COMPUTEPLATFORM_SERVERLESS_URL (stack config computeplatform:serverlessUrl)",
    );
  });

  test.each([
    ["ECONNREFUSED", "http://127.0.0.1:9", "apiUrl", ". Check COMPUTEPLATFORM_API_URL (stack config computeplatform:apiUrl)"],
    ["ENOTFOUND", "https://api.example.invalid", "apiUrl", ". Check COMPUTEPLATFORM_API_URL (stack config computeplatform:apiUrl)"],
    ["ENOTFOUND", DEFAULT_URL, "serverlessUrl", ". Check COMPUTEPLATFORM_SERVERLESS_URL (stack config computeplatform:serverlessUrl)"],
    ["ECONNRESET", DEFAULT_URL, "apiUrl", ""],
    ["EAI_AGAIN", "https://api.example.invalid", "apiUrl", ""],
    [undefined, DEFAULT_URL, "apiUrl", ""],
  ] as const)("%s at %s (%s): %j", (code, origin, setting, hint) => {
    expect(connectionHint(code, origin, setting)).toBe(hint);
  });
});

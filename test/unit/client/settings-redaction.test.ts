import { inspect } from "node:util";
import { ComputePlatform, ConfigurationError, DEFAULT_URL } from "../../../src/client";
import { redactText, redactUrl, sanitizeError } from "../../../src/client/core/redact";

describe("settings: option, then environment, then the emulator default", () => {
  const env = {
    COMPUTEPLATFORM_API_KEY: "env_key_123",
    COMPUTEPLATFORM_API_URL: "http://env.example:1",
    COMPUTEPLATFORM_SERVERLESS_URL: "http://env-sls.example:2/",
  };
  test("explicit options win", () => {
    const cp = new ComputePlatform({ apiUrl: "http://opt:3", serverlessUrl: "http://opt:4", env });
    expect([cp.apiUrl, cp.serverlessUrl]).toEqual(["http://opt:3", "http://opt:4"]);
  });
  test("undefined options fall through to the environment (what runtime.ts passes)", () => {
    const cp = new ComputePlatform({ apiKey: undefined, apiUrl: undefined, serverlessUrl: undefined, env });
    expect([cp.apiUrl, cp.serverlessUrl]).toEqual(["http://env.example:1", "http://env-sls.example:2"]);
  });
  test("nothing set: both addresses are the local emulator", () => {
    const cp = new ComputePlatform({ env: {} });
    expect([cp.apiUrl, cp.serverlessUrl]).toEqual([DEFAULT_URL, DEFAULT_URL]);
  });
  test("a missing key fails the first call, before anything is sent, naming env and the option (no Pulumi: the resources add the stack config)", async () => {
    const cp = new ComputePlatform({ env: {}, apiUrl: "http://127.0.0.1:9" });
    const err = await cp.pods.list().catch((e) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect(err.message).toContain("COMPUTEPLATFORM_API_KEY");
    expect(err.message).toContain("apiKey");
    expect(err.message).not.toMatch(/pulumi/i);
    await expect(cp.endpoints.list()).rejects.toBeInstanceOf(ConfigurationError);
  });
  test.each([
    ["not a url", /apiUrl "not a url" is not a URL/],
    ["ftp://x", /http\(s\)/],
    ["http://h:1/?api_key=x", /without query/],
  ])("a bad address %j is a configuration error", (apiUrl, msg) => {
    expect(() => new ComputePlatform({ apiUrl, env: {} })).toThrow(msg);
  });
  test("the client neither serializes nor inspects to its key", () => {
    const cp = new ComputePlatform({ apiKey: "secret_abcdef", env: {} });
    expect(JSON.stringify(cp)).not.toContain("secret_abcdef");
    expect(inspect(cp, { depth: 20, showHidden: true })).not.toContain("secret_abcdef");
  });
});

describe("redaction helpers", () => {
  const KEY = "cp_live_S3cr3t+/=key";
  test("api_key query values are masked, other params kept", () => {
    const out = redactUrl(`http://h:1/graphql?x=1&api_key=${encodeURIComponent(KEY)}`);
    expect(out).toBe("http://h:1/graphql?x=1&api_key=[REDACTED]");
  });
  test("user-info is dropped from URLs", () => {
    expect(redactUrl("http://user:pw@h:1/v2")).toBe("http://h:1/v2");
  });
  test("the key is masked raw, percent-encoded, and behind Bearer or api_key= whatever it is", () => {
    const text = `a ${KEY} b ${encodeURIComponent(KEY)} Authorization: Bearer other_token api_key=zzz&x`;
    const out = redactText(text, [KEY]);
    expect(out).not.toContain(KEY);
    expect(out).not.toContain(encodeURIComponent(KEY));
    expect(out).not.toContain("other_token");
    expect(out).not.toContain("zzz");
  });
  test("sanitizeError copies only name, code, message and stack, all redacted, causes too", () => {
    const inner = Object.assign(new Error(`inner ${KEY}`), { code: "ECONNRESET", headers: { authorization: `Bearer ${KEY}` } });
    const outer = new Error(`outer ${KEY}`, { cause: inner });
    const safe = sanitizeError(outer, [KEY]);
    const all = [safe.message, safe.stack, String(safe.cause), (safe.cause as Error).stack, JSON.stringify(safe), JSON.stringify(safe.cause)].join("\n");
    expect(all).not.toContain(KEY);
    expect((safe.cause as Error & { code?: string }).code).toBe("ECONNRESET");
    expect((safe.cause as unknown as Record<string, unknown>).headers).toBeUndefined();
  });
});

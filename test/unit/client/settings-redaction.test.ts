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
  test("a missing key fails the first call, before anything is sent, naming env and stack config", async () => {
    const cp = new ComputePlatform({ env: {}, apiUrl: "http://127.0.0.1:9" });
    const err = await cp.pods.list().catch((e) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect(err.message).toContain("COMPUTEPLATFORM_API_KEY");
    expect(err.message).toContain("computeplatform:apiKey");
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
  test.each([
    ["raw", (s: string) => `user ${s} rejected`],
    ["percent-encoded", (s: string) => `?password=${encodeURIComponent(s)}`],
    ["JSON-escaped", (s: string) => JSON.stringify({ password: s })],
  ])("a write-only value is masked %s", (_form, write) => {
    const password = 'pa"ss/word+1';
    const out = redactText(write(password), [], [password]);
    expect(out).toContain("[REDACTED]");
    expect(out).not.toContain(password);
    expect(out).not.toContain(encodeURIComponent(password));
    expect(out).not.toContain(JSON.stringify(password).slice(1, -1));
  });
  test("a short write-only value is masked as a token of its own, not inside other words", () => {
    expect(redactText("user 'bob' (bob) not bobby or kebob", [], ["bob"])).toBe("user '[REDACTED]' ([REDACTED]) not bobby or kebob");
    expect(redactText("a.b a+b", [], ["a.b"])).toBe("[REDACTED] a+b");
    // The one-letter API key rule stays: the key's own short value is not searched for.
    expect(redactText("k k k", ["k"])).toBe("k k k");
  });
  test("sanitizeError masks write-only values in messages, stacks and causes", () => {
    const err = new Error("outer s3cret-value", { cause: new Error("inner s3cret-value") });
    const safe = sanitizeError(err, [], ["s3cret-value"]);
    expect([safe.message, safe.stack, (safe.cause as Error).message].join("\n")).not.toContain("s3cret-value");
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

import { redactText, redactUrl, sanitizeError } from "../../../../src/client/core/redact";

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

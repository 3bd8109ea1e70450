import { redactText, redactUrl, sanitizeError, urlPath } from "../../../../src/client/core/redact";

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

  test("a URL that does not parse is still masked as text", () => {
    expect(redactUrl("not a url?api_key=abc Bearer tok")).toBe("not a url?api_key=[REDACTED] Bearer [REDACTED]");
  });
  test("log lines name a URL's path only, and say when it does not parse", () => {
    expect(urlPath(`http://user:pw@h:1/v2/pods?api_key=${KEY}`)).toBe("/v2/pods");
    expect(urlPath(`not a url ${KEY}`)).toBe("(invalid url)");
  });
  test("Bearer and api_key= values are masked whole, whatever the spacing, and the rest of the line kept", () => {
    expect(redactText("Authorization: Bearer   abc.def-1, next", [])).toBe("Authorization: Bearer   [REDACTED], next");
    expect(redactText('{"url":"/graphql?api_key=k123&x=1"}', [])).toBe('{"url":"/graphql?api_key=[REDACTED]&x=1"}');
  });
  test("a key of 4 characters is searched for; a JSON-escaped one leaves the JSON whole", () => {
    expect(redactText("key abcd used", ["abcd"])).toBe("key [REDACTED] used");
    expect(redactText(JSON.stringify({ password: 'pa"ss' }), [], ['pa"ss'])).toBe('{"password":"[REDACTED]"}');
  });
  test("a write-only value of 4 characters is masked even inside a word; an empty one masks nothing", () => {
    expect(redactText("xabcdx", [], ["abcd"])).toBe("x[REDACTED]x");
    expect(redactText("nothing to hide: none.", [], [""])).toBe("nothing to hide: none.");
  });
  test("a value inside a longer one does not break the longer one's mask, whatever their order", () => {
    expect(redactText("user key-ab-word", [], ["ab", "key-ab-word"])).toBe("user [REDACTED]");
    expect(redactText("pw xxabcdyy", [], ["abcd", "xxabcdyy"])).toBe("pw [REDACTED]");
    expect(redactText("key abcd-and-more", ["abcd"], ["abcd-and-more"])).toBe("key [REDACTED]");
  });
  test("a key that is not set masks nothing", () => {
    expect(redactText("no key here", [undefined])).toBe("no key here");
  });
  test("sanitizeError carries a string code only: a code that is an object may hold the request", () => {
    const err = Object.assign(new Error("boom"), { code: { headers: { authorization: `Bearer ${KEY}` } } });
    expect((sanitizeError(err, [KEY]) as Error & { code?: unknown }).code).toBeUndefined();
  });
});

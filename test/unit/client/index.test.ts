import { inspect } from "node:util";
import { ComputePlatform, ConfigurationError, DEFAULT_URL } from "../../../src/client";

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

import { inspect } from "node:util";
import { ComputePlatform, ConfigurationError, DEFAULT_URL, MissingApiUrlError } from "../../../src/client";

describe("settings: option, then environment; no address is guessed", () => {
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
  test("no address set: the client refuses to start, naming the option, the env var and the emulator's address (no Pulumi)", () => {
    const err = (() => {
      try {
        return new ComputePlatform({ apiKey: "k", env: {} });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(MissingApiUrlError);
    expect(err).toBeInstanceOf(ConfigurationError);
    const message = (err as Error).message;
    for (const part of ["COMPUTEPLATFORM_API_URL", "apiUrl", "npx computeplatform-emulator", DEFAULT_URL]) expect(message).toContain(part);
    expect(message).not.toMatch(/pulumi/i);
  });
  test("the hosted-model address follows the API address unless set", () => {
    const cp = new ComputePlatform({ apiUrl: "http://platform.example:7/", env: {} });
    expect([cp.apiUrl, cp.serverlessUrl]).toEqual(["http://platform.example:7", "http://platform.example:7"]);
    const env = { COMPUTEPLATFORM_API_URL: "http://a.example", COMPUTEPLATFORM_SERVERLESS_URL: "http://b.example" };
    expect(new ComputePlatform({ env }).serverlessUrl).toBe("http://b.example");
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
    const cp = new ComputePlatform({ apiKey: "secret_abcdef", apiUrl: DEFAULT_URL, env: {} });
    expect(JSON.stringify(cp)).not.toContain("secret_abcdef");
    expect(inspect(cp, { depth: 20, showHidden: true })).not.toContain("secret_abcdef");
  });
});

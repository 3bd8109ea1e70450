// The registry the serialized shim reaches inside the plugin: one place that hands stack config
// to the shared client for every kind, loads a kind's module on first use, and keeps
// `__provider` in the outputs of a partially made resource (see harness.test.ts for why).
import type * as pulumi from "@pulumi/pulumi";
import { MissingApiKeyError } from "../../../src/client";
import { dynamicProvider, dynamicProviders, engineProvider } from "../../../src/resources/kinds";
import { platform, setPlatformSettings } from "../../../src/resources/engine/settings";

const config = (values: Record<string, string>): pulumi.dynamic.Config => ({
  get: (key: string) => values[key],
  require: (key: string) => {
    if (!(key in values)) throw new Error(`missing ${key}`);
    return values[key];
  },
});

/** The engine's view of one fake provider, as the registry gives every kind. */
let provider: pulumi.dynamic.ResourceProvider;

afterEach(() => setPlatformSettings({}));

test("configure() hands the stack config to the shared client, for a provider without configure()", async () => {
  provider = engineProvider({ create: async () => ({ id: "x", outs: {} }) });
  await provider.configure!({
    config: config({ "computeplatform:apiUrl": "http://127.0.0.1:4321", "computeplatform:apiKey": "k1" }),
  });
  const first = platform();
  expect(first.apiUrl).toBe("http://127.0.0.1:4321");
  // Another kind configures with the same stack config: the one client stays.
  await provider.configure!({
    config: config({ "computeplatform:apiUrl": "http://127.0.0.1:4321", "computeplatform:apiKey": "k1" }),
  });
  expect(platform()).toBe(first);
  await provider.configure!({ config: config({ "computeplatform:apiUrl": "http://127.0.0.1:5555" }) });
  expect(platform()).not.toBe(first);
  expect(platform().apiUrl).toBe("http://127.0.0.1:5555");
});

test("the provider's own configure() still runs, after the settings are in place", async () => {
  const seen: string[] = [];
  provider = engineProvider({
    configure: async () => {
      seen.push(platform().apiUrl);
    },
    create: async () => ({ id: "x", outs: {} }),
  });
  await provider.configure!({ config: config({ "computeplatform:apiUrl": "http://127.0.0.1:4322" }) });
  expect(seen).toEqual(["http://127.0.0.1:4322"]);
});

test("a partial failure keeps __provider in the properties Pulumi stores as outputs", async () => {
  const partial = Object.assign(new Error("pod p1 did not start"), { id: "p1", properties: { status: "ERROR" }, reasons: ["x"] });
  provider = engineProvider({
    create: async () => {
      throw partial;
    },
    update: async () => {
      throw partial;
    },
  });
  await expect(provider.create({ __provider: "SHIM", a: 1 })).rejects.toMatchObject({
    id: "p1",
    properties: { status: "ERROR", __provider: "SHIM" },
  });
  partial.properties = { status: "ERROR" };
  await expect(provider.update!("p1", {}, { __provider: "SHIM2" })).rejects.toMatchObject({
    properties: { __provider: "SHIM2" },
  });
  const plain = new Error("400 bad image");
  provider = engineProvider({
    create: async () => {
      throw plain;
    },
  });
  await expect(provider.create({ __provider: "SHIM" })).rejects.toBe(plain);
  expect(plain).not.toHaveProperty("properties");
});

test("missing methods behave as Pulumi's plugin treats them", async () => {
  provider = engineProvider({ create: async () => ({ id: "x", outs: {} }) });
  const p = provider;
  setPlatformSettings({ apiKey: "k", apiUrl: "http://127.0.0.1:9" });
  await expect(p.check!({}, { a: 1 })).resolves.toEqual({ inputs: { a: 1 } });
  await expect(p.diff!("x", {}, {})).resolves.toEqual({});
  await expect(p.read!("x", { a: 1 })).resolves.toEqual({ id: "x", props: { a: 1 } });
  await expect(p.delete!("x", {})).resolves.toBeUndefined();
});

test("a kind's module is loaded on first lookup, so the root need not import it", () => {
  const loaded = dynamicProviders["network-volume"];
  expect(typeof loaded.create).toBe("function");
  expect(typeof loaded.check).toBe("function");
  expect(dynamicProvider("network-volume")).toBe(loaded);
});

test("a kind this package does not serve is named, with the kinds it does", () => {
  // A kind no version serves, so the test stays true as kinds are added.
  expect(() => dynamicProvider("volume-snapshot" as never)).toThrow(
    /no provider for "volume-snapshot" \(known: pod, serverless-endpoint, network-volume, template, registry-credential, stack-cost, smoke-test\)/,
  );
});

test("a missing API key names the stack config that sets it; the client's own message knows no Pulumi", async () => {
  provider = engineProvider({
    create: async () => {
      throw new MissingApiKeyError("No Compute Platform API key: set COMPUTEPLATFORM_API_KEY, or pass apiKey to new ComputePlatform()");
    },
  });
  await expect(provider.create({})).rejects.toThrow(/pulumi config set --secret computeplatform:apiKey <key>/);
});

describe("a check that up would follow with requests refuses a missing key or address at preview, with the command that sets it", () => {
  const env = { ...process.env };
  beforeEach(() => {
    delete process.env.COMPUTEPLATFORM_API_KEY;
    delete process.env.COMPUTEPLATFORM_API_URL;
  });
  afterAll(() => {
    process.env.COMPUTEPLATFORM_API_KEY = env.COMPUTEPLATFORM_API_KEY;
    process.env.COMPUTEPLATFORM_API_URL = env.COMPUTEPLATFORM_API_URL;
    for (const k of ["COMPUTEPLATFORM_API_KEY", "COMPUTEPLATFORM_API_URL"]) if (env[k] === undefined) delete process.env[k];
  });
  const echo = () => engineProvider({ check: async (_o: unknown, news: Record<string, unknown>) => ({ inputs: news }), create: async () => ({ id: "x", outs: {} }) });

  test("a create without a key", async () => {
    setPlatformSettings({ apiUrl: "http://127.0.0.1:9" });
    await expect(echo().check!({}, { image: "i" })).rejects.toThrow(
      /^No Compute Platform API key: set COMPUTEPLATFORM_API_KEY.*pulumi config set --secret computeplatform:apiKey <key>/,
    );
  });
  test("an update without an address names the setting and the emulator's address", async () => {
    setPlatformSettings({ apiKey: "k" });
    const err: Error = await echo().check!({ __provider: "s", image: "i" }, { __provider: "s", image: "j" }).catch((e) => e);
    expect(err.message).toMatch(/COMPUTEPLATFORM_API_URL.*http:\/\/127\.0\.0\.1:8787.*pulumi config set computeplatform:apiUrl <url>/);
  });
  test("the environment counts as set", async () => {
    process.env.COMPUTEPLATFORM_API_KEY = "k";
    process.env.COMPUTEPLATFORM_API_URL = "http://127.0.0.1:9";
    await expect(echo().check!({}, { image: "i" })).resolves.toEqual({ inputs: { image: "i" } });
  });
  test("inputs as last applied send nothing at up, so nothing is refused; nor is a check that fails on its own", async () => {
    await expect(echo().check!({ __provider: "old", image: "i" }, { __provider: "new", image: "i" })).resolves.toBeDefined();
    const failing = engineProvider({ check: async (_o: unknown, news: Record<string, unknown>) => ({ inputs: news, failures: [{ property: "image", reason: "bad" }] }), create: async () => ({ id: "x", outs: {} }) });
    await expect(failing.check!({}, { image: "" })).resolves.toMatchObject({ failures: [{ property: "image" }] });
  });
});

test("undefined never goes back to the plugin, whose Struct conversion rejects it", async () => {
  provider = engineProvider({
    check: async (_o: unknown, news: Record<string, unknown>) => ({ inputs: { ...news, name: undefined } }),
    create: async () => ({ id: "x", outs: { a: 1, startedAt: undefined, nested: { b: undefined }, list: [1, undefined] } }),
    read: async (id: string) => ({ id, props: { a: undefined, c: 2 } }),
    update: async () => ({ outs: { a: undefined } }),
  });
  const p = provider;
  setPlatformSettings({ apiKey: "k", apiUrl: "http://127.0.0.1:9" });
  await expect(p.check!({}, { image: "i" })).resolves.toEqual({ inputs: { image: "i" } });
  const created = await p.create({});
  expect(created.outs).toEqual({ a: 1, nested: {}, list: [1, null] });
  expect(Object.keys(created.outs)).not.toContain("startedAt");
  expect(Object.keys((await p.read!("x", {})).props)).toEqual(["c"]);
  expect(Object.keys((await p.update!("x", {}, {})).outs)).toEqual([]);
});

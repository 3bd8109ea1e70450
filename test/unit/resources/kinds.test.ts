// The registry the serialized shim reaches inside the plugin: one place that hands stack config
// to the shared client for every kind, loads a kind's module on first use, and keeps
// `__provider` in the outputs of a partially made resource (see harness.test.ts for why).
import type * as pulumi from "@pulumi/pulumi";
import { MissingApiKeyError, MissingApiUrlError, UnsupportedRuntimeError } from "../../../src/client";
import { dynamicProvider, dynamicProviders, engineProvider } from "../../../src/resources/kinds";
import { platform, setPlatformSettings, stackAccountClients } from "../../../src/resources/engine/settings";

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

test("a missing address or an unsupported Node.js gets what sets it; another error goes through as it is", async () => {
  const failWith = (e: Error) => engineProvider({ create: async () => Promise.reject(e) });
  await expect(failWith(new MissingApiUrlError("no url")).create({})).rejects.toThrow(
    "no url; in a Pulumi program, set stack config computeplatform:apiUrl (`pulumi config set computeplatform:apiUrl <url>`)",
  );
  await expect(failWith(new MissingApiKeyError("no key")).create({})).rejects.toThrow(
    "no key; in a Pulumi program, set stack config computeplatform:apiKey (`pulumi config set --secret computeplatform:apiKey <key>`)",
  );
  await expect(failWith(new UnsupportedRuntimeError("old node")).create({})).rejects.toThrow(
    "old node; Pulumi runs a program and its providers with the node first on PATH (`node --version` shows it)",
  );
  const other = new Error("400 bad image");
  await expect(failWith(other).create({})).rejects.toThrow(/^400 bad image$/);
  // Every call is hinted, not only create's.
  const all = engineProvider({
    create: async () => ({ id: "x", outs: {} }),
    read: async () => Promise.reject(new MissingApiUrlError("r")),
    update: async () => Promise.reject(new MissingApiUrlError("u")),
    delete: async () => Promise.reject(new MissingApiUrlError("d")),
    check: async () => Promise.reject(new MissingApiUrlError("c")),
  });
  for (const call of [() => all.read!("x", {}), () => all.update!("x", {}, {}), () => all.delete!("x", {}), () => all.check!({}, {})]) {
    await expect(call()).rejects.toThrow(/set stack config computeplatform:apiUrl/);
  }
});

test("a partial failure's own __provider is kept, and the account goes back with it", async () => {
  const partial = Object.assign(new Error("half made"), { id: "p1", properties: { __provider: "OWN" } });
  const p = engineProvider({ create: async () => Promise.reject(partial) });
  await expect(p.create({ __provider: "SHIM", account: ACME })).rejects.toMatchObject({ properties: { __provider: "OWN", account: ACME } });
  const bare = Object.assign(new Error("half made"), { id: "p2" });
  await expect(engineProvider({ create: async () => Promise.reject(bare) }).create({ __provider: "SHIM" })).rejects.toMatchObject({ properties: { __provider: "SHIM" } });
});

test("every kind is listed, each loaded on lookup", () => {
  expect(Object.keys(dynamicProviders)).toEqual(["pod", "serverless-endpoint", "network-volume", "template", "registry-credential", "stack-cost", "smoke-test"]);
});

test("a kind whose module fails to load is named with the cause", () => {
  jest.isolateModules(() => {
    jest.doMock("../../../src/resources/template/provider", () => {
      throw new Error("Cannot find module 'zod'");
    });
    const { dynamicProvider: fresh } = require("../../../src/resources/kinds") as typeof import("../../../src/resources/kinds");
    expect(() => fresh("template")).toThrow(/^pulumi-computeplatform could not load the provider of "template": Cannot find module 'zod'$/);
  });
  jest.dontMock("../../../src/resources/template/provider");
});

const ACME = { name: "acme", apiKey: "key-acme", apiUrl: "http://127.0.0.1:7001" };

describe("a resource's own account", () => {
  /** A provider that notes what it saw, and the address of the client it would use. */
  function recording() {
    const seen: { call: string; args: unknown[]; apiUrl: string }[] = [];
    const note = (call: string, ...args: unknown[]) => seen.push({ call, args, apiUrl: platform().apiUrl });
    const inner: pulumi.dynamic.ResourceProvider = {
      check: async (olds, news) => (note("check", olds, news), { inputs: news }),
      diff: async (id, olds, news) => (note("diff", id, olds, news), { changes: false }),
      create: async (inputs) => (note("create", inputs), { id: "x", outs: { made: true } }),
      read: async (id, props) => (note("read", id, props), { id, props: { read: true } }),
      update: async (id, olds, news) => (note("update", id, olds, news), { outs: { updated: true } }),
      delete: async (id, props) => void note("delete", id, props),
    };
    return { seen, p: engineProvider(inner) };
  }
  const stack = [{ name: "other", apiKey: "key-other", apiUrl: "http://127.0.0.1:7002" }];

  beforeEach(() => setPlatformSettings({ apiKey: "k", apiUrl: "http://127.0.0.1:7000" }));

  test("check: an account refused names its field, and the kind's own check is not asked", async () => {
    const { seen, p } = recording();
    await expect(p.check!({}, { image: "i", account: { name: "acme" } })).resolves.toEqual({
      inputs: { image: "i", account: { name: "acme" } },
      failures: [{ property: "account.apiKey", reason: "account.apiKey is required, a non-empty string" }],
    });
    expect(seen).toEqual([]);
  });

  test("check: the kind sees its own inputs, on the account's client, and both accounts go back", async () => {
    const { seen, p } = recording();
    await expect(p.check!({ old: 1, account: ACME }, { image: "i", account: ACME, __stackAccounts: stack })).resolves.toEqual({
      inputs: { image: "i", account: ACME, __stackAccounts: stack },
    });
    expect(seen).toEqual([{ call: "check", args: [{ old: 1 }, { image: "i" }], apiUrl: ACME.apiUrl }]);
  });

  test("check: an account with its own key and address needs none of the stack's", async () => {
    setPlatformSettings({});
    const { p } = recording();
    await expect(p.check!({}, { image: "i", account: ACME })).resolves.toMatchObject({ inputs: { image: "i" } });
  });

  test("diff: another account, or one not known yet, replaces the resource without asking the kind", async () => {
    const { seen, p } = recording();
    const replace = { changes: true, replaces: ["account"], deleteBeforeReplace: false };
    await expect(p.diff!("x", { account: ACME }, { account: { ...ACME, name: "globex" } })).resolves.toEqual(replace);
    await expect(p.diff!("x", { account: ACME }, { account: { ...ACME, apiUrl: "http://127.0.0.1:7009" } })).resolves.toEqual(replace);
    await expect(p.diff!("x", {}, { account: ACME })).resolves.toEqual(replace);
    await expect(p.diff!("x", { account: ACME }, { account: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" })).resolves.toEqual(replace);
    expect(seen).toEqual([]);
  });

  test("diff: the same account asks the kind, on its client; a rotated key alone is a change", async () => {
    const { seen, p } = recording();
    await expect(p.diff!("x", { a: 1, account: ACME }, { a: 1, account: ACME, __stackAccounts: stack })).resolves.toEqual({ changes: false });
    expect(seen).toEqual([{ call: "diff", args: ["x", { a: 1 }, { a: 1 }], apiUrl: ACME.apiUrl }]);
    await expect(p.diff!("x", { account: ACME }, { account: { ...ACME, apiKey: "key-2" } })).resolves.toEqual({ changes: true });
    const bare = engineProvider({ create: async () => ({ id: "x", outs: {} }) });
    await expect(bare.diff!("x", { account: ACME }, { account: { ...ACME, apiKey: "key-2" } })).resolves.toEqual({ changes: true });
    await expect(bare.diff!("x", { account: ACME }, { account: ACME })).resolves.toEqual({});
  });

  test("create and update: the stack's accounts are noted, the kind runs on the account, the account goes back into the outputs", async () => {
    const { seen, p } = recording();
    await expect(p.create({ image: "i", account: ACME, __stackAccounts: stack })).resolves.toEqual({ id: "x", outs: { made: true, account: ACME } });
    expect(stackAccountClients().map((a) => a.name)).toContain("other");
    const more = [{ name: "more", apiKey: "key-more", apiUrl: "http://127.0.0.1:7003" }];
    await expect(p.update!("x", { image: "i", account: ACME }, { image: "j", account: ACME, __stackAccounts: more })).resolves.toEqual({ outs: { updated: true, account: ACME } });
    expect(stackAccountClients().map((a) => a.name)).toContain("more");
    expect(seen).toEqual([
      { call: "create", args: [{ image: "i" }], apiUrl: ACME.apiUrl },
      { call: "update", args: ["x", { image: "i" }, { image: "j" }], apiUrl: ACME.apiUrl },
    ]);
  });

  test("update: a kind without update, or one that returns no outputs, keeps the old outputs, with the new account", async () => {
    const rotated = { ...ACME, apiKey: "key-2" };
    const bare = engineProvider({ create: async () => ({ id: "x", outs: {} }) });
    await expect(bare.update!("x", { a: 1, account: ACME }, { a: 2, account: rotated })).resolves.toEqual({ outs: { a: 1, account: rotated } });
    const silent = engineProvider({ create: async () => ({ id: "x", outs: {} }), update: async () => ({}) });
    await expect(silent.update!("x", { a: 1 }, { a: 2 })).resolves.toEqual({ outs: { a: 1 } });
  });

  test("read and delete: the kind sees its own properties, on the account's client", async () => {
    const { seen, p } = recording();
    await expect(p.read!("x", { a: 1, account: ACME })).resolves.toEqual({ id: "x", props: { read: true, account: ACME } });
    await p.delete!("x", { a: 1, account: ACME });
    expect(seen).toEqual([
      { call: "read", args: ["x", { a: 1 }], apiUrl: ACME.apiUrl },
      { call: "delete", args: ["x", { a: 1 }], apiUrl: ACME.apiUrl },
    ]);
  });

  test("read: inputs the kind gives back get the account too", async () => {
    const p = engineProvider({ create: async () => ({ id: "x", outs: {} }), read: async (id) => ({ id, props: { a: 1 }, inputs: { a: 1 } }) });
    await expect(p.read!("x", { account: ACME })).resolves.toEqual({ id: "x", props: { a: 1, account: ACME }, inputs: { a: 1, account: ACME } });
  });

  test("without an account, the properties reach the kind as they are, on the stack's client", async () => {
    const { seen, p } = recording();
    const props = { a: 1 };
    await p.delete!("x", props);
    expect(seen).toEqual([{ call: "delete", args: ["x", props], apiUrl: "http://127.0.0.1:7000" }]);
    expect(seen[0].args[1]).toBe(props);
  });
});

describe("each kind's lookup is that kind's own provider", () => {
  beforeEach(() => setPlatformSettings({ apiKey: "k", apiUrl: "http://127.0.0.1:9" }));
  test.each([
    ["network-volume", { dataCenter: "EU-RO-1", size: 5 }, "size"],
    ["template", { image: 7 }, "image"],
    ["registry-credential", { username: "robot" }, "password"],
    ["pod", { image: "i" }, "gpu"],
  ])("%s: its own check refuses what its rules refuse", async (kind, news, property) => {
    const r = await dynamicProvider(kind as never).check!({}, news);
    expect(r.failures?.map((f) => f.property)).toContain(property);
  });

  test.each([["serverless-endpoint"], ["stack-cost"], ["smoke-test"]])("%s: its own check answers", async (kind) => {
    await expect(dynamicProvider(kind as never).check!({}, {})).resolves.toHaveProperty("inputs");
  });
});

test("the kind a state names and no version serves is told as a package mismatch", () => {
  expect(() => dynamicProvider("volume-snapshot" as never)).toThrow(
    'pulumi-computeplatform has no provider for "volume-snapshot" (known: pod, serverless-endpoint, network-volume, template, registry-credential, stack-cost, smoke-test); the installed package is older or newer than the one that wrote this state',
  );
});

describe("a check with no key or address set refuses a create however the engine says it is one", () => {
  beforeEach(() => setPlatformSettings({ apiUrl: "http://127.0.0.1:9" }));
  const saved = process.env.COMPUTEPLATFORM_API_KEY;
  beforeAll(() => delete process.env.COMPUTEPLATFORM_API_KEY);
  afterAll(() => {
    if (saved !== undefined) process.env.COMPUTEPLATFORM_API_KEY = saved;
  });
  const echo = () => engineProvider({ check: async (_o: unknown, news: Record<string, unknown>) => ({ inputs: news }), create: async () => ({ id: "x", outs: {} }) });
  test.each([["no olds", undefined], ["empty olds", {}]])("%s", async (_label, olds) => {
    await expect(echo().check!(olds as never, {})).rejects.toThrow(/^No Compute Platform API key/);
  });
});

test("a kind's update that answers nothing keeps the old outputs; a thrown non-error goes through", async () => {
  const p = engineProvider({ create: async () => Promise.reject(undefined), update: async () => undefined as never });
  await expect(p.update!("x", { a: 1 }, { a: 2 })).resolves.toEqual({ outs: { a: 1 } });
  await expect(p.create({})).rejects.toBeUndefined();
});

// The registry the serialized shim reaches inside the plugin: one place that hands stack config
// to the shared client for every kind, loads a kind's module on first use, and keeps
// `__provider` in the outputs of a partially made resource (see harness.test.ts for why).
import type * as pulumi from "@pulumi/pulumi";
import { dynamicProvider, dynamicProviders, registerProvider } from "../../src/resources/providers";
import { platform, setPlatformSettings } from "../../src/resources/runtime";

const config = (values: Record<string, string>): pulumi.dynamic.Config => ({
  get: (key: string) => values[key],
  require: (key: string) => {
    if (!(key in values)) throw new Error(`missing ${key}`);
    return values[key];
  },
});

afterEach(() => setPlatformSettings({}));

test("configure() hands the stack config to the shared client, for a provider without configure()", async () => {
  registerProvider("pod", { create: async () => ({ id: "x", outs: {} }) });
  await dynamicProviders.pod.configure!({
    config: config({ "computeplatform:apiUrl": "http://127.0.0.1:4321", "computeplatform:apiKey": "k1" }),
  });
  const first = platform();
  expect(first.apiUrl).toBe("http://127.0.0.1:4321");
  // Another kind configures with the same stack config: the one client stays.
  await dynamicProviders.pod.configure!({
    config: config({ "computeplatform:apiUrl": "http://127.0.0.1:4321", "computeplatform:apiKey": "k1" }),
  });
  expect(platform()).toBe(first);
  await dynamicProviders.pod.configure!({ config: config({ "computeplatform:apiUrl": "http://127.0.0.1:5555" }) });
  expect(platform()).not.toBe(first);
  expect(platform().apiUrl).toBe("http://127.0.0.1:5555");
});

test("the provider's own configure() still runs, after the settings are in place", async () => {
  const seen: string[] = [];
  registerProvider("pod", {
    configure: async () => {
      seen.push(platform().apiUrl);
    },
    create: async () => ({ id: "x", outs: {} }),
  });
  await dynamicProviders.pod.configure!({ config: config({ "computeplatform:apiUrl": "http://127.0.0.1:4322" }) });
  expect(seen).toEqual(["http://127.0.0.1:4322"]);
});

test("a partial failure keeps __provider in the properties Pulumi stores as outputs", async () => {
  const partial = Object.assign(new Error("pod p1 did not start"), { id: "p1", properties: { status: "ERROR" }, reasons: ["x"] });
  registerProvider("pod", {
    create: async () => {
      throw partial;
    },
    update: async () => {
      throw partial;
    },
  });
  await expect(dynamicProviders.pod.create({ __provider: "SHIM", a: 1 })).rejects.toMatchObject({
    id: "p1",
    properties: { status: "ERROR", __provider: "SHIM" },
  });
  partial.properties = { status: "ERROR" };
  await expect(dynamicProviders.pod.update!("p1", {}, { __provider: "SHIM2" })).rejects.toMatchObject({
    properties: { __provider: "SHIM2" },
  });
  const plain = new Error("400 bad image");
  registerProvider("pod", {
    create: async () => {
      throw plain;
    },
  });
  await expect(dynamicProviders.pod.create({ __provider: "SHIM" })).rejects.toBe(plain);
  expect(plain).not.toHaveProperty("properties");
});

test("missing methods behave as Pulumi's plugin treats them", async () => {
  registerProvider("pod", { create: async () => ({ id: "x", outs: {} }) });
  const p = dynamicProvider("pod");
  await expect(p.check!({}, { a: 1 })).resolves.toEqual({ inputs: { a: 1 } });
  await expect(p.diff!("x", {}, {})).resolves.toEqual({});
  await expect(p.read!("x", { a: 1 })).resolves.toEqual({ id: "x", props: { a: 1 } });
  await expect(p.delete!("x", {})).resolves.toBeUndefined();
});

test("a kind's module is loaded on first lookup, so the root need not import it", () => {
  const provider = dynamicProviders["network-volume"];
  expect(typeof provider.create).toBe("function");
  expect(typeof provider.check).toBe("function");
});

test("undefined never goes back to the plugin, whose Struct conversion rejects it", async () => {
  registerProvider("pod", {
    check: async (_o, news) => ({ inputs: { ...news, name: undefined } }),
    create: async () => ({ id: "x", outs: { a: 1, startedAt: undefined, nested: { b: undefined }, list: [1, undefined] } }),
    read: async (id) => ({ id, props: { a: undefined, c: 2 } }),
    update: async () => ({ outs: { a: undefined } }),
  });
  const p = dynamicProviders.pod;
  await expect(p.check!({}, { image: "i" })).resolves.toEqual({ inputs: { image: "i" } });
  const created = await p.create({});
  expect(created.outs).toEqual({ a: 1, nested: {}, list: [1, null] });
  expect(Object.keys(created.outs)).not.toContain("startedAt");
  expect(Object.keys((await p.read!("x", {})).props)).toEqual(["c"]);
  expect(Object.keys((await p.update!("x", {}, {})).outs)).toEqual([]);
});

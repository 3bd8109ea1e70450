// The shim a resource hands Pulumi (engine/shim.ts): one object per kind. Pulumi caches the
// serialized `__provider` text by the provider object, so a program of many resources of a kind
// serializes the closure once, not once per resource (`npm run bench:program` times both ways);
// test/engine/shim.test.ts checks the text itself through the SDK.
import { shimProvider } from "../../../../src/resources/engine/shim";
import type { ProviderKind } from "../../../../src/resources/engine/shim";

const KINDS: ProviderKind[] = ["pod", "serverless-endpoint", "network-volume", "template", "registry-credential", "stack-cost"];

test("every resource of a kind gets the same shim object, so Pulumi serializes it once", () => {
  for (const kind of KINDS) expect(shimProvider(kind)).toBe(shimProvider(kind));
});

test("each kind has a shim of its own: a resource never borrows another kind's provider", () => {
  expect(new Set(KINDS.map((k) => shimProvider(k))).size).toBe(KINDS.length);
});

// The text of the shim travels with every resource in every Check and Diff, so it has one
// serialized function: configure, which the plugin calls first, puts the provider's methods on it.
test("the shim has one method, configure: the rest are the package's, put on it when the plugin configures it", () => {
  for (const kind of KINDS) expect(Object.keys(shimProvider(kind))).toEqual(["configure"]);
});

// configure() loads the package's registry of kinds by name; here a fake module stands in for
// it (the real one is loaded by Pulumi's plugin in test/engine/shim.test.ts).
describe("configure: the package's provider of the shim's kind, loaded by name", () => {
  const PROVIDERS = "pulumi-computeplatform/providers";
  // A fresh module registry per test: the shim's require then finds this test's fake, not a cached one.
  const load = (providers: () => unknown): typeof shimProvider => {
    jest.resetModules();
    jest.doMock(PROVIDERS, providers, { virtual: true });
    return require("../../../../src/resources/engine/shim").shimProvider;
  };
  afterEach(() => jest.dontMock(PROVIDERS));

  test("each method the provider has is put on the shim, bound to the provider; configure is the provider's", async () => {
    const asked: string[] = [];
    const provider = {
      configured: undefined as unknown,
      configure(req: unknown) {
        this.configured = req;
        return "configured";
      },
      ...Object.fromEntries(["check", "diff", "create", "read", "update", "delete"].map((m) => [m, function (this: unknown) { return [m, this]; }])),
    };
    const shim = load(() => ({ dynamicProvider: (kind: string) => (asked.push(kind), provider) }))("template") as unknown as Record<string, (...a: unknown[]) => unknown>;
    const req = { config: new Map() };
    expect(await shim.configure!(req)).toBe("configured");
    expect(provider.configured).toBe(req);
    expect(asked).toEqual(["template"]);
    for (const m of ["check", "diff", "create", "read", "update", "delete"]) expect(shim[m]!()).toEqual([m, provider]);
  });

  test("a method the provider lacks stays off the shim, and a provider without configure answers nothing", async () => {
    const shim = load(() => ({ dynamicProvider: () => ({ check: () => "checked" }) }))("stack-cost") as unknown as Record<string, (...a: unknown[]) => unknown>;
    expect(await shim.configure!({})).toBeUndefined();
    expect(shim.check!()).toBe("checked");
    expect(Object.keys(shim).sort()).toEqual(["check", "configure"]);
  });

  test("a project without the package is told to add it, in the directory the plugin runs in", async () => {
    const shim = load(() => {
      throw new Error("Cannot find module 'pulumi-computeplatform/providers'");
    })("pod");
    await expect(shim.configure!({} as never)).rejects.toThrow(
      `add pulumi-computeplatform to the dependencies of the project in ${process.cwd()}: Cannot find module 'pulumi-computeplatform/providers'`,
    );
  });
});

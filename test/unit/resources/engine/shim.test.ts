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

// A resource's options with the outputs the platform may return in the clear listed as secret
// (engine/secret-outputs.ts): the names added to what the program listed, each once, the other
// options kept, and the program's own options object left as it was.
import { withSecretOutputs } from "../../../../src/resources/engine/secret-outputs";

test("no options: only the names", () => {
  expect(withSecretOutputs(undefined, ["env"])).toEqual({ additionalSecretOutputs: ["env"] });
  expect(withSecretOutputs({}, [])).toEqual({ additionalSecretOutputs: [] });
});

test("the program's own list is kept, first, and a name in both is listed once", () => {
  expect(withSecretOutputs({ additionalSecretOutputs: ["name", "env"] }, ["env", "password"]).additionalSecretOutputs).toEqual(["name", "env", "password"]);
});

test("every other option passes through, and the program's options are not changed", () => {
  const opts = { protect: true, ignoreChanges: ["image"], additionalSecretOutputs: ["name"] };
  const out = withSecretOutputs(opts, ["env"]);
  expect(out).toEqual({ protect: true, ignoreChanges: ["image"], additionalSecretOutputs: ["name", "env"] });
  expect(opts.additionalSecretOutputs).toEqual(["name"]);
  expect(out).not.toBe(opts);
});

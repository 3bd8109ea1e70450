// Who owns an object: a stack's exported state (every format `pulumi stack export` and the rig
// write), else the marks the platform carries, else the sweep says it cannot tell. No I/O.
import { ownerOf, readStates } from "../../../src/account/owners";

const res = (stack: string, kind: string, name: string, id: string) => ({
  urn: `urn:pulumi:${stack}::ml::pulumi-nodejs:dynamic/computeplatform:${kind}::${name}`,
  type: `pulumi-nodejs:dynamic/computeplatform:${kind}`,
  id,
});
const files: Record<string, string> = {
  "dev.json": JSON.stringify({ version: 3, deployment: { resources: [{ urn: "urn:pulumi:dev::ml::pulumi:pulumi:Stack::ml-dev", type: "pulumi:pulumi:Stack" }, res("dev", "Pod", "trainer", "p1"), res("dev", "NetworkVolume", "data", "nv1")] } }),
  "prod.json": JSON.stringify({ checkpoint: { latest: { resources: [res("prod", "NetworkVolume", "data", "nv1")] } } }),
  "rig.json": JSON.stringify([res("qa", "Template", "worker", "tpl1"), { type: "pulumi-nodejs:dynamic/computeplatform:Pod", urn: "not-a-urn", id: "p9" }]),
  "bad.json": "{",
  "other.json": JSON.stringify({ hello: 1 }),
};
const states = readStates(["dev.json", "prod.json", "rig.json"], (f) => files[f]!);

test("a state names the stack and resource; an object in two states names both", () => {
  expect(ownerOf("Pod", { id: "p1", name: "trainer-1a2b3c4" }, states)).toEqual({ by: "state", stacks: ["ml/dev"], resource: "Pod::trainer", text: "stack ml/dev (Pod::trainer)" });
  expect(ownerOf("NetworkVolume", { id: "nv1", name: "data" }, states)).toMatchObject({ by: "state", stacks: ["ml/dev", "ml/prod"], text: "2 stacks: ml/dev, ml/prod (each would change and delete it)" });
  expect(ownerOf("Template", { id: "tpl1", name: "w" }, states)).toMatchObject({ stacks: ["ml/qa"], resource: "Template::worker" });
  // A URN it cannot read: the file stands for the stack.
  expect(ownerOf("Pod", { id: "p9", name: "x" }, states)).toMatchObject({ stacks: ["rig.json"] });
});

test("without a state: the pod's stack mark, its owner mark, a pending name; else it cannot tell", () => {
  const none = new Map();
  expect(ownerOf("Pod", { id: "a", name: "a", env: { COMPUTEPLATFORM_STACK: "acme/ml/prod", COMPUTEPLATFORM_OWNER: "0123.ab" } }, none)).toEqual({ by: "mark", stacks: ["acme/ml/prod"], text: "stack acme/ml/prod (its pod's stack mark)" });
  expect(ownerOf("Pod", { id: "b", name: "b", env: { COMPUTEPLATFORM_OWNER: "0123456789abcdef.00c0ffee" } }, none)).toEqual({ by: "mark", text: "a Pulumi stack (owner mark 0123456789abcdef; --state names it)" });
  expect(ownerOf("ServerlessEndpoint", { id: "c", name: "api-1a2b3c4~creating" }, none).by).toBe("unfinished");
  expect(ownerOf("Pod", { id: "d", name: "d", env: {} }, none).by).toBe("unmarked");
  expect(ownerOf("RegistryCredential", { id: "e", name: "e" }, none)).toEqual({ by: "unknown", text: "cannot tell (no owner mark on credentials; --state tells)" });
});

test("a file that is not a state is named", () => {
  expect(() => readStates(["bad.json"], (f) => files[f]!)).toThrow(/^--state bad\.json: /);
  expect(() => readStates(["other.json"], (f) => files[f]!)).toThrow("not a Pulumi state: expected `pulumi stack export` output (deployment.resources)");
});

// The Template class (template/index.ts): what it hands to Pulumi (every output named, its
// arguments, the stack's identity for a template it makes, env and the account as secret
// outputs), and what it tells an endpoint given its `id`: its name, its `serverless` output and,
// for a template this stack makes, what its workers run.
import * as pulumi from "@pulumi/pulumi";
import { shimProvider } from "../../../../src/resources/engine/shim";
import { templateBehind } from "../../../../src/resources/inputs/template-ref";
import { Template } from "../../../../src/resources/template";
import { registered, registrationOf } from "../../../helpers/registered";

jest.mock("@pulumi/pulumi", () => require("../../../helpers/registered").pulumiRecordingResources());

const valueOf = <T>(o: unknown) => new Promise<T>((resolve) => pulumi.output(o as T).apply((v) => (resolve(v as T), v)));
const TYPE = "computeplatform:Template";

beforeAll(() => pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: () => ({}) }, "ml", "dev"));
beforeEach(() => registered.splice(0));

test("every output is named (undefined when left out), the arguments as given, the stack's identity", () => {
  new Template("worker", { image: "worker:1", serverless: true, env: { A: "1" } });
  const r = registrationOf(TYPE, "worker");
  expect(r.provider).toBe(shimProvider("template"));
  expect(r.props).toMatchObject({ image: "worker:1", serverless: true, env: { A: "1" }, __logicalName: "worker", __project: "ml", __stack: "dev" });
  for (const output of ["name", "args", "disk", "ports", "mounts", "registry", "category", "public", "deleteWaitSeconds"]) expect(r.props).toHaveProperty(output);
});

test("env and the account are secret outputs, after the program's own", () => {
  new Template("worker", { image: "worker:1" }, { additionalSecretOutputs: ["image"] });
  expect(registrationOf(TYPE, "worker").opts?.additionalSecretOutputs).toEqual(["image", "env", "account"]);
});

test("its id output leads an endpoint to it: the name, serverless, and what its workers run", async () => {
  const t = new Template("worker", { image: "worker:1", serverless: true, env: { TOKEN: "hidden" } });
  const ref = templateBehind(t.id)!;
  expect(ref.resourceName).toBe("worker");
  expect(await valueOf(ref.serverless)).toBe(true);
  expect(await valueOf(ref.rolls)).toMatchObject({ image: "worker:1", env: ["TOKEN"] });
  expect(JSON.stringify(await valueOf(ref.rolls))).not.toContain("hidden");
});

test(".get reads by id: no stack identity, no claim on what its workers run; other state is refused", () => {
  const t = Template.get("existing", "tpl-1");
  const r = registrationOf(TYPE, "existing");
  expect(r.opts).toMatchObject({ id: "tpl-1" });
  expect(r.props).not.toHaveProperty("__stack");
  expect(templateBehind(t.id)).toMatchObject({ resourceName: "existing" });
  expect(templateBehind(t.id)).not.toHaveProperty("rolls");
  expect(() => Template.get("bad", "tpl-2", { image: "x" } as never)).toThrow(/^Template\.get\(name, id, state\?, opts\?\): "image" is not a field of its state \(account\)/);
});

// The ServerlessEndpoint class (serverless-endpoint/index.ts): what it hands to Pulumi. Its
// outputs named, its arguments, the stack's identity, the container and the account as secret
// outputs; the Template behind a `templateId` that is a Template's own `id` output, passed on for
// check() and the rollout's diff; the stack's cost ledger joined unless an argument it does not
// have is there to be refused or it is only read with `.get`.
import * as pulumi from "@pulumi/pulumi";
import { shimProvider } from "../../../../src/resources/engine/shim";
import { ServerlessEndpoint } from "../../../../src/resources/serverless-endpoint";
import { baseOwnerToken } from "../../../../src/resources/lifecycle/owner";
import { ENDPOINT_KIND, TEMPLATE_CHECK_KEY, TEMPLATE_ROLLS_KEY } from "../../../../src/resources/serverless-endpoint/schema";
import { Template } from "../../../../src/resources/template";
import { registered, registrationOf } from "../../../helpers/registered";

jest.mock("@pulumi/pulumi", () => require("../../../helpers/registered").pulumiRecordingResources());

const TYPE = "computeplatform:ServerlessEndpoint";
const stackCosts = () => registered.filter((r) => r.type === "computeplatform:StackCost");
const valueOf = <T>(o: unknown) => new Promise<T>((resolve) => pulumi.output(o as T).apply((v) => (resolve(v as T), v)));

beforeEach(async () => {
  registered.splice(0);
  // A new program run for each test, so a new ledger.
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: () => ({}) }, "ml", "dev");
});

test("every output is named beside the arguments, the logical name and the stack's identity", () => {
  new ServerlessEndpoint("api", { gpuIds: "ADA_24", templateId: "tpl-1", workersMax: 2 });
  const r = registrationOf(TYPE, "api");
  expect(r.provider).toBe(shimProvider("serverless-endpoint"));
  expect(r.props).toMatchObject({ gpuIds: "ADA_24", templateId: "tpl-1", workersMax: 2, __logicalName: "api", __project: "ml", __stack: "dev" });
  for (const output of ["type", "pods", "requestUrls", "hourlyCost", "api", "container", "dataCenterIds", "version", "rollout", "workersMin", "readyTimeoutSeconds"]) {
    expect(r.props).toHaveProperty(output);
  }
});

test("the container and the account are secret outputs, after the program's own", () => {
  new ServerlessEndpoint("api", { gpuIds: "ADA_24", api: "rest", container: { image: "w:1" } }, { additionalSecretOutputs: ["name"] });
  expect(registrationOf(TYPE, "api").opts?.additionalSecretOutputs).toEqual(["name", "container", "account"]);
});

test("a Template's own id output brings its name, serverless and what its workers run; a plain id brings nothing", async () => {
  const worker = new Template("worker", { image: "worker:1", serverless: true });
  new ServerlessEndpoint("api", { gpuIds: "ADA_24", templateId: worker.id });
  const props = registrationOf(TYPE, "api").props;
  const check = props[TEMPLATE_CHECK_KEY] as { resourceName: string; serverless: unknown };
  expect(check.resourceName).toBe("worker");
  expect(await valueOf(check.serverless)).toBe(true);
  expect(await valueOf(props[TEMPLATE_ROLLS_KEY])).toMatchObject({ image: "worker:1" });
  new ServerlessEndpoint("plain", { gpuIds: "ADA_24", templateId: "tpl-1" });
  expect(registrationOf(TYPE, "plain").props).not.toHaveProperty(TEMPLATE_CHECK_KEY);
  expect(registrationOf(TYPE, "plain").props).not.toHaveProperty(TEMPLATE_ROLLS_KEY);
});

test("an endpoint joins the stack's cost; one with an argument it does not have, or read with .get, does not", () => {
  new ServerlessEndpoint("api", { gpuIds: "ADA_24", templateId: "tpl-1" });
  expect(stackCosts()).toHaveLength(1);
  expect([registrationOf(TYPE, "api").opts?.dependsOn].flat()).toEqual([stackCosts()[0]!.resource]);
  new ServerlessEndpoint("odd", { gpuIds: "ADA_24", templateId: "tpl-1", workerMax: 2 } as never);
  expect(registrationOf(TYPE, "odd").opts?.dependsOn).toBeUndefined();
  ServerlessEndpoint.get("existing", "ep-1", { api: "rest" });
  expect(registrationOf(TYPE, "existing").opts).toMatchObject({ id: "ep-1" });
  expect(registrationOf(TYPE, "existing").opts?.dependsOn).toBeUndefined();
  expect(registrationOf(TYPE, "existing").props.api).toBe("rest");
  ServerlessEndpoint.get("elsewhere", "ep-3", { account: { name: "b", apiKey: "k" } });
  expect(registrationOf(TYPE, "elsewhere").props.account).toBeDefined();
});

test("the endpoint's ledger entry: the workers and GPUs it is priced from, its name, api and account's name, its owner token and the pricing fields it ignores", async () => {
  new ServerlessEndpoint(
    "api",
    { name: "given", gpuIds: "ADA_24", gpuCount: 2, workersMin: 1, workersMax: 4, templateId: "tpl-1", api: "rest", account: { name: "b", apiKey: "cp_key_b" } },
    { ignoreChanges: ["idleTimeout", "gpuIds", "gpuCount", "workersMin", "workersMax"] },
  );
  const entries = (await stackCosts()[0]!.props.entries) as Record<string, unknown>;
  expect(entries).toEqual({
    "endpoint api": {
      kind: "endpoint",
      name: "api",
      gpuIds: "ADA_24",
      gpuCount: 2,
      workersMin: 1,
      workersMax: 4,
      declaredName: "given",
      api: "rest",
      account: "b",
      owner: baseOwnerToken(ENDPOINT_KIND, { __project: "ml", __stack: "dev" }, "api"),
      ignore: ["gpuIds", "gpuCount", "workersMin", "workersMax"],
    },
  });
});

test(".get takes the api and the account only; any other state is refused by name", () => {
  expect(() => ServerlessEndpoint.get("bad", "ep-2", { gpuIds: "ADA_24" } as never)).toThrow(/^ServerlessEndpoint\.get\(name, id, state\?, opts\?\): "gpuIds" is not a field of its state \(api, account\)/);
});

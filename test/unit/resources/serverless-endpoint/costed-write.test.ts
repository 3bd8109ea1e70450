// A ServerlessEndpoint's writes as the budgets see them (serverless-endpoint/costed-write.ts): the
// workers and GPUs a create or an update saves, a worker field left out being the platform's
// default on a create and what the endpoint has on an update; a create keyed by its name, an
// update by the endpoint's id; the stack that makes it.
import { endpointWrite } from "../../../../src/resources/serverless-endpoint/costed-write";
import type { EndpointInputs } from "../../../../src/resources/serverless-endpoint/schema";

const inputs = (over: Partial<EndpointInputs> = {}) => ({ name: "image-api", gpuIds: "ADA_24,AMPERE_24", ...over }) as EndpointInputs;

test("a create: the platform's defaults for what the program leaves out (0 to 3 workers of 1 GPU), keyed by its name", () => {
  expect(endpointWrite(inputs())).toEqual({
    label: "endpoint image-api",
    change: "create (0 to 3 workers of 1 ADA_24 GPU)",
    id: undefined,
    key: "create:endpoint:image-api",
    replaces: undefined,
    stack: undefined,
    compute: { kind: "endpoint", gpuIds: "ADA_24,AMPERE_24", workersMin: 0, workersMax: 3, gpuCount: 1 },
  });
});

test("what the program gives wins; several GPUs are said in the plural", () => {
  const w = endpointWrite(inputs({ workersMin: 1, workersMax: 5, gpuCount: 2 }));
  expect(w.compute).toMatchObject({ workersMin: 1, workersMax: 5, gpuCount: 2 });
  expect(w.change).toBe("create (1 to 5 workers of 2 ADA_24 GPUs)");
});

test("an update keeps what the endpoint has for a field left out, keyed by the endpoint's id", () => {
  const w = endpointWrite(inputs({ workersMax: 8 }), { workersMin: 2, workersMax: 4, gpuCount: 4 }, "ep-1");
  expect(w).toMatchObject({ id: "ep-1", key: undefined, change: "update (2 to 8 workers of 4 ADA_24 GPUs)" });
  expect(w.compute).toMatchObject({ workersMin: 2, workersMax: 8, gpuCount: 4 });
  // State without a field (an older release) falls back to the platform's default.
  expect(endpointWrite(inputs(), {}, "ep-1").compute).toMatchObject({ workersMin: 0, workersMax: 3, gpuCount: 1 });
});

test("a replacement names the endpoint it replaces; the stack comes from the program's identity", () => {
  const w = endpointWrite(inputs({ __project: "ml", __stack: "dev" } as never), undefined, undefined, "ep-old");
  expect(w).toMatchObject({ replaces: "ep-old", stack: "ml/dev" });
});

// What the endpoint's one lifecycle shares between its two APIs (serverless-endpoint/dialect.ts):
// the error of an endpoint that exists but did not become ready, which carries what Pulumi's
// dynamic provider records as a partial result, and the error of one gone from the platform,
// which says what to run.
import { EndpointNotReadyError, goneError } from "../../../../src/resources/serverless-endpoint/dialect";
import type { ServerlessEndpointOutputs } from "../../../../src/resources/serverless-endpoint/schema";

test("an endpoint not ready keeps its id, its outputs and every reason, so state records it", () => {
  const properties = { id: "ep-1", name: "api", workersMin: 1 } as unknown as ServerlessEndpointOutputs;
  const err = new EndpointNotReadyError("ep-1", properties, ["no worker RUNNING after 600 s", "1 worker THROTTLED"]);
  expect(err).toBeInstanceOf(Error);
  expect(err.name).toBe("EndpointNotReadyError");
  expect(err.message).toBe("no worker RUNNING after 600 s; 1 worker THROTTLED");
  expect(err).toMatchObject({ id: "ep-1", properties, reasons: ["no worker RUNNING after 600 s", "1 worker THROTTLED"] });
});

test("an endpoint gone from the platform is named with its id, and the error says what to run", () => {
  const err = goneError('api "v2"', "ep-9");
  expect(err.message).toBe(
    'ServerlessEndpoint "api \\"v2\\"" (ep-9) no longer exists on the platform; run `pulumi refresh` to forget it, then `pulumi up` to make a new one',
  );
});

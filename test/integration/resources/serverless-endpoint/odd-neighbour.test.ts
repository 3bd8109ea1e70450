/**
 * Endpoints are read only through `myself`, so an endpoint record the client cannot read sits
 * in the same list as every other endpoint of the account: a refresh of its neighbours must
 * still read them, and the odd endpoint itself must fail its read, never look deleted.
 * Real HTTP against a hostile loopback GraphQL server, through the provider's read.
 */
import { ResponseValidationError } from "../../../../src/client";
import { ServerlessEndpointProvider } from "../../../../src/resources/serverless-endpoint/provider";
import { loopbackClients, wireEndpoint } from "../../../helpers/loopback";

const { setup } = loopbackClients("cp_test_odd_endpoint_0025");

const endpoint = wireEndpoint;

test("a refresh of an endpoint beside one with workersMax 1e20 reads it; the odd one's read fails naming the field", async () => {
  const { cp } = await setup(() => ({
    status: 200,
    body: { data: { myself: { endpoints: [endpoint({ id: "ep-odd", name: "odd", workersMax: 1e20 }), endpoint({})], serverlessDiscount: null } } },
  }));
  const p = new ServerlessEndpointProvider({ client: () => cp });
  const [neighbour, itself] = await Promise.allSettled([p.read("ep-good", {}), p.read("ep-odd", {})]);
  expect(neighbour).toMatchObject({ status: "fulfilled", value: { id: "ep-good", props: { name: "good" } } });
  expect(itself.status).toBe("rejected");
  const reason = (itself as PromiseRejectedResult).reason as Error;
  expect(reason).toBeInstanceOf(ResponseValidationError);
  expect(reason.message).toMatch(/"ep-odd".*workersMax/);
  // Alone (not in a refresh's batch) too.
  await expect(p.read("ep-odd", {})).rejects.toBeInstanceOf(ResponseValidationError);
});

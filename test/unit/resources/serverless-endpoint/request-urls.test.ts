// ServerlessEndpoint's requestUrls output, the pure parts: over GraphQL built on the client's
// serverless address for a queue-based endpoint; over REST the platform's own, as answered.
import { localSettings, queueUrls } from "../../../../src/resources/serverless-endpoint/plan";
import { restOutputs } from "../../../../src/resources/serverless-endpoint/rest-plan";
import { type RestEndpoint, schemas } from "../../../../src/client";

describe("queueUrls (GraphQL answers none: built on the serverless address)", () => {
  test("a queue-based endpoint's run and runsync, whatever trailing slashes the address has", () => {
    for (const base of ["https://api.example.test", "https://api.example.test/", "https://api.example.test//"]) {
      expect(queueUrls(base, "ep1", "QB")).toEqual({ run: "https://api.example.test/v2/ep1/run", runSync: "https://api.example.test/v2/ep1/runsync" });
    }
  });

  test("an address with a path keeps it; an id is one path segment", () => {
    expect(queueUrls("http://127.0.0.1:8787/proxy", "a/b", "QB")?.run).toBe("http://127.0.0.1:8787/proxy/v2/a%2Fb/run");
  });

  test("none for a load-balancing endpoint (its paths are the worker's) or without an address", () => {
    expect(queueUrls("https://api.example.test", "ep1", "LB")).toBeUndefined();
    expect(queueUrls(undefined, "ep1", "QB")).toBeUndefined();
    expect(queueUrls("", "ep1", "QB")).toBeUndefined();
  });
});

describe("restOutputs: the platform's requestUrls as answered", () => {
  // An endpoint as the client reads it, through the client's own schema.
  const ep = (requestUrls?: Record<string, unknown>): RestEndpoint =>
    schemas.RestEndpointSchema.parse({
      ...{ id: "ep1", name: "api", type: "QUEUE_BASED", gpu: { pools: ["ADA_24"] }, workers: { min: 0, max: 1 } },
      ...{ scaling: { type: "QUEUE_DELAY", value: 4, idleTimeout: 5 }, dataCenterIds: [], networkVolumes: [], timeout: 300000 },
      ...{ flashboot: "OFF", createdAt: "2026-01-01T00:00:00Z", ...(requestUrls ? { requestUrls } : {}) },
    });
  const settings = localSettings({});

  test("run and runSync of a queue-based endpoint, base of a load-balancing one; fields the contract does not name are left out", () => {
    expect(restOutputs(ep({ run: "https://x/v2/ep1/run", runSync: "https://x/v2/ep1/runsync", extra: "y" }), [], settings).requestUrls).toEqual({
      run: "https://x/v2/ep1/run",
      runSync: "https://x/v2/ep1/runsync",
    });
    expect(restOutputs(ep({ base: "https://ep1.x" }), [], settings).requestUrls).toEqual({ base: "https://ep1.x" });
  });

  test("none when the platform answers none", () => {
    expect(restOutputs(ep(), [], settings)).not.toHaveProperty("requestUrls");
    expect(restOutputs(ep({}), [], settings)).not.toHaveProperty("requestUrls");
  });
});

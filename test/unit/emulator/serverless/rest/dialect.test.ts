// The later revision of /v2/serverless bodies the platform's own clients send, rewritten into
// the contract's spelling before its checks: `type: "QUEUE"` on create, `scaling.queueDelay` or
// `scaling.requestCount`, `workers.idleTimeout`; a load-balancing create refused; anything mixed
// left for the contract's check to refuse. The HTTP side is rest/endpoints.test.ts.
import { fromLaterRevision } from "../../../../../src/emulator/serverless/rest/dialect";

const refuse = (detail: string): never => {
  throw new Error(detail);
};
const create = (body: unknown) => fromLaterRevision(body, "create", refuse);
const update = (body: unknown) => fromLaterRevision(body, "update", refuse);

test("a body in the contract's spelling is left as it is", () => {
  const body = { name: "e", scaling: { type: "QUEUE_DELAY", value: 4, idleTimeout: 5 }, workers: { min: 0, max: 3 } };
  expect(create(body)).toEqual(body);
  expect(update(body)).toEqual(body);
});

test("what is not an object is left for the contract's check", () => {
  for (const body of [null, [], "x", 3]) expect(create(body)).toBe(body);
});

test("type QUEUE on a create is the contract's default and goes; the contract's own words stay (an unknown property there)", () => {
  expect(create({ name: "e", type: "QUEUE" })).toEqual({ name: "e" });
  expect(create({ name: "e", type: "QUEUE_BASED" })).toEqual({ name: "e", type: "QUEUE_BASED" });
  expect(update({ type: "QUEUE" })).toEqual({ type: "QUEUE" });
});

test("a load-balancing create is refused naming GraphQL as the way; an update is left for its own check", () => {
  expect(() => create({ type: "LOAD_BALANCER" })).toThrow(
    "type: a REST create makes queue-based endpoints only; make a load-balancing endpoint over GraphQL (saveEndpoint with type LB), then read and change it here",
  );
  expect(update({ type: "LOAD_BALANCER" })).toEqual({ type: "LOAD_BALANCER" });
});

test("scaling.queueDelay and scaling.requestCount become value, each only under its own type", () => {
  expect(update({ scaling: { type: "QUEUE_DELAY", queueDelay: 0.5 } })).toEqual({ scaling: { type: "QUEUE_DELAY", value: 0.5 } });
  expect(update({ scaling: { type: "REQUEST_COUNT", requestCount: 3, idleTimeout: 9 } })).toEqual({ scaling: { type: "REQUEST_COUNT", idleTimeout: 9, value: 3 } });
  const crossed = { scaling: { type: "REQUEST_COUNT", queueDelay: 3 } };
  expect(update(crossed)).toEqual(crossed);
});

test("a mix of both spellings is left whole, for the contract's check to refuse", () => {
  const withValue = { scaling: { type: "QUEUE_DELAY", value: 2, queueDelay: 3 } };
  expect(create(withValue)).toEqual(withValue);
  const both = { scaling: { type: "QUEUE_DELAY", queueDelay: 2, requestCount: 3 } };
  expect(create(both)).toEqual(both);
});

test("workers.idleTimeout moves to scaling.idleTimeout, made when there is no scaling, unless scaling has its own", () => {
  expect(create({ workers: { max: 2, idleTimeout: 11 } })).toEqual({ workers: { max: 2 }, scaling: { idleTimeout: 11 } });
  expect(create({ workers: { max: 2, idleTimeout: 11 }, scaling: { type: "REQUEST_COUNT", requestCount: 3 } })).toEqual({
    workers: { max: 2 },
    scaling: { type: "REQUEST_COUNT", value: 3, idleTimeout: 11 },
  });
  const twice = { workers: { idleTimeout: 11 }, scaling: { type: "QUEUE_DELAY", value: 4, idleTimeout: 5 } };
  expect(create(twice)).toEqual(twice);
  const badScaling = { workers: { idleTimeout: 11 }, scaling: "fast" };
  expect(create(badScaling)).toEqual(badScaling);
});

test("the body given is not changed", () => {
  const body = { type: "QUEUE", workers: { max: 2, idleTimeout: 11 }, scaling: { type: "QUEUE_DELAY", queueDelay: 1 } };
  const before = structuredClone(body);
  create(body);
  expect(body).toEqual(before);
});

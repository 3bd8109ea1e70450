// Pods (pods.ts) against a scripted loopback server: a refusal before sending is a rejected
// promise like any answer (a caller's .catch or Promise.all sees it), an update is a PATCH
// retried on a 5xx (the same body gives the same pod), and an action is sent once whatever
// the answer (a second start or stop is not the same request). The create's recovery is held by
// the core's create-once tests and the pod provider's.
import { InternalServerError, RequestValidationError } from "../../../src/client";
import { loopbackClients, wirePod } from "../../helpers/loopback";

const { setup } = loopbackClients("cp_sentinel_pods_c41d");

test("a refusal before sending is a rejected promise, never a throw at the call", async () => {
  const { srv, cp } = await setup(() => ({ status: 200, body: wirePod() }));
  for (const call of [() => cp.pods.get(".."), () => cp.pods.update("..", { name: "n" }), () => cp.pods.update("p1", { color: "red" } as never)]) {
    let answer: Promise<unknown> | undefined;
    expect(() => (answer = call())).not.toThrow();
    await expect(answer).rejects.toBeInstanceOf(RequestValidationError);
  }
  expect(srv.seen).toHaveLength(0);
});

test("an update is a PATCH of the given fields, retried after a 5xx", async () => {
  const { srv, cp } = await setup((_, i) => (i === 0 ? { status: 503, body: {} } : { status: 200, body: wirePod({ name: "renamed" }) }));
  await expect(cp.pods.update("p1", { name: "renamed" })).resolves.toMatchObject({ name: "renamed" });
  expect(srv.seen.map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual(['PATCH /v2/pods/p1 {"name":"renamed"}', 'PATCH /v2/pods/p1 {"name":"renamed"}']);
});

test("an action is sent once: a 5xx is the caller's to judge", async () => {
  const { srv, cp } = await setup(() => ({ status: 503, body: {} }));
  await expect(cp.pods.action("p1", "stop")).rejects.toBeInstanceOf(InternalServerError);
  expect(srv.seen.map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual(['POST /v2/pods/p1/action {"action":"stop"}']);
});

/**
 * A refresh against a platform whose pod list holds a record the client cannot read: the
 * readable pods refresh from the shared list as usual, and the odd pod itself is never taken
 * for gone (that would drop it from state while it runs and bills): its read fails naming the
 * field. Real HTTP against a hostile loopback server, through the Pod provider's read.
 */
import { type Pod, ResponseValidationError, systemClock } from "../../../../src/client";
import { Poller, WaitTimeoutError } from "../../../../src/resources/lifecycle/poller";
import { PodProvider } from "../../../../src/resources/pod/provider";
import { loopbackClients, wirePod } from "../../../helpers/loopback";

const { setup } = loopbackClients("cp_test_odd_neighbour_0025");

const good = wirePod({ id: "pod-good", name: "good", status: "RUNNING", startedAt: "2026-01-01T00:01:00.000Z" });
const odd = wirePod({ id: "pod-odd", name: "odd", status: "RUNNING", disk: 1e20 });

test("a refresh of two pods, one of them odd: the neighbour refreshes, the odd one fails its read and is not dropped", async () => {
  const { cp, srv } = await setup((r) => {
    if (r.path === "/v2/pods") return { status: 200, body: { pods: [odd, good] } };
    if (r.path === "/v2/pods/pod-odd") return { status: 200, body: odd };
    if (r.path === "/v2/pods/pod-good") return { status: 200, body: good };
    return { status: 404, body: { title: "Not Found", status: 404 } };
  });
  const p = new PodProvider({ client: () => cp });
  // The engine sends a refresh's reads together: they share one list.
  const [neighbour, itself] = await Promise.allSettled([p.read("pod-good", {}), p.read("pod-odd", {})]);
  expect(neighbour).toMatchObject({ status: "fulfilled", value: { id: "pod-good", props: { name: "good", status: "RUNNING" } } });
  expect(itself.status).toBe("rejected");
  const reason = (itself as PromiseRejectedResult).reason as Error;
  expect(reason).toBeInstanceOf(ResponseValidationError);
  expect(reason.message).toMatch(/disk/);
  expect(srv.count("GET", "/v2/pods")).toBe(1);
});

test("a status wait while a neighbour is odd ends when the pod runs; a wait on the odd pod never reads it as gone", async () => {
  let lists = 0;
  const { cp } = await setup((r) => {
    if (r.path !== "/v2/pods") return { status: 404, body: { title: "Not Found", status: 404 } };
    lists++;
    return { status: 200, body: { pods: [odd, { ...good, status: lists < 3 ? "STARTING" : "RUNNING" }] } };
  });
  const poller = new Poller<Pod>(() => cp.pods.list(), systemClock, { noun: "pod", slow: () => false, intervalMs: 5 });
  const running = poller.wait("pod-good", { description: "RUNNING", timeoutMs: 5000, until: (p) => (p?.status === "RUNNING" ? "done" : "pending") });
  await expect(running).resolves.toMatchObject({ id: "pod-good", status: "RUNNING" });
  // `undefined` is what a waiter sees for a pod no longer listed: the odd pod must not look so.
  const gone = poller.wait("pod-odd", { description: "gone", timeoutMs: 100, until: (p) => (p === undefined ? "done" : "pending") });
  await expect(gone).rejects.toBeInstanceOf(WaitTimeoutError);
});
